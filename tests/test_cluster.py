"""perft on Ray (``rafle perft --ray``): a local Ray instance with 2 CPUs stands for a cluster.

Ray comes with the test extras (``pip install ".[test]"``), so CI runs these tests.
"""
from __future__ import annotations

import json
import os
import re
import socket
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from engine import get_variant, install_command, parse_position, perft, read_pdn  # noqa: E402
from perft import cluster, raylink                                       # noqa: E402
from perft.suite import count                                            # noqa: E402
from protocol.cli import main as cli                                     # noqa: E402


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    marker = tmp_path_factory.mktemp("ray") / "fault"
    marker.write_text("")                        # present: no task is killed until a test removes it
    os.environ[raylink.FAULT] = str(marker)
    started = raylink.connect(None, cpus=2)
    yield marker
    raylink.disconnect(started)
    del os.environ[raylink.FAULT]


@pytest.mark.parametrize("variant, fen, depth, paths", [
    ("international", "startpos", 5, False),
    ("frisian", "startpos", 5, True),
    ("russian", "startpos", 7, False),
])
def test_ray_counts_exactly_as_one_thread(local_ray, variant, fen, depth, paths):
    pos = parse_position(fen, get_variant(variant))
    local = count(pos, depth, paths=paths)
    seen = []
    far = cluster.count_on_ray(pos, depth, paths=paths,
                               progress=lambda done, total, move, nodes, s: seen.append(nodes))
    assert far.nodes == local.nodes == perft(pos, depth, paths=paths)
    assert far.divide == local.divide
    assert seen[-1] == local.nodes


def test_ray_split_deeper_counts_exactly(local_ray, capsys):
    pos = parse_position("startpos")
    far = cluster.count_on_ray(pos, 6, plies=3)
    assert far.nodes == 167140 and far.divide == count(pos, 6).divide
    assert cli(["perft", "--depth", "4", "--ray", "--split", "3", "--json", "--quiet"]) == 0
    assert [json.loads(line)["nodes"] for line in capsys.readouterr().out.splitlines()] == [9, 81, 658, 4265]


def test_a_killed_task_is_retried_and_counted_once(local_ray):
    local_ray.unlink()                           # the next task ends its worker, once
    pos = parse_position("startpos")
    assert cluster.count_on_ray(pos, 5).nodes == 27117
    assert local_ray.exists()                    # a worker was killed, and its task run again


def test_subtrees_never_counted_are_named_and_no_total_is_given(local_ray):
    local_ray.write_text("always")
    try:
        # White has one move and Black one reply: one task, whose worker dies every time.
        pos = parse_position("W:W46:B5")
        with pytest.raises(raylink.ClusterError, match=r"1 of 1 subtrees were not counted, no total: "
                                                       r"46-41 5-10"):
            cluster.count_on_ray(pos, 4)
    finally:
        local_ray.write_text("")


def test_cli_ray_divide(local_ray, capsys):
    fen = "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"
    assert cli(["perft", "--fen", fen, "--depth", "5", "--divide", "--json", "--ray"]) == 0
    # Ray may print its own notes on stdout (a retry seen late, from the test before): the
    # count is the JSON line.
    far = json.loads([line for line in capsys.readouterr().out.splitlines() if line.startswith("{")][-1])
    assert cli(["perft", "--fen", fen, "--depth", "5", "--divide", "--json", "--threads", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["divide"] == far["divide"]
    assert far["nodes"] == 27117
    assert cli(["perft", "--depth", "4", "--ray", "--hash", "8"]) == 2
    assert "--ray and --hash" in capsys.readouterr().err


# ----- rafle match --ray ---------------------------------------------------------------------

def play_on_ray(tmp_path, capsys, games=4):
    pdn = tmp_path / "m.pdn"
    assert cli(["match", "--ray", "--games", str(games), "--depth", "2", "--max-plies", "60",
                "--pdn", str(pdn)]) == 0
    out = capsys.readouterr().out
    played = read_pdn(pdn.read_text())
    for g in played:
        g.game()                                 # every move legal, replayed by the referee
    return out, played


def test_a_match_on_ray_plays_every_game_once(local_ray, tmp_path, capsys):
    out, played = play_on_ray(tmp_path, capsys)
    assert sorted(int(g.tags["Round"]) for g in played) == [1, 2, 3, 4]
    assert "match engine1=" in out and " games=4 " in out
    assert "played again" not in out


def test_a_lost_actor_loses_only_its_game_which_is_played_again(local_ray, tmp_path, capsys):
    local_ray.unlink()                           # the next game's actor dies, once
    out, played = play_on_ray(tmp_path, capsys)
    assert local_ray.exists()
    assert "1 game played again after a Ray actor was lost" in out
    assert sorted(int(g.tags["Round"]) for g in played) == [1, 2, 3, 4]
    assert " games=4 " in out



# ----- rafle tournament --ray ----------------------------------------------------------------

def tournament_on_ray(tmp_path, capsys, *more) -> str:
    """A round robin of three depth-limited Rafles, 2 games a pairing, on the local Ray."""
    engines = []
    for depth in (1, 2, 3):
        engines += ["--engine", f"name=d{depth}", "cmd=rafle hub", f"depth={depth}"]
    assert cli(["tournament", "--ray", *engines, "--games", "2", "--max-plies", "24",
                "--state", str(tmp_path / "t.json"), "--pdn", str(tmp_path / "t.pdn"),
                *more]) == 0
    return capsys.readouterr().out


def tournament_games(tmp_path) -> tuple[list[int], list[int]]:
    """The ids of the games in the state file, and the rounds in the PDN (every move legal)."""
    state = sorted(g["id"] + 1 for g in json.loads((tmp_path / "t.json").read_text())["games"])
    played = read_pdn((tmp_path / "t.pdn").read_text())
    for g in played:
        g.game()
    return state, sorted(int(g.tags["Round"]) for g in played)


def test_a_tournament_on_ray_plays_every_game_once_and_goes_on(local_ray, tmp_path, capsys):
    first = tournament_on_ray(tmp_path, capsys, "--max-games", "2")
    assert "stopped after" in first and "Ray players" in first
    assert re.search(r"^games played on 1 Ray node: .+ \d+$", first, re.M)
    state, rounds = tournament_games(tmp_path)
    assert 2 <= len(state) < 6 and state == rounds
    second = tournament_on_ray(tmp_path, capsys)
    assert f"({len(state)} played before, {6 - len(state)} to play), on Ray" in second
    again = sorted(int(g) for g in re.findall(r"^game (\d+):", second, re.M))
    assert sorted(state + again) == [1, 2, 3, 4, 5, 6]           # the rest, none twice
    assert tournament_games(tmp_path) == ([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6])
    assert "tournament games=6 planned=6 " in second and "played again" not in second


def test_a_tournament_on_ray_plays_a_lost_actors_game_again(local_ray, tmp_path, capsys):
    local_ray.unlink()                           # the next game's actor dies, once
    out = tournament_on_ray(tmp_path, capsys)
    assert local_ray.exists()
    assert "1 game played again after a Ray actor was lost" in out
    assert len(re.findall(r"^game \d+:", out, re.M)) == 6
    assert tournament_games(tmp_path) == ([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6])

def test_tune_on_ray_plays_every_iteration_and_goes_on(local_ray, tmp_path, capsys):
    state = tmp_path / "t.json"
    args = ["tune", "--ray", "--param", "lmr-depth", "--games", "2", "--depth", "1",
            "--max-plies", "16", "--state", str(state)]
    assert cli([*args, "--iterations", "1"]) == 0
    assert cli([*args, "--iterations", "2"]) == 0
    out = capsys.readouterr().out
    assert "iteration 1/1" in out and "iteration 2/2" in out
    records = json.loads(state.read_text())["records"]
    assert [len(r["games"]) for r in records] == [2, 2]
    assert records[1]["theta"] == records[0]["theta_after"]


def test_selfplay_on_ray_plays_every_game(local_ray, tmp_path):
    out = tmp_path / "sp.npz"
    assert cli(["selfplay", "--ray", "--games", "20", "--nodes", "200", "--out", str(out),
                "--quiet"]) == 0
    data = np.load(out)
    assert sorted(set(data["game"].tolist())) == list(range(20))
    assert len(data["white"]) > 200


def test_analyse_on_ray_writes_what_one_process_writes(local_ray, tmp_path, capsys):
    """``rafle analyse --ray``: each game a task; the annotated PDN is the one --jobs 1 writes."""
    games = tmp_path / "games.pdn"
    games.write_text("".join(f'[Event "t"]\n[Round "{r}"]\n[Result "*"]\n\n{moves} *\n\n'
                             for r, moves in ((1, "1. 32-28 18-23 2. 37-32 12-18"),
                                              (2, "1. 33-28 17-21 2. 39-33 21-26"))))
    outs = []
    for how in (["--ray"], ["--jobs", "1"]):
        out = tmp_path / f"out{len(outs)}.pdn"
        assert cli(["analyse", str(games), "--nodes", "2000", "--out", str(out), "--quiet",
                    *how]) == 0
        outs.append(out.read_text())
    assert outs[0] == outs[1] and outs[0].count("[%eval") == 8


@pytest.mark.parametrize("address, words", [
    ("127.0.0.1:1", "cannot reach Ray at 127.0.0.1:1"),
    ("ray://127.0.0.1:1", "cannot reach Ray at ray://127.0.0.1:1"),
    ("no-port", "bad Ray address"),
])
def test_an_address_where_nothing_answers_is_refused_at_once(address, words, capsys):
    assert cli(["perft", "--depth", "4", "--ray", address]) == 1
    assert words in capsys.readouterr().err


def test_without_ray_every_front_end_says_how_to_get_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)        # import ray fails as if not installed
    assert cli(["perft", "--depth", "4", "--ray"]) == 1
    assert cli(["match", "--ray", "--games", "2", "--depth", "1"]) == 2
    assert cli(["selfplay", "--ray", "--games", "2", "--out", str(tmp_path / "x.npz")]) == 2
    assert cli(["tune", "--ray", "--param", "lmr-depth", "--state", str(tmp_path / "t.json")]) == 2
    assert cli(["tournament", "--ray", "--engine", "name=a", "cmd=rafle hub", "--engine", "name=b",
                "cmd=rafle hub", "--state", str(tmp_path / "e.json"),
                "--pdn", str(tmp_path / "e.pdn")]) == 2
    said = f"--ray needs Ray: {install_command('cluster')}"
    assert said.startswith("--ray needs Ray: pip install ") and "[cluster]" in said
    assert capsys.readouterr().err.count(said) == 5


# ----- version skew -------------------------------------------------------------------------

def test_version_skew_is_told_in_one_line_naming_both_sides():
    driver = {"Python": "3.11.7", "Ray": "2.60.0", "Rafle": "0.2.0"}
    assert raylink.skew(driver, {"10.0.0.2": dict(driver, Python="3.11.9")}) is None
    for key, other in (("Python", "3.12.1"), ("Ray", "2.59.0"), ("Rafle", "0.1.0")):
        said = raylink.skew(driver, {"10.0.0.2": dict(driver, **{key: other})})
        assert said == (f"version skew: this driver has {key} {driver[key]}, node 10.0.0.2 has "
                        f"{key} {other}; every node needs the same Python, Ray and Rafle")


def test_a_cluster_whose_workers_run_another_rafle_is_refused_before_any_work(monkeypatch):
    """A separate Ray instance whose workers say they run Rafle 0.0.1 (the tests' SKEW
    variable reaches them through the runtime environment)."""
    if ray.is_initialized():
        pytest.skip("a Ray instance of another test is running in this process")
    monkeypatch.setenv(raylink.SKEW, "0.0.1")
    with pytest.raises(raylink.ClusterError) as refused:
        raylink.connect(None, cpus=1)
    said = str(refused.value)
    assert re.fullmatch(rf"version skew: this driver has Rafle {re.escape(raylink.versions()['Rafle'])}, "
                        r"node \S+ \(\w+\) has Rafle 0\.0\.1; every node needs the same Python, Ray "
                        r"and Rafle", said), said
    assert not ray.is_initialized()


# ----- a lost head ----------------------------------------------------------------------------

class _Head:
    """What HeadWatch asks of Ray: the head's address, and a wait that finds its results
    ready after ``after`` waits (never: None)."""

    def __init__(self, port: int, after: int | None = None):
        self.address, self.after, self.waits = f"127.0.0.1:{port}", after, 0

    def get_runtime_context(self):
        return SimpleNamespace(gcs_address=self.address)

    def wait(self, refs, num_returns, timeout):
        self.waits += 1
        if self.after is not None and self.waits > self.after:
            return refs[:num_returns], refs[num_returns:]
        time.sleep(timeout)
        return [], refs


def test_a_head_that_takes_no_connection_is_lost_after_the_grace_only(monkeypatch):
    monkeypatch.setattr(raylink, "PROBE_EVERY", 0.05)
    with socket.socket() as s:                   # a port where nothing listens any more
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    head = _Head(port)
    start = time.monotonic()
    with pytest.raises(raylink.HeadLost, match=rf"^lost the Ray head at 127\.0\.0\.1:{port}$"):
        raylink.HeadWatch(head, grace=0.5).wait(["game"])
    assert time.monotonic() - start >= 0.5 and head.waits >= 2     # waited through the grace
    assert not raylink.head_answers(head)


def test_a_head_that_answers_is_waited_on_for_as_long_as_it_takes(monkeypatch):
    monkeypatch.setattr(raylink, "PROBE_EVERY", 0.05)
    with socket.socket() as head:
        head.bind(("127.0.0.1", 0))
        head.listen(64)
        port = head.getsockname()[1]
        watch = raylink.HeadWatch(_Head(port, after=20), grace=0.2)
        assert watch.wait(["game", "other"]) == (["game"], ["other"])
        assert raylink.head_answers(_Head(port))
