"""Several lines (MultiPV): after each depth of the main search, the next best lines.

Line 1 is the main search's own iteration, untouched.  Line k (k = 2..``multipv``) is a
search of the same root to the same depth with the first moves of lines 1..k-1 left out
at the root (the kernel's ``P_EXCLUDED`` list, applied where the barred-king filter is,
:func:`engine.negamax._root_moves`).  These searches run in a workspace and a small
transposition table of their own, and share only the stop flag with the main thread: the
main search reads nothing they write, so line 1 is exactly what ``multipv`` 1 finds, and
``rafle bench`` does not move.  A line whose search was stopped is not reported.

Each line is searched in the window ``(-INF, score above + 1)``: the main search's pruning
judged every other move no better than line 1, and a separate search with another table
can see one a little higher; such a line fails high, is searched again in a full window
for its whole variation, and is shown level with the line above, so the scores never
increase down the list.
"""
from __future__ import annotations

import time

from . import negamax as nm
from . import records
from . import tt
from .limits import Info
from .position import Move, Position

MAX_LINES = 5
LINES_TT_LOG2 = 18          # the lines' own table: 2^18 entries (4 MiB)


def move_id(pos: Position, move: Move) -> int:
    """The kernel's identity of a root move (:func:`engine.tt.move_id`)."""
    v = pos.variant
    captured = 0
    for square in move.captured:
        captured |= 1 << v.square_bit(square)
    return tt.move_id(v.square_bit(move.frm), v.square_bit(move.to), captured)


class Lines:
    """The workspace and table of the extra lines (made on first use, kept between searches)."""

    def __init__(self):
        self.work: records.Workspace | None = None
        self.tt_keys = self.tt_data = None

    def forget(self) -> None:
        """A new game: the lines' table, killers and history start afresh."""
        self.work = None
        self.tt_keys = self.tt_data = None

    def _setup(self, main: records.Workspace) -> records.Workspace:
        if self.work is None:
            self.work = records.new_workspace()
            self.tt_keys, self.tt_data = tt.new_table(LINES_TT_LOG2)
        work = self.work._replace(keys=main.keys.copy(), h0=main.h0, ctl=main.ctl)
        work.stack[0, :] = main.stack[0, :]
        work.params[:] = main.params
        return work

    @staticmethod
    def _kernel(work, shared, tables, depth: int, beta: int, budget: int) -> int:
        ctl = work.ctl
        ctl[nm.C_NODES] = 0
        ctl[nm.C_NODE_LIMIT] = budget
        ctl[nm.C_CAN_STOP] = 1
        return int(nm.search_root(work, shared, tables, depth, -nm.INF, beta))

    def search(self, driver, pos: Position, first: Info, count: int, node_budget: int,
               start: float, helper_nodes) -> tuple[list[Info], int]:
        """Lines 2..``count`` at ``first``'s depth (``first``: line 1).  Returns them, best
        first, and the nodes they took; ends at the first line stopped, or when the root
        has no move left."""
        work = self._setup(driver.work)
        shared = driver.shared._replace(tt_keys=self.tt_keys, tt_data=self.tt_data)
        excluded = [move_id(pos, first.pv[0])] if first.pv else []
        lines, nodes = [], 0
        ctl = work.ctl
        above = first.score
        for line in range(2, min(count, MAX_LINES) + 1):
            if not excluded or len(excluded) > nm.MAX_EXCLUDED:
                break
            work.params[nm.P_EXCLUDED] = len(excluded)
            work.params[nm.P_EXCLUDE:nm.P_EXCLUDE + len(excluded)] = excluded
            score = self._kernel(work, shared, driver.tables, first.depth, above + 1,
                                 max(node_budget - nodes, 0))
            nodes += int(ctl[nm.C_NODES])
            if score > above and not ctl[nm.C_ABORTED]:
                # Failed high: its whole line, searched again in a full window.
                score = self._kernel(work, shared, driver.tables, first.depth, nm.INF,
                                     max(node_budget - nodes, 0))
                nodes += int(ctl[nm.C_NODES])
            if ctl[nm.C_ABORTED] or work.pvlen[0] == 0:
                break
            pv = driver.pv_of(pos, work)
            excluded.append(move_id(pos, pv[0]))
            above = min(score, above)
            lines.append(Info(first.depth, first.mean_depth, above,
                              driver.nodes + nodes + helper_nodes(), time.monotonic() - start,
                              pv, line))
        work.params[nm.P_EXCLUDED] = 0
        return lines, nodes
