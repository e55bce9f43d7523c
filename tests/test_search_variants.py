"""The search plays each variant's goal: antidraughts (the side that cannot move wins)
and breakthrough (the first king wins), scored with exact distances.

The oracle is a plain recursive solver over the public rules API (``legal_moves``,
``play``, ``winner``), which knows nothing of the kernel: on positions of men only
(no repetition, no king-move draw rule) it gives the distance of every result it can
prove within its depth, and the search must report that same score.
"""
import random

import pytest

from engine import get_variant, legal_moves, play, pos_from_fen
from engine.position import winner
from engine.eval import evaluate_position
from engine.negamax import MATE, WIN_BOUND
from engine.position import Position
from engine.search import Limits, Searcher

LOSING = get_variant("losing")
BT = get_variant("bt")
NORMAL = get_variant("international")


@pytest.fixture(scope="module")
def searcher():
    s = Searcher(tt_log2=16)
    assert s.set_option("egdb-size", "0")   # the search's own distances, not the databases'
    return s


def solve(pos: Position, depth: int) -> int | None:
    """The score with best play in the search's convention (``MATE - n``: the side to
    move wins in n plies, ``-(MATE - n)``: it loses), or None if no result is proven
    within ``depth`` plies."""
    w = winner(pos)
    if w is not None:
        return MATE if w == pos.turn else -MATE
    if depth == 0:
        return None
    best, unknown = None, False
    for move in legal_moves(pos):
        c = solve(play(pos, move), depth - 1)
        if c is None:
            unknown = True
            continue
        v = -c - 1 if c < 0 else -c + 1     # one ply further from the end
        best = v if best is None else max(best, v)
    if best is not None and (best > 0 or not unknown):
        return best
    return None


def search(searcher, pos, depth):
    searcher.new_game()
    return searcher.search(pos, [], Limits(depth=depth))


# ----- antidraughts ------------------------------------------------------------------

def test_giving_the_last_man_away_wins_in_two_plies(searcher):
    pos = pos_from_fen("W:W28:B17", LOSING)
    r = search(searcher, pos, 4)
    assert (r.move.frm, r.move.to) == (28, 22)
    assert r.score == MATE - 2
    after = play(play(pos, r.move), r.pv[1])
    assert winner(after) == 0                   # White has no piece left and has won
    # The same position in the normal game: giving the man away is the worst move.
    n = search(searcher, pos_from_fen("W:W28:B17", NORMAL), 4)
    assert (n.move.frm, n.move.to) != (28, 22)


def test_no_legal_move_is_a_win_in_antidraughts(searcher):
    # White's man on 45 is blocked (40 black, 34 black behind it).
    pos = pos_from_fen("W:W45:B34,40", LOSING)
    assert legal_moves(pos) == [] and winner(pos) == 0
    assert search(searcher, pos, 3).move is None
    # One ply earlier: Black moves; every move but 29-34 keeps White able to move.
    before = pos_from_fen("B:W45:B29,40", LOSING)
    r = search(searcher, before, 3)
    assert (r.move.frm, r.move.to) != (29, 34)
    # In the normal game the same move wins at once.
    n = search(searcher, pos_from_fen("B:W45:B29,40", NORMAL), 3)
    assert (n.move.frm, n.move.to, n.score) == (29, 34, MATE - 1)


def test_antidraughts_evaluation_prefers_fewer_pieces():
    ahead = pos_from_fen("W:W31,32,33:B18", LOSING)
    assert evaluate_position(ahead) < 0
    assert evaluate_position(pos_from_fen("W:W31,32,33:B18", NORMAL)) > 0


# ----- breakthrough -------------------------------------------------------------------

def test_crowns_when_it_can(searcher):
    pos = pos_from_fen("W:W8,40:B20,26", BT)
    r = search(searcher, pos, 3)
    assert r.move.promotes and r.score == MATE - 1
    assert winner(play(pos, r.move)) == 0


def test_stops_the_opponents_crowning_by_a_sacrifice(searcher):
    # Black's 42 crowns next move unless forced to capture: 43-38 makes it take 42x33.
    pos = pos_from_fen("W:W16,43:B42", BT)
    r = search(searcher, pos, 4)
    assert (r.move.frm, r.move.to) == (43, 38)
    assert not any(m.promotes for m in legal_moves(play(pos, r.move)))
    assert r.score != -(MATE - 2)
    # Without the sacrifice available the loss is seen at its distance.
    lost = pos_from_fen("W:W16,45:B42", BT)
    assert search(searcher, lost, 4).score == -(MATE - 2)


# ----- exact scores against the solver -------------------------------------------------

def _random_men_position(rng, variant):
    n = variant.nsquares
    half = variant.width // 2
    squares = rng.sample(range(half + 1, n - half + 1), rng.randint(3, 5))
    k = rng.randint(1, len(squares) - 1)
    white, black = squares[:k], squares[k:]
    side = rng.choice("WB")
    return pos_from_fen(f"{side}:W{','.join(map(str, white))}:B{','.join(map(str, black))}",
                        variant)


@pytest.mark.parametrize("variant", [LOSING, BT, NORMAL], ids=lambda v: v.name)
def test_scores_equal_the_solvers_distances(searcher, variant):
    rng = random.Random(5)
    checked = proven = 0
    while proven < 10 and checked < 400:
        pos = _random_men_position(rng, variant)
        if not legal_moves(pos):
            continue
        checked += 1
        truth = solve(pos, 3)
        r = search(searcher, pos, 5)
        assert r.move in legal_moves(pos)
        assert all(m in legal_moves(p) for m, p in _walk(pos, r.pv))
        if truth is not None and len(legal_moves(pos)) > 1:
            proven += 1
            assert r.score == truth, (variant.name, pos, r)
        elif truth is None and r.score is not None:
            assert abs(r.score) <= WIN_BOUND or MATE - abs(r.score) > 3
    assert proven >= 10


def _walk(pos, pv):
    for move in pv:
        yield move, pos
        pos = play(pos, move)
