"""A Ray cluster of separate nodes on this machine, for the tests: a head and worker nodes,
each started by ``ray start`` as the documentation says, each with its own CPUs, custom
resource (``node_a``, ``node_b``...) and temporary directory, on free ports.

A node is taken away by ending its processes by their ids: those whose command line names
its temporary directory, and their children (its raylet's workers).  ``ray stop`` would end
every Ray node on the machine, other people's too.  Token authentication is on, with a
token of this cluster's own in ``RAY_AUTH_TOKEN`` (nothing is written to ``~/.ray``): the
drivers run as subprocesses with :attr:`LocalCluster.env`.
"""
from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _processes() -> dict[int, tuple[int, str]]:
    """Every process of this machine: pid -> (parent pid, command line)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found[int(entry)] = (parent, command)
    return found


def node_processes(mark: str) -> set[int]:
    """The processes whose command line holds ``mark`` (a node's temporary directory), and
    their descendants."""
    table = _processes()
    chosen = {pid for pid, (_, command) in table.items() if mark in command and pid != os.getpid()}
    while True:
        more = {pid for pid, (parent, _) in table.items() if parent in chosen} - chosen
        if not more:
            return chosen
        chosen |= more


class LocalCluster:
    """A head (``node_a``) and :meth:`add_node` workers (``node_b``, ...), 1 CPU each."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="rafle-ray-", dir="/tmp"))   # short: socket paths
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32),
                        RAY_USAGE_STATS_ENABLED="0")
        for name in ("RAY_ADDRESS", "RAY_AUTH_TOKEN_PATH"):
            self.env.pop(name, None)
        self.nodes: dict[str, str] = {}           # resource name -> temporary directory
        self.drivers: list[subprocess.Popen] = []  # spawned: ended by stop if still running

    def _start(self, name: str, *where: str) -> None:
        temp = str(self.root / name)
        os.makedirs(temp, exist_ok=True)
        command = [RAY, "start", *where, "--num-cpus=1", f'--resources={{"{name}": 1}}',
                   f"--temp-dir={temp}", f"--dashboard-agent-listen-port={free_port()}",
                   "--disable-usage-stats"]
        done = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=180)
        if done.returncode:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
        self.nodes[name] = temp

    def start_head(self) -> None:
        self._start("node_a", "--head", f"--port={self.port}", "--include-dashboard=false",
                    f"--dashboard-port={free_port()}")

    def add_node(self, name: str = "node_b") -> None:
        self._start(name, f"--address={self.address}")

    def wait_for(self, count: int, timeout: float = 60.0) -> None:
        """Until ``count`` nodes are alive."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done = subprocess.run([RAY, "status", f"--address={self.address}"], env=self.env,
                                  capture_output=True, text=True)
            if done.stdout.count(" node_") >= count:
                return
            time.sleep(1)
        raise RuntimeError(f"{count} Ray nodes never came up at {self.address}")

    def kill(self, name: str) -> int:
        """End node ``name``'s processes, as a lost machine; how many."""
        pids = node_processes(self.nodes.pop(name))
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return len(pids)

    def stop(self) -> None:
        for run in self.drivers:
            if run.poll() is None:
                run.kill()
                run.communicate()
        for name in [n for n in self.nodes if n != "node_a"] + ["node_a"] * ("node_a" in self.nodes):
            self.kill(name)
        shutil.rmtree(self.root, ignore_errors=True)

    def rafle(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        """``rafle ARGS`` as a driver on this cluster (a subprocess, with its token)."""
        return subprocess.run([sys.executable, "-m", "protocol.cli", *args], env=self.env,
                              capture_output=True, text=True, timeout=timeout,
                              cwd=Path(__file__).resolve().parent.parent)

    def spawn(self, *args: str) -> subprocess.Popen:
        """``rafle ARGS`` started as a driver, its output piped; see :func:`ended`."""
        run = subprocess.Popen([sys.executable, "-m", "protocol.cli", *args], env=self.env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=Path(__file__).resolve().parent.parent)
        self.drivers.append(run)
        return run


def ended(run: subprocess.Popen, timeout: float = 600) -> tuple[str, str]:
    """A spawned driver's (stdout, stderr) once it ends; one still running after ``timeout``
    seconds is killed, and the test fails with what it said."""
    try:
        return run.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        run.kill()
        out, err = run.communicate()
        raise AssertionError(f"still running after {timeout} s:\n{out}\n{err}") from None
