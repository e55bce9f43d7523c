"""Iterative deepening driven from Python, one jitted call per iteration.

``Searcher`` owns the transposition table, the ordering tables and the kernel's
scratch arrays, and runs one search at a time.  Each iteration calls
:func:`engine.negamax.search_root` (with aspiration windows from depth 5: a result
outside the window is searched again with a wider one).  The kernel releases the
GIL, so a protocol thread keeps answering while a search runs; ``stop`` and the
time-out timer end a search by setting the kernel's stop flag.

The game's history reaches the kernel as three inputs: the root's draw-rule counters
(:func:`engine.game.root_counters`, the referee's own), the Zobrist keys of the game's
reversible tail (positions that can still repeat), and Frisian's barred king, whose
quiet moves the kernel leaves out when it generates the root's moves.

Threshold pruning (``threshold``, ``threshold-form``, ``threshold-margin``,
``threshold-interval``, ``threshold-slope``: :mod:`engine.negamax` describes the plain
and the verified form) is on by default in the verified form (margin 40 + 10 a ply,
every ply): +315 =445 -240 over 1,000 games at 1 s + 0.01 s against off (Elo +26 +- 16).
The plain form, measured over the bench positions at depth 13, saves 37% of the nodes
(margin 300, interval 3) to 59% (150, 2), but in self-play at equal node budgets
300/3 scored even with it off (-5 Elo over 340 games, error bar about 30) and 150/2
lost clearly (-115 +- 62 over 100 games): the saving is paid for in missed tactics.
Late-move reductions earn their place in the same kind of match at 100k nodes a
move (off: -85 +- 53); reducing from the third move on beat the fourth (+49 +- 38,
200 games).
"""
from __future__ import annotations

from operator import attrgetter
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import negamax as nm
from . import records
from . import timeman
from . import egdb
from . import tt
from .eval import eval_tables, evaluate
from .game import root_counters
from .movegen import FLAG_PROMOTE
from .options import BY_NAME, OptionRefused, Settings
from .resources import Resources
from .position import Move, Position, allowed_moves, barred_square, start_position
from .zobrist import ZOBRIST, board_key


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


class _Helper:
    """A helper thread of Lazy SMP: its own copy of every array the kernel writes,
    except the transposition table, which all threads share (engine.tt rejects an
    entry torn between two threads' writes)."""

    def __init__(self, index: int):
        self.index = index
        self.work = records.new_workspace()
        self.nodes = 0
        self.thread: threading.Thread | None = None


class Searcher:
    """Owns the search tables; one search at a time (``stop``/``ponder_hit`` from any thread)."""

    def __init__(self, tt_log2: int = tt.DEFAULT_LOG2):
        self.settings = Settings()      # every option's value (engine.options)
        self.settings.put("tt-size", max(tt.MIN_LOG2, min(int(tt_log2), tt.MAX_LOG2)))
        self.resources = Resources(self.settings)   # books, weights, databases
        self._helpers: list[_Helper] = []
        self._tt_keys, self._tt_data = tt.new_table(self.settings.tt_log2)
        self._weights = self.resources.hand
        # The kernel's arrays: this thread's (built once; a search swaps in its root's
        # keys), the tables shared with the helpers and the variant's (per search).
        self._work = records.new_workspace()
        self._shared: records.Shared | None = None
        self._variant_tables: records.Tables | None = None
        w = self._work
        self._killers, self._hist, self._st, self._pv, self._pvlen = (
            w.killers, w.hist, w.stack, w.pv, w.pvlen)
        self._keys = w.keys                     # game's tail + search path
        self._h0 = w.h0
        self._nodes = 0
        self._partial: tuple[Move, ...] | None = None
        self._params, self._ctl = w.params, w.ctl
        self._age = 0
        self._clock = timeman.Clock(self._halt)
        self._db = self.resources.no_egdb       # the tables of the search in progress

    # ----- options: engine.options declares them, these methods apply them ----------------
    def options(self) -> list[Option]:
        """The options with their current values, as Hub ``param`` declarations."""
        return self.settings.declared()

    def set_option(self, name: str, value: str) -> bool:
        """Set one option; False (and nothing changed) for an unknown name, a bad value, a
        value its action refuses (the reason is added to the resources' ``notes``) or during
        a search."""
        option = BY_NAME.get(name)
        if option is None or self._clock.running:
            return False
        ok, parsed = option.parse(value)
        if not ok:
            return False
        if option.apply is not None:
            try:
                attrgetter(option.apply)(self)(parsed)
            except OptionRefused as exc:
                self.resources.notes.append(str(exc))
                return False
        self.settings.put(name, parsed)
        return True

    def resize_table(self, log2: int) -> None:
        """The apply action of ``tt-size``: a new table of 2^log2 entries."""
        if log2 != self.settings.tt_log2:
            try:
                self._tt_keys, self._tt_data = tt.new_table(log2)
            except MemoryError:
                raise OptionRefused(f"no memory for a table of 2^{log2} entries") from None

    def new_game(self) -> None:
        """Forget everything learnt: transposition table, killers, history.

        The table is allocated anew rather than cleared: fresh zeroed pages cost nothing
        until a search touches them, so a large table does not stall ``new-game``."""
        self._tt_keys = self._tt_data = None
        self._tt_keys, self._tt_data = tt.new_table(self.settings.tt_log2)
        self._killers.fill(0)
        self._hist.fill(0)
        for h in self._helpers:
            h.work.killers.fill(0)
            h.work.hist.fill(0)
        self._age = 0

    def warm_up(self) -> None:
        """Compile or load every kernel with a tiny search, then forget it."""
        pos = start_position()
        self.search(pos, [], Limits(depth=3))
        saved = self.settings.threshold
        self.settings.put("threshold", not saved)
        self.search(pos, [], Limits(depth=2))
        self.settings.put("threshold", saved)
        self.new_game()

    # ----- control from other threads ----------------------------------------------
    def stop(self) -> None:
        """End the running search soon (the kernel polls the flag); no-op when idle."""
        self._clock.stop()

    def ponder_hit(self) -> None:
        """The ponder search becomes a timed search; its clock starts now."""
        self._clock.ponder_hit()

    def _halt(self) -> None:
        self._ctl[nm.C_STOP] = 1

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
               analyze: bool = False, started: float | None = None) -> Result:
        """Search ``pos`` (``history``: the game's positions before it, oldest first).

        The history gives the draw rules' counters and the positions that may repeat,
        and Frisian's barred king (:func:`engine.position.barred_square`), whose quiet
        moves are not played.
        ``started``: the ``time.monotonic()`` at which the opponent's clock stopped and
        ours began (e.g. when the ``go`` line arrived), so that the time spent before
        the search (reading a long move list, starting threads) is counted too.
        """
        start = time.monotonic()
        self._ctl[nm.C_STOP] = 0
        self._clock.begin(ponder, started, start)
        try:
            moves = allowed_moves(history, pos)
            if not moves:
                return Result(None, None, None, 0, 0, time.monotonic() - start, ())
            if len(moves) == 1 and not (ponder or analyze):
                return Result(moves[0], None, None, 0, 0, time.monotonic() - start, (moves[0],))
            if self._book_applies(history, limits, ponder or analyze):
                move = self.resources.book_move(pos)
                if move is not None and move in moves:
                    return Result(move, None, None, 0, 0, time.monotonic() - start, (move,))
            plan = timeman.plan(limits, analyze=analyze)
            self._clock.arm(plan.hard)
            self._setup_root(pos, history, barred_square(history, pos))
            self._bind_root()
            node_cap = plan.nodes if plan.nodes is not None else 1 << 62
            best = None
            self._start_helpers(plan.depth)
            for info in self._deepen(pos, plan.depth, node_cap, start):
                best = info
                if on_info is not None:
                    on_info(info)
                if self._done_after_iteration(plan, info, node_cap):
                    break
            self._stop_helpers()
            pv = self._partial or (best.pv if best is not None else (moves[0],))
            return Result(pv[0], pv[1] if len(pv) > 1 else None,
                          best.score if best is not None else None,
                          best.depth if best is not None else 0,
                          self._all_nodes(), time.monotonic() - start, pv)
        finally:
            self._stop_helpers()
            self._clock.end()

    # ----- the opening book ------------------------------------------------------------
    def _book_applies(self, history: list[Position], limits: Limits, thinking_ahead: bool) -> bool:
        """The book plays the first ``book-ply`` plies of a game, but not while pondering or
        analysing, nor for a search bounded only by depth or nodes (a test of the search)."""
        if not self.settings.book or thinking_ahead or limits.infinite or len(history) >= self.settings.book_ply:
            return False
        return not ((limits.depth or limits.nodes) and limits.time is None and limits.movetime is None)

    # ----- Lazy SMP ---------------------------------------------------------------------
    def _start_helpers(self, max_depth: int) -> None:
        """Start ``threads - 1`` helpers on the root just set up.  Each deepens on its own
        (odd helpers one ply ahead of the even ones) and shares only the transposition
        table: what one thread learns orders and cuts the others' searches.  Only the
        main thread's iterations are reported and decide the move."""
        while len(self._helpers) < self.settings.threads - 1:
            self._helpers.append(_Helper(len(self._helpers) + 1))
        for h in self._helpers[:self.settings.threads - 1]:
            h.work.stack[0, :] = self._st[0, :]
            h.work = h.work._replace(keys=self._keys.copy(), h0=int(self._h0))
            h.work.params[:] = self._params
            h.work.ctl[:] = 0
            h.nodes = 0
            h.thread = threading.Thread(target=self._help, args=(h, max_depth),
                                        name=f"rafle-helper-{h.index}", daemon=True)
            h.thread.start()

    def _help(self, h: _Helper, max_depth: int) -> None:
        ctl = h.work.ctl
        for depth in range(1 + h.index % 2, max_depth + 1):
            ctl[nm.C_NODES] = 0
            ctl[nm.C_NODE_LIMIT] = 1 << 62
            ctl[nm.C_CAN_STOP] = 1
            nm.search_root(h.work, self._shared, self._variant_tables, depth, -nm.INF, nm.INF)
            h.nodes += int(ctl[nm.C_NODES])
            if ctl[nm.C_ABORTED] or ctl[nm.C_STOP]:
                return

    def _stop_helpers(self) -> None:
        for h in self._helpers:
            h.work.ctl[nm.C_STOP] = 1
        for h in self._helpers:
            if h.thread is not None:
                h.thread.join()
                h.thread = None

    def _all_nodes(self) -> int:
        return self._nodes + sum(h.nodes for h in self._helpers)

    def _setup_root(self, pos: Position, history: list[Position], barred: int | None) -> None:
        counters = root_counters(history, pos)
        chain = history[len(history) - counters.king_plies:] if counters.king_plies else []
        self._keys = np.zeros(len(chain) + nm.MAX_PLY + 1, dtype=np.int64)
        for i, p in enumerate(chain):
            self._keys[i] = board_key(*p.words, ZOBRIST)
        self._h0 = len(chain)
        key = board_key(*pos.words, ZOBRIST)
        self._keys[self._h0] = key
        st = self._st[0]
        st[nm.F_W], st[nm.F_B], st[nm.F_K], st[nm.F_T] = pos.words
        st[nm.F_KEY] = key
        st[nm.F_REV], st[nm.F_EG], st[nm.F_ROAD], st[nm.F_STABLE] = counters
        v = pos.variant
        self._tables = (v.table, v.steps, eval_tables(v))
        self._weights = self.resources.evaluation_for(v).weights
        root_eval = int(evaluate(*pos.words, v.table,
                                 self._tables[2], self._weights))
        P = self._params
        self.settings.fill_kernel(P)
        margin = self.settings.threshold_margin
        P[nm.P_LO] = root_eval - margin
        P[nm.P_HI] = root_eval + margin
        P[nm.P_AGE] = self._age
        P[nm.P_BARRED] = 0 if barred is None else v.square_bit(barred) + 1
        db = self.resources.egdb_for(v)
        self._db = db if db is not None else self.resources.no_egdb
        pieces = bin(pos.white | pos.black).count("1")
        P[nm.P_EGDB] = 0 if db is None else db.pieces
        P[nm.P_EGDB_ROOT] = pieces
        P[nm.P_EGDB_FILTER] = int(db is not None and db.probe(pos) >= 0)
        self._age = (self._age + 1) & 31

    def _kernel(self, depth: int, alpha: int, beta: int, budget: int, can_stop: bool) -> int:
        ctl = self._ctl
        ctl[nm.C_NODES] = 0
        ctl[nm.C_NODE_LIMIT] = budget
        ctl[nm.C_CAN_STOP] = int(can_stop)
        return int(nm.search_root(self._work, self._shared, self._variant_tables, depth, alpha,
                                  beta))

    def _bind_root(self) -> None:
        """Hand the root just set up to the kernel's records: the path of keys that starts
        with the game's tail, the variant's tables, the transposition table and databases
        of this search."""
        self._work = self._work._replace(keys=self._keys, h0=int(self._h0))
        V, S, T = self._tables
        self._variant_tables = records.Tables(V, S, T, self._weights, ZOBRIST)
        self._shared = records.shared_tables(self._tt_keys, self._tt_data, self._db)

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

    def _deepen(self, pos: Position, max_depth: int, node_cap: int, start: float):
        """Iterative deepening: one kernel call per depth (again with a wider window when
        the score falls outside the aspiration window); yields an :class:`Info` after each
        completed depth.  It ends when the kernel is stopped, leaving in ``_partial`` the
        line of the unfinished depth if its first move was searched (else None)."""
        self._nodes = 0
        self._partial = None
        self._iterations: list[tuple] = []        # (best move, score) of each completed depth
        score = None
        for depth in range(1, max_depth + 1):
            self._ctl[nm.C_LEAVES] = self._ctl[nm.C_LEAF_PLY] = 0
            lo, hi, delta = -nm.INF, nm.INF, 30
            if depth >= 5 and score is not None and abs(score) < nm.WIN_BOUND:
                lo, hi = score - delta, score + delta
            while True:
                score = self._kernel(depth, lo, hi, node_cap - self._nodes, depth > 1)
                self._nodes += int(self._ctl[nm.C_NODES])
                if self._ctl[nm.C_ABORTED]:
                    if self._ctl[nm.C_ROOT_DONE]:
                        self._partial = self._root_pv(pos)
                    return
                if score <= lo:
                    lo = -nm.INF if score < -nm.WIN_BOUND else max(-nm.INF, score - delta)
                elif score >= hi:
                    hi = nm.INF if score > nm.WIN_BOUND else min(nm.INF, score + delta)
                else:
                    break
                delta *= 3
            leaves = int(self._ctl[nm.C_LEAVES])
            mean = float(self._ctl[nm.C_LEAF_PLY]) / leaves if leaves else float(depth)
            yield Info(depth, mean, score, self._all_nodes(), time.monotonic() - start,
                       self._root_pv(pos))

    def _stretch(self, plan) -> float:
        """How far the soft time limit stretches after the iterations so far: more time
        while the best move changes or the score falls, less when both have held still
        for several iterations.  Only a clock's budget stretches (soft below hard)."""
        its = self._iterations
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

    def _done_after_iteration(self, plan, info: Info, node_cap: int) -> bool:
        if self._nodes >= node_cap:           # the main thread's nodes: helpers add to it
            return True
        self._iterations.append((info.pv[0] if info.pv else None, info.score))
        up = self._clock.time_is_up(plan, self._stretch(plan))
        if up is None:
            return False                     # pondering
        if up:
            return True
        # A forced result proven within the depth searched cannot change.
        return (abs(info.score) > nm.WIN_BOUND and info.depth >= nm.MATE - abs(info.score) + 2
                and plan.hard is not None)
