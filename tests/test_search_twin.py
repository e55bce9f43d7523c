"""The search kernel's slow twin: the same kernel run as plain Python (NUMBA_DISABLE_JIT=1).

Compiled and interpreted, the search must make the same tree: the same nodes, score, move
and principal variation, on positions of every variant but Turkish (the learned
evaluation's windows updated move by move).  What it guards against is a kernel that leans
on numba's integer semantics where Python's differ: an index made unsigned
(``engine.bits.ix``) that is in fact negative (a read outside the array: another tree or a
crash), a sum that wraps around.

Run as a script (``python tests/test_search_twin.py``) it prints one line a case from the
search in this process; the test runs that without the JIT and compares.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from engine import (VARIANTS, Limits, Searcher, get_variant, legal_moves, play, pos_from_fen, pos_to_fen,
                    start_position)

# Every variant (each ships weights) but Turkish: its board fills all 64 bits, and the
# kernels' shifts into bit 63 overflow as Python ints, where numba wraps them.
NAMES = tuple(name for name in VARIANTS if name != "turkish")
DEPTH = 4


def cases(per_variant: int = 3, seed: int = 31) -> list[tuple[str, str]]:
    """(variant, FEN): the start and positions a few random moves on (seeded)."""
    rng = random.Random(seed)
    out = []
    for name in NAMES:
        variant = get_variant(name)
        for i in range(per_variant):
            pos = start_position(variant)
            for _ in range(rng.randrange(4, 30) if i else 0):
                moves = legal_moves(pos)
                if not moves:
                    break
                pos = play(pos, rng.choice(moves))
            if legal_moves(pos):
                out.append((name, pos_to_fen(pos)))
    return out


def searched() -> list[str]:
    """One line a case: variant, nodes, score, move and PV of a search to ``DEPTH``."""
    searcher = Searcher(16)
    searcher.set_option("egdb-size", "0")
    searcher.set_option("book", "false")
    lines = []
    for name, fen in cases():
        searcher.new_game()
        r = searcher.search(pos_from_fen(fen, get_variant(name)), [], Limits(depth=DEPTH))
        pv = " ".join(str(m) for m in r.pv)
        lines.append(f"{name} {r.nodes} {r.score} {r.move} | {pv}")
    return lines


def test_search_without_jit_makes_the_same_tree():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True,
                          timeout=600, cwd=Path(__file__).parent)
    assert done.returncode == 0, done.stderr[-3000:]
    slow = done.stdout.splitlines()
    assert slow[-1] == "jit=0"
    fast = searched()
    assert len(fast) >= 40
    assert slow[:-1] == fast


if __name__ == "__main__":
    import numba

    print("\n".join(searched()))
    print(f"jit={int(not numba.config.DISABLE_JIT)}")
