"""Turkish draughts: rules by example, codecs, and kish (a Rust engine) as an oracle.

The kernels are checked against the slow twin (``slow_rules_variants``) and pydraughts with
the other variants (``test_variants.py``, ``test_variants_pydraughts.py``).  Here:

* one position per rule of spec/rules.md 4.12, with the answer worked out by hand;
* pydraughts' FEN (``W:Wa2,b2,...:Bh7,Ka8``) and Hub strings, read and written;
* kish (PyPI ``kish`` 1.1.7, a CPython 3.8 wheel only) through ``oracles/kish_oracle.py``
  in its own Python 3.8 interpreter: the start position's perft, counting every capture
  path (kish's own perft) and merging duplicates (kish's moves, merged here), and the moves
  of 150 random positions and of every position one move later, both conventions.
  ``.ci/run`` makes that interpreter (``~/.cache/rafle/kish-py38``) where a Python 3.8 is
  installed; ``RAFLE_KISH_PYTHON`` names another one.  Without one these tests skip.
"""
from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from engine import (
    WHITE, BadInput, Game, Position, get_variant, legal_moves, move_from_hub, move_from_pdn,
    move_to_hub, move_to_pdn, parse_position, perft, play, pos_from_fen, pos_from_hub,
    pos_to_fen, pos_to_hub, start_position,
)
from engine.notation import square_name
from engine.variants import V_TURN_BACK
from test_variants import KINDS

V = get_variant("turkish")
START_FEN = ("W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3:"
             "Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7")


def pos(fen: str):
    return pos_from_fen(fen, V)


def pdn(position) -> set[str]:
    return {move_to_pdn(position, m) for m in legal_moves(position)}


# ----- rules by example ----------------------------------------------------------

def test_start_position_and_numbering():
    start = start_position(V)
    assert pos(START_FEN) == start and start.turn == WHITE
    assert V.nsquares == 64 and square_name(V, 1) == "a8" and square_name(V, 64) == "h1"
    assert pdn(start) == {f"{c}3-{c}4" for c in "abcdefgh"}
    # pydraughts' Hub string (a8 first) and Hub moves (numbered from a1).
    assert pos_to_hub(start) == "W" + "e" * 8 + "b" * 16 + "e" * 16 + "w" * 16 + "e" * 8
    assert {move_to_hub(m, V) for m in legal_moves(start)} == {f"{n}-{n + 8}" for n in range(17, 25)}


def test_men_step_forward_and_sideways_never_back():
    assert pdn(pos("W:Wd4:Bh8")) == {"d4-d5", "d4-c4", "d4-e4"}
    assert pdn(pos("B:Wa1:Bd5")) == {"d5-d4", "d5-c5", "d5-e5"}
    assert pdn(pos("W:Wa4:Bh8")) == {"a4-a5", "a4-b4"}


def test_men_capture_forward_and_sideways_not_backward():
    assert pdn(pos("W:Wd4:Bd3,h8")) == {"d4-d5", "d4-c4", "d4-e4"}     # behind: no capture
    assert pdn(pos("W:Wd4:Bc4,h8")) == {"d4xb4"}
    assert pdn(pos("W:Wd4:Bd5,h8")) == {"d4xd6"}


def test_kings_fly_both_ways_along_rows_and_columns():
    moves = pdn(pos("W:WKd4:Bh8"))
    assert len(moves) == 14 and "d4-d1" in moves and "d4-a4" in moves and "d4-d8" in moves
    # A king may land on any empty square beyond the piece it takes.
    assert pdn(pos("W:WKd1:Bd4,a8")) == {"d1xd5", "d1xd6", "d1xd7", "d1xd8"}


def test_the_majority_capture_is_compulsory_kings_and_men_alike():
    # c4 takes one king to the left; d4 takes two men forward: the two men must be taken.
    p = pos("W:Wc4,e2:BKb4,c5,c7,h8")
    assert pdn(p) == {"c4xc8"}
    assert set(legal_moves(p)[0].captured) == {V.square_at(3, 2), V.square_at(1, 2)}


def test_jumped_pieces_leave_at_once_so_a_king_may_cross_a_square_twice():
    # Kd1 x d3 -> d4, x f4 -> g4, x g2 -> g1, x e1 -> d1 or c1...: the king may end on d1,
    # its own square, and from g1 it runs back along row 1 over f1 and e1's square.
    p = pos("W:WKd1:Bd3,f4,g2,Ke1,h8")
    moves = legal_moves(p)
    assert max(len(m.captured) for m in moves) == 4
    assert any(m.to == m.frm for m in moves)       # back on its starting square


def test_a_capture_may_not_turn_back_180_degrees():
    # Kd4 takes d5 upwards (landing d6, d7 or d8); going back down over d2 would be a
    # 180-degree turn: d2 is left, and each capture takes one piece.
    p = pos("W:WKd4:Bd5,d2,h8")
    assert {len(m.captured) for m in legal_moves(p)} == {1}
    # The same board with turning back allowed (Thai's switch) takes both.
    table = V.table.copy()
    table[V_TURN_BACK] = 1
    table.flags.writeable = False
    turning = dataclasses.replace(V, name="turkish+turn-back", table=table)
    p = Position(p.white, p.black, p.kings, p.turn, turning)
    assert {len(m.captured) for m in legal_moves(p)} == {2}


def test_a_man_reaching_the_last_row_mid_capture_goes_on_as_a_man():
    # a6 x a7 -> a8, then sideways x b8 -> c8 as a man; crowned at the end (kish, pydraughts).
    p = pos("W:Wa6:Ba7,b8,Kh1")
    (move,) = legal_moves(p)
    assert move_to_pdn(p, move) == "a6xc8" and move.promotes
    # As a king it could also fly on: from a8 over e8 to f8.  A man cannot.
    (move,) = legal_moves(pos("W:Wa6:Ba7,e8,Kh1"))
    assert move_to_pdn(pos("W:Wa6:Ba7,e8,Kh1"), move) == "a6xa8" and move.promotes


def test_a_side_without_moves_loses_and_one_piece_each_draws():
    # Black's a5 is blocked: a4 and b5 are taken and a3, c5 behind them too.
    game = Game(pos("B:Wa4,a3,b5,c5:Ba5"), V)
    assert not legal_moves(game.position) and game.outcome().winner == WHITE
    game = Game(pos("W:WKd4:BKe8"), V)
    for text in ("d4-d5", "e8-f8", "d5-d4"):
        game.push(move_from_pdn(game.position, text))
        assert game.outcome() is None
    game.push(move_from_pdn(game.position, "f8-e8"))
    out = game.outcome()
    assert out.result == "1-1" and "one piece each" in out.reason


def test_sideways_steps_count_as_reversible_for_repetition():
    game = Game(pos("W:Wa3,h2:Bh7,a6"), V)
    for text in ("a3-b3", "h7-g7", "b3-a3", "g7-h7") * 2:
        assert game.outcome() is None
        game.push(move_from_pdn(game.position, text))
    out = game.outcome()
    assert out.result == "1-1" and "repetition" in out.reason


# ----- codecs ---------------------------------------------------------------------

def test_fen_is_pydraughts_form_both_ways():
    p = pos("W:Wa2,b2,Kd4:Bh7,Ka8")
    assert pos_to_fen(p) == "W:WKd4,a2,b2:BKa8,h7"
    assert pos(pos_to_fen(p)) == p
    assert parse_position(pos_to_hub(p), V) == p
    assert pos_from_hub(pos_to_hub(p), V) == p


@pytest.mark.parametrize("bad, why", [
    ("W:Wi9:Ba7", "square"), ("W:Wa8:Bh7", "promotion row"), ("W:Wa2,a2:Bh7", "twice"),
    ("W:W65:Bh7", "off the board"), ("X:Wa2:Bh7", "side to move"),
])
def test_bad_fens_get_clear_errors(bad, why):
    with pytest.raises(BadInput, match=why):
        pos(bad)


def test_moves_in_every_notation():
    p = pos("W:WKd1:Bd4,a8")
    m = move_from_pdn(p, "d1xd6")
    assert move_from_hub(p, move_to_hub(m, V)) == m
    assert move_to_hub(m, V) == "4x44x28"          # from a1 upwards: d1 = 4, d6 = 44, d4 = 28
    with pytest.raises(BadInput, match="illegal"):
        move_from_pdn(p, "d1-d2")


def test_bit_63_survives_every_round_trip():
    p = pos("B:Wa2:BKh1,Kh2")                                   # h1 is bit 63
    assert pos(pos_to_fen(p)) == p and p.black >> 63
    after = play(p, legal_moves(p)[0])
    assert after.white >= 0 and after.black >= 0 and pos(pos_to_fen(after)) == after
    assert perft(p, 3) == sum(perft(play(p, m), 2) for m in legal_moves(p))


# ----- kish -----------------------------------------------------------------------

def _kish_python() -> str | None:
    named = os.environ.get("RAFLE_KISH_PYTHON")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    for cand in (named, cache / "rafle" / "kish-py38" / "bin" / "python"):
        if cand and Path(cand).is_file():
            return str(cand)
    return None


@pytest.fixture(scope="module")
def kish():
    python = _kish_python()
    if python is None:
        pytest.skip("no Python 3.8 with kish (.ci/run makes one; or set RAFLE_KISH_PYTHON)")
    oracle = Path(__file__).parent / "oracles" / "kish_oracle.py"
    proc = subprocess.Popen([python, str(oracle)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)

    def ask(fen: str, op: str, depth: int = 0):
        proc.stdin.write(json.dumps({"fen": fen, "op": op, "depth": depth}) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        assert line, "the kish oracle died"
        return json.loads(line)

    yield ask
    proc.stdin.close()
    proc.wait(timeout=30)


def _theirs(p, answer):
    """kish's moves as Rafle's (from, to, captured set, crowning), one entry per path;
    a capture ending where it began has no from and to (the oracle's docstring)."""
    sq = lambda name: None if name is None else V.square_at(8 - int(name[1]),
                                                            "abcdefgh".index(name[0]))
    return Counter((sq(a), sq(b), frozenset(map(sq, c)), bool(k) and not _is_king(p, sq(a)))
                   for a, b, c, k, _ in answer)


def _is_king(p, square):
    return p.piece_at(square).isupper()


def _ours(p, paths):
    moves = legal_moves(p, paths=paths)
    return Counter((m.frm, m.to, frozenset(m.captured), m.promotes) if m.frm != m.to else
                   (None, None, frozenset(m.captured), m.promotes) for m in moves)


def _merged_perft(kish, p, depth):
    """perft merging duplicate captures, from kish's move lists."""
    if depth == 0:
        return 1
    theirs = set(_theirs(p, kish(pos_to_fen(p), "moves")))
    total = 0
    for frm, to, caps, _ in theirs:
        move = next(m for m in legal_moves(p) if frozenset(m.captured) == caps
                    and (m.frm, m.to) in ((frm, to), (m.to, m.to) if frm is None else ()))
        total += _merged_perft(kish, play(p, move), depth - 1)
    return total


def test_start_position_perft_against_kish(kish):
    start = start_position(V)
    for depth in range(1, 6):
        assert perft(start, depth, paths=True) == kish(START_FEN, "perft", depth)
    assert perft(start, 4) == _merged_perft(kish, start, 4)


def test_random_positions_against_kish_both_conventions(kish):
    rng = random.Random(64)
    several = captures = 0
    for i in range(150):
        p = KINDS[i % len(KINDS)](V, rng)
        if not legal_moves(p):
            continue
        theirs = _theirs(p, kish(pos_to_fen(p), "moves"))
        assert _ours(p, paths=True) == theirs, pos_to_fen(p)
        assert set(_ours(p, paths=False)) == set(theirs), pos_to_fen(p)
        captures += any(m[2] for m in theirs)
        several += sum(theirs.values()) > len(theirs)
        for m in legal_moves(p)[:6]:                   # one move later
            child = play(p, m)
            if legal_moves(child):
                assert _ours(child, paths=True) == _theirs(child, kish(pos_to_fen(child), "moves"))
    assert captures >= 40 and several >= 1
