"""Codecs: Hub position strings, FEN (canonical and loose), Hub and PDN moves, bad input.

Round trips run over seeded random positions (random games and random boards from the
twin test's sources); every codec gets malformed input and must raise BadInput, and
nothing else, with a message naming the problem.
"""
from __future__ import annotations

import random
import re

import pytest

import slow_rules
from engine import (
    WHITE, BadInput, Move, find_move, get_variant, legal_moves, move_from_hub, move_from_pdn,
    move_to_hub, move_to_pdn, parse_position, pos_from_dxp, pos_from_fen, pos_from_hub,
    pos_from_pieces, pos_to_dxp, pos_to_fen, pos_to_hub, start_position,
)
from test_twin import dense, king_heavy, random_games


def positions(seed: int):
    rng = random.Random(seed)
    return ([p for i, p in enumerate(random_games(rng, 8)) if i % 3 == 0]
            + list(king_heavy(rng, 150)) + list(dense(rng, 150)))


POSITIONS = positions(31)

# A white king on 15 can take 41, 9 and 24 or 23, 9 and 24, both ending on 4:
# two captures with the same from and to, told apart in PDN by the landing squares.
TWIN_CAPTURES = "W:WK15:B9,23,24,41"


# ----- positions --------------------------------------------------------------------

def test_start_position_texts():
    start = start_position()
    fen = "W:W" + ",".join(map(str, range(31, 51))) + ":B" + ",".join(map(str, range(1, 21)))
    assert pos_to_fen(start) == fen
    assert pos_to_hub(start) == "W" + "b" * 20 + "e" * 10 + "w" * 20
    for text in ("startpos", fen, "W:W31-50:B1-20", pos_to_hub(start), " startpos "):
        assert parse_position(text) == start


def test_hub_and_fen_round_trips():
    assert len(POSITIONS) > 400
    canonical = re.compile(r"[WB]:W(K?\d+(,K?\d+)*)?:B(K?\d+(,K?\d+)*)?")
    for pos in POSITIONS:
        hub = pos_to_hub(pos)
        assert len(hub) == 51 and pos_from_hub(hub) == pos
        fen = pos_to_fen(pos)
        assert canonical.fullmatch(fen), fen
        for section in fen.split(":")[1:]:
            squares = [int(s.lstrip("K")) for s in section[1:].split(",") if s]
            assert squares == sorted(squares)
        assert pos_from_fen(fen) == pos and parse_position(fen) == pos
        assert parse_position(hub) == pos


def ranges(squares: list[int], king: bool) -> list[str]:
    """``squares`` written as runs (``31-35``), with ``K`` on king runs."""
    out, i = [], 0
    while i < len(squares):
        j = i
        while j + 1 < len(squares) and squares[j + 1] == squares[j] + 1:
            j += 1
        run = str(squares[i]) if i == j else f"{squares[i]}-{squares[j]}"
        out.append(("K" if king else "") + run)
        i = j + 1
    return out


def loose_fen(pos, rng: random.Random) -> str:
    """The same position as a FEN in the loose forms seen in the wild."""
    sections = []
    for colour, side in (("W", 0), ("B", 1)):
        items = ranges(pos.squares(side, kings=False), False) + \
            ranges(pos.squares(side, kings=True), True)
        rng.shuffle(items)
        sections.append(colour + ("," + " " * rng.randint(0, 1)).join(items))
    if rng.random() < 0.5:
        sections.reverse()
    text = ("W" if pos.turn == 0 else "B") + ":" + ":".join(sections)
    if rng.random() < 0.4:
        text += ":H0:F1"
    if rng.random() < 0.4:
        text += "."
    if rng.random() < 0.3:
        text = f'"{text}"'
    return " " * rng.randint(0, 2) + text + " " * rng.randint(0, 2)


def test_loose_fen_forms():
    rng = random.Random(5)
    for pos in POSITIONS:
        text = loose_fen(pos, rng)
        assert pos_from_fen(text) == pos, text
    kings = pos_from_fen("B:WK31-33,40:BK1-3,12.")
    assert kings.squares(0, kings=True) == [31, 32, 33] and kings.squares(0, kings=False) == [40]
    assert kings.squares(1, kings=True) == [1, 2, 3] and kings.turn == 1
    lidraughts = "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:" \
                 "B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20:H0:F1"
    assert pos_from_fen(lidraughts) == start_position()
    assert pos_from_fen("W : W 31 - 35 , 40 : B 1") == pos_from_fen("W:W31-35,40:B1")


# ----- moves --------------------------------------------------------------------

def move_positions():
    for pos in POSITIONS[::2]:
        moves = legal_moves(pos)
        if moves:
            yield pos, moves


def test_hub_move_round_trips():
    rng = random.Random(8)
    checked = 0
    for pos, moves in move_positions():
        for move in moves:
            text = move_to_hub(move)
            assert move_from_hub(pos, text) == move
            if not move.captured:
                assert text == f"{move.frm}-{move.to}"
                continue
            assert text == "x".join(map(str, (move.frm, move.to, *sorted(move.captured))))
            shuffled = list(move.captured)
            rng.shuffle(shuffled)
            assert move_from_hub(pos, "x".join(map(str, (move.frm, move.to, *shuffled)))) == move
            short = f"{move.frm}x{move.to}"
            rivals = [m for m in moves if (m.frm, m.to) == (move.frm, move.to)]
            if len(rivals) == 1:
                assert move_from_hub(pos, short) == move
            else:
                with pytest.raises(BadInput, match="ambiguous"):
                    move_from_hub(pos, short)
            checked += 1
    assert checked > 300


def test_pdn_move_round_trips():
    checked = 0
    for pos, moves in move_positions():
        for move in moves:
            text = move_to_pdn(pos, move)
            assert move_from_pdn(pos, text) == move
            rivals = [m for m in moves if (m.frm, m.to) == (move.frm, move.to) and m != move]
            if move.captured and not rivals:
                assert text == f"{move.frm}x{move.to}"
            checked += bool(move.captured)
    assert checked > 300


def test_pdn_disambiguates_captures_with_the_same_from_and_to():
    pos = parse_position(TWIN_CAPTURES)
    board = {15: "W", 9: "b", 23: "b", 24: "b", 41: "b"}
    expected = {(15, 4, frozenset({9, 24, 41})), (15, 4, frozenset({9, 23, 24}))}
    assert slow_rules.legal_moves(board, "W") == expected
    moves = legal_moves(pos)
    assert {(m.frm, m.to, frozenset(m.captured)) for m in moves} == expected
    texts = [move_to_pdn(pos, m) for m in moves]
    assert len(set(texts)) == 2
    for move, text in zip(moves, texts):
        assert text.startswith("15x") and text.endswith("x4") and text.count("x") >= 2
        assert move_from_pdn(pos, text) == move
        assert move_from_hub(pos, move_to_hub(move)) == move
    with pytest.raises(BadInput, match="ambiguous move 15x4: give landing squares"):
        move_from_pdn(pos, "15x4")
    with pytest.raises(BadInput, match="ambiguous move 15x4"):
        move_from_hub(pos, "15x4")


def test_pdn_accepts_move_numbers_and_annotations():
    start = start_position()
    assert move_from_pdn(start, "1. 32-28") == Move(32, 28)
    assert move_from_pdn(start, "32-28!?") == Move(32, 28)
    black = parse_position("B:W31-50:B1-20")
    assert move_from_pdn(black, "1... 19-23") == Move(19, 23)


# ----- bad input --------------------------------------------------------------------

START = start_position()
TWIN = parse_position(TWIN_CAPTURES)


@pytest.mark.parametrize("call, message", [
    (lambda: pos_from_hub(""), "51 characters, got 0"),
    (lambda: pos_from_hub("X" + "e" * 50), "must start with W or B"),
    (lambda: pos_from_hub("W" + "e" * 49 + "z"), "'z' for square 50"),
    (lambda: pos_from_hub("W" + "w" + "e" * 49), "white man on square 1"),
    (lambda: pos_from_hub("B" + "e" * 49 + "b"), "black man on square 50"),
    (lambda: pos_from_fen(""), "empty FEN"),
    (lambda: pos_from_fen("X:W31:B1"), "side to move"),
    (lambda: pos_from_fen("W:Q31"), "'Q31' must start with W or B"),
    (lambda: pos_from_fen("W:W31:W32"), "two W sections"),
    (lambda: pos_from_fen("W:W0"), "square 0 is off the board"),
    (lambda: pos_from_fen("W:W51"), "square 51 is off the board"),
    (lambda: pos_from_fen("W:W31,31"), "square 31 twice"),
    (lambda: pos_from_fen("W:W31:B31"), "square 31 twice"),
    (lambda: pos_from_fen("W"), "no W or B piece section"),
    (lambda: pos_from_fen("W:W40-35"), "bad FEN range '40-35'"),
    (lambda: pos_from_fen("W:Wx"), "bad FEN square 'x'"),
    (lambda: pos_from_fen("W:WK"), "bad FEN square 'K'"),
    (lambda: pos_from_fen("W:W3:B40"), "white man on square 3"),
    (lambda: pos_from_fen("W:W" + "1" * 5000), "bad FEN square"),
    (lambda: parse_position("garbage"), "51 characters"),
    (lambda: move_from_hub(START, "32-29"), "illegal move 32-29: legal moves are 31-26"),
    (lambda: move_from_hub(START, "51-46"), "square 51 is off the board"),
    (lambda: move_from_hub(START, "a-b"), "'a' is not a square number"),
    (lambda: move_from_hub(START, "32-28-23"), "a quiet move is from-to"),
    (lambda: move_from_hub(START, "32x28"), "illegal move 32x28"),
    (lambda: move_from_hub(START, ""), "expected from-to"),
    (lambda: move_from_hub(START, "1" * 5000 + "-2"), "off the board"),
    (lambda: move_from_hub(START, "3\u00b2-28"), "not a square number"),
    (lambda: move_from_hub(TWIN, "15x4x9x9x24"), "listed twice"),
    (lambda: move_from_hub(TWIN, "15x4x9"), "illegal move 15x4x9"),
    (lambda: move_from_hub(TWIN, "15x"), "'' is not a square number"),
    (lambda: move_from_pdn(START, "32-29"), "illegal move 32-29"),
    (lambda: move_from_pdn(START, "foo"), "expected from-to or fromxto"),
    (lambda: move_from_pdn(START, "1" * 5000 + "x2"), "off the board"),
    (lambda: move_from_pdn(TWIN, "15x10x4"), "illegal move 15x10x4"),
    (lambda: get_variant("martian"), "unknown variant 'martian'"),
])
def test_bad_input_names_the_problem(call, message):
    with pytest.raises(BadInput) as info:
        call()
    assert message in str(info.value)


CODECS = {
    "pos_from_hub": pos_from_hub,
    "pos_from_fen": pos_from_fen,
    "parse_position": parse_position,
    "move_from_hub": lambda text: move_from_hub(TWIN, text),
    "move_from_pdn": lambda text: move_from_pdn(START, text),
}


@pytest.mark.parametrize("name", CODECS)
def test_garbage_raises_bad_input_and_nothing_else(name):
    """Random text from each codec's own alphabet: a result or BadInput, never another error."""
    rng = random.Random(name)
    alphabet = "WBwbeKkHF0123456789-x:,.* \"\u00b2\u0663"
    codec = CODECS[name]
    good = bad = 0
    for i in range(3000):
        if name in ("pos_from_hub", "parse_position") and i % 3 == 0:
            text = rng.choice("WB?") + "".join(rng.choice("wbWBe?") for _ in range(rng.randint(48, 52)))
        else:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        try:
            codec(text)
            good += 1
        except BadInput as exc:
            assert str(exc), text
            bad += 1
        # Any other exception fails the test with the input in the traceback.
    assert bad > 0


# ----- the one legal-move finder ------------------------------------------------------

def test_find_move_matches_from_to_and_the_captured_set():
    for pos in POSITIONS[:200]:
        moves = legal_moves(pos)
        for m in moves:
            assert find_move(pos, m.frm, m.to, tuple(reversed(m.captured))) == m
            if m.captured:
                assert find_move(pos, m.frm, m.to) is None            # not a quiet move
                assert find_move(pos, m.frm, m.to, m.captured[1:]) in (None, *moves)
                assert find_move(pos, m.frm, m.to, m.captured[1:]) != m
        assert find_move(pos, 1, 1) is None
    start = start_position()
    assert find_move(start, 32, 28) == move_from_hub(start, "32-28")
    assert find_move(start, 32, 28, moves=[]) is None                 # only among ``moves``
    assert find_move(parse_position(TWIN_CAPTURES), 15, 4, (41, 9, 24)).captured != \
        find_move(parse_position(TWIN_CAPTURES), 15, 4, (23, 9, 24)).captured


# ----- DXP positions and positions from pieces ---------------------------------------------

def test_dxp_position_round_trips_and_matches_the_hub_string():
    assert pos_to_dxp(start_position()) == "W" + "z" * 20 + "e" * 10 + "w" * 20
    for pos in POSITIONS:
        if pos.variant.name != "international":
            continue
        text = pos_to_dxp(pos)
        assert pos_from_dxp(text) == pos
        assert text == pos_to_hub(pos).replace("b", "z").replace("B", "Z")


@pytest.mark.parametrize("text, problem", [
    ("W" + "e" * 49, "51 characters"), ("B" + "e" * 50, "W or Z"),
    ("W" + "b" * 50, "bad character 'b'"), ("Z" + "w" * 5 + "e" * 45, "promotion row"),
])
def test_bad_dxp_positions_are_refused_with_the_reason(text, problem):
    with pytest.raises(BadInput, match=problem):
        pos_from_dxp(text)


def test_dxp_refuses_other_boards():
    with pytest.raises(BadInput, match="international positions only"):
        pos_to_dxp(start_position(get_variant("russian")))


def test_pos_from_pieces_checks_like_the_fen_codec():
    assert pos_from_pieces({28: "w", 19: "B"}, WHITE) == pos_from_fen("W:W28:BK19")
    with pytest.raises(BadInput, match="promotion row"):
        pos_from_pieces({3: "w"}, WHITE)
    with pytest.raises(BadInput, match="off the board"):
        pos_from_pieces({51: "w"}, WHITE)
    with pytest.raises(BadInput, match="bad piece"):
        pos_from_pieces({28: "x"}, WHITE)


def test_a_capture_written_with_all_its_landings_is_not_ambiguous_with_a_longer_one():
    """Russian: the king's d2xb4xd6xb8 and d2xb4xd6xf8xh6xf4xb8 share their start, end
    and first landings; each as written by move_to_pdn reads back as itself."""
    pos = parse_position("W:W21,26,27,29,31,32:B4,6,7,8,14,16,18,22", get_variant("russian"))
    written = {move_to_pdn(pos, m): m for m in legal_moves(pos)}
    assert {"d2xb4xd6xb8", "d2xb4xd6xf8xh6xf4xb8"} <= set(written)
    for text, move in written.items():
        assert move_from_pdn(pos, text) == move, text
