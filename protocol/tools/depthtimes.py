"""``rafle bench --depth-times``: how long the search takes to reach each depth.

Each position is searched once by a fresh ``Searcher`` (book off, one thread, the
options as the engine plays otherwise: ``tt-size`` 22, the shipped databases), iterating
until ``--max-depth`` or until ``--max-time`` seconds have passed (a timer stops it).
Every completed iteration gives (depth, nodes, seconds).  From them: the time to depths
12, 15 and 18, the depth reached within 1, 5 and 20 seconds, and the effective branching
factor: the time ratio per ply between depths 12 and 18, ``(t18 / t12) ** (1 / 6)``, over
the positions that reached 18.

The positions: the start position, the bench positions (``rafle bench``) and 20
middle-game positions of 10 to 20 pieces (``data/middlegame-10x10.txt``, rebuilt by
``data/make_middlegame.py``).  Run it on an idle machine: the figures are times.
"""
from __future__ import annotations

import statistics
import threading
from dataclasses import dataclass
from pathlib import Path

from engine import Limits, Searcher, pos_from_fen

MIDDLEGAME = Path(__file__).resolve().parent / "data" / "middlegame-10x10.txt"
DEPTHS = (12, 15, 18)
BUDGETS = (1.0, 5.0, 20.0)


@dataclass
class Run:
    """The iterations of one position's search: (depth, nodes, seconds), in order."""

    label: str
    fen: str
    rows: list[tuple[int, int, float]]

    def time_to(self, depth: int) -> float | None:
        return next((t for d, _, t in self.rows if d >= depth), None)

    def depth_within(self, seconds: float) -> int:
        return max((d for d, _, t in self.rows if t <= seconds), default=0)


def positions(which: str, bench: tuple[str, ...]) -> list[tuple[str, str]]:
    """(label, fen) of ``which`` (start, bench, middle or all); ``bench``: the bench's
    positions, the start position first."""
    start = [("start", bench[0])]
    others = [(f"bench {i}", fen) for i, fen in enumerate(bench[1:], 2)]
    lines = [ln.split("#")[0].strip() for ln in MIDDLEGAME.read_text().splitlines()]
    middle = [(f"middle {i}", fen) for i, fen in enumerate((f for f in lines if f), 1)]
    return {"start": start, "bench": start + others, "middle": middle,
            "all": start + others + middle}[which]


def search_one(label: str, fen: str, max_depth: int, max_time: float,
               options: dict[str, str]) -> Run:
    """Search ``fen`` until ``max_depth`` or ``max_time`` seconds; every iteration kept."""
    searcher = Searcher()
    searcher.set_option("book", "false")
    for name, value in options.items():
        if not searcher.set_option(name, value):
            raise ValueError(f"bad option {name}={value}")
    searcher.warm_up()
    searcher.new_game()
    rows: list[tuple[int, int, float]] = []
    timer = threading.Timer(max_time, searcher.stop)
    timer.start()
    try:
        searcher.search(pos_from_fen(fen), [], Limits(depth=max_depth),
                        on_info=lambda i: rows.append((i.depth, i.nodes, i.time)))
    finally:
        timer.cancel()
    return Run(label, fen, rows)


def budgets(max_time: float) -> tuple[float, ...]:
    """The budgets a run of ``max_time`` seconds can answer (a depth within 20 s needs 20 s)."""
    return tuple(b for b in BUDGETS if b <= max_time)


def summary(runs: list[Run], max_time: float = BUDGETS[-1]) -> list[str]:
    """The report's closing lines: medians over the positions, and the branching factor."""
    out = []
    for depth in DEPTHS:
        times = [t for r in runs if (t := r.time_to(depth)) is not None]
        med = f"{statistics.median(times):8.3f} s" if times else "       -  "
        out.append(f"time to depth {depth}: median {med} over {len(times)} of {len(runs)} positions")
    for seconds in budgets(max_time):
        depths = [r.depth_within(seconds) for r in runs]
        out.append(f"depth in {seconds:4.0f} s: median {statistics.median(depths):4.1f}"
                   f"  min {min(depths)}  max {max(depths)}")
    ratios = [(t18 / t12) ** (1 / 6) for r in runs
              if (t12 := r.time_to(12)) and (t18 := r.time_to(18))]
    if ratios:
        out.append(f"branching factor 12-18 (time ratio a ply): median {statistics.median(ratios):.2f}"
                   f" over {len(ratios)} positions")
    else:
        out.append("branching factor 12-18: no position reached depth 18")
    return out


def report(cases: list[tuple[str, str]], max_depth: int, max_time: float,
           options: dict[str, str], emit=print) -> list[Run]:
    """Search every (label, fen) of ``cases``; emit a line per position and the summary."""
    emit(f"{'position':<10} " + " ".join(f"{'t' + str(d):>8}" for d in DEPTHS)
         + " " + " ".join(f"{'d@' + format(s, '.0f') + 's':>6}" for s in budgets(max_time))
         + "   nodes")
    runs = []
    for label, fen in cases:
        run = search_one(label, fen, max_depth, max_time, options)
        runs.append(run)
        cells = [run.time_to(d) for d in DEPTHS]
        emit(f"{label:<10} " + " ".join(f"{c:8.3f}" if c is not None else f"{'-':>8}" for c in cells)
             + " " + " ".join(f"{run.depth_within(s):>6}" for s in budgets(max_time))
             + f"   {run.rows[-1][1] if run.rows else 0}")
    for line in summary(runs, max_time):
        emit(line)
    return runs
