"""The main thread's search: its root, iterative deepening with aspiration windows, and the
clock that decides when to stop.

Each depth is one call of :func:`engine.negamax.search_root` (again with a wider window when
the score falls outside the aspiration window, from depth 5).  The kernel releases the GIL,
so a protocol thread keeps answering while a search runs; ``stop`` and the time-out timer
(:class:`engine.timeman.Clock`) end a search by setting the kernel's stop flag.

The game's history reaches the kernel as three inputs set up here: the root's draw-rule
counters (:func:`engine.game.root_counters`, the referee's own), the Zobrist keys of the
game's reversible tail (positions that can still repeat), and Frisian's barred king, whose
quiet moves the kernel leaves out when it generates the root's moves.
"""
from __future__ import annotations

import time
from typing import Iterator

import numpy as np

from . import negamax as nm
from . import records
from . import timeman
from .eval import eval_tables, evaluate
from .game import RootCounters
from .limits import Info
from .position import Move, Position, move_of_row
from .zobrist import ZOBRIST, board_key

ASPIRATION_FROM = 5        # depth from which a search starts in a window around the last score
ASPIRATION_WINDOW = 30     # its half width; tripled at each fail


class Deepening:
    """The main search thread's arrays, its clock and its iterations."""

    def __init__(self):
        self.work = records.new_workspace()
        self.clock = timeman.Clock(self._halt)
        self.tables: records.Tables | None = None     # this search's (set_root)
        self.shared: records.Shared | None = None
        self.nodes = 0                               # the main thread's, this search
        self.partial: tuple[Move, ...] | None = None  # the line of an unfinished depth
        self.iterations: list[tuple] = []             # (best move, score) of each depth
        self._age = 0
        self._counters = RootCounters()              # the root's, root after root of a game

    def _halt(self) -> None:
        self.work.ctl[nm.C_STOP] = 1

    def clear_stop(self) -> None:
        """Before a search: a stop asked for the previous one does not end this one."""
        self.work.ctl[nm.C_STOP] = 0

    def forget(self) -> None:
        """A new game: killers, history and the table's age start afresh."""
        self.work.killers.fill(0)
        self.work.hist.fill(0)
        self._age = 0

    # ----- the root ----------------------------------------------------------------------
    def set_root(self, pos: Position, history: list[Position], barred: int | None,
                 settings, resources, tt_keys, tt_data) -> None:
        """Write the root (position, draw-rule counters, the keys that may repeat) and the
        kernel's parameters (the options, then what this root sets) into the workspace, and
        build this search's records."""
        counters = self._counters(history, pos)
        chain = history[len(history) - counters.king_plies:] if counters.king_plies else []
        keys = np.zeros(len(chain) + nm.MAX_PLY + 1, dtype=np.int64)
        for i, p in enumerate(chain):
            keys[i] = board_key(*p.words, ZOBRIST)
        key = board_key(*pos.words, ZOBRIST)
        keys[len(chain)] = key
        self.work = self.work._replace(keys=keys, h0=len(chain))
        self.work.evals[:] = 0        # another variant or evaluation may score keys otherwise
        st = self.work.stack[0]
        st[nm.F_W], st[nm.F_B], st[nm.F_K], st[nm.F_T] = pos.words
        st[nm.F_KEY] = key
        st[nm.F_REV], st[nm.F_EG], st[nm.F_ROAD], st[nm.F_STABLE] = counters
        v = pos.variant
        self.tables = records.Tables(v.table, v.steps, eval_tables(v),
                                     resources.evaluation_for(v).weights, ZOBRIST)
        db = resources.egdb_for(v)
        self.shared = records.shared_tables(tt_keys, tt_data,
                                            db if db is not None else resources.no_egdb)
        self._set_params(pos, barred, settings, db)

    def _set_params(self, pos: Position, barred: int | None, settings, db) -> None:
        P = self.work.params
        settings.fill_kernel(P)
        v = pos.variant
        root_eval = int(evaluate(*pos.words, v.table, self.tables.eval_tables, self.tables.weights))
        P[nm.P_LO] = root_eval - settings.threshold_margin
        P[nm.P_HI] = root_eval + settings.threshold_margin
        P[nm.P_AGE] = self._age
        P[nm.P_BARRED] = 0 if barred is None else v.square_bit(barred) + 1
        P[nm.P_EGDB] = 0 if db is None else db.pieces
        P[nm.P_EGDB_ROOT] = bin(pos.white | pos.black).count("1")
        P[nm.P_EGDB_FILTER] = int(db is not None and db.probe(pos) >= 0)
        self._age = (self._age + 1) & 31

    # ----- the iterations ------------------------------------------------------------------
    def _kernel(self, depth: int, alpha: int, beta: int, budget: int, can_stop: bool) -> int:
        ctl = self.work.ctl
        ctl[nm.C_NODES] = 0
        ctl[nm.C_NODE_LIMIT] = budget
        ctl[nm.C_CAN_STOP] = int(can_stop)
        return int(nm.search_root(self.work, self.shared, self.tables, depth, alpha, beta))

    def deepen(self, pos: Position, max_depth: int, node_cap: int, start: float,
               helper_nodes) -> Iterator[Info]:
        """Iterative deepening: yields an :class:`Info` after each completed depth (its node
        count adds ``helper_nodes()``).  It ends when the kernel is stopped, leaving in
        ``partial`` the line of the unfinished depth if its first move was searched."""
        self.nodes = 0
        self.partial = None
        self.iterations = []
        ctl = self.work.ctl
        score = None
        for depth in range(1, max_depth + 1):
            ctl[nm.C_LEAVES] = ctl[nm.C_LEAF_PLY] = 0
            lo, hi, delta = -nm.INF, nm.INF, ASPIRATION_WINDOW
            if depth >= ASPIRATION_FROM and score is not None and abs(score) < nm.WIN_BOUND:
                lo, hi = score - delta, score + delta
            while True:
                score = self._kernel(depth, lo, hi, node_cap - self.nodes, depth > 1)
                self.nodes += int(ctl[nm.C_NODES])
                if ctl[nm.C_ABORTED]:
                    if ctl[nm.C_ROOT_DONE]:
                        self.partial = self.root_pv(pos)
                    return
                if score <= lo:
                    lo = -nm.INF if score < -nm.WIN_BOUND else max(-nm.INF, score - delta)
                elif score >= hi:
                    hi = nm.INF if score > nm.WIN_BOUND else min(nm.INF, score + delta)
                else:
                    break
                delta *= 3
            leaves = int(ctl[nm.C_LEAVES])
            mean = float(ctl[nm.C_LEAF_PLY]) / leaves if leaves else float(depth)
            yield Info(depth, mean, score, self.nodes + helper_nodes(),
                       time.monotonic() - start, self.root_pv(pos))

    def root_pv(self, pos: Position) -> tuple[Move, ...]:
        """The principal variation the kernel left at the root, as moves."""
        return self.pv_of(pos, self.work)

    @staticmethod
    def pv_of(pos: Position, work: records.Workspace) -> tuple[Move, ...]:
        """The principal variation the kernel left at the root of ``work``, as moves."""
        v = pos.variant
        return tuple(move_of_row(v, work.pv[0, j]) for j in range(int(work.pvlen[0])))

    # ----- when to stop ----------------------------------------------------------------------
    def stretch(self, plan) -> float:
        """How far the soft time limit stretches after the iterations so far: more time
        while the best move changes or the score falls, less when both have held still
        for several iterations.  Only a clock's budget stretches (soft below hard)."""
        its = self.iterations
        if plan.soft is None or plan.hard is None or plan.soft >= plan.hard or len(its) < 5:
            return 1.0
        changes = sum(its[i][0] != its[i - 1][0] for i in range(len(its) - 3, len(its)))
        drop = its[-2][1] - its[-1][1]
        if abs(its[-1][1]) > nm.WIN_BOUND:
            return 1.0
        stretch = 1.0 + 0.4 * changes
        if drop >= 60:
            stretch *= 1.6
        elif drop >= 30:
            stretch *= 1.3
        elif changes == 0 and drop < 10 and all(m == its[-1][0] for m, _ in its[-6:]):
            stretch = 0.7
        return stretch

    def done_after(self, plan, info: Info, node_cap: int) -> bool:
        """Whether the search ends after the iteration ``info``."""
        if self.nodes >= node_cap:           # the main thread's nodes: helpers add to it
            return True
        self.iterations.append((info.pv[0] if info.pv else None, info.score))
        up = self.clock.time_is_up(plan, self.stretch(plan))
        if up is None:
            return False                     # pondering
        if up:
            return True
        # A forced result proven within the depth searched cannot change.
        return (abs(info.score) > nm.WIN_BOUND and info.depth >= nm.MATE - abs(info.score) + 2
                and plan.hard is not None)
