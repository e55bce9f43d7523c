"""``rafle perft --ray``: perft split into Ray tasks, on this machine or a cluster.

The tree is cut after two plies, or ``--split`` plies (each line of moves from the root is
one task: a numba perft of that subtree in a Ray worker) and the counts come back to the driver, which prints the
same totals and divide as a local run.  A task whose worker dies is retried by Ray; a count
is taken once per task, and the total is given only when every subtree is in: otherwise the
error names the subtrees missing.  Ray itself (the package, joining or starting a cluster,
the tests' fault injection) is :mod:`perft.raylink`'s, shared with the tools' ``--ray``.

This module prints nothing: the runner (``perft.runner``) owns the output.
"""
from __future__ import annotations

from engine import BadInput, Position, get_variant, parse_position, perft, pos_to_fen

from collections import Counter

from .raylink import RETRIES, ClusterError, HeadWatch, injected_fault, node_id, ray_module
from .suite import Count, Progress, count


def subtree(variant: str, fen: str, depth: int, bulk: bool, paths: bool) -> tuple[int, str]:
    """One task: perft(depth) of one position, in a Ray worker, and the node it ran on."""
    injected_fault()
    return perft(parse_position(fen, get_variant(variant)), depth, bulk, paths=paths), node_id()


def count_on_ray(pos: Position, depth: int, bulk: bool = True, progress: Progress | None = None,
                 paths: bool = False, plies: int = 2, where: Counter | None = None) -> Count:
    """perft(depth) of ``pos`` by Ray tasks, one per line of ``plies`` moves from the root
    (Ray must be connected: :func:`connect`).  ``where`` counts the tasks each node ran."""
    ray = ray_module()
    if depth <= plies:
        raise BadInput(f"--ray splits the tree after {plies} plies: give --depth {plies + 1} or more")
    remote = ray.remote(max_retries=RETRIES)(subtree)
    name = pos.variant.name

    def on_ray(tasks):
        refs = {remote.remote(name, pos_to_fen(task.pos), task.depth, bulk, paths): task
                for task in tasks}
        missing = []
        pending = list(refs)
        watch = HeadWatch(ray)                   # a lost head: HeadLost, a ClusterError
        while pending:
            ready, pending = watch.wait(pending)
            for ref in ready:
                try:
                    n, node = ray.get(ref)
                except Exception as exc:     # retries spent: the worker kept dying, or the task failed
                    missing.append(f"{refs[ref].name} ({type(exc).__name__})")
                    continue
                if where is not None:
                    where[node] += 1
                yield refs[ref], n
        if missing:
            raise ClusterError(f"{len(missing)} of {len(refs)} subtrees were not counted, no total: "
                               + ", ".join(sorted(missing)[:10]) + (" ..." if len(missing) > 10 else ""))

    return count(pos, depth, bulk, progress, paths, plies=plies, count_subtrees=on_ray)

