"""Iterative deepening driven from Python, one jitted call per iteration.

``Searcher`` owns the transposition table, the ordering tables and the kernel's
scratch arrays, and runs one search at a time.  Each iteration calls
:func:`engine.negamax.search_root` (with aspiration windows from depth 5: a result
outside the window is searched again with a wider one).  The kernel releases the
GIL, so a protocol thread keeps answering while a search runs; ``stop`` and the
time-out timer end a search by setting the kernel's stop flag.

Draw rules reach the kernel as the root's counters and the Zobrist keys of the
game's reversible tail (positions that can still repeat); see ``_root_counters``.

``root_moves`` restricts the moves searched at the root (Frisian's barred king, see
:func:`engine.game.allowed_moves`: the kernel sees no game history).  The kernel
generates its own root moves, so a strict subset is searched one child at a time
(``_iterate_subset``): each allowed move's position is the kernel's root, one ply
shallower, with the draw rules the kernel would apply to it checked here, and the
variant's goal (:func:`engine.position.winner`: a breakthrough king, a side without a
move) scored here, since the kernel judges a position's goal only below its root.

Threshold pruning (``threshold``, ``threshold-margin``, ``threshold-interval``) is off
by default.  Measured over the bench positions at depth 13 it saves 37% of the nodes
(margin 300, interval 3) to 59% (150, 2), but in self-play at equal node budgets
300/3 scored even with it off (-5 Elo over 340 games, error bar about 30) and 150/2
lost clearly (-115 +- 62 over 100 games): the saving is paid for in missed tactics.
Late-move reductions earn their place in the same kind of match at 100k nodes a
move (off: -85 +- 53); reducing from the third move on beat the fourth (+49 +- 38,
200 games).
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import negamax as nm
from . import timeman
from . import tt
from .eval import WEIGHTS, eval_tables, evaluate
from .game import ending_rule
from .movegen import FLAG_PROMOTE, new_move_buffer, new_state
from .options import (DEFAULT_INTERVAL, DEFAULT_MARGIN, DEFAULT_THRESHOLD, Option, declare,
                      parse_bool, parse_int)
from .options import INT_OPTIONS as _INT_OPTIONS
from .position import Move, Position, barred_square, legal_moves, play, start_position, winner
from .zobrist import ZOBRIST, board_key

HISTORY_KEYS = 100   # the 25-move rule ends a reversible chain after 50 plies


@dataclass(frozen=True)
class Limits:
    """What the next search may use; all None means the engine's default."""

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None   # seconds for this move
    time: float | None = None       # remaining clock in seconds (Hub: increment already included)
    inc: float = 0.0
    moves: int | None = None        # moves left to the time control
    infinite: bool = False


@dataclass(frozen=True)
class Info:
    """One completed iteration."""

    depth: int
    mean_depth: float
    score: int
    nodes: int
    time: float
    pv: tuple[Move, ...]


@dataclass(frozen=True)
class Result:
    """The answer of a search: ``move`` is None only when there is no legal move."""

    move: Move | None
    ponder: Move | None
    score: int | None
    depth: int
    nodes: int
    time: float
    pv: tuple[Move, ...]


LMR_DEPTH, LMR_MOVES = 3, 2    # reduce late quiet moves from this depth, after this many moves


class Searcher:
    """Owns the search tables; one search at a time (``stop``/``ponder_hit`` from any thread)."""

    def __init__(self, tt_log2: int = tt.DEFAULT_LOG2):
        self.tt_log2 = max(tt.MIN_LOG2, min(int(tt_log2), tt.MAX_LOG2))
        self.threshold = DEFAULT_THRESHOLD
        self.threshold_margin = DEFAULT_MARGIN
        self.threshold_interval = DEFAULT_INTERVAL
        self.weights = WEIGHTS          # evaluation weights (engine.eval), for tuning
        self.lmr_depth, self.lmr_moves = LMR_DEPTH, LMR_MOVES
        self._tt_keys, self._tt_data = tt.new_table(self.tt_log2)
        self._killers = np.zeros((nm.MAX_PLY, 2), dtype=np.int64)
        self._hist = np.zeros((2, 64, 64), dtype=np.int64)
        self._st, self._order, self._pv, self._pvlen = nm.new_stack()
        self._buf = new_move_buffer(nm.MAX_PLY)
        self._state = new_state()
        self._keys = np.zeros(HISTORY_KEYS + nm.MAX_PLY + 1, dtype=np.int64)
        self._params = np.zeros(nm.P_SIZE, dtype=np.int64)
        self._ctl = np.zeros(nm.C_SIZE, dtype=np.int64)
        self._age = 0
        self._cond = threading.Condition()
        self._running = False
        self._stopped = False
        self._pondering = False
        self._clock_start = 0.0

    # ----- options ---------------------------------------------------------------
    def options(self) -> list[Option]:
        """The tunables, as Hub ``param`` declarations."""
        return declare(self.tt_log2, self.threshold, self.threshold_margin,
                       self.threshold_interval)

    def set_option(self, name: str, value: str) -> bool:
        """Set one option; False (and nothing changed) for an unknown name or a bad value."""
        if self._running:
            return False
        if name == "threshold":
            flag = parse_bool(value)
            if flag is None:
                return False
            self.threshold = flag
            return True
        if name not in _INT_OPTIONS:
            return False
        _, lo, hi = _INT_OPTIONS[name]
        n = parse_int(value, lo, hi)
        if n is None:
            return False
        if name == "tt-size":
            if n != self.tt_log2:
                try:
                    self._tt_keys, self._tt_data = tt.new_table(n)
                except MemoryError:
                    return False
                self.tt_log2 = n
            return True
        setattr(self, name.replace("-", "_"), n)
        return True

    def new_game(self) -> None:
        """Forget everything learnt: transposition table, killers, history."""
        self._tt_keys.fill(0)
        self._tt_data.fill(0)
        self._killers.fill(0)
        self._hist.fill(0)
        self._age = 0

    def warm_up(self) -> None:
        """Compile or load every kernel with a tiny search, then forget it."""
        pos = start_position()
        self.search(pos, [], Limits(depth=3))
        saved = self.threshold
        self.threshold = not saved
        self.search(pos, [], Limits(depth=2))
        self.threshold = saved
        self.new_game()

    # ----- control from other threads ----------------------------------------------
    def stop(self) -> None:
        """End the running search soon (the kernel polls the flag); no-op when idle."""
        with self._cond:
            if self._running:
                self._stopped = True
                self._ctl[nm.C_STOP] = 1
                self._cond.notify_all()

    def ponder_hit(self) -> None:
        """The ponder search becomes a timed search; its clock starts now."""
        with self._cond:
            if self._running and self._pondering:
                self._pondering = False
                self._clock_start = time.monotonic()
                self._cond.notify_all()

    # ----- the search ------------------------------------------------------------------
    def start(self, pos: Position, history: list[Position], limits: Limits,
              on_info: Callable[[Info], None] | None = None, ponder: bool = False,
              analyze: bool = False, started: float | None = None) -> "Future[Result]":
        """Run :meth:`search` in a background thread; its result (or exception) arrives in
        the returned future.  ``stop`` and ``ponder_hit`` work on it from any thread.

        The thread is a daemon: a process that leaves while a search runs is not held.
        """
        future: Future = Future()
        future.set_running_or_notify_cancel()

        def run() -> None:
            try:
                result = self.search(pos, history, limits, on_info, ponder=ponder,
                                     analyze=analyze, started=started)
            except BaseException as exc:   # handed to whoever waits on the future
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=run, name="rafle-search", daemon=True).start()
        return future

    def search(self, pos: Position, history: list[Position], limits: Limits,
               on_info: Callable[[Info], None] | None = None, ponder: bool = False,
               analyze: bool = False, started: float | None = None,
               root_moves: list[Move] | None = None) -> Result:
        """Search ``pos`` (``history``: the game's positions before it, oldest first).

        ``started``: the ``time.monotonic()`` at which the opponent's clock stopped and
        ours began (e.g. when the ``go`` line arrived), so that the time spent before
        the search (reading a long move list, starting threads) is counted too.
        ``root_moves``: if given, only those of the legal moves may be played (the
        result's move is None if none of them is legal).
        """
        start = time.monotonic()
        with self._cond:
            self._running = True
            self._stopped = False
            self._pondering = ponder
            self._clock_start = min(start, started) if started is not None else start
            self._ctl[nm.C_STOP] = 0
        timer = None
        try:
            legal = legal_moves(pos)
            if root_moves is None:
                barred = barred_square(history, pos)
                root_moves = [m for m in legal if m.captured or m.frm != barred]
            moves = [m for m in legal if m in set(root_moves)]
            if not moves:
                return Result(None, None, None, 0, 0, time.monotonic() - start, ())
            if len(moves) == 1 and not (ponder or analyze):
                return Result(moves[0], None, None, 0, 0, time.monotonic() - start, (moves[0],))
            plan = timeman.plan(limits, analyze=analyze)
            if plan.hard is not None:
                timer = threading.Thread(target=self._timer, args=(plan.hard,), daemon=True)
                timer.start()
            if len(moves) < len(legal):
                return self._iterate_subset(pos, history, plan, moves, on_info, start)
            return self._iterate(pos, history, plan, moves, on_info, start)
        finally:
            with self._cond:
                self._running = False
                self._cond.notify_all()
            if timer is not None:
                timer.join()

    def _timer(self, hard: float) -> None:
        with self._cond:
            while self._running:
                if self._pondering:
                    self._cond.wait()
                    continue
                left = self._clock_start + hard - time.monotonic()
                if left <= 0:
                    self._ctl[nm.C_STOP] = 1
                    return
                self._cond.wait(left)

    def _setup_root(self, pos: Position, history: list[Position]) -> None:
        rev, eg = _root_counters(pos, history)
        chain = history[len(history) - rev:] if rev else []
        chain = chain[-HISTORY_KEYS:]
        for i, p in enumerate(chain):
            self._keys[i] = board_key(p.white, p.black, p.kings, p.turn, ZOBRIST)
        self._h0 = len(chain)
        key = board_key(pos.white, pos.black, pos.kings, pos.turn, ZOBRIST)
        self._keys[self._h0] = key
        st = self._st[0]
        st[nm.F_W], st[nm.F_B], st[nm.F_K], st[nm.F_T] = pos.white, pos.black, pos.kings, pos.turn
        st[nm.F_KEY], st[nm.F_REV], st[nm.F_EG] = key, min(rev, len(chain)), eg
        v = pos.variant
        self._tables = (v.table, v.steps, eval_tables(v))
        root_eval = int(evaluate(pos.white, pos.black, pos.kings, pos.turn, v.table,
                                 self._tables[2], self.weights))
        P = self._params
        P[nm.P_THRESHOLD] = int(self.threshold)
        P[nm.P_LO] = root_eval - self.threshold_margin
        P[nm.P_HI] = root_eval + self.threshold_margin
        P[nm.P_INTERVAL] = self.threshold_interval
        P[nm.P_AGE] = self._age
        P[nm.P_LMR_DEPTH] = self.lmr_depth
        P[nm.P_LMR_MOVES] = self.lmr_moves
        self._age = (self._age + 1) & 31

    def _kernel(self, depth: int, alpha: int, beta: int, budget: int, can_stop: bool) -> int:
        ctl = self._ctl
        ctl[nm.C_NODES] = 0
        ctl[nm.C_NODE_LIMIT] = budget
        ctl[nm.C_CAN_STOP] = int(can_stop)
        V, S, T = self._tables
        return int(nm.search_root(self._st, depth, alpha, beta, V, S, T, self.weights, ZOBRIST,
                                  self._tt_keys, self._tt_data, self._killers, self._hist,
                                  self._keys, self._h0, self._params, ctl, self._buf,
                                  self._order, self._pv, self._pvlen, self._state))

    def _root_pv(self, pos: Position) -> tuple[Move, ...]:
        out = []
        v = pos.variant
        for j in range(int(self._pvlen[0])):
            row = self._pv[0, j]
            cap = int(row[2])
            captured = tuple(sorted(v.bit_square(b) for b in range(64) if (cap >> b) & 1))
            out.append(Move(v.bit_square(int(row[0])), v.bit_square(int(row[1])), captured,
                            bool(row[3] & FLAG_PROMOTE)))
        return tuple(out)

    def _iterate(self, pos, history, plan, moves, on_info, start) -> Result:
        self._setup_root(pos, history)
        node_cap = plan.nodes if plan.nodes is not None else 1 << 62
        nodes = 0
        best = None   # (depth, score, pv) of the last completed iteration
        partial = None
        for depth in range(1, plan.depth + 1):
            self._ctl[nm.C_LEAVES] = self._ctl[nm.C_LEAF_PLY] = 0
            lo, hi = -nm.INF, nm.INF
            delta = 30
            if depth >= 5 and best is not None and abs(best[1]) < nm.WIN_BOUND:
                lo, hi = best[1] - delta, best[1] + delta
            while True:
                score = self._kernel(depth, lo, hi, node_cap - nodes, depth > 1)
                nodes += int(self._ctl[nm.C_NODES])
                aborted = bool(self._ctl[nm.C_ABORTED])
                if aborted:
                    break
                if score <= lo:
                    lo = -nm.INF if score < -nm.WIN_BOUND else max(-nm.INF, score - delta)
                elif score >= hi:
                    hi = nm.INF if score > nm.WIN_BOUND else min(nm.INF, score + delta)
                else:
                    break
                delta *= 3
            if aborted:
                if self._ctl[nm.C_ROOT_DONE]:
                    partial = self._root_pv(pos)
                break
            pv = self._root_pv(pos)
            best = (depth, score, pv)
            partial = None
            elapsed = time.monotonic() - start
            if on_info is not None:
                leaves = int(self._ctl[nm.C_LEAVES])
                mean = float(self._ctl[nm.C_LEAF_PLY]) / leaves if leaves else float(depth)
                on_info(Info(depth, mean, score, nodes, elapsed, pv))
            if self._done_after_iteration(plan, depth, score, nodes, node_cap):
                break
        elapsed = time.monotonic() - start
        if partial:
            pv = partial
        elif best is not None:
            pv = best[2]
        else:
            pv = (moves[0],)
        score = best[1] if best is not None else None
        depth = best[0] if best is not None else 0
        return Result(pv[0], pv[1] if len(pv) > 1 else None, score, depth, nodes, elapsed, pv)

    def _iterate_subset(self, pos, history, plan, moves, on_info, start) -> Result:
        """Iterative deepening over the allowed root moves only: each child is searched
        by the kernel as its own root (first with a full window, then with a null window
        on the best score so far, searched again when it beats it)."""
        child_history = list(history) + [pos]
        children = [(m, play(pos, m)) for m in moves]
        drawn = [_child_is_draw(child, child_history) for _, child in children]
        decided = [winner(child) for _, child in children]
        node_cap = plan.nodes if plan.nodes is not None else 1 << 62
        age = self._age
        nodes = 0
        best = None   # (depth, score, pv) of the last completed iteration
        partial = None
        order = list(range(len(children)))
        for depth in range(1, plan.depth + 1):
            top = None          # (score, index, pv) at this depth
            aborted = False
            for i in order:
                move, child = children[i]
                if decided[i] is not None:
                    score = nm.MATE - 1 if decided[i] == pos.turn else -(nm.MATE - 1)
                    line = (move,)
                elif drawn[i]:
                    score, line = 0, (move,)
                else:
                    window = (-nm.INF, nm.INF) if top is None else (-top[0] - 1, -top[0])
                    score, line, aborted = self._child(child, child_history, depth, window,
                                                       node_cap - nodes, age)
                    nodes += int(self._ctl[nm.C_NODES])
                    if not aborted and top is not None and score > top[0]:
                        score, line, aborted = self._child(child, child_history, depth,
                                                           (-nm.INF, -top[0]),
                                                           node_cap - nodes, age)
                        nodes += int(self._ctl[nm.C_NODES])
                    if aborted:
                        break
                    line = (move,) + line
                if top is None or score > top[0]:
                    top = (score, i, line)
            if aborted:
                if top is not None and best is not None and top[1] != order[0]:
                    partial = top[2]   # beat the previous best move at this depth
                break
            order = [top[1]] + [i for i in order if i != top[1]]
            best = (depth, top[0], top[2])
            partial = None
            elapsed = time.monotonic() - start
            if on_info is not None:
                on_info(Info(depth, float(depth), top[0], nodes, elapsed, top[2]))
            settled = all(d or w is not None for d, w in zip(drawn, decided))
            if settled or self._done_after_iteration(plan, depth, top[0], nodes, node_cap):
                break
        self._age = (age + 1) & 31
        elapsed = time.monotonic() - start
        pv = partial or (best[2] if best is not None else (moves[0],))
        score = best[1] if best is not None else None
        depth = best[0] if best is not None else 0
        return Result(pv[0], pv[1] if len(pv) > 1 else None, score, depth, nodes, elapsed, pv)

    def _child(self, child, child_history, depth, window, budget, age):
        """(score from the parent's side, child's PV, aborted) of one kernel search."""
        self._setup_root(child, child_history)
        self._age = age                      # one TT generation for the whole search
        self._params[nm.P_AGE] = age
        lo, hi = window
        score = -self._kernel(depth - 1, lo, hi, budget, depth > 1)
        if score > nm.WIN_BOUND:
            score -= 1                       # one ply further from the parent
        elif score < -nm.WIN_BOUND:
            score += 1
        return score, self._root_pv(child), bool(self._ctl[nm.C_ABORTED])

    def _done_after_iteration(self, plan, depth, score, nodes, node_cap) -> bool:
        with self._cond:
            if self._stopped or nodes >= node_cap:
                return True
            if self._pondering:
                return False
            clock = time.monotonic() - self._clock_start
        if plan.soft is not None and clock >= plan.soft:
            return True
        # A forced result proven within the depth searched cannot change.
        return abs(score) > nm.WIN_BOUND and depth >= nm.MATE - abs(score) + 2 and plan.hard is not None


def _child_is_draw(child: Position, history: list[Position]) -> bool:
    """The draw rules the kernel applies below its root, for a root's child that the
    subset search makes a root: 25-move count, 16/5-move count, repetition."""
    rev, eg = _root_counters(child, history)
    if rev >= nm.REVERSIBLE_LIMIT:
        return True
    limit = int(nm.endgame_limit(child.white, child.black, child.kings))
    if limit and eg >= limit:
        return True
    return sum(1 for p in history[len(history) - rev:] if p.key == child.key) >= 2


def _material(p: Position) -> tuple[int, int, int, int]:
    return (p.white & ~p.kings, p.black & ~p.kings, bin(p.white).count("1"), bin(p.black).count("1"))


def _root_counters(pos: Position, history: list[Position]) -> tuple[int, int]:
    """(plies since the last capture or man move, plies since the material last changed).

    The first counts toward the 25-move rule and bounds repetitions; the second toward
    the 16- and 5-move rules, counted as :mod:`engine.game` does: from the move that
    brought the material of the rule in force.
    """
    seq = list(history) + [pos]
    rev = 0
    i = len(seq) - 1
    while i > 0 and _material(seq[i - 1]) == _material(seq[i]):
        rev += 1
        i -= 1
    eg = 0
    rule = ending_rule(pos)
    i = len(seq) - 1
    while rule and i > 0 and ending_rule(seq[i - 1]) == rule:
        eg += 1
        i -= 1
    return rev, eg
