"""``python -m perft.bench``: move-generator speed against dame-rs, and start-up times.

Perft from the international start position, bulk (last ply counted, not made) and
every leaf made, then ``dame.perft`` at the same depth in the same run; median of a few
runs each.  Then the numba cold compile time (a copy of the packages with an empty
numba cache, in a subprocess) and the warm start time of ``rafle perft --depth 1``.
A command, not a test: it prints figures and asserts nothing but equal counts.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine import perft, start_position, warm_up

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "perft", "protocol")


def _median_run(fn, runs: int) -> tuple[int, float]:
    nodes, times = None, []
    for _ in range(runs):
        start = time.perf_counter()
        n = fn()
        times.append(time.perf_counter() - start)
        if nodes is not None and n != nodes:
            raise RuntimeError(f"perft gave {n} then {nodes}")
        nodes = n
    return nodes, statistics.median(times)


def _line(name: str, nodes: int, seconds: float) -> str:
    return f"  {name:<22} {nodes:>14,} nodes {seconds:>9.3f} s {nodes / seconds / 1e6:>9.2f} M nodes/s"


def speed(depth: int, runs: int) -> dict[str, tuple[int, float]]:
    """Median (nodes, seconds) of Rafle bulk, Rafle full and dame-rs at ``depth``."""
    warm_up()
    pos = start_position()
    figures = {}
    print(f"perft from the start position, depth {depth}, median of {runs}:")
    figures["rafle bulk"] = _median_run(lambda: perft(pos, depth, True), runs)
    print(_line("rafle bulk", *figures["rafle bulk"]), flush=True)
    figures["rafle every leaf"] = _median_run(lambda: perft(pos, depth, False), runs)
    print(_line("rafle every leaf", *figures["rafle every leaf"]), flush=True)
    try:
        import dame
    except ImportError:
        print("  dame-rs is not installed: 'pip install dame-rs' (or pip install '.[bench]') "
              "to compare with it")
        return figures
    dame.perft(dame.Board(), 2)
    figures["dame-rs"] = _median_run(lambda: dame.perft(dame.Board(), depth), runs)
    print(_line(f"dame-rs {getattr(dame, '__version__', '')}".strip(), *figures["dame-rs"]))
    counts = {name: n for name, (n, _) in figures.items()}
    if len(set(counts.values())) != 1:
        print(f"  WARNING: the counts differ: {counts}")
    dame_rate = figures["dame-rs"][0] / figures["dame-rs"][1]
    for name in ("rafle bulk", "rafle every leaf"):
        nodes, seconds = figures[name]
        print(f"  ratio {name} / dame-rs: {nodes / seconds / dame_rate:.2f}x")
    return figures


def _copy_packages(dest: Path) -> None:
    for name in PACKAGES:
        shutil.copytree(ROOT / name, dest / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))


def _time_command(cmd: list[str], env: dict, cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds


def startup(runs: int) -> dict[str, float]:
    """Seconds of ``rafle perft --depth 1``: with an empty numba cache, and warm."""
    figures = {}
    with tempfile.TemporaryDirectory(prefix="rafle-cold-") as tmp:
        tmp = Path(tmp)
        _copy_packages(tmp / "src")
        env = dict(os.environ, PYTHONPATH=str(tmp / "src"),
                   NUMBA_CACHE_DIR=str(tmp / "numba-cache"))
        env.pop("NUMBA_DISABLE_JIT", None)
        cmd = [sys.executable, "-m", "protocol.cli", "perft", "--depth", "1"]
        # Prove the copy (not the working tree) is the code that runs.
        where = subprocess.run([sys.executable, "-c", "import engine; print(engine.__file__)"],
                               env=env, cwd=tmp, capture_output=True, text=True).stdout.strip()
        if not where.startswith(str(tmp)):
            raise RuntimeError(f"the cold run would import {where}, not the copy")
        print("start-up of 'rafle perft --depth 1':")
        figures["cold"] = _time_command(cmd, env, tmp)
        print(f"  cold (empty numba cache, compiles every kernel): {figures['cold']:7.2f} s",
              flush=True)
        figures["copy warm"] = statistics.median(_time_command(cmd, env, tmp) for _ in range(runs))
        print(f"  same copy, cache now filled:                     {figures['copy warm']:7.2f} s")
        print(f"  => numba compile time about {figures['cold'] - figures['copy warm']:.2f} s")
    rafle = shutil.which("rafle")
    cmd = [rafle] if rafle else [sys.executable, "-m", "protocol.cli"]
    cmd += ["perft", "--depth", "1"]
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    _time_command(cmd, env, ROOT)  # fills the working tree's cache if it is stale
    figures["warm"] = statistics.median(_time_command(cmd, env, ROOT) for _ in range(runs))
    print(f"  warm (the installed rafle, working tree cache):   {figures['warm']:7.2f} s")
    probe = [sys.executable, "-c", "pass"]
    figures["python"] = statistics.median(_time_command(probe, env, ROOT) for _ in range(runs))
    print(f"  (a bare 'python -c pass' takes {figures['python']:.2f} s)")
    return figures


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m perft.bench", description=__doc__.split("\n")[0])
    p.add_argument("--depth", type=int, default=9, help="perft depth (default 9)")
    p.add_argument("--runs", type=int, default=3, help="runs per figure, median (default 3)")
    p.add_argument("--no-startup", action="store_true", help="skip the start-up timings")
    args = p.parse_args(argv)
    if not 1 <= args.depth <= 15 or args.runs < 1:
        p.error("--depth must be 1..15 and --runs at least 1")
    speed(args.depth, args.runs)
    if not args.no_startup:
        startup(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
