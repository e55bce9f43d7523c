"""The searcher: one search at a time over the engine's parts, each a module of its own.

``Searcher`` holds the options' values (:class:`engine.options.Settings`), what the
searches read and never write (:class:`engine.resources.Resources`: books, weights,
databases), the transposition table all threads share, the main thread's iterative
deepening with its clock (:class:`engine.deepen.Deepening`) and the helper threads of
Lazy SMP (:class:`engine.smp.Helpers`).  :meth:`Searcher.search` reads as its steps.

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

import threading
import time
from dataclasses import replace
from concurrent.futures import Future
from operator import attrgetter
from typing import Callable

from . import timeman
from . import tt
from .deepen import Deepening
from .limits import Info, Limits, Result
from .multipv import Lines
from .options import BY_NAME, Option, OptionRefused, Settings
from .position import Position, allowed_moves, barred_square, start_position
from .resources import Resources
from .smp import Helpers

class Searcher:
    """One search at a time (``stop``/``ponder_hit`` from any thread)."""

    def __init__(self, tt_log2: int = tt.DEFAULT_LOG2):
        self.settings = Settings()                  # every option's value
        self.settings.put("tt-size", max(tt.MIN_LOG2, min(int(tt_log2), tt.MAX_LOG2)))
        self.resources = Resources(self.settings)   # books, weights, databases
        self.tt_keys, self.tt_data = tt.new_table(self.settings.tt_log2)
        self.driver = Deepening()                   # the main thread and its clock
        self.helpers = Helpers()                    # Lazy SMP
        self.lines = Lines()                        # MultiPV's lines after the first

    # ----- options: engine.options declares them, these methods apply them ----------------
    def options(self) -> list[Option]:
        """The options with their current values, as Hub ``param`` declarations."""
        return self.settings.declared()

    def set_option(self, name: str, value: str) -> bool:
        """Set one option; False (and nothing changed) for an unknown name, a bad value, a
        value its action refuses (the reason is added to the resources' ``notes``) or during
        a search."""
        option = BY_NAME.get(name)
        if option is None or self.driver.clock.running:
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
                self.tt_keys, self.tt_data = tt.new_table(log2)
            except MemoryError:
                raise OptionRefused(f"no memory for a table of 2^{log2} entries") from None

    def new_game(self) -> None:
        """Forget everything learnt: transposition table, killers, history.

        The table is allocated anew rather than cleared: fresh zeroed pages cost nothing
        until a search touches them, so a large table does not stall ``new-game``."""
        self.tt_keys = self.tt_data = None
        self.tt_keys, self.tt_data = tt.new_table(self.settings.tt_log2)
        self.driver.forget()
        self.helpers.forget()
        self.lines.forget()

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
        self.driver.clock.stop()

    def ponder_hit(self) -> None:
        """The ponder search becomes a timed search; its clock starts now."""
        self.driver.clock.ponder_hit()

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
        driver, clock = self.driver, self.driver.clock
        driver.clear_stop()
        clock.begin(ponder, started, start)
        try:
            # Step 1. The moves the rules allow: none, or only one, is answered at once.
            moves = allowed_moves(history, pos)
            if not moves:
                return Result(None, None, None, 0, 0, time.monotonic() - start, ())
            if len(moves) == 1 and not (ponder or analyze):
                return Result(moves[0], None, None, 0, 0, time.monotonic() - start, (moves[0],))
            # Step 2. The opening book.
            if self._book_applies(history, limits, ponder or analyze):
                move = self.resources.book_move(pos)
                if move is not None and move in moves:
                    return Result(move, None, None, 0, 0, time.monotonic() - start, (move,))
            # Step 3. The time and node plan; the clock's timer stops the kernel at the hard limit.
            plan = timeman.plan(limits, analyze, self.settings.time_horizon,
                                self._sudden_moves(pos), self.settings.time_game_ends)
            clock.arm(plan.hard)
            node_cap = plan.nodes if plan.nodes is not None else 1 << 62
            # Step 4. The root and this search's records; the helper threads start on it.
            driver.set_root(pos, history, barred_square(history, pos), self.settings,
                            self.resources, self.tt_keys, self.tt_data)
            self.helpers.start(self.settings.threads - 1, driver.work, driver.shared,
                               driver.tables, plan.depth)
            # Step 5. Iterative deepening, reported depth by depth, until the plan says stop;
            # with ``multipv`` above 1, each depth's next best lines too (engine.multipv).
            best = None
            for info in driver.deepen(pos, plan.depth, node_cap, start, self.helpers.nodes):
                best = info
                if on_info is not None:
                    self._report(pos, info, node_cap, start, on_info)
                if driver.done_after(plan, info, node_cap):
                    break
            # Step 6. The answer: the deepest line, or the unfinished depth's if it has one.
            self.helpers.stop()
            pv = driver.partial or (best.pv if best is not None else (moves[0],))
            return Result(pv[0], pv[1] if len(pv) > 1 else None,
                          best.score if best is not None else None,
                          best.depth if best is not None else 0,
                          driver.nodes + self.helpers.nodes(), time.monotonic() - start, pv)
        finally:
            self.helpers.stop()
            clock.end()

    def _sudden_moves(self, pos: Position) -> int:
        """Moves a sudden-death clock is planned over: ``time-pieces`` plus the pieces on
        the board, or 0 (``timeman.DEFAULT_MOVES_TO_GO``) while the option is 0."""
        base = self.settings.time_pieces
        return base + (pos.white | pos.black).bit_count() if base > 0 else 0

    def _report(self, pos: Position, info: Info, node_cap: int, start: float,
                on_info: Callable[[Info], None]) -> None:
        """Report an iteration: alone, or as line 1 followed by the next best lines."""
        count = self.settings.multipv
        if count <= 1:
            on_info(info)
            return
        on_info(replace(info, line=1))
        driver = self.driver
        lines, nodes = self.lines.search(driver, pos, info, count, node_cap - driver.nodes,
                                         start, self.helpers.nodes)
        driver.nodes += nodes
        for line in lines:
            on_info(line)

    def _book_applies(self, history: list[Position], limits: Limits, thinking_ahead: bool) -> bool:
        """The book plays the first ``book-ply`` plies of a game, but not while pondering or
        analysing, nor for a search bounded only by depth or nodes (a test of the search)."""
        if (not self.settings.book or thinking_ahead or limits.infinite
                or len(history) >= self.settings.book_ply):
            return False
        return not ((limits.depth or limits.nodes) and limits.time is None and limits.movetime is None)
