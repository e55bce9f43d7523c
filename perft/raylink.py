"""Ray for every ``--ray`` (``rafle perft``, ``rafle match``, ``rafle selfplay``): the ``ray``
package, joining a cluster or starting a local instance, and the tests' fault injection.

Ray is an optional dependency (the ``cluster`` extra), imported only here and only
when asked for.  It lives under ``perft/`` because that is the lowest package that may do I/O
(``engine/`` does none) and is imported by ``protocol/``, never the other way round: the tools
in ``protocol/tools/`` import it from here.  This module prints nothing: its callers own the
output.
"""
from __future__ import annotations

import os
import platform
import socket
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version

from engine import install_command

RETRIES = 3                     # a task whose worker dies is run again up to this many times
FAULT = "RAFLE_RAY_FAULT"       # tests: the first task to find no file at this path ends its worker
SKEW = "RAFLE_RAY_VERSION"      # tests: a worker reports this as its Rafle version


class ClusterError(Exception):
    """Ray is missing or cannot start or join, or work sent to it was never done (some
    perft subtrees were never counted)."""


def ray_module():
    """The ``ray`` package, or ClusterError saying how to get it."""
    try:
        import ray
    except ImportError:
        ray = None
    if ray is None or not hasattr(ray, "remote"):     # absent, or a directory named ray in the way
        raise ClusterError(f"--ray needs Ray: {install_command('cluster')}")
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
    env = {name: os.environ[name] for name in (FAULT, SKEW) if name in os.environ}
    kwargs = dict(log_to_driver=False, include_dashboard=False, runtime_env={"env_vars": env})
    try:
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=cpus, **kwargs)
    except Exception as exc:         # Ray raises many kinds: a refused address, a bad version...
        said = " ".join(str(exc).split())[:400] or type(exc).__name__    # Ray's, on one line
        raise ClusterError(f"cannot {'join Ray at ' + address if address else 'start Ray'}: "
                           f"{said}") from None
    try:
        check_versions(ray)
    except ClusterError:
        ray.shutdown()
        raise
    return True


def versions() -> dict[str, str]:
    """The Python, Ray and Rafle versions of this process."""
    try:
        rafle = installed_version("rafle")
    except PackageNotFoundError:
        rafle = "not installed"
    return {"Python": platform.python_version(), "Ray": ray_module().__version__,
            "Rafle": rafle}


def _node_versions() -> dict[str, str]:
    """A worker's :func:`versions` (the tests' ``SKEW`` variable stands for another Rafle)."""
    return dict(versions(), **({"Rafle": os.environ[SKEW]} if os.environ.get(SKEW) else {}))


def skew(driver: dict[str, str], nodes: dict[str, dict[str, str]]) -> str | None:
    """The first difference between the driver's versions and a node's, in one line, or
    None.  Python counts by major.minor (Ray's own rule), Ray and Rafle exactly."""
    for node, theirs in sorted(nodes.items()):
        for key in ("Python", "Ray", "Rafle"):
            ours, its = driver[key], theirs.get(key, "unknown")
            if key == "Python":
                same = ours.split(".")[:2] == its.split(".")[:2]
            else:
                same = ours == its
            if not same:
                return (f"version skew: this driver has {key} {ours}, node {node} has {key} "
                        f"{its}; every node needs the same Python, Ray and Rafle")
    return None


def check_versions(ray, timeout: float = 120.0) -> None:
    """Refuse a cluster any of whose live nodes runs another Python, Ray or Rafle than this
    driver, before any work is sent (ClusterError naming both sides).  One small task a
    node, pinned to it, asks for no CPU so that a busy node answers too."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    probe = ray.remote(num_cpus=0)(_node_versions)
    asked = {f"{n['NodeManagerAddress']} ({n['NodeID'][:8]})":
             probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
                 n["NodeID"], soft=False)).remote()
             for n in ray.nodes() if n.get("Alive")}
    try:
        answers = dict(zip(asked, ray.get(list(asked.values()), timeout=timeout)))
    except Exception as exc:         # noqa: BLE001 -- a node that cannot run the probe
        raise ClusterError(f"cannot ask the cluster's nodes for their versions: "
                           f"{' '.join(str(exc).split())[:300]}") from None
    problem = skew(versions(), answers)
    if problem:
        raise ClusterError(problem)


def disconnect(started: bool) -> None:
    if started:
        ray_module().shutdown()
