"""Ray for every ``--ray`` (``rafle perft``, ``rafle match``, ``rafle selfplay``): the ``ray``
package, joining a cluster or starting a local instance, watching its head, and the tests'
fault injection.

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
import time
from collections import Counter
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version

from engine import install_command

RETRIES = 3                     # a task whose worker dies is run again up to this many times
FAULT = "RAFLE_RAY_FAULT"       # tests: the first task to find no file at this path ends its worker
SKEW = "RAFLE_RAY_VERSION"      # tests: a worker reports this as its Rafle version
AUTH = "RAY_AUTH_MODE"          # Ray 2.60: "token" where the cluster asks for its token
_STANDARD = {"CPU", "GPU", "memory", "object_store_memory"}
# Ray ends a driver whose head (its GCS) has not answered for 60 s, before Python can say a
# word.  A run gives the head HEAD_GRACE seconds (a head restarted at once comes back in
# time), probing it every PROBE_EVERY, and then stops itself, keeping what it has.
HEAD_GRACE = 15.0
PROBE_EVERY = 2.0


class ClusterError(Exception):
    """Ray is missing or cannot start or join, or work sent to it was never done (some
    perft subtrees were never counted)."""


class HeadLost(ClusterError):
    """The cluster's head stopped answering in mid-run: the driver must stop before Ray
    ends it, without asking the cluster anything more (every such call waits for the head)."""

    def __init__(self, address: str):
        super().__init__(f"lost the Ray head at {address}")
        self.address = address


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


def _host_port(address: str) -> tuple[str, int]:
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"bad Ray address {address!r}: expected auto, HOST:PORT or "
                           f"ray://HOST:PORT")
    return host.strip("[]"), int(port)


def _check_reachable(address: str, seconds: float = 5.0) -> None:
    """Fail at once on an address where nothing answers (Ray itself would wait minutes)."""
    try:
        socket.create_connection(_host_port(address), timeout=seconds).close()
    except (OSError, ValueError) as exc:
        raise ClusterError(f"cannot reach Ray at {address}: "
                           f"{getattr(exc, 'strerror', None) or exc}") from None


def _gcs(ray) -> tuple[str | None, tuple[str, int] | None]:
    """The head's GCS address, as text and as (host, port); None, None under Ray Client
    (``ray://``), which has none here."""
    try:
        address = ray.get_runtime_context().gcs_address
        return address, _host_port(address)
    except Exception:                # noqa: BLE001 -- Ray Client, or an address of another form
        return None, None


def _answers(head: tuple[str, int], seconds: float = PROBE_EVERY) -> bool:
    try:
        socket.create_connection(head, timeout=seconds).close()
        return True
    except OSError:
        return False


def head_answers(ray) -> bool:
    """The head takes a connection now (or cannot be probed): calls that ask it something
    (``ray.nodes``, ``ray.kill``) will not hang until Ray ends the driver."""
    _, head = _gcs(ray)
    return head is None or _answers(head)


class HeadWatch:
    """``ray.wait`` for the first of some results, that gives up on a lost head: between
    waits of at most ``PROBE_EVERY`` seconds it opens a connection to the head's GCS port,
    and raises HeadLost once none has been taken for ``grace`` seconds.  The caller has
    what each call returned: the head is probed before a wait, never after it.  Not watched
    under Ray Client (``ray://``), which has no GCS address here."""

    def __init__(self, ray, grace: float = HEAD_GRACE):
        self.ray = ray
        self.grace = grace
        self.address, self.head = _gcs(ray)
        self.probed = 0.0            # when the head was last probed
        self.silent_since = None     # since when it has taken no connection

    def wait(self, refs: list) -> tuple[list, list]:
        """(the first results ready, the others), as ``ray.wait(refs, num_returns=1)``;
        ``refs`` is not empty."""
        while True:
            self.check()
            ready, rest = self.ray.wait(refs, num_returns=1, timeout=PROBE_EVERY)
            if ready:
                return ready, rest

    def ensure(self) -> None:
        """Return once the head answers; HeadLost if it stays silent for the grace."""
        while True:
            self.probed = 0.0
            self.check()
            if self.silent_since is None:
                return
            time.sleep(PROBE_EVERY)

    def check(self) -> None:
        """Probe the head, at most once each ``PROBE_EVERY`` seconds: HeadLost past the grace."""
        now = time.monotonic()
        if self.head is None or now - self.probed < PROBE_EVERY:
            return
        self.probed = now
        if _answers(self.head):
            self.silent_since = None
            return
        self.silent_since = self.silent_since or now
        if time.monotonic() - self.silent_since >= self.grace:
            raise HeadLost(self.address)


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
