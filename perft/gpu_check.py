"""``python -m perft.gpu_check``: the one script to run on a machine with a CUDA GPU.

It checks the GPU perft's counts and measures its speed against the CPU perft on every core,
in one run of under 8 minutes (``--budget``), and prints a table:

* from the start position, duplicates merged: depth 1-11 against ``perft/data/reference.json``,
  10-12 against the CPU perft, timed on both;
* from the start, every capture path (the published "keep duplicates" counts): depth 1-12
  against the reference (12: 10,752,899,471, the issue's goal);
* Woldouby's position: depth 1-15 against the reference, 10-13 against the CPU, timed on both;
* from the start, merged, depth 13 against the CPU, timed on both;
* every variant: 20 random positions, the GPU's divide against the CPU's (merged depth 5,
  every capture path depth 4); ``--variants-only`` runs this part alone.

Then, while time is left, the same depth-11 count (10 in ``--smoke``) on several numbers of
GPU threads, for tuning.  A run whose time, foreseen from the depth before it, would not fit
in the time left is skipped and said so.  Exit code 1 if a count differs, else 0.  ``--smoke``: the same at tiny
depths under numba's CUDA simulator (it sets ``NUMBA_ENABLE_CUDASIM=1``), to check the script
itself on a machine without a GPU.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

import engine
from engine import (VARIANTS, NoGpu, get_variant, legal_moves, parse_position, play, pos_to_fen,
                    start_position, warm_up)

from .suite import count, load_reference

BUDGET = 450              # seconds for the whole run (8 minutes, less a margin)
CPU_PLIES = 3             # the CPU's split: enough subtrees for every core
RANDOM = 20               # random positions of each variant, counted on both
SWEEP = (8192, 16384, 32768, 65536, 131072)     # GPU threads tried, after the checks


@dataclass
class Run:
    """One count: its position, depth and convention, what it is checked against, and
    whether the CPU counts it too (timed, on every core)."""

    name: str
    fen: str
    depth: int
    paths: bool
    expected: int | None
    cpu: bool


def _reference() -> dict[tuple[str, int, bool], int]:
    """(position label, depth, every capture path) -> the published international count."""
    out = {}
    for e in load_reference():
        if e["variant"] == "international" and e["position"] in ("initial", "Woldouby"):
            out[(e["position"], e["depth"], e["dup_captures_once"] is False)] = e["nodes"]
    return out


def plan(smoke: bool) -> list[Run]:
    """The runs, cheapest first within each series; the deepest, longest one last."""
    ref = _reference()
    woldouby = next(e["fen"] for e in load_reference() if e["position"] == "Woldouby")
    top, wold_top = (4, 7) if smoke else (12, 15)
    timed = range(3, 6) if smoke else range(10, 14)

    def start(depth, paths):
        return Run("start, every path" if paths else "start, merged", "startpos", depth, paths,
                   ref.get(("initial", depth, paths)), not paths and depth in timed)
    runs = [start(d, False) for d in range(1, top + 1)]
    runs += [start(d, True) for d in range(1, top + 1)]
    runs += [Run("Woldouby, merged", woldouby, d, False, ref.get(("Woldouby", d, False)),
                 d in timed) for d in range(1, wold_top + 1)]
    return runs + [start(top + 1, False)]


def _rate(nodes: int, seconds: float) -> str:
    return f"{nodes / seconds / 1e6:,.1f}" if seconds > 0 else "-"


class Clock:
    """The time left, and each series' last time, to foresee the next depth's."""

    def __init__(self, budget: float):
        self.end = time.perf_counter() + budget
        self.last: dict[tuple[str, str], tuple[int, float]] = {}

    def left(self) -> float:
        return max(0.0, self.end - time.perf_counter())

    def foreseen(self, run: Run, side: str) -> float:
        """Seconds the run should take: the last depth's time times the tree's growth."""
        depth, seconds = self.last.get((run.name, side), (0, 0.0))
        return seconds * 8 ** (run.depth - depth) if depth else 0.0

    def fits(self, run: Run, side: str) -> bool:
        return self.foreseen(run, side) < self.left()

    def note(self, run: Run, side: str, seconds: float) -> None:
        self.last[(run.name, side)] = (run.depth, seconds)


def _verdict(gpu: int, expected: int | None, cpu: int | None) -> tuple[str, bool | None]:
    """The check column, and whether the count agrees (None: nothing to check it with)."""
    wanted = {"reference": expected, "CPU": cpu}
    wanted = {k: n for k, n in wanted.items() if n is not None}
    if not wanted:
        return "unchecked (no reference; CPU run skipped)", None
    against = " and ".join(wanted)
    if all(n == gpu for n in wanted.values()):
        return f"ok ({against})", True
    return "MISMATCH: " + ", ".join(f"{k} {n:,}" for k, n in wanted.items()), False


def check(runs: list[Run], clock: Clock, gpu_threads: int | None) -> dict[str, int]:
    """Count every run that fits and print its line; how many were ok, mismatched, unchecked
    and skipped."""
    counters = {paths: engine.gpu_counter(True, paths, threads=gpu_threads)
                for paths in (False, True)}
    cores = os.cpu_count() or 1
    print(f"{'position':<18} {'depth':>5} {'GPU nodes':>16} {'GPU s':>8} {'GPU M/s':>10} "
          f"{'CPU s':>8} {'CPU M/s':>9} {'x CPU':>7}  check", flush=True)
    tally = dict.fromkeys(("ok", "mismatched", "unchecked", "skipped"), 0)
    for run in runs:
        head = f"{run.name:<18} {run.depth:>5}"
        if not clock.fits(run, "gpu"):
            tally["skipped"] += 1
            print(f"{head} skipped: about {clock.foreseen(run, 'gpu'):.0f} s foreseen, "
                  f"{clock.left():.0f} s left", flush=True)
            continue
        pos = start_position() if run.fen == "startpos" else parse_position(run.fen)
        gpu = count(pos, run.depth, True, paths=run.paths, count_subtrees=counters[run.paths])
        clock.note(run, "gpu", gpu.seconds)
        cpu = None
        if run.cpu and clock.fits(run, "cpu"):
            cpu = count(pos, run.depth, True, paths=run.paths, threads=cores, plies=CPU_PLIES)
            clock.note(run, "cpu", cpu.seconds)
        verdict, good = _verdict(gpu.nodes, run.expected, cpu and cpu.nodes)
        tally[{True: "ok", False: "mismatched", None: "unchecked"}[good]] += 1
        cpu_cols = (f"{cpu.seconds:>8.2f} {_rate(cpu.nodes, cpu.seconds):>9} "
                    f"{cpu.seconds / gpu.seconds:>7.1f}" if cpu else f"{'':>8} {'':>9} {'':>7}")
        print(f"{head} {gpu.nodes:>16,} {gpu.seconds:>8.2f} {_rate(gpu.nodes, gpu.seconds):>10} "
              f"{cpu_cols}  {verdict}", flush=True)
    return tally


def sweep(smoke: bool, clock: Clock, tally: dict[str, int]) -> None:
    """The start position's merged count at one depth on each number of GPU threads."""
    depth = 4 if smoke else 11
    ref = _reference().get(("initial", depth, False))
    pos = start_position()
    print(f"GPU threads, start, merged, depth {depth}:", flush=True)
    last = 0.0
    for threads in ((8, 16) if smoke else SWEEP):
        if 2 * last > clock.left():
            print(f"{threads:>8} skipped: {clock.left():.0f} s left", flush=True)
            tally["skipped"] += 1
            continue
        counter = engine.gpu_counter(True, False, threads=threads)
        run = count(pos, depth, True, count_subtrees=counter)
        last = run.seconds
        good = run.nodes == ref
        tally["ok" if good else "mismatched"] += 1
        verdict = "ok (reference)" if good else f"MISMATCH: reference {ref:,}"
        print(f"{threads:>8} {run.nodes:>16,} {run.seconds:>8.2f} s "
              f"{_rate(run.nodes, run.seconds):>10} M/s  {verdict}", flush=True)


def random_positions(variant: str, n: int, seed: int) -> list[str]:
    """FENs of ``n`` positions with moves, picked along random games (kings included)."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < n:
        pos = start_position(get_variant(variant))
        for _ in range(rng.randrange(10, 90)):
            moves = legal_moves(pos)
            if not moves:
                break
            pos = play(pos, rng.choice(moves))
        if legal_moves(pos):
            fens.append(pos_to_fen(pos))
    return fens


def variants(smoke: bool, clock: Clock, tally: dict[str, int]) -> None:
    """Every variant: random positions counted on the GPU and on the CPU (every core), the
    whole divide compared, duplicates merged and every capture path."""
    n, depths = (2, {False: 3, True: 2}) if smoke else (RANDOM, {False: 5, True: 4})
    cores = os.cpu_count() or 1
    counters = {paths: engine.gpu_counter(True, paths) for paths in (False, True)}
    print(f"every variant, {n} random positions, GPU divide against the CPU's "
          f"(merged depth {depths[False]}, every path depth {depths[True]}):", flush=True)
    for seed, name in enumerate(VARIANTS):
        if clock.left() < 10:
            print(f"{name:<14} skipped: {clock.left():.0f} s left", flush=True)
            tally["skipped"] += 1
            continue
        nodes, bad = 0, []
        for fen in random_positions(name, n, 100 + seed):
            pos = parse_position(fen, get_variant(name))
            for paths, depth in depths.items():
                gpu = count(pos, depth, True, paths=paths, count_subtrees=counters[paths])
                cpu = count(pos, depth, True, paths=paths, threads=cores)
                nodes += gpu.nodes
                if (gpu.nodes, gpu.divide) != (cpu.nodes, cpu.divide):
                    bad.append(f"{fen} depth {depth}{' paths' if paths else ''}: GPU "
                               f"{gpu.nodes:,}, CPU {cpu.nodes:,}")
        tally["mismatched" if bad else "ok"] += 1
        print(f"{name:<14} {2 * n:>3} counts {nodes:>14,} nodes  "
              + ("ok (CPU)" if not bad else "MISMATCH: " + "; ".join(bad[:3])), flush=True)


def _versions() -> str:
    out = []
    for name in ("numba", "numba-cuda", "numpy"):
        try:
            out.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            out.append(f"{name} -")
    return ", ".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m perft.gpu_check", description=__doc__.split("\n")[0])
    p.add_argument("--smoke", action="store_true", help="tiny depths under the CUDA simulator")
    p.add_argument("--budget", type=float, default=BUDGET, help="seconds for the whole run")
    p.add_argument("--variants-only", action="store_true",
                   help="only the random positions of every variant against the CPU")
    p.add_argument("--gpu-threads", type=int, default=None,
                   help="GPU threads per launch (default: as many as the device holds well)")
    args = p.parse_args(argv)
    if args.smoke and os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")       # before numba is imported
        os.execve(sys.executable, [sys.executable, "-m", "perft.gpu_check", *sys.argv[1:]], env)
    clock = Clock(args.budget)
    started = time.perf_counter()
    warm_up()
    print(f"CPU: {os.cpu_count()} cores; {_versions()}; Python {sys.version.split()[0]}")
    try:
        name = engine.gpu_name()
        counter_start = time.perf_counter()
        engine.gpu_counter(True, False, threads=args.gpu_threads)
    except NoGpu as exc:
        print(f"no CUDA GPU found: {exc}")
        return 2
    print(f"GPU: {name}; CPU kernels ready in {counter_start - started:.1f} s, GPU kernel "
          f"compiled or loaded in {time.perf_counter() - counter_start:.1f} s", flush=True)
    if args.variants_only:
        tally = dict.fromkeys(("ok", "mismatched", "unchecked", "skipped"), 0)
        variants(args.smoke, clock, tally)
    else:
        tally = check(plan(args.smoke), clock, args.gpu_threads)
        variants(args.smoke, clock, tally)
        sweep(args.smoke, clock, tally)
    print("checks: " + ", ".join(f"{n} {what}" for what, n in tally.items())
          + f"; {time.perf_counter() - started:.0f} s in all")
    return 1 if tally["mismatched"] else 0


if __name__ == "__main__":
    sys.exit(main())
