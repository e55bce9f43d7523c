"""pydraughts (PyPI, an independent pure-Python implementation) as a second oracle.

For each variant pydraughts plays, random positions are handed to pydraughts the way
its ``HubEngine`` hands them to an engine: as a Hub position string (which pydraughts
reads as its own internal board), and its legal moves come back as Hub moves in its
numbering for that variant.  So the comparison checks the rules *and* the square
conventions Rafle's Hub must share with pydraughts (English turned and colour-swapped,
Russian/Brazilian moves numbered from a1, Italian numbered from a8).  pydraughts'
variant FEN (algebraic for Russian and Brazilian) is read back as well.

pydraughts is slow (about a thousand nodes a second), so CI compares a few dozen
positions per variant at depth 1 and a handful at depth 2; ``-m slow`` does more.

A known pydraughts 0.6.7 bug: in Frisian it misses some flying-king captures that
mix orthogonal and diagonal jumps (in ``W:WK35:B9,K11,13,23,K27`` it lists 35x3, 35x6,
35x7, 35x8 but not 35x1 = 35x8x10x32x21x1, nor 35x2 and 35x16).  There a difference is
accepted only if it is such a king capture and the slow twin, written from the rules,
agrees with Rafle move for move.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

draughts = pytest.importorskip("draughts")

from engine import (  # noqa: E402
    Move, get_variant, legal_moves, move_from_hub, move_to_hub, play, pos_from_fen, pos_to_fen,
    pos_to_hub, start_position,
)
import slow_rules_variants as twin  # noqa: E402
from test_variants import KINDS, board_of  # noqa: E402

# Rafle's name -> pydraughts' name.  Killer, Spanish, Czech, Thai and Pool are not in
# pydraughts 0.6.7.
PYDRAUGHTS = {"international": "standard", "english": "english", "italian": "italian",
              "russian": "russian", "brazilian": "brazilian", "frisian": "frisian",
              "frysk": "frysk!", "antidraughts": "antidraughts", "breakthrough": "breakthrough",
              "turkish": "turkish"}
# pydraughts spends seconds on a Frisian position with many kings.
POSITIONS = {"frisian": 12, "frysk": 12}


def their_board(pos):
    return draughts.Board(PYDRAUGHTS[pos.variant.name], fen=pos_to_hub(pos))


def their_moves(pos, board):
    """pydraughts' legal moves, read back through Rafle's Hub move codec (less the
    Turkish king moves of its known bug, :func:`turkish_king_jumps`)."""
    bugged = turkish_king_jumps(pos, board)
    return {move_from_hub(pos, m.hub_move) for m in board.legal_moves()
            if m.hub_move not in bugged}


def check_position(pos, depth):
    board = their_board(pos)
    assert pos_from_fen(board.fen, pos.variant) == pos, (board.fen, pos_to_fen(pos))
    ours = set(legal_moves(pos))
    theirs = their_moves(pos, board)
    if theirs != ours and not known_frisian_gap(pos, theirs, ours):
        assert theirs == ours, pos_to_fen(pos)
    if depth > 1:
        bugged = turkish_king_jumps(pos, board)
        for theirs in board.legal_moves():
            if theirs.hub_move in bugged:
                continue
            move = move_from_hub(pos, theirs.hub_move)
            after = play(pos, move)
            child = board.copy()
            child.push(theirs)
            assert pos_from_fen(child.fen, pos.variant) == after, (pos_to_fen(pos), theirs.hub_move)
            board_after = their_board(after)
            theirs_after = their_moves(after, board_after)
            if not known_frisian_gap(after, theirs_after, set(legal_moves(after))):
                assert theirs_after == set(legal_moves(after)), pos_to_fen(after)
    return any(m.captured for m in ours)


def turkish_king_jumps(pos, board) -> set:
    """pydraughts 0.6.7's Turkish bug: a king's quiet move may pass over pieces.  The quiet
    king moves it lists that pass over a piece (their Hub strings, read square by square
    here), to be left out of the comparison; every other move must agree."""
    if pos.variant.name != "turkish" or any(m.captures for m in board.legal_moves()):
        return set()
    occupied = {s for s in range(1, 65) if pos.piece_at(s) != "e"}
    out = set()
    for m in board.legal_moves():
        if m.captures:
            continue
        move = _quiet_any(pos, m.hub_move)
        (r1, c1), (r2, c2) = pos.variant.coords(move.frm), pos.variant.coords(move.to)
        dr, dc = (r2 > r1) - (r2 < r1), (c2 > c1) - (c2 < c1)
        between = {pos.variant.square_at(r1 + k * dr, c1 + k * dc)
                   for k in range(1, max(abs(r2 - r1), abs(c2 - c1)))}
        if between & occupied:
            out.add(m.hub_move)
    return out


def _quiet_any(pos, hub_move):
    """A quiet move written in Hub notation, legal or not (pydraughts' bugged king moves)."""
    frm, to = (int(x) for x in hub_move.split("-"))
    return Move(_from_a1(frm), _from_a1(to))


def _from_a1(n):
    row, col = divmod(n - 1, 8)           # pydraughts' Turkish Hub moves: from a1 upwards
    return (7 - row) * 8 + col + 1


def test_the_turkish_king_bug_is_the_one_the_issue_names():
    pos = pos_from_fen("W:Wa2,b2,d2,e2,f2,h2,a3,b3,d3,f3,g3,h3,b5,Ka8:Bh5,f7,h7",
                       get_variant("turkish"))
    board = their_board(pos)
    assert len(board.legal_moves()) == 30 and len(legal_moves(pos)) == 29
    assert turkish_king_jumps(pos, board) == {"57-1"}       # a8 over a2..a7 to a1
    assert their_moves(pos, board) == set(legal_moves(pos))


def test_turkish_moves_agree_with_pydraughts_both_conventions():
    """100 random positions, every move: pydraughts lists a capture once per path (a king
    stopping on another square before going on straight is another path), as Rafle's
    capture-path mode does; merged, the same moves as Rafle plays."""
    v = get_variant("turkish")
    rng = random.Random(30)
    several = 0
    for i in range(100):
        pos = KINDS[i % len(KINDS)](v, rng)
        board = their_board(pos)
        bugged = turkish_king_jumps(pos, board)
        theirs = Counter(move_from_hub(pos, m.hub_move) for m in board.legal_moves()
                         if m.hub_move not in bugged)
        assert theirs == Counter(legal_moves(pos, paths=True)), pos_to_fen(pos)
        assert set(theirs) == set(legal_moves(pos)), pos_to_fen(pos)
        several += sum(theirs.values()) > len(theirs)
    pos = pos_from_fen("W:WKg5,a3,b3,c3,d3,e3,f3,h3,a2,b2,c2,d2,e2,f2,h2:"
                       "Ba7,b7,c7,d7,e7,f7,h7,a6,c6,d6,f6,h6,b5,e5", v)
    assert len(their_board(pos).legal_moves()) == len(legal_moves(pos, paths=True)) == 2
    assert len(legal_moves(pos)) == 1


def known_frisian_gap(pos, theirs, ours) -> bool:
    """pydraughts' Frisian king-capture bug (module docstring), confirmed by the twin."""
    if pos.variant.name not in ("frisian", "frysk") or not theirs < ours:
        return False
    kings = set(pos.squares(pos.turn, kings=True))
    if not all(m.captured and m.frm in kings for m in ours - theirs):
        return False
    side = "W" if pos.turn == 0 else "B"
    expected = twin.legal_moves(twin.RULES[pos.variant.name], board_of(pos), side)
    return expected == {(m.frm, m.to, frozenset(m.captured), m.promotes) for m in ours}


def test_the_known_frisian_gap_is_only_accepted_when_the_twin_agrees():
    pos = pos_from_fen("W:WK35:B9,K11,13,23,K27", get_variant("frisian"))
    ours = set(legal_moves(pos))
    theirs = their_moves(pos, their_board(pos))
    assert {m.to for m in ours - theirs} == {1, 2, 16}
    assert known_frisian_gap(pos, theirs, ours)
    made_up = Move(35, 50, (9, 11, 13, 23, 27))        # a king capture the rules do not allow
    assert not known_frisian_gap(pos, theirs, ours | {made_up})
    assert not known_frisian_gap(pos, theirs - {next(iter(theirs))}, theirs)


def compare(name, count, depth2, seed):
    v = get_variant(name)
    rng = random.Random(seed)
    captures = 0
    for i in range(count):
        captures += check_position(KINDS[i % len(KINDS)](v, rng), 2 if i < depth2 else 1)
    return captures


@pytest.mark.parametrize("name", PYDRAUGHTS)
def test_start_position_hub_string_is_the_one_pydraughts_sends(name):
    v = get_variant(name)
    board = draughts.Board(PYDRAUGHTS[name])
    assert board._game.initial_hub_fen == pos_to_hub(start_position(v))
    assert pos_from_fen(board.fen, v) == start_position(v)
    assert {m.hub_move for m in board.legal_moves()} == {
        move_to_hub(m, v) for m in legal_moves(start_position(v))}


@pytest.mark.parametrize("name", PYDRAUGHTS)
def test_moves_agree_with_pydraughts(name):
    count = POSITIONS.get(name, 40)
    captures = compare(name, count, depth2=3, seed=sum(map(ord, name)))
    assert captures >= count // 4      # the positions really exercise captures


@pytest.mark.slow
@pytest.mark.parametrize("name", PYDRAUGHTS)
def test_moves_agree_with_pydraughts_many_positions(name):
    compare(name, 10 * POSITIONS.get(name, 40), depth2=20, seed=11)


def test_english_hub_string_is_turned_and_colour_swapped():
    v = get_variant("english")
    pos = pos_from_fen("B:W21,K30:B1,K5", v)
    # Character k is square 33-k with the colours swapped; Black to move is "W".
    assert pos_to_hub(pos) == "W" + "eeB" + "e" * 8 + "b" + "e" * 15 + "Weee" + "w"
    assert their_board(pos).fen.startswith("B:W")
