"""A Ray cluster of two separate nodes on this machine (:mod:`raynodes`: a head and a worker
started by ``ray start``, 1 CPU and a custom resource each, token authentication on), driven
by ``rafle`` commands as a user runs them: work lands on both nodes; a node taken away (its
processes ended by id) costs no count and no game; a lost head should stop a run in one line
with its work kept, and the same command go on once the cluster is back (not yet: xfail).
"""
from __future__ import annotations

import re
import time

import numpy as np
import pytest

pytest.importorskip("ray")

from engine import parse_position, perft, read_pdn      # noqa: E402
from raynodes import LocalCluster                       # noqa: E402

PERFT_10 = 258_895_763          # international, from the start (perft/data/reference.json)


@pytest.fixture(scope="module")
def cluster():
    c = LocalCluster()
    try:
        c.start_head()
        c.add_node("node_b")
        c.wait_for(2)
        yield c
    finally:
        c.stop()


def counts(out: str) -> dict[int, int]:
    """perft's table: depth -> nodes."""
    found = re.findall(r"^\s+(\d+)\s+([\d,]+)\s", out, re.M)
    return {int(depth): int(nodes.replace(",", "")) for depth, nodes in found}


def rounds(pdn) -> list[int]:
    played = read_pdn(pdn.read_text())
    for g in played:
        g.game()                        # every move legal, replayed by the referee
    return sorted(int(g.tags["Round"]) for g in played)


def wait_for_line(process, pattern: str, timeout: float = 180) -> str:
    """Read ``process``'s stdout until a line matches; the lines read."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        if re.search(pattern, line):
            return "".join(seen)
    raise AssertionError(f"never saw {pattern!r}: {''.join(seen)}")


def test_two_nodes_count_perft_exactly_and_play_every_game_once(cluster, tmp_path):
    done = cluster.rafle("perft", "--depth", "6", "--ray", cluster.address, "--quiet")
    assert done.returncode == 0, done.stderr
    assert counts(done.stdout)[6] == perft(parse_position("startpos"), 6) == 167_140
    assert re.search(r"^subtrees counted on 2 Ray nodes: node_a \(\w+\) \d+, node_b \(\w+\) \d+$",
                     done.stdout, re.M), done.stdout

    pdn = tmp_path / "m.pdn"
    done = cluster.rafle("match", "--ray", cluster.address, "--games", "4", "--depth", "2",
                         "--max-plies", "60", "--pdn", str(pdn))
    assert done.returncode == 0, done.stderr
    assert rounds(pdn) == [1, 2, 3, 4]
    assert " games=4 " in done.stdout and "played again" not in done.stdout
    assert re.search(r"^games played on 2 Ray nodes: node_a \(\w+\) \d, node_b \(\w+\) \d$",
                     done.stdout, re.M), done.stdout


@pytest.mark.slow
def test_a_worker_node_taken_away_costs_no_count_and_no_game(cluster, tmp_path):
    run = cluster.spawn("perft", "--depth", "10", "--ray", cluster.address, "--quiet")
    wait_for_line(run, r"^\s+8\s")
    assert cluster.kill("node_b") > 0
    out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    assert counts(out)[10] == PERFT_10
    cluster.add_node("node_b")
    cluster.wait_for(2)

    pdn = tmp_path / "m.pdn"
    run = cluster.spawn("match", "--ray", cluster.address, "--games", "8", "--depth", "4",
                        "--pdn", str(pdn))
    wait_for_line(run, r"^game \d+:")
    assert cluster.kill("node_b") > 0
    out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    assert rounds(pdn) == list(range(1, 9))             # every game once
    assert " games=8 " in out
    cluster.add_node("node_b")
    cluster.wait_for(2)


@pytest.mark.slow
@pytest.mark.xfail(reason="issue #66 item 2, not done: with the head gone the driver blocks inside "
                          "ray.wait, and Ray ends it 60 s later (rpc_client.h: Failed to connect to "
                          "GCS within 60 seconds) before it can say so; the PDN and self-play's "
                          "chunk files are kept, and self-play's same command goes on", strict=False)
def test_a_lost_head_stops_in_one_line_keeping_the_work_and_the_same_command_goes_on(tmp_path):
    c = LocalCluster()
    try:
        c.start_head()
        c.add_node("node_b")
        c.wait_for(2)
        pdn = tmp_path / "m.pdn"
        run = c.spawn("match", "--ray", c.address, "--games", "40", "--depth", "5",
                      "--pdn", str(pdn))
        wait_for_line(run, r"^game \d+:")
        c.kill("node_a")
        out, err = run.communicate(timeout=120)
        assert run.returncode == 1
        last = err.strip().splitlines()[-1]
        played = re.fullmatch(rf"rafle match: lost the Ray head at \S+: stopped after (\d+) of 40 "
                              rf"games; the \d+ finished are in {re.escape(str(pdn))}", last)
        assert played, err
        assert rounds(pdn) == list(range(1, int(played[1]) + 1)) or \
            len(rounds(pdn)) == int(played[1])
        c.kill("node_b")

        c.start_head()
        c.add_node("node_b")
        c.wait_for(2)
        out_dir = tmp_path / "sp"
        command = ("selfplay", "--ray", c.address, "--games", "200", "--nodes", "3000",
                   "--out", str(out_dir))
        run = c.spawn(*command)
        deadline = time.monotonic() + 120
        while len(list(out_dir.glob("chunk-*.npz"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        c.kill("node_a")
        out, err = run.communicate(timeout=120)
        assert "rafle selfplay: lost the Ray head at " in err
        assert err.strip().endswith("the chunks finished are on disk"), err
        kept = len(list(out_dir.glob("chunk-*.npz")))
        assert 2 <= kept < 20
        c.kill("node_b")

        c.start_head()
        c.add_node("node_b")
        c.wait_for(2)
        done = c.rafle(*command, "--quiet", timeout=600)
        assert done.returncode == 0, done.stderr
        assert f"from {20 - kept} chunks played now; 20 chunk files in all" in done.stdout
        games = [np.load(f)["game"] for f in sorted(out_dir.glob("chunk-*.npz"))]
        assert sorted(set(np.concatenate(games).tolist())) == list(range(200))
    finally:
        c.stop()
