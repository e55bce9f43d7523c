"""Perft from Python: the count of a position's move tree, its stop flag, and the one divide.

:func:`perft` runs the counting kernels (:mod:`engine.counting`) on scratch buffers of its
own, so threads may count at once.  :func:`perft_divide` is the project's one divide (the
count under each root move): the perft runner, the reference suites, the Ray cluster and
the Hub's ``perft`` all call it.  It cuts the tree into subtrees (:func:`split`), has them
counted (here, on threads, or by a counter the caller gives, such as Ray tasks) and adds
the counts up by root move (:class:`Tally`).  :func:`warm_up` runs the rules kernels once.
"""
from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import closing
from dataclasses import dataclass
from typing import Callable, Generator, NamedTuple

import numpy as np

from . import counting
from .movegen import new_move_buffer, new_state
from .notation import move_to_hub
from .position import Move, Position, legal_moves, play, start_position


def perft(pos: Position, depth: int, bulk: bool = True, stop: np.ndarray | None = None,
          paths: bool = False, table: np.ndarray | None = None) -> int | None:
    """Number of move sequences of ``depth`` plies (game-ending rules ignored).

    ``stop``: an array made by :func:`new_stop_flag`; another thread setting it with
    :func:`set_stop` ends the count within milliseconds, and None is returned.
    ``paths``: every capture path is a move of its own (the "keep duplicates"
    convention); by default a capture is one move per from, to, captured set and crowning.
    ``table``: from :func:`engine.counting.new_perft_table`: subtree counts are kept there
    and reused (exactly: an entry holds its whole position); threads may share one table,
    but counts of both capture conventions may not.
    """
    buf = new_move_buffer(max(depth, 1) + 1)
    state = new_state(paths)
    v = pos.variant
    if stop is None:
        stop = new_stop_flag()
    if table is None:
        n = int(counting.perft(*pos.words, depth, bulk, v.table, v.steps, buf, state, stop))
    else:
        n = int(counting.perft_hashed(*pos.words, depth, bulk, v.table, v.steps, buf, state,
                                      stop, table))
    return None if n < 0 else n


def new_stop_flag() -> np.ndarray:
    """A flag that a long count polls; :func:`set_stop` sets it from any thread."""
    return np.zeros(1, dtype=np.int64)


def set_stop(flag: np.ndarray) -> None:
    """Ask the count that polls ``flag`` (:func:`new_stop_flag`) to stop; safe from any thread."""
    flag[0] = 1


class Subtree(NamedTuple):
    """One subtree of a split count: its root move's index, the paths that lead to it
    (more than 1 only when counting capture paths), its position and depth, and a name
    (the moves from the root, in Hub notation)."""

    root: int
    weight: int
    pos: Position
    depth: int
    name: str


def split(pos: Position, depth: int, paths: bool = False,
          plies: int | None = None) -> tuple[list[tuple[Move, int]], list[Subtree]]:
    """perft(depth) cut into subtrees: the root's moves (each with its capture paths) and
    the subtrees, one per line of ``plies`` moves from the root (default: 2 from depth 3,
    else 1; never so many that a subtree has no ply left).  A line that ends early (no
    moves) has nothing below it and makes no subtree."""
    if plies is None:
        plies = 1 if depth < 3 else 2
    plies = max(1, min(plies, depth - 1)) if depth > 1 else 1
    moves = list(Counter(legal_moves(pos, paths)).items())
    tasks = [Subtree(i, k, play(pos, move), depth - 1, move_to_hub(move))
             for i, (move, k) in enumerate(moves)]
    for _ in range(plies - 1):
        tasks = [Subtree(t.root, t.weight * j, play(t.pos, reply), t.depth - 1,
                         f"{t.name} {move_to_hub(reply)}")
                 for t in tasks for reply, j in Counter(legal_moves(t.pos, paths)).items()]
    return moves, tasks


@dataclass(frozen=True)
class Divide:
    """A perft split by root move: the total and the count under each root move, in
    generation order.  ``done``: the root moves whose count is complete; fewer than all
    only in a stopped count, which holds what was counted before it stopped."""

    depth: int
    nodes: int
    counts: tuple[tuple[Move, int], ...]
    done: int

    @property
    def stopped(self) -> bool:
        return self.done < len(self.counts)


class Tally:
    """The count under each root move as the subtrees' counts come in."""

    def __init__(self, moves: list[tuple[Move, int]], tasks: list[Subtree]):
        self.moves = [move for move, _ in moves]
        self.per_root = [0] * len(moves)
        self.waiting = Counter(task.root for task in tasks)
        self.done = sum(1 for i in range(len(moves)) if not self.waiting[i])
        self.nodes = 0

    def add(self, task: Subtree, n: int) -> None:
        self.per_root[task.root] += task.weight * n
        self.nodes += task.weight * n
        self.waiting[task.root] -= 1
        self.done += not self.waiting[task.root]

    def finished(self, root: int) -> bool:
        """Whether every subtree under root move ``root`` is counted."""
        return not self.waiting[root]

    def result(self, depth: int) -> Divide:
        return Divide(depth, self.nodes, tuple(zip(self.moves, self.per_root)), self.done)


# Counts subtrees: yields each with its count (None: stopped), in any order.  A generator,
# so that whoever stops reading can close it and end the counts still running.
SubtreeCounter = Callable[[list[Subtree]], Generator[tuple[Subtree, "int | None"], None, None]]


def perft_divide(pos: Position, depth: int, bulk: bool = True, paths: bool = False, *,
                 stop: np.ndarray | None = None, table: np.ndarray | None = None,
                 threads: int = 1, plies: int | None = None,
                 on_count: Callable[[Tally, int], None] | None = None,
                 count_subtrees: SubtreeCounter | None = None) -> Divide:
    """perft(depth) of ``pos``, split by root move (with ``paths``, a capture reached by k
    paths counts k times its subtree).

    The tree is cut ``plies`` plies below the root (:func:`split`); the counts do not
    depend on where.  ``count_subtrees`` counts the subtrees; by default :func:`perft`
    does, on ``threads`` threads (the kernel releases the GIL; only the order of the work
    changes), polling ``stop`` and sharing ``table`` (see :func:`perft`).  A subtree
    counted as stopped ends the divide: :attr:`Divide.stopped`.  ``on_count(tally,
    root)`` is called in this thread after each subtree's count is added; an exception it
    raises stops the counts still running and goes on to the caller.
    """
    if depth == 0:
        return Divide(0, 1, (), 0)
    moves, tasks = split(pos, depth, paths, plies)
    tally = Tally(moves, tasks)
    if count_subtrees is None:
        count_subtrees = _counted_here(bulk, paths, stop, table, threads)
    with closing(count_subtrees(tasks)) as counts:
        for task, n in counts:
            if n is None:
                break
            tally.add(task, n)
            if on_count is not None:
                on_count(tally, task.root)
    return tally.result(depth)


def _counted_here(bulk: bool, paths: bool, stop: np.ndarray | None, table: np.ndarray | None,
                  threads: int) -> SubtreeCounter:
    """Subtrees counted by :func:`perft` in this process, on ``threads`` threads."""
    if stop is None:
        stop = new_stop_flag()

    def count(tasks: list[Subtree]):
        if threads <= 1:
            for task in tasks:
                yield task, perft(task.pos, task.depth, bulk, stop, paths, table)
            return
        with ThreadPoolExecutor(max_workers=threads) as pool:
            futures = {pool.submit(perft, task.pos, task.depth, bulk, stop, paths, table): task
                       for task in tasks}
            try:
                for future in as_completed(futures):
                    yield futures[future], future.result()
            except BaseException:         # closed early (GeneratorExit) or failed
                set_stop(stop)            # the running kernels end within milliseconds
                pool.shutdown(cancel_futures=True)
                raise
    return count


def warm_up(counting: bool = True) -> None:
    """Run every rules kernel once so that later calls pay no compile or load time; without
    ``counting``, only those that play moves (not perft's counting kernels)."""
    pos = start_position()
    play(pos, legal_moves(pos)[0])
    if counting:
        perft(pos, 2, True)
        perft(pos, 2, False)
