"""Shared test fixtures, and the kernels compiled once before the tests start.

The perft reference counts are project data (``perft/data/reference.json``, each entry
with its source), so the suite runs in a fresh clone with nothing beside it.

With an empty numba cache, every process that first needs a kernel compiles it: the two
xdist workers and the engine processes the tests start would compile the same search
kernel side by side on a 2-core machine.  So the main process runs ``rafle warm`` first
(its two parts side by side, into the cache they all read); with a warm cache that takes
a few seconds.  Workers skip it.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perft.suite import load_reference

ROOT = Path(__file__).resolve().parents[1]


def pytest_sessionstart(session):
    if hasattr(session.config, "workerinput"):      # an xdist worker: the main process did it
        return
    if (getattr(session.config.option, "numprocesses", None) or 0) < 2:
        return                                      # one process: it compiles what it uses
    subprocess.run([sys.executable, "-m", "protocol.cli", "warm"], cwd=ROOT, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800)


@pytest.fixture(scope="session")
def reference() -> list[dict]:
    return load_reference()
