"""``rafle book``: build an opening book by searching, or show a position's book moves.

    rafle book build --variant international --plies 6 --width 3 --margin 15 --depth 9 --out book.npz
    rafle book show [--book FILE] [--fen FEN]

``build`` expands the opening tree from the start position, ply by ply.  In each position
every legal move is scored by a search of the position after it (``--depth`` plies in
all, on the learned evaluation where Rafle has one), and the best ``--width`` moves
within ``--margin`` hundredths of the best are kept and expanded in turn, to ``--plies``
plies.  Transpositions are expanded once.  The searches are deterministic, so a build
is repeatable.  The file is what :mod:`engine.book` reads; the Hub parameter
``book-file`` plays from it, and Rafle's own is ``engine/data/book-<variant>.npz``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from engine import (VARIANTS, BadInput, Limits, Searcher, book_arrays, book_key, get_variant,
                    legal_moves, move_to_hub, play, pos_from_fen, read_book, shipped_book,
                    start_position)

from ..about import add_subcommand, summary

VARIANT_HELP = "the variant (default international): " + ", ".join(VARIANTS)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle book", description=summary(__doc__))
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION",
                         help="build or show; 'rafle book ACTION --help' for its options")
    b = add_subcommand(sub, "build", "expand the opening tree with searches and write a book")
    b.add_argument("--variant", default="international", help=VARIANT_HELP)
    b.add_argument("--plies", type=int, default=6, help="depth of the tree (default 6)")
    b.add_argument("--width", type=int, default=3, help="moves kept per position at most (default 3)")
    b.add_argument("--margin", type=int, default=15,
                   help="keep moves within this many hundredths of the best (default 15)")
    b.add_argument("--depth", type=int, default=9, help="search depth per position scored (default 9)")
    b.add_argument("--out", required=True, help="the book file to write (.npz)")
    b.add_argument("--version", default=None, help="a name for the book (default: file name)")
    b.add_argument("--quiet", action="store_true", help="no progress line")
    s = add_subcommand(sub, "show", "print a position's book moves")
    s.add_argument("--variant", default="international", help=VARIANT_HELP)
    s.add_argument("--book", default=None, help="a book file (default: Rafle's own)")
    s.add_argument("--fen", default=None, help="the position (default: the start)")
    return p


WON = 30000        # a move after which the opponent cannot move (beyond every evaluation)


def score_moves(searcher: Searcher, pos, history, depth: int) -> list[tuple]:
    """Every legal move of ``pos`` with its score for the mover (a search of the position
    after it to ``depth`` - 1 plies), best first: (score, Hub move, move, position after)."""
    scored = []
    for move in legal_moves(pos):
        child = play(pos, move)
        searcher.new_game()
        # As an analysis: a reply that is forced (a capture) is searched too, where a game
        # would play it at once without a score.
        r = searcher.search(child, history + [pos], Limits(depth=max(depth - 1, 1)), analyze=True)
        # no reply: the mover has won (normal rules) -- never in an opening book
        score = -r.score if r.score is not None else WON
        scored.append((score, move_to_hub(move, pos.variant), move, child))
    scored.sort(key=lambda e: -e[0])
    return scored


def build(variant, plies: int, width: int, margin: int, depth: int, progress=None):
    """The book's entries: position key -> [(Hub move, score)], best first."""
    searcher = Searcher(20)
    searcher.set_option("book", "false")
    searcher.warm_up()
    entries: dict[int, list[tuple[str, int]]] = {}
    frontier = [(start_position(variant), [])]
    for ply in range(plies):
        following = []
        for pos, history in frontier:
            key = book_key(pos)
            if key in entries:
                continue
            scored = score_moves(searcher, pos, history, depth)
            best = scored[0][0]
            kept = [e for e in scored if e[0] >= best - margin][:max(width, 1)]
            entries[key] = [(text, score) for score, text, _, _ in kept]
            following += [(child, history + [pos]) for _, _, _, child in kept]
            if progress:
                progress(ply, len(entries))
        frontier = following
    return entries


def _no_book(variant) -> str:
    """Why ``rafle book show`` has nothing to show for ``variant``, and what to do."""
    shipped = [v.name for v in VARIANTS.values() if shipped_book(v).is_file()]
    name = variant.name
    return (f"no book for {name} (Rafle ships one for {', '.join(shipped) or 'no variant'}); "
            f"build one with 'rafle book build --variant {name} --out book-{name}.npz' "
            f"and show it with 'rafle book show --variant {name} --book book-{name}.npz'")


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        variant = get_variant(args.variant)
    except BadInput as exc:
        print(f"rafle book: {exc}", file=sys.stderr)
        return 2
    if args.action == "show":
        path = Path(args.book) if args.book else shipped_book(variant)
        try:
            if not path.is_file():
                raise BadInput(f"no book file {path}" if args.book else _no_book(variant))
            pos = pos_from_fen(args.fen, variant) if args.fen else start_position(variant)
            found = read_book(path, variant)
        except BadInput as exc:
            print(f"rafle book: {exc}", file=sys.stderr)
            return 1
        moves = found.moves(pos)
        print(f"book {found.version}: {len(found)} positions")
        if not moves:
            print("this position is not in the book")
        for move, score in moves:
            print(f"{move_to_hub(move, variant):<12} {score / 100:+.2f}")
        return 0
    if min(args.plies, args.width, args.depth) < 1 or args.margin < 0:
        print("rafle book: --plies, --width and --depth must be at least 1, --margin at least 0",
              file=sys.stderr)
        return 2
    start = time.monotonic()

    def progress(ply: int, positions: int) -> None:
        if not args.quiet:
            print(f"\rbook: ply {ply + 1}/{args.plies}, {positions} positions, "
                  f"{time.monotonic() - start:.0f} s", end="", file=sys.stderr, flush=True)

    entries = build(variant, args.plies, args.width, args.margin, args.depth, progress)
    version = args.version or args.out.rsplit("/", 1)[-1].removesuffix(".npz")
    np.savez_compressed(args.out, **book_arrays(entries), variant=variant.name, version=version)
    moves = sum(len(v) for v in entries.values())
    if not args.quiet:
        print(file=sys.stderr)
    print(f"wrote {args.out} ({version}): {len(entries)} positions, "
          f"{moves} moves, {time.monotonic() - start:.0f} s")
    return 0
