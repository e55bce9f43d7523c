"""``rafle bench --depth-times --peer COMMAND``: a Hub version 1 engine timed to each depth
next to Rafle.  The peer here is ``tests/fake_hub1.py depths``, which writes Scan 2.0's
positional ``info`` lines with made-up times, so the ratios are known; no duration is asserted.
"""
import shlex
import sys
from pathlib import Path

import pytest

from protocol.hub import hub1
from protocol.hub.hub1 import info_fields
from protocol.tools import bench, depthtimes, peertimes

FAKE = f"{shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__).parent / 'fake_hub1.py'))}"
PEER = f"{FAKE} depths"
START = [("start", bench.POSITIONS[0])]


def test_scans_positional_info_lines_get_the_names_of_version_2():
    assert info_fields("info 12 11.3 -25 123456 0.52 2.4 32-28 19-23") == {
        "depth": "12", "mean-depth": "11.3", "score": "-0.25", "nodes": "123456",
        "time": "0.52", "nps": "2.4", "pv": "32-28 19-23"}
    assert info_fields("info 0 0.0 0 0 0.00 0.0 ")["pv"] == ""       # a forced move
    assert info_fields("info depth 1 score 0") is None                # not Scan's form


def test_the_comparison_divides_rafles_times_by_the_peers_and_takes_medians():
    rafle = [depthtimes.Run("a", "", [(12, 1_000_000, 0.5), (15, 8_000_000, 2.0), (18, 1, 9.0)]),
             depthtimes.Run("b", "", [(12, 1_000_000, 0.3), (15, 6_000_000, 1.2)]),
             depthtimes.Run("c", "", [(12, 1, 0.1)])]
    peer = [depthtimes.Run("a", "", [(12, 500_000, 0.25), (12, 600_000, 0.3),
                                     (15, 3_000_000, 1.0)], {12: 1.0, 15: 2.0}),
            depthtimes.Run("b", "", [(12, 2_000_000, 0.6), (15, 4_000_000, 1.0), (16, 1, 2.0)],
                           {12: 1.0}),
            None]                                                      # skipped by the peer
    lines = depthtimes.comparison(rafle, peer, "Scan 2.0", "hub.sh")
    assert lines[0].startswith("Rafle (R) against Scan 2.0 (P, hub.sh)")
    assert lines[2].split() == ["a", "0.500", "2.000", "9.000", "0.250", "1.000", "-",
                                "2.00", "2.00", "-", "15", "4.00", "3.00"]
    assert lines[3].split() == ["b", "0.300", "1.200", "-", "0.600", "1.000", "-",
                                "0.50", "1.20", "-", "15", "5.00", "4.00"]
    # The peer's searches to each depth alone give its complete iterations (a: 12 in 1.0 s,
    # 15 in 2.0 s; b: 12 in 1.0 s): the like-for-like ratios follow the first lines'.
    assert lines[4] == ("depth 12: median R 0.400 s (2), P 0.425 s (2); median of the "
                        "per-position ratios R/P 1.25 over 2 of 2 positions; the peer's "
                        "iteration complete (a search to depth 12): P 1.000 s (2), "
                        "R/P 0.40 over 2")
    assert "ratios R/P 1.60 over 2 of 2 positions; " in lines[5]
    assert lines[5].endswith("(a search to depth 15): P 2.000 s (1), R/P 1.00 over 1")
    assert lines[6] == "depth 18: median R 9.000 s (1), P - s (0); median of the per-position " \
                       "ratios R/P - over 0 of 2 positions; the peer's iteration complete " \
                       "(a search to depth 18): P - s (0), R/P - over 0"
    assert lines[7] == ("nodes a second at the deepest common depth: median R 4,500,000, "
                        "P 3,500,000; median ratio R/P 1.29 over 2 positions")
    assert lines[8].startswith("1 position(s) not searched by the peer")


def test_the_peer_searches_each_position_and_its_first_line_of_a_depth_counts():
    lines: list[str] = []
    runs, peer_runs = depthtimes.report(START, 6, 30.0, {}, emit=lines.append, peer=PEER,
                                        compare_at=(2, 3, 6))
    fake = [(d, d * d * 1000, 0.25 * d) for d in range(1, 7)]
    assert peer_runs[0].rows == fake[:3] + [(3, 9007, 0.85)] + fake[3:]    # cut at --max-depth
    # A search to each compared depth alone, stopped there by Scan's `depth <n>`, timed by
    # the wall clock (no duration asserted; a depth the peer does not reach: the test below).
    assert sorted(peer_runs[0].complete) == [2, 3, 6]
    assert all(t > 0 for t in peer_runs[0].complete.values())
    rafle = [runs[0].time_to(d) for d in (2, 3, 6)]
    row = next(line for line in lines if line.startswith("start") and len(line.split()) == 13)
    assert row.split()[4:10] == ["0.500", "0.750", "1.500"] + [
        f"{t / (0.25 * d):.2f}" for t, d in zip(rafle, (2, 3, 6))]
    assert row.split()[10] == "6"                                      # the deepest common depth


def test_a_search_to_a_depth_alone_times_the_complete_iteration():
    peer = peertimes.Peer(f"{FAKE} depths 4", emit=print)
    try:
        fen = START[0][1]
        assert peer.complete("start", fen, 6, 30.0) is None          # it stops at its 4
        assert peer.complete("start", fen, 3, 30.0) > 0
        assert [d for d, _, _ in peer.search("start", fen, 4, 30.0)] == [1, 2, 3, 3, 4]
    finally:
        peer.quit()
    assert hub1.depth_line(["move-time=10", "depth=18"]) == "depth 18"   # after pos, before go
    assert hub1.depth_line(["move-time=10"]) is None
    assert hub1.level_line(["move-time=10", "depth=18"]) == "time 10000"
    peer = peertimes.Peer(f"{FAKE} depths 4", emit=print)
    try:            # a depth sent before the position is lifted by it, as by Scan's `pos`
        peer.client.new_game()
        peer.client.send("depth 2")
        assert [d for d, _, _ in peer.search("start", START[0][1], 4, 30.0)] == [1, 2, 3, 3, 4]
    finally:
        peer.quit()


def test_the_command_line_takes_a_peer(capsys):
    assert bench.main(["--depth-times", "--positions", "start", "--max-depth", "4",
                       "--max-time", "30", "--peer", PEER]) == 0
    out = capsys.readouterr().out
    assert "Rafle (R) against fake-hub1" in out and "median of the per-position ratios" in out


def test_the_command_line_compares_the_depths_it_is_given(capsys):
    assert bench.main(["--depth-times", "--positions", "start", "--max-depth", "5",
                       "--max-time", "30", "--peer", PEER, "--compare-depths", "5,2"]) == 0
    out = capsys.readouterr().out.splitlines()
    header = next(line for line in out if line.startswith("position") and "R t2" in line)
    assert header.split()[1:5] == ["R", "t2", "R", "t5"]
    assert [line.split(":")[0] for line in out if line.startswith("depth ")
            and "median R" in line] == ["depth 2", "depth 5"]
    for bad in ("12,x", "0,12", ""):
        with pytest.raises(SystemExit):
            bench.main(["--depth-times", "--peer", PEER, "--compare-depths", bad])
        assert "--compare-depths" in capsys.readouterr().err


def test_a_peer_that_cannot_start_or_dies_is_reported_and_rafle_goes_on():
    for command, why in (("/nonexistent/peer-engine --hub", "cannot start"),
                         (FAKE, "(exit code 2)")):   # `set book false` kills it: the client
        # finds it gone either reading (ended its output) or writing (closed its input)
        lines: list[str] = []
        runs, peer_runs = depthtimes.report(START, 3, 30.0, {}, emit=lines.append, peer=command)
        assert lines[0].startswith(f"peer {command!r} did not start") and why in lines[0]
        assert lines[0].endswith("Rafle's figures only from here")
        assert any(line.startswith("start ") for line in lines) and runs[0].rows
        assert peer_runs == [None]
        assert lines[-1] == "no position searched by the peer: Rafle's figures only"
