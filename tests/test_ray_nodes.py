"""A Ray cluster of two separate nodes on this machine (:mod:`raynodes`: a head and a worker
started by ``ray start``, 1 CPU and a custom resource each, token authentication on), driven
by ``rafle`` commands as a user runs them: work lands on both nodes; a worker node taken away
(its processes ended by id) costs perft no count, a match no game, self-play no chunk and
tune no iteration; a lost head stops a match, a tournament or self-play in one line with its
work kept, and the same command goes on once the cluster is back.
"""
from __future__ import annotations

import json
import re
import time

import numpy as np
import pytest

pytest.importorskip("ray")

from engine import parse_position, perft, read_pdn      # noqa: E402
from raynodes import LocalCluster, ended                # noqa: E402

PERFT_10 = 258_895_763          # international, from the start (perft/data/reference.json)


@pytest.fixture(scope="module")
def nodes():
    c = LocalCluster()
    try:
        start(c)
        yield c
    finally:
        c.stop()


@pytest.fixture
def cluster(nodes):
    """The module's two nodes, node_b started again where a test before took it away."""
    if "node_b" not in nodes.nodes:
        nodes.add_node("node_b")
        nodes.wait_for(2)
    return nodes


@pytest.fixture
def own_cluster():
    """Two nodes of a test's own, whose head it may take away."""
    c = LocalCluster()
    try:
        start(c)
        yield c
    finally:
        c.stop()


def start(c: LocalCluster) -> None:
    c.start_head()
    c.add_node("node_b")
    c.wait_for(2)


def counts(out: str) -> dict[int, int]:
    """perft's table: depth -> nodes."""
    found = re.findall(r"^\s+(\d+)\s+([\d,]+)\s", out, re.M)
    return {int(depth): int(nodes.replace(",", "")) for depth, nodes in found}


def rounds(pdn) -> list[int]:
    played = read_pdn(pdn.read_text())
    for g in played:
        g.game()                        # every move legal, replayed by the referee
    return sorted(int(g.tags["Round"]) for g in played)


def chunk_games(directory) -> list[int]:
    """The games of a self-play run's chunk files, each file's once, sorted: a game kept in
    two files shows twice."""
    return sorted(g for f in directory.glob("chunk-*.npz") for g in set(np.load(f)["game"].tolist()))


def wait_for_files(directory, count: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while len(list(directory.glob("chunk-*.npz"))) < count:
        assert time.monotonic() < deadline, f"fewer than {count} chunks in {directory}"
        time.sleep(0.5)


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
    out, err = ended(run, 600)
    assert run.returncode == 0, err
    assert counts(out)[10] == PERFT_10
    cluster.add_node("node_b")
    cluster.wait_for(2)

    pdn = tmp_path / "m.pdn"
    run = cluster.spawn("match", "--ray", cluster.address, "--games", "8", "--depth", "4",
                        "--pdn", str(pdn))
    wait_for_line(run, r"^game \d+:")
    assert cluster.kill("node_b") > 0
    out, err = ended(run, 600)
    assert run.returncode == 0, err
    assert rounds(pdn) == list(range(1, 9))             # every game once
    assert " games=8 " in out


@pytest.mark.slow
def test_a_worker_node_taken_away_costs_self_play_no_chunk(cluster, tmp_path):
    out_dir = tmp_path / "sp"
    command = ("selfplay", "--ray", cluster.address, "--games", "60", "--nodes", "1000",
               "--out", str(out_dir), "--quiet")
    run = cluster.spawn(*command)
    wait_for_files(out_dir, 1)
    assert cluster.kill("node_b") > 0                   # it was playing a chunk
    out, err = ended(run, 600)
    if run.returncode:                                  # a chunk whose retries were spent
        assert "run the same command to go on" in err, err
        done = cluster.rafle(*command, timeout=600)
        assert done.returncode == 0, done.stderr
    else:
        assert "from 6 chunks played now; 6 chunk files in all" in out, out + err
    assert chunk_games(out_dir) == list(range(60))      # every game once: none lost, none doubled


@pytest.mark.slow
def test_a_worker_node_taken_away_costs_tune_no_iteration(cluster, tmp_path):
    state = tmp_path / "t.json"
    run = cluster.spawn("tune", "--ray", cluster.address, "--param", "lmr-depth", "--games", "4",
                        "--depth", "2", "--max-plies", "60", "--iterations", "4",
                        "--state", str(state))
    wait_for_line(run, r"^iteration 1/4: ")
    assert cluster.kill("node_b") > 0
    out, err = ended(run, 600)
    assert run.returncode == 0, err
    assert re.findall(r"^iteration (\d)/4: ", out, re.M) == ["2", "3", "4"]
    records = json.loads(state.read_text())["records"]
    assert [len(r["games"]) for r in records] == [4, 4, 4, 4]
    assert all(r["theta"] == before["theta_after"] for before, r in zip(records, records[1:]))


def lose_the_head(c: LocalCluster, command, tool: str, total: int, state, pdn,
                  number: str) -> list[int]:
    """Run `command` on `c` until its first game ends, take the head away, check that the command
    stops within Ray's 60 s in one line that names its kept work, then take node_b away too.
    Returns the rounds kept (from 1), read from the state file by each game's `number` key."""
    run = c.spawn(*command)
    wait_for_line(run, r"^game \d+:")
    lost = time.monotonic()
    c.kill("node_a")
    out, err = ended(run, 120)
    assert run.returncode == 1, err
    assert time.monotonic() - lost < 40                 # before Ray's own 60 s
    played = re.fullmatch(rf"rafle {tool}: lost the Ray head at \S+: stopped after (\d+) of {total} "
                          rf"games; the \1 finished are in {re.escape(str(state))} and "
                          rf"{re.escape(str(pdn))}: the same command goes on",
                          err.strip().splitlines()[-1])
    assert played, err
    n = int(played[1])
    kept = sorted(g[number] + 1 for g in json.loads(state.read_text())["games"])
    assert 1 <= n < total and rounds(pdn) == kept and len(kept) == n
    c.kill("node_b")
    return kept


def go_on(c: LocalCluster, command, total: int, pdn, kept: list[int]) -> str:
    """Start `c` again and run the same command: it plays the rest, none twice; its output."""
    start(c)
    done = c.rafle(*command, timeout=600)
    assert done.returncode == 0, done.stderr
    again = sorted(int(g) for g in re.findall(r"^game (\d+):", done.stdout, re.M))
    assert sorted(kept + again) == list(range(1, total + 1))
    assert rounds(pdn) == list(range(1, total + 1))
    return done.stdout


@pytest.mark.slow
def test_a_lost_head_stops_a_match_in_one_line_and_the_same_command_goes_on(own_cluster, tmp_path):
    state, pdn = tmp_path / "m.json", tmp_path / "m.pdn"
    # Enough games to outlast the driver's grace (15 s): a node goes on playing without its
    # head for a while, and a match that ends in that while ends as usual.  40 games did not
    # outlast it on an idle 2-core machine.
    command = ("match", "--ray", own_cluster.address, "--games", "160", "--depth", "5",
               "--max-plies", "100", "--state", str(state), "--pdn", str(pdn))
    kept = lose_the_head(own_cluster, command, "match", 160, state, pdn, "number")
    out = go_on(own_cluster, command, 160, pdn, kept)
    assert f", {len(kept)} played before ({state})" in out and " games=160 " in out


@pytest.mark.slow
def test_a_lost_head_stops_a_tournament_in_one_line_and_the_same_command_goes_on(own_cluster,
                                                                                 tmp_path):
    state, pdn = tmp_path / "t.json", tmp_path / "t.pdn"
    engines = [w for name in ("a", "b", "c") for w in ("--engine", f"name={name}", "cmd=rafle hub")]
    # 162 games, enough to outlast the driver's grace (as the match's above)
    command = ("tournament", "--ray", own_cluster.address, *engines, "--games", "54", "--depth", "5",
               "--max-plies", "100", "--state", str(state), "--pdn", str(pdn))
    kept = lose_the_head(own_cluster, command, "tournament", 162, state, pdn, "id")
    out = go_on(own_cluster, command, 162, pdn, kept)
    assert f"({len(kept)} played before, {162 - len(kept)} to play), on Ray" in out
    assert "tournament games=162 planned=162 " in out
    assert re.search(r"^games played on [12] Ray nodes?: ", out, re.M)


@pytest.mark.slow
def test_a_lost_head_stops_self_play_in_one_line_and_the_same_command_goes_on(own_cluster,
                                                                              tmp_path):
    c = own_cluster
    out_dir = tmp_path / "sp"
    command = ("selfplay", "--ray", c.address, "--games", "60", "--nodes", "1000",
               "--out", str(out_dir))
    run = c.spawn(*command)
    wait_for_files(out_dir, 1)
    c.kill("node_a")
    out, err = ended(run, 120)
    assert run.returncode == 1, err
    last = err.strip().splitlines()[-1]
    assert re.fullmatch(r"rafle selfplay: lost the Ray head at \S+: stopped after \d+ of 60 games; "
                        r"the chunks finished are on disk: run the same command to go on", last), err
    kept = len(list(out_dir.glob("chunk-*.npz")))
    assert 1 <= kept < 6
    c.kill("node_b")

    start(c)
    done = c.rafle(*command, "--quiet", timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"from {6 - kept} chunks played now; 6 chunk files in all" in done.stdout
    assert chunk_games(out_dir) == list(range(60))
