"""Lazy SMP: the helper threads of a search.

Each helper owns a :class:`engine.records.Workspace` (every array the kernel writes) and
shares only the transposition table with the other threads (``engine.tt`` rejects an
entry torn between two threads' writes): what one thread learns orders and cuts the
others' searches.  Each helper deepens on its own from the main thread's root, odd helpers
one ply ahead of the even ones; only the main thread's iterations are reported and decide
the move.  The kernel releases the GIL, so the threads search in parallel.
"""
from __future__ import annotations

import threading

from . import negamax as nm
from . import records


class _Helper:
    def __init__(self, index: int):
        self.index = index
        self.work = records.new_workspace()
        self.nodes = 0
        self.thread: threading.Thread | None = None


class Helpers:
    """The helper threads of one searcher (made on first use, kept between searches)."""

    def __init__(self):
        self._all: list[_Helper] = []
        self._running: list[_Helper] = []

    def start(self, count: int, main: records.Workspace, shared: records.Shared,
              tables: records.Tables, max_depth: int) -> None:
        """Start ``count`` helpers on the root set up in ``main`` (its stack's first entry,
        its keys and its parameters)."""
        while len(self._all) < count:
            self._all.append(_Helper(len(self._all) + 1))
        self._running = self._all[:count]
        for h in self._running:
            h.work.stack[0, :] = main.stack[0, :]
            h.work = h.work._replace(keys=main.keys.copy(), h0=main.h0)
            h.work.params[:] = main.params
            h.work.ctl[:] = 0
            h.work.evals[:] = 0
            h.nodes = 0
            h.thread = threading.Thread(target=_help, args=(h, shared, tables, max_depth),
                                        name=f"rafle-helper-{h.index}", daemon=True)
            h.thread.start()

    def stop(self) -> None:
        """Stop the running helpers and wait for them (within milliseconds)."""
        for h in self._running:
            h.work.ctl[nm.C_STOP] = 1
        for h in self._running:
            if h.thread is not None:
                h.thread.join()
                h.thread = None

    def __len__(self) -> int:
        """How many helper threads have been made (none while ``threads`` is 1)."""
        return len(self._all)

    def nodes(self) -> int:
        """The nodes the helpers of the last search have searched."""
        return sum(h.nodes for h in self._running)

    def forget(self) -> None:
        """A new game: the helpers' killers and history start empty."""
        for h in self._all:
            h.work.killers.fill(0)
            h.work.hist.fill(0)


def _help(h: _Helper, shared: records.Shared, tables: records.Tables, max_depth: int) -> None:
    ctl = h.work.ctl
    for depth in range(1 + h.index % 2, max_depth + 1):
        ctl[nm.C_NODES] = 0
        ctl[nm.C_NODE_LIMIT] = 1 << 62
        ctl[nm.C_CAN_STOP] = 1
        nm.search_root(h.work, shared, tables, depth, -nm.INF, nm.INF)
        h.nodes += int(ctl[nm.C_NODES])
        if ctl[nm.C_ABORTED] or ctl[nm.C_STOP]:
            return
