"""The bench signature: total nodes of ``rafle bench`` at a small depth, pinned.

Any change of search behaviour (ordering, pruning, evaluation, draw rules) changes
this number; the commit that changes it says so and pins the new one.  The count is
deterministic: fixed-depth searches read no clock.
"""
import pytest

from protocol.tools import bench

SIGNATURE_DEPTH = 7
SIGNATURE = 137204          # as shipped: international-2, verified threshold pruning 40+10/1
HAND_SIGNATURE = 164381     # eval=hand
NO_THRESHOLD_SIGNATURE = 181797     # threshold=false


@pytest.mark.parametrize("options, signature", [({}, SIGNATURE),
                                                 ({"eval": "hand"}, HAND_SIGNATURE),
                                                 ({"threshold": "false"}, NO_THRESHOLD_SIGNATURE)])
def test_bench_signature(options, signature):
    results = bench.run(SIGNATURE_DEPTH, options)
    assert len(results) == len(bench.POSITIONS) >= 8
    assert all(r.depth == SIGNATURE_DEPTH and r.move is not None for _, r in results)
    assert sum(r.nodes for _, r in results) == signature


def test_bench_searches_to_the_signatures_depth_by_default():
    assert bench.build_parser().parse_args([]).depth == SIGNATURE_DEPTH
    assert bench.build_parser().parse_args(["--depth", "11"]).depth == 11


def test_bench_command_prints_the_signature(capsys):
    assert bench.main(["--depth", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    total = sum(r.nodes for _, r in bench.run(3))
    assert out[-1] == f"bench: {total}"
    assert sum(line.startswith("rafle ") for line in out) == len(bench.POSITIONS)
