"""The search, the evaluation, Zobrist keys and time management, checked by behaviour.

Slow twins: ``slow_eval`` recomputes the static evaluation square by square from the
definitions in ``engine/eval.py``; ``forced_win`` proves wins by brute force over
``legal_moves``; ``slow_key`` recomputes Zobrist keys from the key table.
"""
from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest

from engine import (
    BLACK, INTERNATIONAL, VARIANTS, WHITE, Position, get_variant, legal_moves, move_from_hub,
    move_to_hub, play, pos_from_fen, start_position,
)
from engine import eval as ev
from engine import timeman
from engine import weights
from engine.game import Game
from engine.negamax import MATE, RATE_HALF, _rate
from engine.search import Limits, Searcher
from engine.zobrist import SIDE, ZOBRIST, move_key, position_key

WIDTH = 10


@pytest.fixture(scope="module")
def searcher():
    s = Searcher(18)
    # These tests are of the search's own scores (mate distances, draw rules): the shipped
    # endgame databases would score their small positions as database wins.
    assert s.set_option("egdb-size", "0")
    s.warm_up()
    return s


FORM_SETTINGS = {  # each form with the margin and interval it was measured at
    "plain": {"threshold-margin": "300", "threshold-interval": "3"},
    "verified": {"threshold-margin": "40", "threshold-slope": "10", "threshold-interval": "1"},
}


def fresh(searcher, threshold=True):
    """``threshold``: False, True (the plain form at 300/3) or a form's name."""
    searcher.new_game()
    assert searcher.set_option("book", "false")      # these tests are of the search
    assert searcher.set_option("threshold", "true" if threshold else "false")
    form = threshold if isinstance(threshold, str) else "plain"
    assert searcher.set_option("threshold-form", form)
    for name, value in FORM_SETTINGS[form].items():
        assert searcher.set_option(name, value)
    return searcher


# ----- random positions ---------------------------------------------------------------

def random_game_positions(seed: int, games: int, plies: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        pos = start_position()
        for _ in range(plies):
            moves = legal_moves(pos)
            if not moves:
                break
            pos = play(pos, rng.choice(moves))
            out.append(pos)
    return out


def random_placements(seed: int, count: int) -> list[Position]:
    """Sparse boards with kings: men never on their own promotion row."""
    rng = random.Random(seed)
    v = INTERNATIONAL
    out = []
    while len(out) < count:
        squares = rng.sample(range(1, 51), rng.randint(2, 14))
        white = black = kings = 0
        for i, s in enumerate(squares):
            bit = 1 << v.square_bit(s)
            side = i % 2
            king = rng.random() < 0.35 or (side == WHITE and s <= 5) or (side == BLACK and s >= 46)
            if side == WHITE:
                white |= bit
            else:
                black |= bit
            if king:
                kings |= bit
        out.append(Position(white, black, kings, rng.randint(0, 1)))
    return out


# ----- slow twin of the evaluation ------------------------------------------------------

def coords(square: int) -> tuple[int, int]:
    row = (square - 1) // 5
    col = 2 * ((square - 1) % 5) + (1 if row % 2 == 0 else 0)
    return row, col


SQUARE_AT = {coords(s): s for s in range(1, 51)}


def slow_eval(pos: Position, W) -> int:
    board = {s: pos.piece_at(s) for s in range(1, 51)}

    def at(row, col):
        s = SQUARE_AT.get((row, col))
        return None if s is None else board[s]

    has_king = {WHITE: any(p == "W" for p in board.values()), BLACK: any(p == "B" for p in board.values())}
    score = 0
    men_left = {WHITE: 0, BLACK: 0}
    men_right = {WHITE: 0, BLACK: 0}
    for s, piece in board.items():
        if piece == "e":
            continue
        side = WHITE if piece in "wW" else BLACK
        sign = 1 if side == WHITE else -1
        own = "wW" if side == WHITE else "bB"
        row, col = coords(s)
        if piece in "WB":
            score += sign * W[ev.KING]
            for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
                r, c = row + dr, col + dc
                while at(r, c) == "e":
                    score += sign * W[ev.MOB_KING]
                    r, c = r + dr, c + dc
            if row + col == WIDTH - 1:
                score += sign * W[ev.KING_DIAG]
            continue
        own_row = WIDTH - 1 - row if side == WHITE else row
        ahead = -1 if side == WHITE else 1
        score += sign * (W[ev.MAN] + W[ev.ROW + own_row])
        if own_row == 0:
            score += sign * W[ev.BACK]
        if row in (4, 5) and 2 <= col <= 7:
            score += sign * W[ev.CENTRE]
        if at(row - ahead, col - 1) in tuple(own) and at(row - ahead, col + 1) in tuple(own):
            score += sign * W[ev.SUPPORT]
            if own_row >= 5:
                score += sign * W[ev.OUTPOST]
        free = [at(row + ahead, col + dc) == "e" for dc in (-1, 1)]
        score += sign * W[ev.MOB_MAN] * sum(free)
        if not any(free):
            score -= sign * W[ev.BLOCKED]
        if col < 5:
            men_left[side] += 1
        else:
            men_right[side] += 1
        if own_row >= 5 and not has_king[1 - side]:
            cone_empty = all(board[t] == "e" for t in range(1, 51)
                             if 0 < (coords(t)[0] - row) * ahead
                             and abs(coords(t)[1] - col) <= (coords(t)[0] - row) * ahead)
            if cone_empty:
                score += sign * (W[ev.RUNAWAY] + W[ev.RUN_ROW] * own_row)
    score -= W[ev.BALANCE] * (abs(men_left[WHITE] - men_right[WHITE])
                              - abs(men_left[BLACK] - men_right[BLACK]))
    n_white = sum(p in "wW" for p in board.values())
    n_black = sum(p in "bB" for p in board.values())
    kings = {side: sum(p == k for p in board.values()) for side, k in ((WHITE, "W"), (BLACK, "B"))}
    level = kings[WHITE] == kings[BLACK] and abs((n_white - kings[WHITE]) - (n_black - kings[BLACK])) <= 1
    if score > 0 and has_king[BLACK] and n_white <= 3:
        score = score // W[ev.DRAW_DIV]
    elif score < 0 and has_king[WHITE] and n_black <= 3:
        score = -((-score) // W[ev.DRAW_DIV])
    elif score != 0 and has_king[WHITE] and level and W[ev.DRAW_KINGS]:   # kings on both sides
        score = abs(score) // W[ev.DRAW_KINGS] * (1 if score > 0 else -1)
    if pos.turn == BLACK:
        score = -score
    return score + W[ev.TEMPO]


def test_eval_agrees_with_its_slow_twin():
    positions = random_game_positions(1, 30, 80) + random_placements(2, 800)
    assert len(positions) > 2000
    weights = ev.WEIGHTS
    for pos in positions:
        assert ev.evaluate_position(pos, weights) == slow_eval(pos, weights), pos


def test_eval_twin_with_other_weights():
    rng = random.Random(3)
    weights = ev.WEIGHTS.copy()
    weights.flags.writeable = True
    for i in range(len(weights)):
        weights[i] = rng.randint(1, 40)
    for pos in random_game_positions(4, 5, 80) + random_placements(5, 200):
        assert ev.evaluate_position(pos, weights) == slow_eval(pos, weights)


def test_eval_is_symmetric():
    """Flipping the board and the colours gives the same score for the side to move."""
    v = INTERNATIONAL

    def flip(pos):
        def mirror(bb):
            out = 0
            for s in range(1, 51):
                if bb >> v.square_bit(s) & 1:
                    out |= 1 << v.square_bit(51 - s)
            return out
        return Position(mirror(pos.black), mirror(pos.white), mirror(pos.kings), 1 - pos.turn)

    for pos in random_game_positions(6, 10, 60) + random_placements(7, 200):
        assert ev.evaluate_position(pos) == ev.evaluate_position(flip(pos))


# ----- Zobrist ----------------------------------------------------------------------

def slow_key(pos: Position) -> int:
    key = 0
    for s in range(1, 51):
        piece = pos.piece_at(s)
        if piece != "e":
            key ^= int(ZOBRIST["wWbB".index(piece), INTERNATIONAL.square_bit(s)])
    if pos.turn == BLACK:
        key ^= int(ZOBRIST[SIDE, 0])
    return key - (1 << 64) if key >= 1 << 63 else key


def test_zobrist_incremental_equals_recomputed():
    v = INTERNATIONAL
    rng = random.Random(8)
    checked = 0
    for _ in range(40):
        pos = start_position()
        key = position_key(pos)
        for _ in range(150):
            moves = legal_moves(pos)
            if not moves:
                break
            m = rng.choice(moves)
            captured = sum(1 << v.square_bit(s) for s in m.captured)
            key = int(move_key(key, pos.kings, pos.turn, v.square_bit(m.frm), v.square_bit(m.to),
                               captured, int(m.promotes), ZOBRIST))
            pos = play(pos, m)
            assert key == position_key(pos) == slow_key(pos)
            checked += 1
    assert checked > 3000


def test_search_stack_keys_match_their_positions(searcher):
    """Every ply the kernel visited holds the key of its position (incremental == fresh)."""
    from engine import negamax as nm
    from engine.zobrist import board_key
    checked = 0
    for pos in random_game_positions(11, 4, 60)[::6] + random_placements(12, 10):
        if not legal_moves(pos):
            continue
        fresh(searcher).search(pos, [], Limits(depth=5), analyze=True)
        st = searcher.driver.work.stack
        for q in range(nm.MAX_PLY):
            if st[q, nm.F_W] | st[q, nm.F_B]:
                assert st[q, nm.F_KEY] == board_key(st[q, nm.F_W], st[q, nm.F_B], st[q, nm.F_K],
                                                    st[q, nm.F_T], ZOBRIST)
                checked += 1
    assert checked > 100


def test_zobrist_keys_differ_by_side_and_piece():
    pos = pos_from_fen("W:W28,K33:B19")
    other = Position(pos.white, pos.black, pos.kings, BLACK)
    crowned = Position(pos.white, pos.black, pos.kings | (1 << INTERNATIONAL.square_bit(28)), WHITE)
    assert len({position_key(pos), position_key(other), position_key(crowned)}) == 3


# ----- forced wins, proved by brute force ---------------------------------------------------

def forced_win(pos: Position, plies: int) -> bool:
    """The side to move leaves the opponent without a move within ``plies`` (odd) plies."""
    for m in legal_moves(pos):
        after = play(pos, m)
        replies = legal_moves(after)
        if not replies:
            return True
        if plies >= 3 and all(forced_win(play(after, r), plies - 2) for r in replies):
            return True
    return False


SHOTS = [  # White to move wins everything in 5 plies, starting with a quiet move (a sacrifice)
    "W:W12,21,29:B9,16,18,23,42",
    "W:W6,33,44:B9,12,35,39,43",
    "W:W10,31,44:B13,26,35",
    "W:W8,20,28:B15,17,22,37",
]


@pytest.mark.parametrize("fen", SHOTS)
def test_finds_the_shot_with_exact_mate_distance(searcher, fen):
    pos = pos_from_fen(fen)
    assert not forced_win(pos, 3) and forced_win(pos, 5)
    for threshold in (False, True, "verified"):
        r = fresh(searcher, threshold).search(pos, [], Limits(depth=9))
        assert r.score == MATE - 5
        assert not r.move.captured
        after = play(pos, r.move)
        assert all(forced_win(play(after, reply), 3) for reply in legal_moves(after))


NEW_SWITCHES = [{"qs-threats": "true"}, {"threshold-gate": "false", "threshold-nested": "false"},
                {"history-malus": "true", "counter-moves": "true"}, {"eval-cache": "true"},
                {"lmr-log": "130"}, {"futility": "50", "futility-depth": "2"},
                {"singular-depth": "4", "singular-margin": "2"}, {"iir-depth": "0"},
                {"lmr-offers": "true"}, {"lmr-history": "1024"}, {"lmr-root": "true"}, {"tt-keep-deeper": "1"},
                {"threshold-tt-first": "true"}, {"qs-exchanges": "1"},
                {"qs-exchanges": "64"}, {"threshold-from": "2", "threshold-share": "3"},
                {"history-rate": "1"}, {"history-rate": "2"}, {"threshold-below": "true"},
                {"threshold-below": "true", "threshold-below-margin": "250"}]


@pytest.mark.parametrize("switches", NEW_SWITCHES)
def test_the_search_switches_still_find_the_shots_with_exact_mate_distance(switches):
    s = Searcher(16)
    for name, value in {"book": "false", "egdb-size": "0", **switches}.items():
        assert s.set_option(name, value)
    for fen in SHOTS:
        pos = pos_from_fen(fen)
        s.new_game()
        r = s.search(pos, [], Limits(depth=9))
        assert r.score == MATE - 5 and not r.move.captured, (fen, switches)
        after = play(pos, r.move)
        assert all(forced_win(play(after, reply), 3) for reply in legal_moves(after))


# Scan 2.0 played this shot against Rafle (the r1 match, game 21, after White's 66th ply):
# Black's 24-30 wins three men. Rafle's search with the gated threshold pruning still read
# the position as level at depth 20; its verification searches cut the nodes where Black
# is a man or two down in the middle of the combination.
SHOT_BELOW = "B:W25,27,28,32,37,38,42,43,44,46,47:B1,8,12,13,14,16,17,19,23,24,26"


def test_threshold_pruning_above_beta_only_sees_a_shot_through_a_sacrifice():
    found = {}
    for switches in ({"threshold": "false"}, {"threshold-below": "false"},
                     {"threshold-below": "true"},
                     {"threshold-below": "true", "threshold-below-margin": "250"}):
        s = Searcher(16)
        for name, value in {"book": "false", **switches}.items():
            assert s.set_option(name, value)
        s.new_game()
        r = s.search(pos_from_fen(SHOT_BELOW), [], Limits(depth=12))
        found[tuple(switches.items())] = (r.score, move_to_hub(r.move))
    assert found[(("threshold", "false"),)][0] >= 250       # no pruning: the shot's three men
    score, move = found[(("threshold-below", "false"),)]
    assert score >= 250 and move == "24-30"
    assert found[(("threshold-below", "true"),)][0] < 100      # the cut below alpha hides it
    # ... unless it waits for the side to be 2.5 men further behind than the margin
    score, move = found[(("threshold-below", "true"), ("threshold-below-margin", "250"))]
    assert score >= 250 and move == "24-30"


def _rate_twin(rates, moves, best):
    """history-rate read plainly: rates in [0, 4096); the best quiet move gains 1/64 of
    its distance to 4096, each quiet move searched before it loses 1/64 of its rate."""
    out = dict(rates)
    for j, (frm, to, cap) in enumerate(moves[:best + 1]):
        if cap:
            continue
        r = out.get((frm, to), 2048)
        out[(frm, to)] = r + (4096 - r) // 64 if j == best else r - r // 64
    return out


def test_history_rate_equals_its_slow_twin():
    rng = random.Random(7)
    hist = np.zeros((4, 64, 64), dtype=np.int64)
    buf = np.zeros((3, 12, 4), dtype=np.int64)
    rates = {}
    for _ in range(500):
        n = rng.randint(1, 12)
        moves = [(rng.randrange(50), rng.randrange(50), rng.choice([0, 0, 0, 1 << rng.randrange(50)]))
                 for _ in range(n)]
        for j, m in enumerate(moves):
            buf[1, j, :3] = m
        best = rng.randrange(n)
        _rate(hist, buf, 1, 1, best)
        rates = _rate_twin(rates, moves, best)
        for (frm, to), r in rates.items():
            assert hist[1, frm, to] + RATE_HALF == r
    assert not hist[0].any() and not hist[2:].any()
    assert 0 <= min(rates.values()) and max(rates.values()) < 4096 and len(set(rates.values())) > 10


def test_history_rate_keeps_the_rates_in_range_over_a_search():
    s = Searcher(16)
    for name, value in {"book": "false", "history-rate": "1"}.items():
        assert s.set_option(name, value)
    r = s.search(start_position(), [], Limits(depth=9))
    assert r.move in legal_moves(start_position())
    hist = s.driver.work.hist[:2]
    assert hist.any() and hist.min() >= -RATE_HALF and hist.max() < RATE_HALF


def test_mate_distance_for_the_losing_side(searcher):
    pos = pos_from_fen(SHOTS[0])
    r = fresh(searcher, False).search(pos, [], Limits(depth=9))
    after = play(pos, r.move)
    loser = fresh(searcher, False).search(after, [pos], Limits(depth=9))
    assert loser.score == -(MATE - 4)


def test_a_win_in_one_ply(searcher):
    pos = pos_from_fen("W:W33,K46:B28")      # 33x22 takes Black's last piece
    r = fresh(searcher).search(pos, [], Limits(depth=4), analyze=True)
    assert r.score == MATE - 1


# ----- draw rules ---------------------------------------------------------------------

def king_walk(fen: str, plies: int, seed: int) -> list[Position]:
    """A game of ``plies`` king moves without capture and without a repeated position."""
    rng = random.Random(seed)
    game = Game(pos_from_fen(fen))
    seen = {game.position.key}

    def walk() -> bool:
        if len(game.moves) == plies:
            return True
        pos = game.position
        moves = [m for m in legal_moves(pos) if pos.piece_at(m.frm) in "WB" and not m.captured]
        rng.shuffle(moves)
        for m in moves:
            after = play(pos, m)
            if after.key in seen or any(x.captured for x in legal_moves(after)):
                continue
            seen.add(after.key)
            game.push(m)
            if walk():
                return True
            game.pop()
            seen.discard(after.key)
        return False

    assert walk()
    return game.positions


def test_repetition_is_a_draw_for_the_side_that_can_force_it(searcher):
    # R, C, A1, A2, R, C, A1, A2, R: from R Black plays 5-10 and reaches C a third time.
    r0 = pos_from_fen("B:WK47,K48,K49,K50:BK5")
    game = Game(r0)
    for text in ["5-10", "47-42", "10-5", "42-47"] * 2:
        game.push(move_from_hub(game.position, text))
    root = game.position
    history = game.positions[1:-1]        # R itself only once before: no threefold yet
    assert root == r0 and history.count(r0) == 1
    lost = fresh(searcher, False).search(root, [], Limits(depth=6))
    assert lost.score < -300
    drawn = fresh(searcher, False).search(root, history, Limits(depth=6))
    assert drawn.score == 0
    assert drawn.move.frm == 5 and drawn.move.to == 10


@pytest.mark.parametrize("fen,plies", [
    ("B:WK47,K48,K49,K50:BK5", 49),      # 25-move rule: the 50th reversible ply draws
    ("B:WK47,K48,31:BK5", 31),           # 16-move rule: king against three pieces
    ("B:WK47,K48:BK5", 9),               # 5-move rule: king against two kings
])
def test_move_count_rules_draw_in_search(searcher, fen, plies):
    positions = king_walk(fen, plies, seed=plies)
    root, history = positions[-1], positions[:-1]
    assert root.turn == WHITE
    assert not any(m.captured for m in legal_moves(root))
    free = fresh(searcher, False).search(root, [], Limits(depth=3))
    assert free.score != 0
    drawn = fresh(searcher, False).search(root, history, Limits(depth=3))
    assert drawn.score == 0
    shorter = fresh(searcher, False).search(root, history[2:], Limits(depth=1))
    assert shorter.score != 0                # one move short of the rule: not yet a draw


# ----- stop, limits, legality ---------------------------------------------------------------

def test_stop_from_another_thread_ends_an_infinite_search(searcher):
    fresh(searcher)
    pos = pos_from_fen("B:W21,26,35,36,38,39,40,43,44,45,46,47,48,49,50:B1,2,3,4,5,8,9,10,11,13,14,15,19,20,22")
    out = {}
    infos = []
    t = threading.Thread(target=lambda: out.update(r=searcher.search(
        pos, [], Limits(infinite=True), on_info=infos.append)))
    t.start()
    while not infos:            # wait until the search is really running
        t.join(0.01)
    searcher.stop()
    t.join(10)
    assert not t.is_alive()
    assert out["r"].move in legal_moves(pos)
    assert out["r"].depth >= 1


def test_stop_while_idle_is_harmless(searcher):
    fresh(searcher).stop()
    r = searcher.search(start_position(), [], Limits(depth=3))
    assert r.depth == 3


def test_node_limit_is_respected(searcher):
    for limit in (1, 500, 20000):
        r = fresh(searcher).search(start_position(), [], Limits(nodes=limit))
        assert r.nodes <= limit
        assert r.move in legal_moves(start_position())


@pytest.mark.parametrize("threshold", [False, True, "verified"])
def test_every_returned_move_and_pv_is_legal(searcher, threshold):
    positions = random_game_positions(9, 6, 70)[::7] + random_placements(10, 20)
    for pos in positions:
        if not legal_moves(pos):
            r = fresh(searcher, threshold).search(pos, [], Limits(depth=3))
            assert r.move is None
            continue
        r = fresh(searcher, threshold).search(pos, [], Limits(depth=4), analyze=True)
        p = pos
        for m in r.pv:
            assert m in legal_moves(p)
            p = play(p, m)
        assert r.move == r.pv[0]
        if r.ponder is not None:
            assert r.ponder in legal_moves(play(pos, r.move))


def test_fixed_depth_search_is_deterministic(searcher):
    pos = pos_from_fen("B:W32,33,34,35,36,39,44,45,47,48,49,50:B1,2,3,4,5,7,9,14,15,17,18,19,20,23")
    a = fresh(searcher).search(pos, [], Limits(depth=7))
    b = fresh(searcher).search(pos, [], Limits(depth=7))
    assert (a.nodes, a.score, a.pv) == (b.nodes, b.score, b.pv)


def test_info_after_each_iteration(searcher):
    infos = []
    r = fresh(searcher).search(start_position(), [], Limits(depth=5), on_info=infos.append)
    assert [i.depth for i in infos] == [1, 2, 3, 4, 5]
    assert infos[-1].nodes == r.nodes and infos[-1].pv == r.pv
    assert all(i.mean_depth > 0 for i in infos)


def test_single_legal_move_is_answered_at_once_unless_analysing(searcher):
    pos = pos_from_fen("W:W33:B28,5")      # 33x22 is forced
    moves = legal_moves(pos)
    assert len(moves) == 1
    r = fresh(searcher).search(pos, [], Limits(depth=6))
    assert r.move == moves[0] and r.nodes == 0
    r = fresh(searcher).search(pos, [], Limits(depth=3), analyze=True)
    assert r.move == moves[0] and r.nodes > 0


def test_no_legal_move_gives_no_move(searcher):
    r = fresh(searcher).search(pos_from_fen("W:W6:B1,K50"), [], Limits(depth=3))
    assert r.move is None


def test_ponder_waits_for_hit_or_stop(searcher):
    fresh(searcher)
    out = {}
    infos = []
    t = threading.Thread(target=lambda: out.update(r=searcher.search(
        start_position(), [], Limits(movetime=0.01), on_info=infos.append, ponder=True)))
    t.start()
    while len(infos) < 3:        # a 10 ms normal search would be over by now if timed
        t.join(0.01)
    assert t.is_alive()
    searcher.ponder_hit()
    t.join(10)
    assert not t.is_alive() and out["r"].move in legal_moves(start_position())


# ----- options -------------------------------------------------------------------------

def test_drawish_kings_reaches_the_evaluation_of_either_kind():
    # 0 leaves the weights as loaded; d puts d in a copy of the hand or learned weights,
    # and a king ending a man up scores 1/d of what it did.
    s = Searcher(16)
    shipped = s.resources.evaluation_for(INTERNATIONAL)
    assert shipped.weights[ev.DRAW_KINGS] == 0
    pos = pos_from_fen("W:WK46,31,32,33:BK5,19,20")
    before = ev.evaluate_position(pos, shipped.weights)
    assert s.set_option("drawish-kings", "2") and not s.set_option("drawish-kings", "65")
    for kind in ("learned", "hand"):
        assert s.set_option("eval", kind)
        e = s.resources.evaluation_for(INTERNATIONAL)
        assert e.weights[ev.DRAW_KINGS] == 2 and e.name == (shipped.name if kind == "learned" else "hand")
        assert s.resources.evaluation_for(INTERNATIONAL) is e
    assert s.set_option("eval", "learned")
    after = ev.evaluate_position(pos, s.resources.evaluation_for(INTERNATIONAL).weights)
    assert before > 100 and after == before // 2
    assert ev.WEIGHTS[ev.DRAW_KINGS] == 0 and shipped.weights[ev.DRAW_KINGS] == 0
    assert s.set_option("drawish-kings", "0")
    assert s.resources.evaluation_for(INTERNATIONAL) is shipped


def test_options_are_validated():
    s = Searcher(16)
    names = [o.name for o in s.options()]
    assert names == ["tt-size", "threads", "multipv", "eval", "weights", "drawish-kings", "threshold",
                     "threshold-form", "threshold-margin", "threshold-interval", "threshold-slope",
                     "threshold-gate", "threshold-below", "threshold-below-margin",
                     "threshold-from", "threshold-share", "threshold-nested",
                     "threshold-tt-first", "qs-threats", "qs-exchanges",
                     "lmr-depth", "lmr-moves", "lmr-pv-moves", "lmr-two-moves", "lmr-killers",
                     "lmr-log", "lmr-history", "lmr-offers", "lmr-root", "futility",
                     "futility-depth", "history-malus", "history-rate", "counter-moves",
                     "singular-depth", "singular-margin", "iir-depth", "tt-keep-deeper",
                     "eval-cache", "eval-check", "time-horizon", "time-game-ends", "time-pieces",
                     "book", "book-ply", "book-margin", "book-file", "egdb-size", "egdb-path"]
    assert s.set_option("egdb-size", "0") and s.settings.egdb_size == 0
    assert not s.set_option("egdb-size", "8") and not s.set_option("egdb-size", "-1")
    assert s.set_option("egdb-path", "/nonexistent/egdb") and s.settings.egdb_path == "/nonexistent/egdb"
    assert s.set_option("threshold-form", "Verified") and s.settings.threshold_form == "verified"
    assert not s.set_option("threshold-form", "sloppy") and s.settings.threshold_form == "verified"
    assert s.set_option("threshold-slope", "0") and not s.set_option("threshold-slope", "-3")
    assert s.set_option("threads", "16") and not s.set_option("threads", "17") and s.settings.threads == 16
    assert not s.set_option("weights", "/no/such/weights.npz") and s.settings.weights_file is None
    assert "/no/such/weights.npz" in s.resources.notes[-1]
    assert s.set_option("eval", "hand") and s.settings.evaluation == "hand"
    assert s.set_option("eval", "Learned") and s.settings.evaluation == "learned"
    assert not s.set_option("eval", "neural") and s.settings.evaluation == "learned"
    assert s.set_option("threshold", "false") and not s.settings.threshold
    assert s.set_option("threshold", "true") and s.settings.threshold
    assert not s.set_option("threshold", "maybe")
    assert s.set_option("threshold-margin", "150") and s.settings.threshold_margin == 150
    assert not s.set_option("threshold-margin", "-1")
    assert not s.set_option("threshold-interval", "0")
    assert not s.set_option("threshold-interval", "two")
    assert not s.set_option("no-such-option", "1")
    assert not s.set_option("tt-size", "40") and s.settings.tt_log2 == 16
    assert s.set_option("tt-size", "17") and s.settings.tt_log2 == 17
    assert [o for o in s.options() if o.name == "tt-size"][0].default == "17"


# ----- time management -------------------------------------------------------------------

def test_time_plans():
    p = timeman.plan(Limits(depth=7))
    assert p.depth == 7 and p.hard is None
    p = timeman.plan(Limits(nodes=1000))
    assert p.nodes == 1000 and p.hard is None
    p = timeman.plan(Limits(movetime=1.0))
    assert 0.9 < p.hard < 1.0 and p.soft == p.hard
    p = timeman.plan(Limits(infinite=True))
    assert p.hard is None and p.depth == timeman.MAX_DEPTH
    p = timeman.plan(Limits())
    assert p.hard is not None and p.hard <= timeman.DEFAULT_MOVETIME
    assert timeman.plan(Limits(), analyze=True).hard is None


@pytest.mark.parametrize("clock,inc,moves", [
    (5.0, 0.1, None), (0.2, 0.1, None), (60.0, 0.0, None), (10.0, 0.0, 1), (10.0, 0.0, 40),
    (0.0, 0.0, None), (-3.0, 0.1, None), (300.0, 2.0, 20), (0.04, 0.0, None),
])
def test_clock_budgets_never_exceed_the_clock(clock, inc, moves):
    soft, hard = timeman.clock_budget(clock, inc, moves)
    assert 0 < soft <= hard
    if clock > 0.1:
        assert hard <= clock - timeman.OVERHEAD
    else:
        assert hard <= timeman.MIN_THINK


def test_sudden_death_spreads_the_clock():
    soft, hard = timeman.clock_budget(60.0, 0.0, None)
    assert hard < 60.0 / 5


# ----- limits beyond what a kernel or a clock can hold are clamped (issue: bad levels) -------

def test_huge_limits_are_clamped_not_fallen_back_from(searcher):
    pos = start_position()
    for limits in (Limits(nodes=10 ** 19, depth=3), Limits(nodes=2 ** 63, depth=3),
                   Limits(movetime=1e10, depth=3), Limits(time=1e300, inc=1e300, moves=10 ** 30,
                                                          depth=3)):
        fresh(searcher, threshold=False)
        result = searcher.search(pos, [], limits)
        assert result.depth == 3 and result.nodes > 100 and result.move in legal_moves(pos)
    assert timeman.plan(Limits(nodes=10 ** 19)).nodes == timeman.MAX_NODES
    assert timeman.plan(Limits(movetime=1e10)).hard <= timeman.MAX_SECONDS
    assert timeman.plan(Limits(movetime=float("nan"))).hard == timeman.MIN_THINK


def test_a_search_started_in_the_background_is_a_future(searcher):
    fresh(searcher, threshold=False)
    future = searcher.start(start_position(), [], Limits(infinite=True))
    assert not future.done()
    searcher.stop()
    result = future.result(timeout=5)
    assert result.move in legal_moves(start_position())


def test_new_game_gives_a_clean_table_of_the_same_size(searcher):
    searcher.search(start_position(), [], Limits(depth=4))
    assert searcher.tt_data.any()
    searcher.new_game()
    assert not searcher.tt_data.any() and len(searcher.tt_data) == 1 << searcher.settings.tt_log2


def test_a_perft_count_stops_when_asked():
    from engine import new_stop_flag, perft, set_stop
    perft(start_position(), 1, stop=new_stop_flag())     # compiled before the clock starts
    flag = new_stop_flag()
    box = {}
    worker = threading.Thread(target=lambda: box.setdefault("n", perft(start_position(), 12,
                                                                        stop=flag)))
    worker.start()
    worker.join(0.2)
    set_stop(flag)
    worker.join(10)
    assert not worker.is_alive() and box["n"] is None
    assert perft(start_position(), 4, stop=new_stop_flag()) == 4265     # published count


def test_a_move_control_is_mostly_spent_by_its_last_move():
    # 60 s for 75 moves: a move that takes its target (soft / SOFT) each time spends
    # 85-95% of the clock by move 75 (the rest carries over), and never runs out before;
    # a move that always runs to its hard limit still does not.
    for share in (1.0, timeman.HARD * timeman.SOFT):
        clock, used = 60.0, 0.0
        for left in range(75, 0, -1):
            soft, hard = timeman.clock_budget(clock, 0.0, left)
            spend = min(share * soft / timeman.SOFT, hard)
            clock -= spend
            used += spend
            assert clock > timeman.OVERHEAD
        assert 0.85 * 60 <= used <= 0.95 * 60 or share > 1.0
    soft, hard = timeman.clock_budget(10.0, 0.0, 1)     # the last move before a control
    assert hard < 10.0 - timeman.reserve(10.0) and soft < hard


def test_a_time_horizon_spends_a_move_control_sooner():
    # time-horizon 30: the clock of 75 moves is planned over 30 at most, so the early moves
    # take more; still never more than the clock, and nothing changes at 30 moves or fewer.
    # Sudden death keeps its own plan (time-pieces).
    plain = timeman.clock_budget(60.0, 0.0, 75)
    sooner = timeman.clock_budget(60.0, 0.0, 75, horizon=30)
    assert sooner[0] > 2 * plain[0] and sooner[1] > 2 * plain[1]
    assert timeman.clock_budget(20.0, 0.0, 20, 30) == timeman.clock_budget(20.0, 0.0, 20)
    assert (timeman.clock_budget(60.0, 0.0, None, 30, 55)
            == timeman.clock_budget(60.0, 0.0, None, 0, 55))
    assert (timeman.clock_budget(60.0, 1.0, None, 10)
            == timeman.clock_budget(60.0, 1.0, None, 0))
    clock = 60.0
    for left in range(75, 0, -1):
        soft, hard = timeman.clock_budget(clock, 0.0, left, 30)
        clock -= hard if left == 75 else soft / timeman.SOFT
        assert clock > timeman.OVERHEAD
    s = Searcher(16)
    assert s.settings.time_horizon == 30                # the default since 2026-12-05
    assert s.set_option("time-horizon", "0") and s.settings.time_horizon == 0
    assert not s.set_option("time-horizon", "-1") and not s.set_option("time-horizon", "201")


def test_a_game_that_ends_at_its_control_spends_the_clock_by_then():
    # time-game-ends: no slack beyond the control. Moves that take half their target, one
    # in five forced (no time), leave under 10% of the clock instead of over a fifth; moves
    # that always run to their hard limit still never run out; sudden death is unchanged.
    def spent(game_ends: bool, share: float) -> float:
        clock = 60.0
        for left in range(75, 0, -1):
            soft, hard = timeman.clock_budget(clock, 0.0, left, 30, 0, game_ends)
            clock -= 0.0 if left % 5 == 0 else min(share * soft / timeman.SOFT, hard)
            assert clock > (timeman.OVERHEAD if share < 1 else 0.0)
        return 60.0 - clock
    assert spent(False, 0.5) < 0.8 * 60 and spent(True, 0.5) > 0.9 * 60
    assert spent(True, timeman.HARD * timeman.SOFT) < 60.0
    soft, hard = timeman.clock_budget(10.0, 0.0, 1, 30, 0, True)      # the game's last move
    assert hard == 10.0 - timeman.reserve(10.0) and soft < hard
    assert timeman.clock_budget(60.0, 0.0, None, 30, 55, True) == timeman.clock_budget(
        60.0, 0.0, None, 30, 55)
    # DXP's move limit ends the game: its limits say so, whatever the option.
    last = timeman.plan(Limits(time=10.0, moves=1, ends=True), horizon=30)
    assert last.hard == hard and timeman.plan(Limits(time=10.0, moves=1), horizon=30).hard < hard
    s = Searcher(16)
    assert s.settings.time_game_ends is False
    assert s.set_option("time-game-ends", "true") and s.settings.time_game_ends is True


def test_time_pieces_plans_a_sudden_death_clock_by_the_pieces_on_the_board():
    # time-pieces 15: sudden death is planned over 15 moves plus one a piece, so a full board
    # (55) takes less than today's 30 moves give, a late middle game (15 pieces: 30) the same,
    # an ending more; a control of moves keeps its own count; the whole game fits the clock.
    plain = timeman.clock_budget(120.0, 0.0, None)
    assert timeman.clock_budget(120.0, 0.0, None, 0, 15 + 40)[0] < 0.6 * plain[0]
    assert timeman.clock_budget(120.0, 0.0, None, 0, 15 + 15) == plain
    assert timeman.clock_budget(120.0, 0.0, None, 0, 15 + 4)[0] > 1.5 * plain[0]
    assert timeman.clock_budget(60.0, 0.0, 75, 0, 55) == timeman.clock_budget(60.0, 0.0, 75)
    assert timeman.clock_budget(10.0, 0.1, None, 0, 55) == timeman.clock_budget(10.0, 0.1, None)
    clock = 120.0
    for move in range(150):                        # a man taken every other move, down to 2
        soft, hard = timeman.clock_budget(clock, 0.0, None, 0, 15 + max(2, 40 - move // 2))
        clock -= soft / timeman.SOFT
        assert clock > timeman.OVERHEAD
    s = Searcher(16)
    assert s._sudden_moves(start_position()) == 55           # the default, 15
    assert s.set_option("time-pieces", "0") and s._sudden_moves(start_position()) == 0
    assert s.set_option("time-pieces", "20") and s._sudden_moves(start_position()) == 60
    assert not s.set_option("time-pieces", "-1") and not s.set_option("time-pieces", "201")


def test_the_soft_limit_stretches_while_the_best_move_is_unsettled():
    s = Searcher(16)
    plan = timeman.Plan(soft=1.0, hard=4.0)
    s.driver.iterations = [("a", 10)] * 8
    assert s.driver.stretch(plan) < 1                         # settled: less time
    s.driver.iterations = [("a", 10)] * 5 + [("b", 10), ("a", 10), ("b", 10)]
    assert s.driver.stretch(plan) > 2                         # the best move keeps changing
    s.driver.iterations = [("a", 10)] * 7 + [("a", -60)]
    assert s.driver.stretch(plan) > 1.5                       # the score fell
    assert s.driver.stretch(timeman.Plan(soft=1.0, hard=1.0)) == 1.0   # a fixed move time
    clock = timeman.Clock(lambda: None)
    clock.begin(False, None, time.monotonic() - 2.0)   # 2 s into the move
    assert clock.time_is_up(plan, 1.0) and not clock.time_is_up(plan, 2.5)
    assert clock.time_is_up(timeman.Plan(soft=1.0, hard=1.5), 2.5)   # never past hard


# ----- the transposition table --------------------------------------------------------------

def test_the_table_keeps_two_entries_a_bucket_and_rejects_torn_ones():
    from engine import tt
    keys, data = tt.new_table(4)
    a, b = 0x1234_5678_9ABC_DE00, 0x0FED_CBA9_8765_4300     # the same bucket
    tt.store(keys, data, a, 7, 120, 9, tt.BOUND_EXACT, 1)
    tt.store(keys, data, b, 8, -40, 3, tt.BOUND_LOWER, 1)
    da, db = tt.probe(keys, data, a), tt.probe(keys, data, b)
    assert tt.entry_move(da) == 7 and tt.entry_score(da) == 120 and tt.entry_depth(da) == 9
    assert tt.entry_move(db) == 8 and tt.entry_score(db) == -40 and tt.entry_bound(db) == tt.BOUND_LOWER
    # A torn slot: one thread's key word with another thread's data word.
    i = a & (len(keys) - 2)
    keys[i] = b ^ db
    assert tt.probe(keys, data, a) == 0
    assert tt.probe(keys, data, b) == db                 # from its own, whole slot
    keys[i + 1] = a ^ da
    assert tt.probe(keys, data, b) == 0 and tt.probe(keys, data, a) == 0


def _slow_store(slots, key, mid, score, depth, bound, age, keep):
    """The replacement rule written plainly: ``slots``, a bucket's two (key, fields) or None."""
    fields = dict(move=mid, score=score, depth=depth, bound=bound, age=age % 32)
    if keep:
        for j, slot in enumerate(slots):
            if slot is not None and slot[0] == key:
                old = slot[1]
                if old["age"] == age % 32 and old["depth"] >= depth + keep:
                    return
                if mid == 0:
                    fields["move"] = old["move"]
                slots[j] = (key, fields)
                return
    first = slots[0]
    if (first is None or first[0] == key or first[1]["age"] != age % 32
            or first[1]["depth"] <= depth):
        slots[0] = (key, fields)
    else:
        slots[1] = (key, fields)


@pytest.mark.parametrize("keep", [0, 1, 3])
def test_the_table_replaces_entries_as_its_slow_twin_does(keep):
    from engine import tt
    rng = random.Random(keep)
    keys, data = tt.new_table(4)
    bucket = 6                                            # entries 6 and 7
    positions = [(rng.getrandbits(58) << 4) | bucket for _ in range(4)]
    slots = [None, None]
    for _ in range(3000):
        key = rng.choice(positions)
        mid = rng.choice([0, rng.randrange(1, 1 << 32)])
        score, depth = rng.randrange(-500, 500), rng.randrange(0, 20)
        bound, age = rng.randrange(1, 4), rng.choice([1, 1, 1, 2])
        tt.store(keys, data, key, mid, score, depth, bound, age, keep)
        _slow_store(slots, key, mid, score, depth, bound, age, keep)
        for j, slot in enumerate(slots):
            d = int(data[bucket + j])
            if slot is None:
                assert d == 0
                continue
            assert int(keys[bucket + j]) ^ d == slot[0]
            got = dict(move=tt.entry_move(d), score=tt.entry_score(d), depth=tt.entry_depth(d),
                       bound=tt.entry_bound(d), age=(d >> 58) & 31)
            assert got == slot[1]
    if keep:   # a deeper entry of this search survives a shallower result of its position
        key = positions[0]
        tt.store(keys, data, key, 5, 10, 30, tt.BOUND_EXACT, 9, keep)
        tt.store(keys, data, key, 0, -10, 30 - keep, tt.BOUND_UPPER, 9, keep)
        assert tt.entry_depth(tt.probe(keys, data, key)) == 30
        tt.store(keys, data, key, 0, -10, 31, tt.BOUND_UPPER, 9, keep)
        d = tt.probe(keys, data, key)
        assert tt.entry_depth(d) == 31 and tt.entry_move(d) == 5     # the move kept


# ----- Lazy SMP -------------------------------------------------------------------------

def _helpers_alive() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("rafle-helper")]


def test_two_threads_play_legal_moves_in_every_limit_and_leave_no_helper_running():
    s = Searcher(18)
    assert s.set_option("threads", "2")
    s.warm_up()
    limits = [Limits(depth=5), Limits(nodes=5000), Limits(movetime=0.05),
              Limits(time=1.0, inc=0.01), Limits(moves=10, time=2.0)]
    positions = random_game_positions(21, 4, 60)[::5] + random_placements(22, 6)
    helped = 0
    for round_ in range(2):                # the same positions again: a table full of both threads' entries
        for i, pos in enumerate(positions):
            if not legal_moves(pos):
                continue
            r = s.search(pos, [], limits[(i + round_) % len(limits)])
            assert r.move in legal_moves(pos)
            after = pos
            for m in r.pv:                 # the whole PV is a legal line
                assert m in legal_moves(after)
                after = play(after, m)
            assert not _helpers_alive()
            helped += s.helpers.nodes()
    assert helped > 0                                      # the helper did search


def test_stop_ends_every_thread_of_an_infinite_search():
    s = Searcher(18)
    assert s.set_option("threads", "3")
    s.warm_up()
    pos = pos_from_fen("B:W21,26,35,36,38,39,40,43,44,45,46,47,48,49,50:B1,2,3,4,5,8,9,10,11,13,14,15,19,20,22")
    infos = []
    future = s.start(pos, [], Limits(infinite=True), on_info=infos.append)
    while len(infos) < 3:
        time.sleep(0.01)
    assert len(_helpers_alive()) == 2
    s.stop()
    r = future.result(timeout=10)
    assert r.move in legal_moves(pos) and not _helpers_alive()


def test_one_thread_searches_exactly_as_before():
    pos = pos_from_fen("B:W21,26,35,36,38,39,40,43,44,45,46,47,48,49,50:B1,2,3,4,5,8,9,10,11,13,14,15,19,20,22")
    one = Searcher(18)
    assert one.set_option("threads", "1") and not one.set_option("threads", "17")
    assert not one.set_option("threads", "0")
    a = one.search(pos, [], Limits(depth=7))
    b = Searcher(18).search(pos, [], Limits(depth=7))
    assert (a.nodes, a.move, a.score) == (b.nodes, b.move, b.score) and not len(one.helpers)


# ----- the evaluation updated move by move -------------------------------------------------

@pytest.mark.parametrize("name", [n for n in sorted(VARIANTS)
                                  if weights.shipped(get_variant(n)).is_file()])
def test_the_evaluation_updated_move_by_move_equals_the_full_one_on_every_node(name):
    # eval-check: at every node it evaluates, the search also evaluates the position
    # afresh and counts the differences (engine.negamax._static).
    s = Searcher(16)
    assert s.set_option("book", "false") and s.set_option("eval-check", "true")
    assert _evaluations_checked(s, get_variant(name), random.Random(name + "check"), 12) > 3000


@pytest.mark.parametrize("rect", [1, 2])
def test_the_rectangles_updated_move_by_move_equal_the_full_evaluation_on_every_node(tmp_path,
                                                                                     rect):
    # The same check with a weight file of rectangles (engine.patterns, random weights):
    # alone (1), or after the first family of windows (2).
    from engine.patterns import layout
    path = tmp_path / "rect.npz"
    rng = np.random.default_rng(12)
    np.savez(path, block=rng.integers(-3000, 3000, layout(10, rect=rect)[-1]).astype(np.int32),
             width=10, rect=rect, phase="pip", version="rect-random")
    s = Searcher(16)
    for name, value in {"book": "false", "eval-check": "true", "weights": str(path)}.items():
        assert s.set_option(name, value), name
    assert _evaluations_checked(s, get_variant("international"), random.Random("rect-check"),
                                8) > 3000


def _evaluations_checked(s, v, rng, rounds: int) -> int:
    """Searches to depth 6 of ``rounds`` random positions of ``v`` by ``s`` (eval-check on):
    none finds an updated evaluation unlike a fresh one; the evaluations checked."""
    from engine import negamax as nm
    checked = 0
    for _ in range(rounds):
        pos = start_position(v)
        for _ in range(rng.randrange(0, 70)):
            moves = legal_moves(pos)
            if not moves:
                break
            pos = play(pos, rng.choice(moves))
        if not legal_moves(pos):
            continue
        s.new_game()
        ctl = s.driver.work.ctl
        ctl[nm.C_CHECKED] = ctl[nm.C_WRONG] = 0
        s.search(pos, [], Limits(depth=6))
        assert ctl[nm.C_WRONG] == 0, pos
        checked += int(ctl[nm.C_CHECKED])
    return checked


def test_singular_extensions_keep_the_updated_evaluation_right_and_the_move_legal():
    # The singular test searches a node's moves twice (Step 10 starts its move loop again):
    # the pattern windows of its children must still be those of their positions.
    from engine import negamax as nm
    rng = random.Random("singular")
    s = Searcher(16)
    for name, value in {"book": "false", "eval-check": "true", "singular-depth": "3"}.items():
        assert s.set_option(name, value)
    checked = 0
    for _ in range(6):
        pos = start_position()
        for _ in range(rng.randrange(4, 40)):
            pos = play(pos, rng.choice(legal_moves(pos)))
        if not legal_moves(pos):
            continue
        s.new_game()
        ctl = s.driver.work.ctl
        ctl[nm.C_CHECKED] = ctl[nm.C_WRONG] = 0
        r = s.search(pos, [], Limits(depth=8))
        assert ctl[nm.C_WRONG] == 0, pos
        assert r.move in legal_moves(pos)
        checked += int(ctl[nm.C_CHECKED])
    assert checked > 3000


def test_the_eval_cache_finds_evaluations_and_changes_nothing_else():
    from engine import negamax as nm
    pos = pos_from_fen("W:W26,28,33,34,37,38,39,42,45,47:B3,8,10,16,17,18,19,24,25,30")
    found = {}
    for cache in ("false", "true"):
        s = Searcher(16)
        assert s.set_option("book", "false") and s.set_option("eval-cache", cache)
        r = s.search(pos, [], Limits(depth=9))
        ctl = s.driver.work.ctl
        found[cache] = (r.move, r.score, r.nodes, int(ctl[nm.C_EVAL_HITS]), int(ctl[nm.C_EVALS]))
    assert found["true"][:3] == found["false"][:3]
    assert found["false"][3] == 0 and 0 < found["true"][3] < found["true"][4]


# ----- several lines (MultiPV) -------------------------------------------------------------

MULTIPV_FENS = [
    "B:W32,33,34,35,36,39,44,45,47,48,49,50:B1,2,3,4,5,7,9,14,15,17,18,19,20,23",
    "W:W27,28,31,32,33,34,36,37,38,39,40,41,42,43,44,45,46,47,48,49:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,23",
]


@pytest.mark.parametrize("fen", MULTIPV_FENS)
def test_multipv_lines_differ_and_the_first_is_the_single_line(searcher, fen):
    pos = pos_from_fen(fen)
    single = fresh(searcher).search(pos, [], Limits(depth=6))
    infos = []
    assert searcher.set_option("multipv", "3")
    try:
        multi = fresh(searcher).search(pos, [], Limits(depth=6), on_info=infos.append)
    finally:
        assert searcher.set_option("multipv", "1")
    last = [i for i in infos if i.depth == 6]
    assert [i.line for i in last] == [1, 2, 3]
    assert (multi.move, multi.score, multi.pv) == (single.move, single.score, single.pv)
    assert last[0].pv == single.pv and last[0].score == single.score
    firsts = [i.pv[0] for i in last]
    assert len(set(firsts)) == 3 and all(m in legal_moves(pos) for m in firsts)
    scores = [i.score for i in last]
    assert scores == sorted(scores, reverse=True)
    for i in last:                       # every line is a legal line of play
        p = pos
        for m in i.pv:
            assert m in legal_moves(p)
            p = play(p, m)


def test_multipv_stops_at_the_number_of_moves(searcher):
    pos = pos_from_fen("W:W31,32:B19")       # four moves for White
    count = len(legal_moves(pos))
    infos = []
    assert searcher.set_option("multipv", "5")
    try:
        fresh(searcher).search(pos, [], Limits(depth=3), on_info=infos.append)
    finally:
        assert searcher.set_option("multipv", "1")
    last = [i for i in infos if i.depth == 3]
    assert [i.line for i in last] == list(range(1, min(count, 5) + 1))
    assert {i.pv[0] for i in last} == set(legal_moves(pos))     # every move once


def test_multipv_one_reports_no_line_number(searcher):
    infos = []
    fresh(searcher).search(start_position(), [], Limits(depth=3), on_info=infos.append)
    assert [i.line for i in infos] == [0, 0, 0]
