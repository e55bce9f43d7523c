"""``rafle perft --gpu`` under numba's CUDA simulator, against the CPU perft.

The GPU's counts come from one process that runs with ``NUMBA_ENABLE_CUDASIM=1``
(``gpu_sim_worker.py``, started once per module), so this process and the other tests keep
the real CUDA, which CI does not have; the CPU's counts are computed here.  The simulator
runs the kernel's threads in Python (slow): depths stay small, deeper runs are marked slow.
What no simulator shows (the kernel's compile for a real GPU, its speed) is
``perft/gpu_check.py``'s, on a machine with a GPU.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import VARIANTS as ALL_VARIANTS
from engine import get_variant, legal_moves, move_to_hub, parse_position, perft, perft_divide
from perft.gpu_check import random_positions
from protocol.cli import main as cli

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VARIANTS = ("international", "russian")
VARIANTS_ALL = tuple(ALL_VARIANTS)
RANDOM_POSITIONS = 20


RANDOM = {v: random_positions(v, RANDOM_POSITIONS, seed) for seed, v in enumerate(VARIANTS)}
START = [(v, "startpos", depth, paths) for v in VARIANTS for paths in (False, True)
         for depth in (1, 2, 3, 4)]
RANDOM_CASES = [(v, fen, depth, False) for v in VARIANTS for fen in RANDOM[v]
                for depth in (1, 2, 3, 4)]
RANDOM_PATHS = [(v, fen, 3, True) for v in VARIANTS for fen in RANDOM[v]]
# Two plies before a capture that two paths reach (found along random games): cut one ply
# below the root, the GPU counter's own frontier carries the paths of that capture.
PATHS_TWICE = [
    ("international", "B:W22,26,27,32,33,38,40,41,42,43,44,45,46,47,49,50:B1,2,3,4,5,6,7,11,12,13,"
                      "15,16,20,24", 4, True),
    ("international", "W:W30,34,35,38,41,43,45,46,48:B2,4,5,6,7,9,12,13,15,19,22,23", 4, True),
    ("russian", "W:W23,25,26,27,28,32:B1,3,5,8,9,10,11,12,14,18,20", 4, True),
    ("russian", "B:W17,22,25,26,29:B1,2,4,5,9,10,19", 4, True),
]
ROWS = [(v, RANDOM[v], depth, paths, bulk) for v in VARIANTS for depth in (1, 2)
        for paths in (False, True) for bulk in (True, False)]
DIVIDE = ["perft", "--fen", "startpos", "--variant", "russian", "--depth", "5", "--divide",
          "--json", "--count-paths"]
SUITE = ["perft", "--suite", "--variant", "english", "--max-nodes", "20k", "--json"]


def simulate(request: dict, timeout: int = 900) -> dict:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(HERE / "gpu_sim_worker.py")], cwd=ROOT, env=env,
                          input=json.dumps(request), capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def gpu():
    jobs = START + RANDOM_CASES + RANDOM_PATHS
    answer = simulate({"perft": [[*job, True, None] for job in jobs]
                       + [[*job, True, 1] for job in PATHS_TWICE],
                       "rows": [[v, fens, depth, paths, bulk]
                                for v, fens, depth, paths, bulk in ROWS],
                       "cli": [DIVIDE, SUITE]})
    return {"perft": dict(zip(jobs + PATHS_TWICE, answer["perft"])),
            "rows": dict(zip([(v, d, p, b) for v, _, d, p, b in ROWS], answer["rows"])),
            "cli": answer["cli"]}


def cpu_divide(variant, fen, depth, paths):
    d = perft_divide(parse_position(fen, get_variant(variant)), depth, True, paths)
    return [d.nodes, [[move_to_hub(m), n] for m, n in d.counts]]


@pytest.mark.parametrize("variant, fen, depth, paths", START)
def test_from_the_start_as_the_cpu(gpu, variant, fen, depth, paths):
    assert gpu["perft"][(variant, fen, depth, paths)] == cpu_divide(variant, fen, depth, paths)


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_positions_depth_1_to_4_as_the_cpu(gpu, variant):
    cases = [c for c in RANDOM_CASES if c[0] == variant]
    assert len(cases) == 4 * RANDOM_POSITIONS
    for case in cases:
        assert gpu["perft"][case] == cpu_divide(*case), case


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_positions_every_capture_path_as_the_cpu(gpu, variant):
    for case in (c for c in RANDOM_PATHS if c[0] == variant):
        assert gpu["perft"][case] == cpu_divide(*case), case


@pytest.mark.parametrize("variant, fen, depth, paths", PATHS_TWICE)
def test_paths_carried_down_the_gpu_frontier(gpu, variant, fen, depth, paths):
    pos = parse_position(fen, get_variant(variant))
    assert perft(pos, depth, paths=True) > perft(pos, depth)       # the case is what it says
    assert gpu["perft"][(variant, fen, depth, paths)] == cpu_divide(variant, fen, depth, paths)


@pytest.mark.parametrize("variant, fens, depth, paths, bulk", ROWS)
def test_the_kernel_counts_each_position_as_the_cpu(gpu, variant, fens, depth, paths, bulk):
    """Position by position: at depth 1 the moves the GPU counts (bulk) or generates and
    makes (every leaf), at depth 2 the moves of every successor."""
    v = get_variant(variant)
    want = [perft(parse_position(f, v), depth, bulk, paths=paths) for f in fens]
    if depth == 1:
        assert want == [len(legal_moves(parse_position(f, v), paths)) for f in fens]
    assert gpu["rows"][(variant, depth, paths, bulk)] == want


def test_divide_json_has_the_cpu_shape(gpu, capsys):
    code, out = gpu["cli"][0]
    assert code == 0
    assert cli(DIVIDE) == 0
    mine, cpu = json.loads(out), json.loads(capsys.readouterr().out)
    assert list(mine) == list(cpu) == ["depth", "nodes", "seconds", "divide"]
    assert list(mine["divide"].items()) == list(cpu["divide"].items())
    assert mine["nodes"] == cpu["nodes"] == sum(cpu["divide"].values())


def test_a_suite_on_the_gpu(gpu):
    code, out = gpu["cli"][1]
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(lines) > 5
    assert all(line["ok"] for line in lines[:-1])
    assert lines[-1]["summary"]["mismatch"] == 0
    assert lines[-1]["summary"]["ok"] == len(lines) - 1


def test_without_a_gpu_it_says_so_and_exits_2():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["NUMBA_CUDA_DRIVER"] = "/no/such/libcuda.so"       # no driver here, whatever the machine
    done = subprocess.run([sys.executable, "-m", "protocol.cli", "perft", "--gpu", "--depth", "3"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("rafle perft: no CUDA GPU found: ")
    assert "[gpu]" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_gpu_check_script_runs_its_smoke_test():
    """perft/gpu_check.py, meant for a machine with a GPU, at tiny depths under the simulator
    (its --smoke sets NUMBA_ENABLE_CUDASIM itself)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run([sys.executable, "-m", "perft.gpu_check", "--smoke"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "GPU: CUDA simulator" in done.stdout
    lines = done.stdout.strip().splitlines()
    assert lines[-1].startswith("checks: 33 ok, 0 mismatched, 0 unchecked, 0 skipped"), lines[-1]
    every = [line.split()[0] for line in lines if line.endswith("ok (CPU)")]
    assert every == list(VARIANTS_ALL)        # each variant's random positions, as the CPU


@pytest.mark.parametrize("args", [["--gpu", "--hash", "16"], ["--gpu", "--ray"]])
def test_gpu_does_not_go_with_ray_or_hash(args, capsys):
    assert cli(["perft", *args]) == 2
    assert "--gpu counts alone" in capsys.readouterr().err


def test_numpy_names_that_numba_cuda_wants_are_given_back():
    """numba-cuda 0.30 overloads np.row_stack, which numpy 2.5 removed (seen on a GPU
    machine): without it, loading the GPU counter gives it vstack's function."""
    code = ("import numpy as np; del np.row_stack; import engine.gpu_perft; "
            "assert np.row_stack is np.vstack; print('ok')")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_the_engine_loads_without_numba_cuda():
    code = ("import sys, engine; engine.load(); engine.perft; "
            "print(sorted(m for m in sys.modules if m.startswith('numba.cuda')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
@pytest.mark.parametrize("variant, fen, depth, paths", [
    ("international", "startpos", 6, False), ("international", "startpos", 6, True),
    ("frisian", "startpos", 5, True), ("turkish", "startpos", 5, False),
    ("italian", "startpos", 6, False), ("killer", "startpos", 5, False),
    ("thai", "startpos", 6, True),
])
def test_deeper_and_other_variants(variant, fen, depth, paths):
    answer = simulate({"perft": [[variant, fen, depth, paths, True, None]]})
    assert answer["perft"][0] == cpu_divide(variant, fen, depth, paths)
