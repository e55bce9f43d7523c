"""``rafle perft``: leaf counts per depth, divides and reference suites.

Output goes to stdout; the progress line of long runs goes to stderr.  Bad arguments
or positions give one line on stderr and exit code 2, a suite mismatch exit code 1.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

from engine import (BadInput, NoGpu, get_variant, install_command, move_to_hub, new_perft_table,
                    parse_position, perft, pos_to_fen, start_position, warm_up)

from .cluster import count_on_ray
from .progress import compiling
from .raylink import ClusterError, connect, disconnect, head_answers, placement, ray_module
from .suite import REFERENCE, Count, check_depth, count, load_suite, select

PROGRESS_AFTER = 2.0     # seconds before a run starts reporting progress
MAX_HASH_MB = 1 << 16    # 64 GB


class ArgumentError(Exception):
    """A bad command line; the runner prints it on one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ArgumentError(message)


def _count_arg(text: str) -> int:
    """A node count: digits, with ``_`` or ``,`` separators or a k/M/G suffix."""
    t = text.strip().replace("_", "").replace(",", "")
    scale = {"k": 10**3, "m": 10**6, "g": 10**9}.get(t[-1:].lower(), 1)
    if scale > 1:
        t = t[:-1]
    if not (t.isascii() and t.isdigit()) or len(t) > 20:
        raise argparse.ArgumentTypeError(f"not a node count: {text!r}")
    return int(t) * scale


def build_parser() -> _Parser:
    p = _Parser(prog="rafle perft", description="Count the leaf nodes of the move tree.")
    p.add_argument("--fen", default="startpos",
                   help="FEN, 'startpos' or a Hub position string (default: start position)")
    p.add_argument("--depth", type=int, default=6, help="last depth to count (default 6)")
    p.add_argument("--divide", action="store_true",
                   help="count per root move (Hub notation) at --depth, then the total")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--no-bulk", dest="bulk", action="store_false",
                   help="make every leaf move instead of counting the last ply")
    p.add_argument("--count-paths", dest="paths", action="store_true",
                   help="count every capture path as a move of its own (the 'keep duplicates' "
                        "convention of published counts with dup_captures_once false); by "
                        "default a capture is one move per from, to, captured set and crowning, "
                        "as in play.  A suite picks the convention per entry")
    p.add_argument("--variant", default=None,
                   help="variant of --fen (default international); with --suite a filter")
    p.add_argument("--suite", metavar="FILE", nargs="?", const=str(REFERENCE),
                   help="run a reference suite (reference.json format); without FILE the "
                        "built-in one of published counts")
    p.add_argument("--max-nodes", type=_count_arg, default=None, metavar="N",
                   help="with --suite: skip cases of more than N nodes (e.g. 50M)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="threads counting subtrees in parallel (default: every core, "
                        "%(default)s here); the counts do not depend on it")
    p.add_argument("--hash", type=int, default=0, metavar="MB",
                   help="keep subtree counts in a table of MB megabytes and reuse them (exact: "
                        "an entry holds its whole position); its speed is the table's, not the "
                        "generator's (default 0: no table)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="count the subtrees (after each root move and reply, or --split) as Ray tasks: on a "
                        "local Ray instance without ADDRESS, or on the cluster at ADDRESS ('auto', "
                        "'ray://host:port'); needs Ray: " + install_command("cluster"))
    p.add_argument("--gpu", action="store_true",
                   help="count the subtrees on a CUDA GPU (same counts, divide and JSON); needs "
                        "an NVIDIA GPU with its driver and numba-cuda: " + install_command("gpu"))
    p.add_argument("--split", type=int, default=None, metavar="PLIES",
                   help="cut the tree into a task per line of PLIES moves from the root, for "
                        "--threads and --ray (default 2; more tasks balance many cores better)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    return p


def _rate(nodes: int, seconds: float) -> str:
    return f"{nodes / seconds:,.0f}" if seconds > 1e-6 else "-"


class _Progress:
    """Prints how far a long count has got: after a few seconds, then once a second."""

    def __init__(self, enabled: bool, label: str):
        self.enabled = enabled
        self.label = label
        self.last = PROGRESS_AFTER - 1.0
        self.shown = False
        self.tty = sys.stderr.isatty()

    def __call__(self, done, total, move, nodes, seconds):
        if not self.enabled or seconds < self.last + 1.0:
            return
        self.last = seconds
        text = (f"{self.label}: {nodes:,} nodes, {seconds:.0f} s, at root move "
                f"{move_to_hub(move)} ({done}/{total} done)")
        if self.tty:
            sys.stderr.write("\r" + text + "\x1b[K")
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()
        self.shown = True

    def close(self):
        if self.shown and self.tty:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


_placed: Counter = Counter()          # --ray: the subtrees each Ray node counted, this run


def _run(pos, depth, bulk, quiet, label, paths=False, threads=1, table=None, ray=False,
         plies=None, gpu=None) -> Count:
    progress = _Progress(not quiet, label)
    try:
        if ray and depth > (plies or 2):
            return count_on_ray(pos, depth, bulk, progress, paths, plies or 2, _placed)
        counter = None if gpu is None else gpu(bulk, paths)
        return count(pos, depth, bulk, progress, paths, threads, table, plies, counter)
    finally:
        progress.close()


def _print_divide(result: Count) -> None:
    for move, n in result.divide:
        print(f"{move_to_hub(move)}: {n}")
    print(f"total: {result.nodes} nodes, {len(result.divide)} moves, {result.seconds:.3f} s, "
          f"{_rate(result.nodes, result.seconds)} nodes/s")


def _header(pos, variant, args, gpu: str | None = None) -> str:
    """The first line of a perft by depths: the position and how it counts."""
    how = ["bulk" if args.bulk else "every leaf"]
    if args.paths:
        how.append("every capture path")
    if args.hash:
        how.append(f"hash table {args.hash} MB: the speed is not the generator's")
    if gpu is not None:
        how.append(f"GPU: {gpu}")
    return f"perft {pos_to_fen(pos)} ({variant.name}, {', '.join(how)})"


class _GpuCounters:
    """The GPU's subtree counters, one per way of counting, each made (and its kernel
    compiled) once, before the first count's clock starts."""

    def __init__(self):
        from engine import gpu_counter
        self.make = gpu_counter
        self.made = {}

    def __call__(self, bulk: bool, paths: bool):
        if (bulk, paths) not in self.made:
            with compiling("the GPU kernel"):
                self.made[(bulk, paths)] = self.make(bulk, paths)
        return self.made[(bulk, paths)]


def run_depths(args) -> int:
    variant = get_variant(args.variant or "international")
    pos = parse_position(args.fen, variant)
    name = gpu = None
    if args.gpu:
        from engine import gpu_name
        name = gpu_name()               # NoGpu at once where there is none
    if not args.json and not args.divide:
        print(_header(pos, variant, args, name), flush=True)
    with compiling("the move generator"):
        warm_up()
    if args.gpu:
        gpu = _GpuCounters()
        gpu(args.bulk, args.paths)
    table = None
    if args.hash:
        table = new_perft_table(args.hash)
        perft(pos, 1, table=new_perft_table(1))         # compiled before the clock starts
    if args.divide:
        result = _run(pos, args.depth, args.bulk, args.quiet, f"divide {args.depth}", args.paths,
                      args.threads, table, args.ray is not None, args.split, gpu)
        if args.json:
            print(json.dumps({"depth": args.depth, "nodes": result.nodes,
                              "seconds": round(result.seconds, 6),
                              "divide": {move_to_hub(m): n for m, n in result.divide}}))
        else:
            _print_divide(result)
        return 0
    if not args.json:
        print(f"{'depth':>5} {'nodes':>16} {'seconds':>10} {'nodes/s':>14}")
    for depth in range(1, args.depth + 1):
        result = _run(pos, depth, args.bulk, args.quiet, f"depth {depth}", args.paths,
                      args.threads, table, args.ray is not None, args.split, gpu)
        if args.json:
            print(json.dumps({"depth": depth, "nodes": result.nodes,
                              "seconds": round(result.seconds, 6)}), flush=True)
        else:
            print(f"{depth:>5} {result.nodes:>16,} {result.seconds:>10.3f} "
                  f"{_rate(result.nodes, result.seconds):>14}", flush=True)
    return 0


def run_suite(args) -> int:
    entries = load_suite(args.suite)
    sel = select(entries, args.variant, args.max_nodes)
    gpu = _GpuCounters() if args.gpu else None
    if sel.cases:
        with compiling("the move generator"):
            warm_up()
        for paths in {case.paths for case in sel.cases} if gpu else ():
            gpu(args.bulk, paths)
        if args.hash:
            perft(start_position(), 1, table=new_perft_table(1))
    ok = bad = 0
    divided = set()
    for case in sel.cases:
        name = f"{case.variant} {case.label or case.fen} d{case.depth}"
        if case.paths:
            name += " (every capture path)"
        if case.error:
            bad += 1
            _report(args, case, None, None, f"ERROR     {name}: bad FEN {case.fen!r}: {case.error}")
            continue
        table = new_perft_table(args.hash) if args.hash else None   # one convention per table
        result = _run(case.pos, case.depth, args.bulk, args.quiet, name, case.paths,
                      args.threads, table, args.ray is not None, args.split, gpu)
        good = all(n == result.nodes for n in case.expected)
        ok += good
        bad += not good
        sources = f"  ({len(case.sources)} sources)" if len(case.sources) > 1 else ""
        if good:
            line = (f"ok        {name}: {result.nodes:,} nodes, {result.seconds:.3f} s{sources}")
        else:
            want = " / ".join(f"{n:,}" for n in sorted(set(case.expected)))
            line = (f"MISMATCH  {name}: got {result.nodes:,}, expected {want}, "
                    f"{result.seconds:.3f} s{sources}\n          fen {case.fen}")
        _report(args, case, result, good, line)
        # One divide per failing position, at its shallowest failing depth: the
        # smallest tree in which to look for the bug.
        if not good and (case.variant, case.pos.key, case.paths) not in divided:
            divided.add((case.variant, case.pos.key, case.paths))
            if not args.json:
                print(f"divide of {case.fen} at depth {case.depth} "
                      f"(count of depth {case.depth - 1} after each root move):")
                _print_divide(result)
    _summary(args, sel, ok, bad)
    return 1 if bad else 0


def _report(args, case, result, good, line) -> None:
    if args.json:
        obj = {"variant": case.variant, "position": case.label, "fen": case.fen,
               "depth": case.depth, "count_paths": case.paths,
               "expected": sorted(set(case.expected)),
               "nodes": None if result is None else result.nodes,
               "seconds": None if result is None else round(result.seconds, 6),
               "ok": bool(good)}
        if result is not None and not good:
            obj["divide"] = {move_to_hub(m): n for m, n in result.divide}
        if case.error:
            obj["error"] = case.error
        print(json.dumps(obj), flush=True)
    else:
        print(line, flush=True)


def _summary(args, sel, ok, bad) -> None:
    notes = []
    if sel.unknown_variants:
        names = ", ".join(f"{v} ({n})" for v, n in sorted(sel.unknown_variants.items()))
        notes.append(f"{sum(sel.unknown_variants.values())} entries of variants Rafle "
                     f"does not know yet: {names}")
    if sel.over_budget:
        notes.append(f"{sel.over_budget} entries over --max-nodes {args.max_nodes:,}")
    if sel.other_variant:
        notes.append(f"{sel.other_variant} entries of other variants (--variant {args.variant})")
    if args.json:
        print(json.dumps({"summary": {"ok": ok, "mismatch": bad, "count_paths": sel.paths,
                                      "skipped": notes}}))
        return
    print(f"suite: {ok} ok, {bad} mismatch{'es' if bad != 1 else ''}"
          f" ({sel.paths} of the cases counted every capture path)")
    for note in notes:
        print(f"skipped {note}")


def main(argv: list[str]) -> int:
    parser = build_parser()
    started = False
    try:
        args = parser.parse_args(argv)
        if args.split is not None and not 1 <= args.split <= 8:
            raise ArgumentError(f"--split must be 1-8 plies, got {args.split}")
        if args.threads < 1:
            raise ArgumentError(f"--threads must be at least 1, got {args.threads}")
        if not 0 <= args.hash <= MAX_HASH_MB:
            raise ArgumentError(f"--hash must be between 0 and {MAX_HASH_MB} MB, got {args.hash}")
        if args.ray is not None and args.hash:
            raise ArgumentError("--ray and --hash do not go together (each task counts alone)")
        if args.gpu and (args.ray is not None or args.hash):
            raise ArgumentError("--gpu counts alone: not with --ray or --hash")
        if args.suite:
            if args.divide or args.fen != "startpos" or args.paths:
                raise ArgumentError("--suite takes --variant, --max-nodes, --no-bulk, --threads, "
                                    "--ray, --json; not --fen, --divide or --count-paths (each "
                                    "entry says how it counts captures)")
        else:
            if args.max_nodes is not None:
                raise ArgumentError("--max-nodes only goes with --suite")
            check_depth(args.depth, "--depth", lowest=1)
        if args.ray is not None:
            started = connect(args.ray or None)
            _placed.clear()
        code = run_suite(args) if args.suite else run_depths(args)
        if _placed and head_answers(ray_module()):
            # stderr under --json, whose stdout is one JSON object a line
            print(placement(ray_module(), _placed, "subtrees counted"),
                  file=sys.stderr if args.json else sys.stdout)
        return code
    except ArgumentError as exc:
        print(f"rafle perft: {exc} (see rafle perft --help)", file=sys.stderr)
        return 2
    except BadInput as exc:
        print(f"rafle perft: {exc}", file=sys.stderr)
        return 2
    except NoGpu as exc:
        print(f"rafle perft: no CUDA GPU found: {exc} (--gpu needs an NVIDIA GPU, its driver "
              f"and numba-cuda: {install_command('gpu')})", file=sys.stderr)
        return 2
    except SystemExit as exc:    # --help
        return int(exc.code or 0)
    except KeyboardInterrupt:
        print("rafle perft: interrupted", file=sys.stderr)
        return 130
    except ClusterError as exc:
        print(f"rafle perft: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:      # e.g. piped into head
        return 0
    finally:
        disconnect(started)
