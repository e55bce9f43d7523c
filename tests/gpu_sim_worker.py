"""Runs GPU perft jobs under numba's CUDA simulator, for tests/test_gpu_perft.py.

A process of its own: ``NUMBA_ENABLE_CUDASIM`` must be set before numba is imported, and the
tests' own process keeps the real (absent) CUDA.  Reads one JSON request on stdin, writes
one JSON answer on stdout:

* ``perft``: ``[variant, fen, depth, paths, bulk, plies]`` -> ``[nodes, [[hub move, count],
  ...]]``, the divide (cut ``plies`` below the root; null: the default) with the subtrees
  counted by the GPU kernel;
* ``rows``: ``[variant, [fen, ...], depth, paths, bulk]`` -> the kernel's count of each
  position, one launch for all of them (each thread takes several from the queue);
* ``cli``: an argument list for ``rafle`` -> ``[exit code, stdout]``.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import sys

THREADS = 16            # two simulated blocks: rows go through the queue and across blocks


def main() -> None:
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        sys.exit("gpu_sim_worker: run me with NUMBA_ENABLE_CUDASIM=1")
    import numpy as np

    from engine import get_variant, move_to_hub, parse_position, perft_divide
    from engine.gpu_perft import gpu_counter, launch, new_scratch
    from protocol.cli import main as cli

    request = json.load(sys.stdin)
    counters = {}

    def counter(bulk, paths):
        if (bulk, paths) not in counters:
            counters[(bulk, paths)] = gpu_counter(bulk, paths, threads=THREADS)
        return counters[(bulk, paths)]

    answer = {"perft": [], "rows": [], "cli": []}
    for variant, fen, depth, paths, bulk, plies in request.get("perft", []):
        pos = parse_position(fen, get_variant(variant))
        d = perft_divide(pos, depth, bulk, paths, plies=plies,
                         count_subtrees=counter(bulk, paths))
        answer["perft"].append([d.nodes, [[move_to_hub(m), n] for m, n in d.counts]])
    for variant, fens, depth, paths, bulk in request.get("rows", []):
        v = get_variant(variant)
        rows = np.array([[*parse_position(f, v).words, 1, i] for i, f in enumerate(fens)],
                        dtype=np.int64)
        answer["rows"].append(
            launch(rows, depth, bulk, paths, v, new_scratch(depth, len(rows), THREADS)).tolist())
    for argv in request.get("cli", []):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli(argv)
        answer["cli"].append([code, out.getvalue()])
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
