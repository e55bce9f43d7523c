"""The bench signature: total nodes of ``rafle bench`` at a small depth, pinned.

Any change of search behaviour (ordering, pruning, evaluation, draw rules) changes
this number; the commit that changes it says so and pins the new one.  The count is
deterministic: fixed-depth searches read no clock.
"""
import pytest

from protocol.tools import bench

SIGNATURE_DEPTH = 7
SIGNATURE = 149199          # as shipped: international-4, verified threshold pruning 40+20/1
                            # from depth 2 and above beta only, internal iterative reduction
                            # from depth 3, late-move reductions after 1 move at null-window nodes
HAND_SIGNATURE = 154499     # eval=hand
NO_THRESHOLD_SIGNATURE = 173617     # threshold=false


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


# ----- rafle bench --depth-times ------------------------------------------------------------
from engine import BLACK, WHITE, pos_from_fen, legal_moves       # noqa: E402
from protocol.tools import depthtimes                             # noqa: E402


def test_time_to_depth_and_depth_within_a_budget_read_the_iterations():
    run = depthtimes.Run("x", "", [(10, 5, 0.2), (11, 9, 0.6), (12, 20, 1.4), (13, 50, 4.0)])
    assert run.time_to(11) == 0.6 and run.time_to(12) == 1.4 and run.time_to(14) is None
    assert run.time_to(5) == 0.2                  # the first iteration already passed it
    assert run.depth_within(1.0) == 11 and run.depth_within(5.0) == 13
    assert run.depth_within(0.1) == 0


def test_the_summary_gives_medians_and_the_branching_factor():
    rows = [(d, 0, 0.01 * 2.0 ** (d - 12)) for d in range(12, 19)]   # doubling a ply
    lines = depthtimes.summary([depthtimes.Run("a", "", rows), depthtimes.Run("b", "", rows[:4])])
    assert lines[0].startswith("time to depth 12: median    0.010 s over 2 of 2")
    assert "over 1 of 2" in lines[2]                                  # one reached 18
    assert lines[-1] == "branching factor 12-18 (time ratio a ply): median 2.00 over 1 positions"


def test_the_middle_game_positions_are_twenty_quiet_balanced_ones_of_10_to_20_pieces():
    cases = depthtimes.positions("middle", bench.POSITIONS)
    assert len(cases) == 20 and len({fen for _, fen in cases}) == 20
    for _, fen in cases:
        pos = pos_from_fen(fen)
        (wm, wk), (bm, bk) = pos.count(WHITE), pos.count(BLACK)
        assert 10 <= wm + wk + bm + bk <= 20
        assert abs(wm + 3 * wk - bm - 3 * bk) <= 1
        assert not any(m.captured for m in legal_moves(pos))
    assert [label for label, _ in depthtimes.positions("all", bench.POSITIONS)][:2] == ["start", "bench 2"]


def test_depth_times_command_reports_each_position_and_the_summary(capsys):
    assert bench.main(["--depth-times", "--positions", "start", "--max-depth", "4",
                       "--max-time", "30"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["position", "t12", "t15", "t18"]
    assert out[1].split()[0] == "start" and out[1].split()[4:7] == ["4", "4", "4"]
    assert out[2].startswith("time to depth 12: median        -   over 0 of 1")
    assert out[-1] == "branching factor 12-18: no position reached depth 18"


def test_a_shorter_run_reports_only_the_budgets_it_can_answer():
    assert depthtimes.budgets(10.0) == (1.0, 5.0) and depthtimes.budgets(20.0) == (1.0, 5.0, 20.0)
    rows = [(12, 0, 0.5), (13, 0, 3.0)]
    lines = depthtimes.summary([depthtimes.Run("a", "", rows)], max_time=10.0)
    assert [line for line in lines if line.startswith("depth in")] == [
        "depth in    1 s: median 12.0  min 12  max 12", "depth in    5 s: median 13.0  min 13  max 13"]
