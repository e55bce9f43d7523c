"""A first run is never silent: the compile step says so on stderr, a warm one says nothing;
``rafle warm`` fills the cache; perft prints its first line before it compiles."""
from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

from perft.progress import compiling

ROOT = Path(__file__).resolve().parents[1]


def test_a_long_step_is_announced_and_its_end_told():
    out = io.StringIO()
    with compiling("the kernels", stream=out, after=0.05):
        time.sleep(0.3)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("rafle: compiling the kernels (first run only")
    assert lines[1].startswith("rafle: compiled the kernels in ")


def test_a_quick_step_prints_nothing():
    out = io.StringIO()
    with compiling("the kernels", stream=out, after=5.0):
        pass
    assert out.getvalue() == ""


def test_a_failing_step_still_ends_its_announcement():
    out = io.StringIO()
    try:
        with compiling("the kernels", stream=out, after=0.05):
            time.sleep(0.2)
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert out.getvalue().splitlines()[-1].startswith("rafle: compiled the kernels")


def test_perft_prints_its_first_line_before_compiling():
    """The header comes first on stdout (flushed), then the depth rows."""
    run = subprocess.run([sys.executable, "-m", "protocol.cli", "perft", "--depth", "2"],
                         capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("perft W:W31,") and "(international, bulk)" in lines[0]
    assert lines[1].split() == ["depth", "nodes", "seconds", "nodes/s"]
    assert [line.split()[1] for line in lines[2:]] == ["9", "81"]


def test_warm_fills_the_cache_and_says_so():
    run = subprocess.run([sys.executable, "-m", "protocol.cli", "warm"], capture_output=True,
                         text=True, cwd=ROOT, timeout=900)
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""
    assert "rafle warm: perft ready in" in run.stderr
    assert "rafle warm: search ready in" in run.stderr
    assert run.stderr.splitlines()[-1].startswith("rafle warm: every kernel is in the cache")
