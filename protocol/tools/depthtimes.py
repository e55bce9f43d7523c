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

With ``--peer COMMAND`` (a Hub version 1 engine: Scan 2.0's ``hub.sh``) the peer searches
each position right after Rafle (:mod:`.peertimes`), and a second table sets their times to
12, 15 and 18 side by side with the ratio Rafle/peer (below 1: Rafle is faster), then the
medians of each and the median of the per-position ratios, and the speed of each (nodes a
second) at the deepest depth both reached on that position.  Scan 2.0's first line of a depth
comes when the first move of that iteration is searched, Rafle's at its end: the peer also
searches each position to each compared depth alone, and the medians give its time to
complete that iteration and the ratio to it, the like-for-like figure.
"""
from __future__ import annotations

import statistics
import threading
from dataclasses import dataclass, field
from pathlib import Path

from engine import Limits, Searcher, pos_from_fen

from .peertimes import Peer

MIDDLEGAME = Path(__file__).resolve().parent / "data" / "middlegame-10x10.txt"
DEPTHS = (12, 15, 18)
BUDGETS = (1.0, 5.0, 20.0)


@dataclass
class Run:
    """The iterations of one position's search: (depth, nodes, seconds), in order."""

    label: str
    fen: str
    rows: list[tuple[int, int, float]]
    complete: dict[int, float] = field(default_factory=dict)   # the peer's: depth -> seconds

    def time_to(self, depth: int) -> float | None:
        return next((t for d, _, t in self.rows if d >= depth), None)

    def depth_within(self, seconds: float) -> int:
        return max((d for d, _, t in self.rows if t <= seconds), default=0)

    def at(self, depth: int) -> tuple[int, float] | None:
        """(nodes, seconds) of the first report at exactly ``depth``."""
        return next(((n, t) for d, n, t in self.rows if d == depth), None)


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
           options: dict[str, str], emit=print, peer: str | None = None,
           compare_at: tuple[int, ...] = DEPTHS) -> tuple[list[Run], list[Run | None]]:
    """Search every (label, fen) of ``cases``; emit a line per position and the summary.
    With ``peer`` (a Hub version 1 engine's command), the peer searches each position after
    Rafle, and the comparison at the depths ``compare_at`` follows."""
    rival = Peer(peer, emit) if peer else None
    emit(f"{'position':<10} " + " ".join(f"{'t' + str(d):>8}" for d in DEPTHS)
         + " " + " ".join(f"{'d@' + format(s, '.0f') + 's':>6}" for s in budgets(max_time))
         + "   nodes")
    runs: list[Run] = []
    peer_runs: list[Run | None] = []
    try:
        for label, fen in cases:
            run = search_one(label, fen, max_depth, max_time, options)
            runs.append(run)
            cells = [run.time_to(d) for d in DEPTHS]
            emit(f"{label:<10} " + " ".join(_seconds(c) for c in cells)
                 + " " + " ".join(f"{run.depth_within(s):>6}" for s in budgets(max_time))
                 + f"   {run.rows[-1][1] if run.rows else 0}")
            if rival is not None:
                rows = rival.search(label, fen, max_depth, max_time)
                peer_runs.append(None if rows is None else Run(
                    label, fen, rows, {d: t for d in compare_at if d <= max_depth
                                       and (t := rival.complete(label, fen, d, max_time))}))
        for line in summary(runs, max_time):
            emit(line)
        if rival is not None:
            for line in comparison(runs, peer_runs, rival.name, peer, compare_at):
                emit(line)
    finally:
        if rival is not None:
            rival.quit()
    return runs, peer_runs


def _seconds(t: float | None) -> str:
    return f"{t:8.3f}" if t is not None else f"{'-':>8}"


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _median(values: list[float], form: str) -> str:
    return format(statistics.median(values), form) if values else "-"


def common_speed(run: Run, peer: Run) -> tuple[int, float | None, float | None] | None:
    """The deepest depth both reached, and the nodes a second of each there (None where a
    time is 0: the peer's has two decimals)."""
    depth = max({d for d, _, _ in run.rows} & {d for d, _, _ in peer.rows}, default=None)
    if depth is None:
        return None
    speeds = [n / t if t > 0 else None for n, t in (run.at(depth), peer.at(depth))]
    return depth, speeds[0], speeds[1]


def comparison(runs: list[Run], peer_runs: list[Run | None], name: str, command: str,
               depths: tuple[int, ...] = DEPTHS) -> list[str]:
    """The table Rafle against the peer, position by position, and its medians."""
    pairs = [(r, p) for r, p in zip(runs, peer_runs) if p is not None]
    out = [f"Rafle (R) against {name} (P, {command}): time to depth in s, R/P below 1: "
           f"Rafle faster; Mn/s at the deepest depth both reached"]
    if not pairs:
        return out + ["no position searched by the peer: Rafle's figures only"]
    out.append(f"{'position':<10} " + " ".join(f"{'R t' + str(d):>8}" for d in depths)
               + " " + " ".join(f"{'P t' + str(d):>8}" for d in depths)
               + " " + " ".join(f"{'R/P ' + str(d):>7}" for d in depths)
               + f" {'depth':>5} {'R Mn/s':>7} {'P Mn/s':>7}")
    for run, peer in pairs:
        ratios = [_ratio(run.time_to(d), peer.time_to(d)) for d in depths]
        speed = common_speed(run, peer)
        depth, mine, theirs = speed if speed is not None else (None, None, None)
        out.append(f"{run.label:<10} " + " ".join(_seconds(run.time_to(d)) for d in depths)
                   + " " + " ".join(_seconds(peer.time_to(d)) for d in depths)
                   + " " + " ".join(f"{x:7.2f}" if x is not None else f"{'-':>7}" for x in ratios)
                   + f" {depth if depth is not None else '-':>5}"
                   + "".join(f" {x / 1e6:7.2f}" if x is not None else f" {'-':>7}"
                             for x in (mine, theirs)))
    for d in depths:
        mine = [t for r, _ in pairs if (t := r.time_to(d)) is not None]
        theirs = [t for _, p in pairs if (t := p.time_to(d)) is not None]
        ratios = [x for r, p in pairs if (x := _ratio(r.time_to(d), p.time_to(d))) is not None]
        done = [t for _, p in pairs if (t := p.complete.get(d)) is not None]
        whole = [x for r, p in pairs if (x := _ratio(r.time_to(d), p.complete.get(d))) is not None]
        out.append(f"depth {d}: median R {_median(mine, '.3f')} s ({len(mine)}), "
                   f"P {_median(theirs, '.3f')} s ({len(theirs)}); median of the per-position "
                   f"ratios R/P {_median(ratios, '.2f')} over {len(ratios)} of {len(pairs)} "
                   f"positions; the peer's iteration complete (a search to depth {d}): "
                   f"P {_median(done, '.3f')} s ({len(done)}), R/P {_median(whole, '.2f')} "
                   f"over {len(whole)}")
    speeds = [s for r, p in pairs if (s := common_speed(r, p)) is not None]
    mine = [m for _, m, _ in speeds if m is not None]
    theirs = [t for _, _, t in speeds if t is not None]
    both = [m / t for _, m, t in speeds if m is not None and t]
    out.append(f"nodes a second at the deepest common depth: median R {_median(mine, ',.0f')}, "
               f"P {_median(theirs, ',.0f')}; median ratio R/P {_median(both, '.2f')} "
               f"over {len(both)} positions")
    if not any(p.rows for _, p in pairs):
        out.append("the peer reported no depth (Scan 2.0 writes its info lines from depth 12 on)")
    skipped = len(runs) - len(pairs)
    if skipped:
        out.append(f"{skipped} position(s) not searched by the peer (see the notes above)")
    return out
