"""``rafle bench``: search a fixed set of positions to a fixed depth; print the node signature.

The depth is 7 unless ``--depth`` says otherwise: the last line, ``bench: N``, is then
the signature that commits quote (``tests/test_bench.py`` pins it).  Each position is searched by one fresh ``Searcher`` (fixed options, tables cleared
before every position), so the total node count depends only on the search code:
any change of search behaviour changes it, and every commit that does says so.
``--dame`` searches the same positions with dame-rs (``dame.Engine``) in the same
run and prints its speed next to ours; ``--depth-times --peer COMMAND`` times a Hub version 1
engine (Scan 2.0) to each depth next to Rafle.
"""
from __future__ import annotations

import argparse
import time

from engine import OPTIONS, Limits, install_command, Searcher, move_to_hub, pos_from_fen
from perft.progress import compiling

from ..about import summary
from . import depthtimes, profile

DEFAULT_DEPTH = 7       # the depth of the signature commits quote
BENCH_TT_LOG2 = 20
# The flags' older names, kept for scripts that use them.
LEGACY_FLAGS = {"threshold-margin": ("--margin",), "threshold-interval": ("--interval",),
                "threshold-form": ("--form",), "threshold-slope": ("--slope",)}

POSITIONS = (
    "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
    "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",  # Woldouby
    "B:W21,26,35,36,38,39,40,43,44,45,46,47,48,49,50:B1,2,3,4,5,8,9,10,11,13,14,15,19,20,22",
    "B:W27,28,31,32,34,35,39,40,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,7,8,9,10,11,15,16,18,19,21,24,25",
    "B:W32,33,34,35,36,39,44,45,47,48,49,50:B1,2,3,4,5,7,9,14,15,17,18,19,20,23",
    "B:W28,31,32,33,35,44,45,48:B1,2,3,4,5,7,15,18,19,23",
    "B:W16,21,27,34,35,45,46,48,50:B1,4,5,7,10,12,14,18,24",
    "B:W24,27,31,37,39,40,46,47,49,50:B2,4,5,11,18,22,23,26",
    "B:W14,26,33,40,42,47,49:B1,3,15,16,22,30,32",
    "W:WK15,20,26,35:B3,5,6,37,K47",
    "B:W24,26,28,29,34,36,37:B3,13,15,17,20,25,27",
    "W:WK46,31,33:BK5,12,17",
    "B:W21,K33:B5,6,14,K36",
)


def run(depth: int = DEFAULT_DEPTH, options: dict[str, str] | None = None,
        fens=POSITIONS, on_result=None):
    """Search every position to ``depth``; returns [(fen, Result)]."""
    searcher = Searcher(BENCH_TT_LOG2)
    searcher.set_option("egdb-size", "0")   # the signature does not depend on files present
    for name, value in (options or {}).items():
        if not searcher.set_option(name, value):
            raise ValueError(f"bad bench option {name}={value}")
    with compiling("the search"):
        searcher.warm_up()
    out = []
    for fen in fens:
        searcher.new_game()
        result = searcher.search(pos_from_fen(fen), [], Limits(depth=depth))
        out.append((fen, result))
        if on_result is not None:
            on_result(len(out), fen, result)
    return out


def _nps(nodes: int, seconds: float) -> str:
    return f"{nodes / seconds / 1e6:.2f}M" if seconds > 0 else "-"


def _dame(fens, depth: int) -> tuple[int, float] | None:
    try:
        import dame
    except ImportError:
        print(f"dame-rs is not installed: {install_command('bench')}")
        return None
    engine = dame.Engine(hash_mb=16)
    nodes, seconds = 0, 0.0
    for i, fen in enumerate(fens, 1):
        engine.clear()
        board = dame.Board(fen)
        t0 = time.perf_counter()
        r = engine.search(board, depth=depth)
        dt = time.perf_counter() - t0
        nodes += r.nodes
        seconds += dt
        print(f"dame {i:2d}  nodes {r.nodes:>10}  time {dt:7.3f}  nps {_nps(r.nodes, dt):>7}  "
              f"depth {r.depth}  move {r.best_move}")
    return nodes, seconds


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="rafle bench", description=summary(__doc__))
    ap.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="iteration depth (default %(default)s)")
    for option in OPTIONS:                     # every engine option, as --NAME VALUE
        ap.add_argument(f"--{option.name}", *LEGACY_FLAGS.get(option.name, ()), dest=option.name,
                        metavar="VALUE", help=option.help)
    ap.add_argument("--dame", action="store_true", help="also search the positions with dame-rs")
    ap.add_argument("--profile", action="store_true",
                    help="instead, search the positions under Linux perf and print each kernel "
                         "function's share of the time (compiles the kernels afresh)")
    ap.add_argument("--perf-map", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--depth-times", action="store_true",
                    help="instead, time each depth: the time to depths 12, 15, 18, the depth "
                         "reached in 1, 5, 20 s and the branching factor (book off)")
    ap.add_argument("--positions", choices=("start", "bench", "middle", "all"), default="all",
                    help="--depth-times: which positions (default %(default)s: the start, the bench "
                         "positions and 20 middle-game positions)")
    ap.add_argument("--max-depth", type=int, default=40,
                    help="--depth-times: the deepest iteration (default %(default)s)")
    ap.add_argument("--max-time", type=float, default=20.0,
                    help="--depth-times: seconds a position is searched at most (default %(default)s)")
    ap.add_argument("--peer", metavar="COMMAND",
                    help="--depth-times: also time a Hub version 1 engine (Scan 2.0's hub.sh) on "
                         "each position, after Rafle's search of it, and print the ratios")
    ap.add_argument("--compare-depths", metavar="D,D,...", default="12,15,18",
                    help="--peer: the depths compared with the peer, comma-separated "
                         "(default %(default)s; deeper ones show how the gap grows)")
    return ap


def _depth_list(ap: argparse.ArgumentParser, text: str) -> tuple[int, ...]:
    """``--compare-depths``: distinct depths of 1 or more, in increasing order."""
    try:
        depths = tuple(sorted({int(x) for x in text.split(",")}))
    except ValueError:
        ap.error(f"--compare-depths takes depths separated by commas, not {text!r}")
    if not depths or depths[0] < 1:
        ap.error("--compare-depths: every depth is at least 1")
    return depths


def main(argv: list[str]) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.depth < 1:
        ap.error("--depth must be at least 1")
    options = {o.name: getattr(args, o.name) for o in OPTIONS if getattr(args, o.name) is not None}
    if args.profile:
        return profile.report(args.depth, [x for name, value in options.items()
                                           for x in (f"--{name}", value)])
    if args.peer is not None and not args.depth_times:
        ap.error("--peer goes with --depth-times")
    compare_at = _depth_list(ap, args.compare_depths)
    if args.depth_times:
        if args.max_depth < 1 or args.max_time <= 0:
            ap.error("--max-depth must be at least 1 and --max-time above 0")
        try:
            cases = depthtimes.positions(args.positions, POSITIONS)
            depthtimes.report(cases, args.max_depth, args.max_time, options, peer=args.peer,
                              compare_at=compare_at)
        except ValueError as exc:
            ap.error(str(exc))
        return 0

    def show(i, fen, r):
        move = move_to_hub(r.move) if r.move else "none"
        score = f"{r.score / 100:.2f}" if r.score is not None else "-"
        print(f"rafle {i:2d}  nodes {r.nodes:>10}  time {r.time:7.3f}  nps {_nps(r.nodes, r.time):>7}  "
              f"depth {r.depth}  score {score}  move {move}", flush=True)

    try:
        results = run(args.depth, options, on_result=show)
    except ValueError as exc:
        ap.error(str(exc))
    nodes = sum(r.nodes for _, r in results)
    seconds = sum(r.time for _, r in results)
    print(f"total nodes {nodes}  time {seconds:.3f}  nps {_nps(nodes, seconds)}")
    if args.dame:
        d = _dame(POSITIONS, args.depth)
        if d is not None:
            dn, ds = d
            print(f"dame total nodes {dn}  time {ds:.3f}  nps {_nps(dn, ds)}")
            if ds > 0 and seconds > 0:
                print(f"speed rafle/dame: {(nodes / seconds) / (dn / ds):.2f}")
    print(f"bench: {nodes}")
    if args.perf_map:
        print(f"perf map {profile.write_map()}")
    return 0
