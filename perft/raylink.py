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
from collections import Counter
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version

from engine import install_command

RETRIES = 3                     # a task whose worker dies is run again up to this many times
FAULT = "RAFLE_RAY_FAULT"       # tests: the first task to find no file at this path ends its worker
SKEW = "RAFLE_RAY_VERSION"      # tests: a worker reports this as its Rafle version
AUTH = "RAY_AUTH_MODE"          # Ray 2.60: "token" where the cluster asks for its token
_STANDARD = {"CPU", "GPU", "memory", "object_store_memory"}


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


def _token_here() -> bool:
    """A Ray authentication token is on this machine (Ray's own places for it)."""
    return bool(os.environ.get("RAY_AUTH_TOKEN")
                or os.path.isfile(os.environ.get("RAY_AUTH_TOKEN_PATH")
                                  or os.path.expanduser("~/.ray/auth_token")))


def connect(address: str | None, cpus: int | None = None) -> bool:
    """Join the cluster at ``address`` (``auto``, ``ray://host:port``, host:port) or,
    without one, start a local Ray instance.  True if this call started Ray.

    Ray 2.60 clusters ask for a token (``RAY_AUTH_MODE=token``): Ray itself turns that on
    for ``auto`` when a token is on this machine, but not for an address given; Rafle does
    the same for both, so that ``--ray HOST:PORT`` joins where ``--ray auto`` would."""
    ray = ray_module()
    if address and address != "auto":
        _check_reachable(address)
    if ray.is_initialized():
        return False
    if address and AUTH not in os.environ and _token_here():
        os.environ[AUTH] = "token"
    env = {name: os.environ[name] for name in (FAULT, SKEW) if name in os.environ}
    kwargs = dict(log_to_driver=False, include_dashboard=False, runtime_env={"env_vars": env})
    try:
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=cpus, **kwargs)
    except Exception as exc:         # Ray raises many kinds: a refused address, a bad version...
        said = " ".join(str(exc).split())[:400] or type(exc).__name__    # Ray's, on one line
        if address and os.environ.get(AUTH, "").lower() != "token":
            said += (f" (a cluster with token authentication, on by default in Ray 2.60, needs "
                     f"{AUTH}=token and its token here: ~/.ray/auth_token or RAY_AUTH_TOKEN)")
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
    gone = tuple(getattr(ray.exceptions, name) for name in ("TaskUnschedulableError",
                                                          "NodeDiedError")
                 if hasattr(ray.exceptions, name))
    answers = {}
    for node, ref in asked.items():
        try:
            answers[node] = ray.get(ref, timeout=timeout)
        except gone:                 # a node lost a moment ago, still listed alive: not ours to refuse
            continue
        except Exception as exc:     # noqa: BLE001 -- a node that cannot run the probe
            raise ClusterError(f"cannot ask the cluster's nodes for their versions: "
                               f"{' '.join(str(exc).split())[:300]}") from None
    problem = skew(versions(), answers)
    if problem:
        raise ClusterError(problem)


def disconnect(started: bool) -> None:
    if started:
        ray_module().shutdown()


def node_id() -> str:
    """In a Ray task or actor: the id of the node it runs on."""
    return ray_module().get_runtime_context().get_node_id()


def node_names(ray) -> dict[str, str]:
    """Every node's id -> a name: its custom resources (``node_a``) or its address, and
    the start of its id."""
    names = {}
    for n in ray.nodes():
        own = sorted(k for k in n.get("Resources", {}) if k not in _STANDARD and ":" not in k)
        names[n["NodeID"]] = f"{','.join(own) or n['NodeManagerAddress']} ({n['NodeID'][:8]})"
    return names


def placement(ray, where: Counter, what: str) -> str:
    """Where the work ran, in one line: ``subtrees counted on 2 Ray nodes: node_a (5cef97e3)
    46, node_b (ee283d66) 35``."""
    names = node_names(ray)
    spread = ", ".join(f"{names.get(node, node[:8])} {n}" for node, n in sorted(
        where.items(), key=lambda item: names.get(item[0], item[0])))
    return f"{what} on {len(where)} Ray node{'s' * (len(where) != 1)}: {spread}"
