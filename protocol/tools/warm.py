"""``rafle warm``: compile every kernel into the cache now, so no front end waits for it later.

numba compiles a kernel on its first use and keeps the machine code in a cache (one
directory per version of the engine's sources).  A fresh install would otherwise spend
its first perft, its first Hub ``init`` or its first board move compiling.  The work is
split in two processes that run side by side: the move generator with perft's counting
kernels, and the search with the evaluations and the endgame databases' probe.  Each
says on stderr when it starts and ends; a warm cache takes a few seconds.
"""
from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from ..about import summary

PARTS = {
    "perft": "the move generator and perft's counting kernels",
    "search": "the search, the evaluations and the endgame databases' probe",
}


def _compile(part: str) -> tuple[str, float]:
    """Compile (or load) one part's kernels in this process; returns (part, seconds)."""
    start = time.monotonic()
    import engine
    if part == "perft":
        engine.warm_up()
    else:
        engine.warm_up(counting=False)
        engine.Searcher(16).warm_up()
    return part, time.monotonic() - start


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle warm", description=summary(__doc__))
    p.add_argument("--serial", action="store_true",
                   help="compile the parts one after the other in this process "
                        "(default: side by side, one process each)")
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    start = time.monotonic()
    for part, what in PARTS.items():
        print(f"rafle warm: compiling {what}...", file=sys.stderr, flush=True)
    try:
        if args.serial:
            done = [_compile(part) for part in PARTS]
        else:
            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(len(PARTS), mp_context=spawn) as pool:
                done = list(pool.map(_compile, PARTS))
    except KeyboardInterrupt:
        print("rafle warm: interrupted", file=sys.stderr)
        return 130
    for part, seconds in done:
        print(f"rafle warm: {part} ready in {seconds:.0f} s", file=sys.stderr, flush=True)
    print(f"rafle warm: every kernel is in the cache ({time.monotonic() - start:.0f} s)",
          file=sys.stderr, flush=True)
    return 0
