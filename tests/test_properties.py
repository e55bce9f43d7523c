"""Property tests of the engine's codecs (Hypothesis): any text either parses or raises
:class:`engine.BadInput`, never anything else; every valid value round-trips.

The codecs: Hub position strings, FEN, Hub moves, PDN moves and PDN game files, in every
variant.  Example counts are modest so that CI stays lean; ``HYPOTHESIS_PROFILE=deep``
runs ten times as many.
"""
from __future__ import annotations

import os
import random
from dataclasses import replace as dataclasses_replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import Game, Position
from engine.variants import ALL, V_PROMO_BLACK, V_PROMO_WHITE

settings.register_profile("ci", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=1500, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

variants = st.sampled_from(ALL)

# Text close enough to each format to get past its first checks.
POSITION_ALPHABET = "WBwbeKk:,-.0123456789 xXabcdefghij\t\"\x00é"
MOVE_ALPHABET = "0123456789-x:*abcdefghij ?!"
PDN_ALPHABET = '[]"{}()%;$.0123456789-x*/ \nWBKGameTypeFENEvent12a1h8!?'


def parses_or_refuses(parse, text):
    """``parse(text)`` returns, or raises BadInput: nothing else escapes."""
    try:
        parse(text)
    except engine.BadInput as exc:
        assert str(exc)                       # a message a person can act on


@st.composite
def positions(draw, variant=None):
    """A position of any variant: a few pieces per side, men off their crowning row."""
    v = draw(variants) if variant is None else variant
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    squares = list(range(1, v.nsquares + 1))
    rng.shuffle(squares)
    white = black = kings = 0
    for side in (0, 1):
        for _ in range(rng.randint(1, 12)):
            square = squares.pop()
            bit = 1 << v.square_bit(square)
            if bit & int(v.table[V_PROMO_WHITE if side == 0 else V_PROMO_BLACK]) or rng.random() < 0.3:
                kings |= bit
            if side == 0:
                white |= bit
            else:
                black |= bit
    return Position(white, black, kings, rng.randint(0, 1), v)


@st.composite
def games(draw):
    """A game of random legal moves from a variant's start (to its end or 40 plies)."""
    v = draw(variants)
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    game = Game(None, v)
    for _ in range(rng.randint(0, 40)):
        moves = game.legal_moves()
        if not moves or game.outcome() is not None:
            break
        game.push(rng.choice(moves))
    return game


# ----- any text: parsed or refused -----------------------------------------------------------

@given(st.one_of(st.text(), st.text(alphabet=POSITION_ALPHABET, max_size=160)), variants)
def test_any_position_text_is_parsed_or_refused(text, variant):
    for parse in (engine.pos_from_hub, engine.pos_from_fen, engine.parse_position):
        parses_or_refuses(lambda t: parse(t, variant), text)


@given(positions(), st.one_of(st.text(), st.text(alphabet=MOVE_ALPHABET, max_size=40)))
def test_any_move_text_is_parsed_or_refused(pos, text):
    parses_or_refuses(lambda t: engine.move_from_hub(pos, t), text)
    parses_or_refuses(lambda t: engine.move_from_pdn(pos, t), text)


@given(st.one_of(st.text(), st.text(alphabet=PDN_ALPHABET, max_size=400)))
def test_any_pdn_text_is_read_or_refused(text):
    parses_or_refuses(engine.read_pdn, text)


@given(st.binary(max_size=300))
def test_any_bytes_decoded_as_a_client_would_are_parsed_or_refused(data):
    text = data.decode("utf-8", errors="replace")
    parses_or_refuses(engine.read_pdn, text)
    parses_or_refuses(engine.parse_position, text)


# ----- valid values round-trip ---------------------------------------------------------------

@given(positions())
def test_positions_round_trip_through_hub_strings_and_fen(pos):
    assert engine.pos_from_hub(engine.pos_to_hub(pos), pos.variant) == pos
    assert engine.pos_from_fen(engine.pos_to_fen(pos), pos.variant) == pos
    assert engine.parse_position(engine.pos_to_fen(pos), pos.variant) == pos


@given(games())
def test_every_legal_move_round_trips_through_hub_and_pdn_notation(game):
    pos = game.position
    for move in engine.legal_moves(pos):
        assert engine.move_from_hub(pos, engine.move_to_hub(move, pos.variant)) == move
        assert engine.move_from_pdn(pos, engine.move_to_pdn(pos, move)) == move


@given(games())
def test_games_round_trip_through_pdn(game):
    text = engine.write_pdn(game, {"Event": "property test"})
    (back,) = engine.read_pdn(text)
    assert back.start == game.start and back.moves == game.moves
    assert back.tags["Event"] == "property test"


def test_a_start_position_round_trips():
    for v in ALL:
        pos = engine.start_position(v)
        assert engine.pos_from_fen(engine.pos_to_fen(pos), v) == pos
        assert engine.play(pos, engine.legal_moves(pos)[0]).turn != pos.turn


# ----- protocol messages: Hub lines and DXP messages -----------------------------------------

from protocol.dxp import wire as dxp  # noqa: E402
from protocol.hub import wire as hub  # noqa: E402

HUB_ALPHABET = 'abcdefghijklmnopqrstuvwxyz-=" \t0123456789.xé\x00'
hub_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-0123456789", min_size=1, max_size=12)
hub_values = st.text(alphabet=st.characters(blacklist_characters='"\n\r',
                                            blacklist_categories=("Cs",)), max_size=20)


@given(st.one_of(st.text(), st.text(alphabet=HUB_ALPHABET, max_size=120)))
def test_any_hub_line_is_tokenized_never_raised(text):
    cmd = hub.tokenize(text)      # a malformed line is a Command with an error, not a raise
    assert cmd is None or cmd.name


@given(hub_names, st.lists(st.tuples(hub_names, hub_values), max_size=5))
def test_hub_lines_round_trip(command, pairs):
    cmd = hub.tokenize(hub.line(command, *pairs))
    assert cmd.name == command and cmd.error is None
    assert list(cmd.args) == [(k, v.replace('"', "'")) for k, v in pairs]


@given(st.one_of(st.text(max_size=200),
                 st.text(alphabet="RAMECBK0123456789WZwzeAB ", max_size=130)))
def test_any_dxp_message_is_decoded_or_refused(text):
    parses_or_refuses(dxp.decode, text)


@given(st.binary(max_size=400))
def test_any_dxp_bytes_are_framed_within_bounds(data):
    framer = dxp.Framer()
    for message in framer.feed(data) + framer.feed(b"\0"):
        assert 0 < len(message) <= dxp.MAX_LEN + 1
        parses_or_refuses(dxp.decode, message)
    assert framer.pending == 0


squares = st.integers(1, 50)
dxp_messages = st.one_of(
    st.builds(dxp.GameReq, st.text(alphabet="abcXYZ 123", max_size=32).map(str.strip),
              st.booleans(), st.sampled_from([0.0, 0.5, 1.0, 5.0, 999.0]), st.integers(0, 999),
              st.one_of(st.none(), st.text(alphabet="ewzWZ", min_size=50, max_size=50)),
              st.booleans()),
    st.builds(dxp.GameAcc, st.text(alphabet="abc XYZ", max_size=32).map(str.strip),
              st.integers(0, 3)),
    st.builds(dxp.MoveMsg, st.integers(0, 9999), squares, squares,
              st.lists(squares, max_size=20, unique=True).map(tuple)),
    st.builds(dxp.GameEnd, st.integers(0, 3), st.integers(0, 1)),
    st.builds(dxp.Chat, st.text(alphabet="abc XYZ!?.,", max_size=100)),
    st.builds(dxp.BackReq, st.integers(1, 999), st.booleans()),
    st.builds(dxp.BackAcc, st.integers(0, 2)),
)


@given(dxp_messages)
def test_dxp_messages_round_trip(msg):
    text = dxp.encode(msg)
    back = dxp.decode(text)
    if isinstance(msg, dxp.GameReq) and msg.board is None:
        msg = dataclasses_replace(msg, white_to_move=back.white_to_move)
    if isinstance(msg, dxp.Chat):
        assert back.text.rstrip() == msg.text.rstrip()
        return
    assert back == msg
    assert dxp.Framer().feed(dxp.frame(msg)) == [text]
