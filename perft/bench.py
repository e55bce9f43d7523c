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
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine import install_command, perft, start_position, warm_up

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "perft", "protocol")


def _line(name: str, nodes: int, cpu: float, wall: float) -> str:
    return (f"  {name:<18} {nodes:>14,} nodes  cpu {cpu:7.3f} s {nodes / cpu / 1e6:7.2f} M/s"
            f"   wall {wall:7.3f} s {nodes / wall / 1e6:7.2f} M/s")


def speed(depth: int, runs: int) -> dict[str, tuple[int, float, float]]:
    """Median (nodes, cpu seconds, wall seconds) of Rafle bulk, Rafle every leaf and
    dame-rs at ``depth``.  The runs are interleaved so that all three see the same
    machine load; CPU time is the fairer figure on a shared machine (all three are
    single-threaded)."""
    warm_up()
    pos = start_position()
    runners = {"rafle bulk": lambda: perft(pos, depth, True),
               "rafle every leaf": lambda: perft(pos, depth, False)}
    try:
        import dame
        dame.perft(dame.Board(), 2)
        runners[f"dame-rs {getattr(dame, '__version__', '')}".strip()] = \
            lambda: dame.perft(dame.Board(), depth)
    except ImportError:
        print(f"dame-rs is not installed: {install_command('bench')} to compare with it")
    samples = {name: [] for name in runners}
    nodes = {}
    for _ in range(runs):
        for name, run in runners.items():
            wall, cpu = time.perf_counter(), time.process_time()
            nodes[name] = run()
            samples[name].append((time.process_time() - cpu, time.perf_counter() - wall))
    print(f"perft from the start position, depth {depth}, median of {runs} interleaved runs:")
    figures = {}
    for name, times in samples.items():
        cpu = statistics.median(t[0] for t in times)
        wall = statistics.median(t[1] for t in times)
        figures[name] = (nodes[name], cpu, wall)
        print(_line(name, *figures[name]))
    if len(set(nodes.values())) != 1:
        print(f"  WARNING: the counts differ: {nodes}")
    peer = [name for name in figures if name.startswith("dame")]
    if peer:
        p_nodes, p_cpu, p_wall = figures[peer[0]]
        for name in ("rafle bulk", "rafle every leaf"):
            n, cpu, wall = figures[name]
            print(f"  ratio {name} / dame-rs: {n / cpu / (p_nodes / p_cpu):.2f}x by cpu time, "
                  f"{n / wall / (p_nodes / p_wall):.2f}x by wall time")
    return figures


def _copy_packages(dest: Path) -> None:
    for name in PACKAGES:
        shutil.copytree(ROOT / name, dest / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))


def _time_command(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """(wall, cpu) seconds of a command; cpu is the child's user + system time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _median_command(cmd, env, cwd, runs) -> tuple[float, float]:
    times = [_time_command(cmd, env, cwd) for _ in range(runs)]
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def _show(label: str, wall_cpu: tuple[float, float]) -> None:
    print(f"  {label:<50} wall {wall_cpu[0]:6.2f} s   cpu {wall_cpu[1]:6.2f} s", flush=True)


def startup(runs: int) -> dict[str, tuple[float, float]]:
    """(wall, cpu) seconds of ``rafle perft --depth 1``: empty numba cache, and warm."""
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
        _show("cold (empty numba cache: compiles the kernels)", figures["cold"])
        figures["copy warm"] = _median_command(cmd, env, tmp, runs)
        _show("same copy, cache now filled", figures["copy warm"])
        print(f"  => numba compile about {figures['cold'][1] - figures['copy warm'][1]:.2f} s of cpu")
    rafle = shutil.which("rafle")
    cmd = [rafle] if rafle else [sys.executable, "-m", "protocol.cli"]
    cmd += ["perft", "--depth", "1"]
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    _time_command(cmd, env, ROOT)  # fills the working tree's cache if it is stale
    figures["warm"] = _median_command(cmd, env, ROOT, runs)
    _show("warm (the installed rafle, working tree's cache)", figures["warm"])
    figures["numba"] = _median_command([sys.executable, "-c", "import numba"], env, ROOT, runs)
    _show("of which 'python -c \"import numba\"'", figures["numba"])
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
