"""``rafle egdb``: build endgame databases, list them, probe a position.

    rafle egdb build --variant international --pieces 4 [--dir DIR] [--threads N]
    rafle egdb info  --variant international [--dir DIR]
    rafle egdb probe --variant international --fen FEN [--dir DIR]

``build`` writes every slice (material balance) of up to ``--pieces`` pieces, in the
order in which they depend on each other, one file per slice under ``DIR/<variant>/``
(default: the user's cache directory, where the Hub engine looks unless its parameter
``egdb-path`` says otherwise).  A slice already written is kept, so an interrupted build
goes on where it stopped.  Values are win, draw or loss under the move rules alone: the
draw rules (repetition, the 25/16/5-move rules...) are left to the search.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from engine import (VARIANTS, BadInput, EgdbError, egdb_build, egdb_dir, egdb_dirs, egdb_load,
                    egdb_slice_counts, egdb_slice_size, egdb_slices, egdb_value_name, get_variant,
                    pos_from_fen)

from ..about import add_subcommand, summary

VARIANT_HELP = "the variant (default international): " + ", ".join(VARIANTS)
SEARCHED = f"where the databases are (default: {egdb_dir()}, then the sets shipped with Rafle)"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle egdb", description=summary(__doc__))
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION",
                         help="build, info or probe; 'rafle egdb ACTION --help' for its options")
    b = add_subcommand(sub, "build", "build every slice up to --pieces pieces (resumable)")
    b.add_argument("--variant", default="international", help=VARIANT_HELP)
    b.add_argument("--pieces", type=int, required=True, help="most pieces on the board (2-7)")
    b.add_argument("--dir", default=None, help=f"where to write (default {egdb_dir()})")
    b.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="threads (default: every core)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    i = add_subcommand(sub, "info", "list the slices present, their size and values")
    i.add_argument("--variant", default="international", help=VARIANT_HELP)
    i.add_argument("--dir", default=None, help=SEARCHED)
    i.add_argument("--pieces", type=int, default=7,
                   help="list slices of up to this many pieces (default 7)")
    i.add_argument("--slices", action="store_true",
                   help="a line per slice: positions, wins, draws, losses, bytes on disk")
    q = add_subcommand(sub, "probe", "the value of a position for its side to move")
    q.add_argument("--variant", default="international", help=VARIANT_HELP)
    q.add_argument("--dir", default=None, help=SEARCHED)
    q.add_argument("--fen", required=True, help="the position (FEN)")
    return p


def _bar(done: int, size: int, width: int = 24) -> str:
    filled = width * done // max(size, 1)
    return "#" * filled + "." * (width - filled)


def _build(args, variant) -> int:
    root = args.dir or egdb_dir()
    start = time.monotonic()
    shown = [False]

    def report(p) -> None:
        name = "".join(map(str, p.key))
        if p.finished:
            w, d, l = p.counts
            how = ("kept" if p.skipped else f"{p.passes} passes, {p.seconds:.1f} s" if p.passes
                   else f"from its colour mirror, {p.seconds:.1f} s")
            if shown[0]:
                print("\r" + " " * 78 + "\r", end="", file=sys.stderr)
                shown[0] = False
            print(f"{p.done_slices}/{p.all_slices} {name}: {p.size:,} positions, "
                  f"win {w:,} draw {d:,} loss {l:,} ({how})", flush=True)
        elif not args.quiet:
            print(f"\r{p.done_slices + 1}/{p.all_slices} {name} [{_bar(p.decided, p.size)}] "
                  f"pass {p.passes}, {p.decided:,} decided", end="", file=sys.stderr, flush=True)
            shown[0] = True

    try:
        done = egdb_build(root, variant, args.pieces, max(1, args.threads), report)
    except EgdbError as exc:
        print(f"rafle egdb: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nrafle egdb: interrupted; the slices written are kept", file=sys.stderr)
        return 130
    built = [p for p in done if not p.skipped]
    positions = sum(p.size for p in done)
    print(f"{variant.name} up to {args.pieces} pieces: {len(done)} slices, {positions:,} positions "
          f"({len(built)} built now) in {time.monotonic() - start:.1f} s, under {root}")
    return 0


def _info(args, variant) -> int:
    """What each folder holds (without --dir: the user's, then the shipped sets)."""
    found = [_info_of(root, args, variant) for root in ([args.dir] if args.dir else egdb_dirs())]
    return 0 if any(found) else 1


def _info_of(root, args, variant) -> bool:
    tables = egdb_load(root, variant, args.pieces)
    if tables is None:
        print(f"no {variant.name} databases under {root}")
        return False
    total = 0
    size_on_disk = 0
    for key in egdb_slices(tables.pieces):
        path = os.path.join(str(root), variant.name, "".join(map(str, key)) + ".npz")
        size_on_disk += os.path.getsize(path)
        total += egdb_slice_size(variant, key)
        if args.slices:
            wins, draws, losses, size = egdb_slice_counts(root, variant, key)
            print(f"{''.join(map(str, key))}: {egdb_slice_size(variant, key):,} positions, win {wins:,} "
                  f"draw {draws:,} loss {losses:,}, {size:,} bytes")
    print(f"{variant.name}: every slice of up to {tables.pieces} pieces, {total:,} positions, "
          f"{size_on_disk / 1e6:.1f} MB on disk, under {root}")
    return True


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        variant = get_variant(args.variant)
    except BadInput as exc:
        print(f"rafle egdb: {exc}", file=sys.stderr)
        return 2
    if args.action == "build":
        return _build(args, variant)
    if args.action == "info":
        return _info(args, variant)
    try:
        pos = pos_from_fen(args.fen, variant)
    except BadInput as exc:
        print(f"rafle egdb: {exc}", file=sys.stderr)
        return 2
    tables = egdb_load(args.dir or egdb_dirs(), variant)
    value = -1 if tables is None else tables.probe(pos)
    if value < 0:
        print("not in the databases")
        return 1
    side = "white" if pos.turn == 0 else "black"
    print(f"{egdb_value_name(value)} for {side} (to move)")
    return 0
