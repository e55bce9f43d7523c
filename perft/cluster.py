"""``rafle perft --ray``: perft split into Ray tasks, on this machine or a cluster.

The tree is cut after two plies, or ``--split`` plies (each line of moves from the root is
one task: a numba perft of that subtree in a Ray worker) and the counts come back to the driver, which prints the
same totals and divide as a local run.  A task whose worker dies is retried by Ray; a count
is taken once per task, and the total is given only when every subtree is in: otherwise the
error names the subtrees missing.  Ray is an optional dependency (``pip install
"rafle[cluster]"``), imported only here and only when asked for.

This module prints nothing: the runner (``perft.runner``) owns the output.
"""
from __future__ import annotations

import os
import socket

from engine import BadInput, Position, get_variant, parse_position, perft, pos_to_fen

from .suite import Count, Progress, count

RETRIES = 3                     # a task whose worker dies is run again up to this many times
FAULT = "RAFLE_RAY_FAULT"       # tests: the first task to find no file at this path ends its worker


class ClusterError(Exception):
    """Ray is missing, cannot start or join, or some subtrees were never counted."""


def ray_module():
    """The ``ray`` package, or ClusterError saying how to get it."""
    try:
        import ray
    except ImportError:
        ray = None
    if ray is None or not hasattr(ray, "remote"):     # absent, or a directory named ray in the way
        raise ClusterError("--ray needs Ray: pip install \"rafle[cluster]\"")
    return ray


def injected_fault() -> None:
    """Fault injection for the tests, in a Ray worker: where the file named by ``FAULT`` is
    missing, the one worker that creates it (atomically: workers starting at once must
    not all die) ends as a lost machine would, with no answer at all; a file that says
    "always" ends every worker that comes here."""
    fault = os.environ.get(FAULT)
    if not fault:
        return
    try:
        with open(fault, "x"):
            pass
        os._exit(1)
    except FileExistsError:
        with open(fault) as f:
            if f.read().strip() == "always":
                os._exit(1)


def subtree(variant: str, fen: str, depth: int, bulk: bool, paths: bool) -> int:
    """One task: perft(depth) of one position, in a Ray worker."""
    injected_fault()
    return perft(parse_position(fen, get_variant(variant)), depth, bulk, paths=paths)


def _check_reachable(address: str, seconds: float = 5.0) -> None:
    """Fail at once on an address where nothing answers (Ray itself would wait minutes)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"bad Ray address {address!r}: expected auto, HOST:PORT or "
                           f"ray://HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except (OSError, ValueError) as exc:
        raise ClusterError(f"cannot reach Ray at {address}: "
                           f"{getattr(exc, 'strerror', None) or exc}") from None


def connect(address: str | None, cpus: int | None = None) -> bool:
    """Join the cluster at ``address`` (``auto``, ``ray://host:port``, host:port) or,
    without one, start a local Ray instance.  True if this call started Ray."""
    ray = ray_module()
    if address and address != "auto":
        _check_reachable(address)
    if ray.is_initialized():
        return False
    env = {FAULT: os.environ[FAULT]} if FAULT in os.environ else {}
    kwargs = dict(log_to_driver=False, include_dashboard=False, runtime_env={"env_vars": env})
    try:
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=cpus, **kwargs)
    except Exception as exc:         # Ray raises many kinds: a refused address, a bad version...
        raise ClusterError(f"cannot {'join Ray at ' + address if address else 'start Ray'}: "
                           f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    return True


def count_on_ray(pos: Position, depth: int, bulk: bool = True, progress: Progress | None = None,
                 paths: bool = False, plies: int = 2) -> Count:
    """perft(depth) of ``pos`` by Ray tasks, one per line of ``plies`` moves from the root
    (Ray must be connected: :func:`connect`)."""
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
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                try:
                    n = ray.get(ref)
                except Exception as exc:     # retries spent: the worker kept dying, or the task failed
                    missing.append(f"{refs[ref].name} ({type(exc).__name__})")
                    continue
                yield refs[ref], n
        if missing:
            raise ClusterError(f"{len(missing)} of {len(refs)} subtrees were not counted, no total: "
                               + ", ".join(sorted(missing)[:10]) + (" ..." if len(missing) > 10 else ""))

    return count(pos, depth, bulk, progress, paths, plies=plies, count_subtrees=on_ray)


def disconnect(started: bool) -> None:
    if started:
        ray_module().shutdown()
