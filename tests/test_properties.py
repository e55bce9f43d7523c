"""Property tests of the engine's codecs (Hypothesis): any text either parses or raises
:class:`engine.BadInput`, never anything else; every valid value round-trips.

The codecs: Hub position strings, FEN, Hub moves, PDN moves and PDN game files, in every
variant.  Example counts are modest so that CI stays lean; ``HYPOTHESIS_PROFILE=deep``
runs ten times as many.
"""
from __future__ import annotations

import os
import random

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
            if bit & v.table[V_PROMO_WHITE if side == 0 else V_PROMO_BLACK] or rng.random() < 0.3:
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
