"""The draw rules are variant data with one definition, read by the search and the referee.

* Random games of every variant, played to the end from the start and from sparse
  king-heavy positions: at every position the referee (:class:`engine.game.Game`), the
  slow twin written from the rules text (``slow_draw_rules``) and the search kernel's
  own node verdict (:func:`engine.negamax.rule_verdict`, with the root counters the
  search computes from the game's history) agree on whether the rules draw.
* For every variant whose rules differ from international's, a node the search scores
  as drawn by the variant's rule where international's rules would not draw it, and
  the reverse; the same position is judged with the variant's own table and with a copy
  whose draw data are international's.
* Whole searches: the score is 0 exactly when the variant's rule draws every reply.
"""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

import slow_draw_rules as twin
from engine import (INTERNATIONAL, VARIANTS, Game, Limits, Position, Searcher, get_variant,
                    legal_moves, parse_position, play)
from engine import negamax as nm
from engine.game import RootCounters, root_counters
from engine.movegen import new_move_buffer, new_state
from engine.variants import GOAL_BREAKTHROUGH, V_LONG_DIAGONAL, V_PROMO_BLACK, V_PROMO_WHITE, V_REPETITIONS
from engine.zobrist import ZOBRIST, board_key

DRAW_DATA = slice(V_REPETITIONS, V_LONG_DIAGONAL + 1)


def with_international_draws(variant):
    """The variant with international's draw rules: same board, moves and goal."""
    table = variant.table.copy()
    table[DRAW_DATA] = INTERNATIONAL.table[DRAW_DATA]
    table[V_LONG_DIAGONAL] = variant.table[V_LONG_DIAGONAL]
    table.flags.writeable = False
    return dataclasses.replace(variant, name=variant.name + "+fmjd-draws", table=table,
                               repetitions=3, reversible_plies=50, endgame="fmjd")


def verdict(positions: list[Position], counters=None) -> int:
    """The search kernel's verdict on the last of ``positions`` (the game so far), as the
    kernel reaches it on entering a node whose root had the game's history."""
    pos = positions[-1]
    if counters is None:
        counters = root_counters(positions[:-1], pos)
    keys = np.array([board_key(*p.words, ZOBRIST) for p in positions], dtype=np.int64)
    at = len(positions) - 1
    return int(nm.rule_verdict(*pos.words, *counters, keys, at,
                               at + 1, pos.variant.table, pos.variant.steps,
                               new_move_buffer(1)[0], new_state()))


# ----- random games: referee, twin and search agree ----------------------------------------

def sparse_position(variant, rng: random.Random) -> Position:
    """A few pieces per side, mostly kings (none in breakthrough, where a king has won);
    men never on their own crowning row."""
    squares = list(range(1, variant.nsquares + 1))
    rng.shuffle(squares)
    white = black = kings = 0
    for side in (0, 1):
        for _ in range(rng.randint(1, 4)):
            square = squares.pop()
            bit = 1 << variant.square_bit(square)
            crown = int(variant.table[V_PROMO_WHITE if side == 0 else V_PROMO_BLACK])
            if bit & crown:
                return sparse_position(variant, rng)
            if rng.random() < 0.7 and variant.goal != GOAL_BREAKTHROUGH:
                kings |= bit
            if side == 0:
                white |= bit
            else:
                black |= bit
    return Position(white, black, kings, rng.randint(0, 1), variant)


def play_out(game: Game, rng: random.Random, most: int = 300):
    """Random moves to the end of the game (or ``most`` plies), checking every position."""
    tw = twin.start_counters(game.position)
    incremental = RootCounters()        # the search's root, asked at 1 or 2 plies' distance
    for ply in range(most):
        pos = game.position
        outcome = game.outcome()
        reps = game.repetitions() >= pos.variant.repetitions
        twin_reason = twin.draw_reason(tw, pos.variant)
        # Referee and twin: the same count rule in the same words, the same repetition.
        if outcome is None or outcome.result != "1-1":
            assert twin_reason is None or not game.legal_moves(), (pos, tw, outcome)
            assert not reps or not game.legal_moves()
        elif "repetition" in outcome.reason:
            assert reps
        else:
            assert outcome.reason == twin_reason and not reps, (outcome, tw)
        # The search's verdict on entering this node: a draw exactly when the referee
        # says so (where the game is lost for want of a move, the loss comes first).
        seen = verdict(game.positions, game.counters[-1])
        assert game.counters[-1] == root_counters(game.positions[:-1], pos)
        if ply % 3:
            assert incremental(game.positions[:-1], pos) == game.counters[-1]
        if outcome is not None and outcome.result == "1-1":
            assert seen == nm.RULE_DRAW, (pos, outcome, game.counters[-1])
        elif outcome is not None:
            assert seen in (nm.RULE_NONE, nm.RULE_NO_MOVE)
        else:
            assert seen == nm.RULE_NONE, (pos, game.counters[-1], tw)
        if outcome is not None:
            return outcome
        move = careful_move(pos, game.legal_moves(), rng)
        tw = twin.advance(tw, pos, move, play(pos, move))
        game.push(move)
    return None


def careful_move(pos: Position, moves, rng: random.Random):
    """A random move, mostly one that leaves the opponent nothing to capture, so that
    games last into the endings where the count rules apply."""
    if rng.random() < 0.9:
        safe = [m for m in moves if not any(r.captured for r in legal_moves(play(pos, m)))]
        if safe:
            return rng.choice(safe)
    return rng.choice(moves)


def test_the_roots_counters_follow_a_game_through_takebacks_and_other_games():
    rng = random.Random("root-counters")
    incremental = RootCounters()
    for i in range(30):
        variant = get_variant(sorted(VARIANTS)[i % len(VARIANTS)])
        start = None if i % 3 == 0 else sparse_position(variant, rng)
        game = Game(start, variant)
        for _ in range(120):
            moves = game.legal_moves()
            if not moves or game.outcome() is not None:
                break
            if game.moves and rng.random() < 0.15:
                game.pop()                              # a move taken back: replayed whole
            else:
                game.push(careful_move(game.position, moves, rng))
            if rng.random() < 0.7:
                assert incremental(game.positions[:-1], game.position) == game.counters[-1]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_random_games_referee_twin_and_search_agree(name):
    variant = get_variant(name)
    rng = random.Random(f"draw-rules-{name}")
    ends = {}
    for i in range(40):
        start = None if i < 4 else sparse_position(variant, rng)
        if start is not None and not Game(start).legal_moves():
            continue
        outcome = play_out(Game(start, variant), rng)
        reason = outcome.reason.split(" (")[0] if outcome else "unfinished"
        ends[reason] = ends.get(reason, 0) + 1
    # The games end by more than one rule, so the comparison covered them (breakthrough
    # games end by a crowning: with no king there is nothing a count rule counts).
    assert len(ends) >= (1 if variant.goal == GOAL_BREAKTHROUGH else 2), ends


# ----- each variant's own rules, against international's on the same node -------------------

def history_of(pos: Position, plies: int, *, men_move: bool = False,
               where=lambda p: True) -> list[Position]:
    """``plies`` positions before ``pos``, each ply one piece of the side that moved put on
    another empty square, nothing captured or crowned: a king (or, with ``men_move``, a
    man where the side has one) moving quietly, as the counters see it (they read only
    the boards, never the moves), with no position repeated, each one ``where``."""
    rng = random.Random(plies)
    v = pos.variant
    out = [pos]
    while len(out) <= plies:
        cur = out[-1]
        mover = 1 - cur.turn
        own = cur.white if mover == 0 else cur.black
        pieces = own & ~cur.kings if men_move and own & ~cur.kings else own & cur.kings
        crown = int(v.table[V_PROMO_WHITE if mover == 0 else V_PROMO_BLACK])
        bits = [b for b in range(64) if pieces >> b & 1]
        empty = [v.square_bit(s) for s in range(1, v.nsquares + 1)
                 if not (1 << v.square_bit(s)) & (cur.white | cur.black)]
        src, dst = 1 << rng.choice(bits), 1 << rng.choice(empty)
        if dst & crown and not src & cur.kings:
            continue
        moved = own ^ src ^ dst
        kings = cur.kings ^ (src | dst) if src & cur.kings else cur.kings
        prev = Position(moved if mover == 0 else cur.white, moved if mover == 1 else cur.black,
                        kings, mover, v)
        if prev.key not in {q.key for q in out} and where(prev):
            out.append(prev)
    return out[:0:-1]


def judged(pos: Position, history: list[Position]) -> tuple[int, int]:
    """(verdict with the variant's rules, verdict with international's) on ``pos``."""
    other = with_international_draws(pos.variant)
    moved = [dataclasses.replace(p, variant=other) for p in history + [pos]]
    return verdict(history + [pos]), verdict(moved)


DRAW, NONE = nm.RULE_DRAW, nm.RULE_NONE

# (variant, position, plies of history before it, verdict with its own rules, with
# international's).  Kings only, unless said: the history is king moves without capture.
OWN_RULES = [
    # Russian 7.2.4: three kings against one, the stronger side's 15th move (29 plies
    # when it moved first); international's 16-move rule wants 32.
    ("russian", "B:WK29,K30,K31:BK3", 29, DRAW, NONE),
    ("russian", "B:WK29,K30,K31:BK3", 28, NONE, NONE),
    # Russian 7.2.8: king and man against a king, the stronger side's 5th move (9 plies);
    # international's 5-move rule counts both sides' moves (10 plies).
    ("russian", "B:WK29,10:BK1", 9, DRAW, NONE),
    ("brazilian", "B:WK29,10:BK1", 9, DRAW, NONE),
    # Russian 7.2.7: three pieces with a king against a lone king on the long diagonal.
    ("russian", "B:WK29,K30,10:BK15", 9, DRAW, NONE),
    ("russian", "B:WK29,K30,10:BK14", 9, NONE, NONE),            # off the diagonal
    # Russian 7.2.5: kings only, 15 moves each (30 plies) against 25 (50).
    ("russian", "W:WK29,K30,K22:BK4,K8", 30, DRAW, NONE),
    # Russian 7.2.6: kings on both sides, 6 pieces, no capture or promotion for 60 moves
    # each (120 plies); the men make the history no king-only run.
    ("russian", "W:WK29,K30,21:BK1,K2,12", 120, DRAW, NONE),
    # Czech and pool: 15 moves each of kings (30 plies) against 25.
    ("czech", "W:WK29,K30,K22:BK4,K8", 30, DRAW, NONE),
    ("pool", "W:WK29,K30,K22:BK4,K8", 30, DRAW, NONE),
    # Frisian: king against king, 2 moves each (4 plies); international: 5 each.
    ("frisian", "W:WK46:BK5", 4, DRAW, NONE),
    # ... and the reverse: no 25-move rule, and two kings against one for 7 moves each.
    ("frisian", "W:WK46,K47,K48:BK5,K4", 50, NONE, DRAW),
    ("frisian", "W:WK46,K47:BK5", 10, NONE, DRAW),
    ("frysk", "W:WK46,K47:BK5", 14, DRAW, DRAW),
    # English and Italian: 40 moves each (80 plies) of kings, not 25; Italian: no 16/5.
    ("english", "W:WK29,K30,K22:BK4,K8", 50, NONE, DRAW),
    ("english", "W:WK29,K30,K22:BK4,K8", 80, DRAW, DRAW),
    ("italian", "W:WK29,K30,K22:BK4,K8", 50, NONE, DRAW),
    ("italian", "W:WK29:BK4", 10, NONE, DRAW),
    # Spanish and Thai keep the 25-move rule but have no 16- or 5-move rule.
    ("spanish", "W:WK29:BK4", 10, NONE, DRAW),
    ("thai", "W:WK29,K30,K31:BK4", 32, NONE, DRAW),
    ("spanish", "W:WK29,K30,K22:BK4,K8", 50, DRAW, DRAW),
]


@pytest.mark.parametrize("name, fen, plies, own, fmjd", OWN_RULES)
def test_the_search_applies_each_variants_own_draw_rules(name, fen, plies, own, fmjd):
    pos = parse_position(fen, get_variant(name))
    # With men on the board, the men move: that resets only the kings-only count.  For
    # Russian 7.2.7 the lone king stays on the long diagonal while the count runs.
    diagonal = pos.variant.table[V_LONG_DIAGONAL]
    stay = (lambda p: bool(p.black & diagonal)) if pos.black & diagonal and name == "russian" \
        else (lambda p: True)
    history = history_of(pos, plies, men_move=pos.kings != pos.white | pos.black, where=stay)
    assert judged(pos, history) == (own, fmjd)


def test_italian_draws_on_the_fourth_occurrence_not_the_third():
    for name, draws_at in (("italian", 4), ("english", 3)):
        game = Game(parse_position("W:WK29:BK4,K8", get_variant(name)))
        there = []
        for _ in range(2):                  # a king move of each side, then both back
            move = next(m for m in game.legal_moves() if not m.captured)
            there.append(move)
            game.push(move)
        back = [type(m)(m.to, m.frm) for m in there]
        occurrences = 1
        while occurrences < draws_at:
            for move in back:
                game.push(move)
            occurrences += 1
            expected = DRAW if occurrences >= draws_at else NONE
            assert verdict(game.positions) == expected
            assert (game.outcome() is not None) == (occurrences >= draws_at)
            if occurrences < draws_at:
                for move in there:
                    game.push(move)


# ----- whole searches -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def searcher():
    s = Searcher(tt_log2=16)
    s.warm_up()
    return s


@pytest.mark.parametrize("name, fen, plies, own, fmjd", [
    ("russian", "W:WK29,K30,K22:BK4,K8", 29, DRAW, NONE),     # 7.2.5 at the next move
    ("english", "W:WK29,K30,K22:BK4,K8", 49, NONE, DRAW),     # 40-move rule, not 25
    ("frisian", "W:WK46,K47,K48:BK5,K4", 49, NONE, DRAW),     # no 25-move rule
])
def test_a_search_scores_zero_exactly_when_the_variants_rule_draws_every_reply(
        searcher, name, fen, plies, own, fmjd):
    pos = parse_position(fen, get_variant(name))
    assert not any(m.captured for m in legal_moves(pos))     # every reply is a king move
    history = history_of(pos, plies)
    other = with_international_draws(pos.variant)
    for variant, drawn in ((pos.variant, own == DRAW), (other, fmjd == DRAW)):
        moved = [dataclasses.replace(p, variant=variant) for p in history + [pos]]
        searcher.new_game()
        result = searcher.search(moved[-1], moved[:-1], Limits(depth=3))
        assert (result.score == 0) == drawn, (variant.name, result)
