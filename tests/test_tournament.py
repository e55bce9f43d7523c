"""``rafle tournament``: schedules, a real round robin with its crosstable checked against
the PDN, resuming an interrupted event, an engine that dies mid-game, a DXP engine, the
engines file, and the rating fit on synthetic results."""
import json
import random
import re
import shlex
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from engine.pdn import read_pdn
from protocol.tools.match import tournament
from protocol.tools.match.ratings import fit_ratings

ROOT = Path(__file__).resolve().parents[1]
RAFLE = f"{shlex.quote(sys.executable)} -m protocol.cli"

# A Hub engine that plays the first legal move and dies on its third search of a process.
DYING = r'''
import sys
from engine import legal_moves, move_from_hub, move_to_hub, pos_from_hub, play
searches = 0
pos = None
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "hub":
        print("id name=dying", flush=True); print("wait", flush=True)
    elif words[0] == "init":
        print("ready", flush=True)
    elif words[0] == "ping":
        print("pong", flush=True)
    elif words[0] == "quit":
        break
    elif words[0] == "pos":
        pos = line
    elif words[0] == "go":
        searches += 1
        if searches == 3:
            sys.exit(7)
        body = pos.split("pos=")[1]
        p = pos_from_hub(body.split()[0])
        for m in body.split('moves="')[1].split('"')[0].split():
            p = play(p, move_from_hub(p, m))
        print("done move=" + move_to_hub(legal_moves(p)[0]), flush=True)
'''


def run(tmp_path, capsys, *args) -> str:
    code = tournament.main(["--state", str(tmp_path / "t.json"), "--pdn", str(tmp_path / "t.pdn"),
                            *args])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def three_rafles() -> list[str]:
    out = []
    for depth in (1, 2, 3):
        out += ["--engine", f"name=d{depth}", f"cmd={RAFLE} hub", f"depth={depth}"]
    return out


def summary(out: str) -> dict[str, str]:
    line = [l for l in out.splitlines() if l.startswith("tournament ")][-1]
    return dict(w.split("=", 1) for w in shlex.split(line)[1:])


def test_schedules():
    assert tournament.schedule(3, "round-robin", 2) == [
        (0, 1, 0), (0, 1, 1), (0, 2, 0), (0, 2, 1), (1, 2, 0), (1, 2, 1)]
    assert tournament.schedule(4, "gauntlet", 1) == [(0, 1, 0), (0, 2, 0), (0, 3, 0)]
    assert len(tournament.schedule(8, "round-robin", 4)) == 28 * 4


def test_a_round_robin_plays_every_pairing_with_both_colours(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = run(tmp_path, capsys, *three_rafles(), "--games", "2", "--max-plies", "24",
              "--concurrency", "2")
    games = read_pdn((tmp_path / "t.pdn").read_text())
    assert len(games) == 6
    colours = Counter((g.tags["White"], g.tags["Black"]) for g in games)
    for a, b in (("d1", "d2"), ("d1", "d3"), ("d2", "d3")):
        assert colours[(a, b)] == 1 and colours[(b, a)] == 1
    assert sorted(int(g.tags["Round"]) for g in games) == [1, 2, 3, 4, 5, 6]
    assert all(g.tags["Event"] == "rafle tournament" and g.result in ("2-0", "1-1", "0-2")
               for g in games)
    points = Counter()
    for g in games:
        white = {"2-0": 1.0, "1-1": 0.5, "0-2": 0.0}[g.result]
        points[g.tags["White"]] += white
        points[g.tags["Black"]] += 1.0 - white
    s = summary(out)
    assert s["games"] == s["planned"] == "6"
    assert {n: float(s[f"points.{n}"]) for n in ("d1", "d2", "d3")} == dict(points)
    # the crosstable's rows add up to the points
    rows = {l.split()[0]: l.split()[1:] for l in out.splitlines() if re.match(r"d\d  ", l)}
    for name, cells in rows.items():
        total = sum(float(c.split("/")[0]) for c in cells if c != "-")
        assert total == points[name] and all(c == "-" or c.endswith("/2") for c in cells)


def test_an_interrupted_tournament_resumes_without_losing_or_repeating_a_game(tmp_path, capsys,
                                                                             monkeypatch):
    monkeypatch.chdir(ROOT)
    args = [*three_rafles(), "--games", "2", "--max-plies", "16", "--concurrency", "1"]
    first = run(tmp_path, capsys, *args, "--max-games", "2")
    assert "stopped after 2 of 6 games" in first
    state = json.loads((tmp_path / "t.json").read_text())
    assert sorted(g["id"] for g in state["games"]) == [0, 1]
    second = run(tmp_path, capsys, *args)
    assert "(2 played before, 4 to play)" in second
    assert len(re.findall(r"^game \d+:", second, re.M)) == 4
    state = json.loads((tmp_path / "t.json").read_text())
    assert sorted(g["id"] for g in state["games"]) == list(range(6))
    assert len(read_pdn((tmp_path / "t.pdn").read_text())) == 6
    assert summary(second)["games"] == "6"
    # a finished tournament run again plays nothing more
    third = run(tmp_path, capsys, *args)
    assert not re.findall(r"^game \d+:", third, re.M) and summary(third)["games"] == "6"
    # another tournament on the same state file is refused, the state kept: fewer games a
    # pairing, another limit
    for other in (["--games", "1"], ["--games", "2", "--max-plies", "18"]):
        code = tournament.main(["--state", str(tmp_path / "t.json"), "--pdn",
                                str(tmp_path / "u.pdn"), *args[:-6], "--concurrency", "1",
                                "--max-plies", "16", *other])
        assert code == 2 and "another tournament" in capsys.readouterr().err
        assert len(json.loads((tmp_path / "t.json").read_text())["games"]) == 6


def test_a_tournament_goes_on_to_more_games_a_pairing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = [*three_rafles(), "--max-plies", "8", "--concurrency", "1"]
    run(tmp_path, capsys, *args, "--games", "1")
    before = {(g["a"], g["b"]): g for g in json.loads((tmp_path / "t.json").read_text())["games"]}
    out = run(tmp_path, capsys, *args, "--games", "2")
    assert "(3 played before, 3 to play)" in out
    games = json.loads((tmp_path / "t.json").read_text())["games"]
    # the schedule pairing by pairing: (0,1) game 1, game 2, then (0,2) ..., (1,2) ...
    assert [(g["id"], g["a"], g["b"]) for g in games] == [(0, 0, 1), (1, 0, 1), (2, 0, 2),
                                                          (3, 0, 2), (4, 1, 2), (5, 1, 2)]
    for gid in (0, 2, 4):        # the games played before kept, moved to their new places
        old = before[games[gid]["a"], games[gid]["b"]]
        was = old["id"] + 1
        assert games[gid]["pdn"] == old["pdn"].replace(f'[Round "{was}"]', f'[Round "{gid + 1}"]')
    pdn = sorted(read_pdn((tmp_path / "t.pdn").read_text()), key=lambda g: int(g.tags["Round"]))
    assert [g.tags["Round"] for g in pdn] == ["1", "2", "3", "4", "5", "6"]
    # the new game of each pairing is the next one: the same opening, colours swapped
    for gid in (1, 3, 5):
        assert pdn[gid].tags["White"] == pdn[gid - 1].tags["Black"]
        assert pdn[gid].moves[:2] == pdn[gid - 1].moves[:2]


def test_an_engine_that_dies_mid_game_forfeits_it_and_the_event_goes_on(tmp_path, capsys,
                                                                       monkeypatch):
    monkeypatch.chdir(ROOT)
    script = tmp_path / "dying.py"
    script.write_text(DYING)
    out = run(tmp_path, capsys, "--engine", "name=rafle", f"cmd={RAFLE} hub", "depth=1",
              "--engine", "name=dying", f"cmd={shlex.quote(sys.executable)} {script}",
              "--engine", "name=other", f"cmd={RAFLE} hub", "depth=1",
              "--games", "2", "--max-plies", "20", "--concurrency", "1")
    s = summary(out)
    assert s["games"] == "6"
    games = read_pdn((tmp_path / "t.pdn").read_text())
    lost = [g for g in games if "dying" in (g.tags["White"], g.tags["Black"])]
    assert len(lost) == 4
    for g in lost:        # every game of the dying engine ends when it dies, as its loss
        dying_white = g.tags["White"] == "dying"
        assert "crashed" in g.tags["Termination"] and g.result == ("0-2" if dying_white else "2-0")
    assert "incidents (4 games forfeited)" in out
    assert float(s["points.dying"]) == 0



def test_ray_refuses_an_engine_on_another_host_in_one_line(tmp_path, capsys):
    code = tournament.main(["--state", str(tmp_path / "t.json"), "--pdn", str(tmp_path / "t.pdn"),
                            "--engine", "name=r", "cmd=rafle hub", "--engine", "name=scan",
                            "proto=dxp", "host=10.0.0.7", "port=27531", "--ray"])
    assert code == 2 and not (tmp_path / "t.json").exists()
    assert capsys.readouterr().err == ("rafle tournament: --ray starts every engine on Ray actors, "
                                       "and engine scan is on another host (10.0.0.7:27531): "
                                       "play without --ray\n")

def test_a_dxp_engine_takes_part(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = run(tmp_path, capsys, "--engine", "name=hub", f"cmd={RAFLE} hub", "depth=2",
              "--engine", "name=dxp", "proto=dxp",
              f"cmd={RAFLE} dxp --listen 127.0.0.1:{{port}} --forever --depth 2 -q", "tc=60",
              "--games", "2", "--max-plies", "30", "--concurrency", "1")
    games = read_pdn((tmp_path / "t.pdn").read_text())
    assert len(games) == 2 and summary(out)["games"] == "2"
    for g in games:      # real games: both sides moved until the ply limit or the rules ended it
        assert "crashed" not in g.tags["Termination"] and "illegal" not in g.tags["Termination"]
        assert len(g.moves) >= 10


def test_engines_files_and_bad_descriptions(tmp_path):
    toml = tmp_path / "engines.toml"
    toml.write_text('[[engine]]\nname = "a"\ncommand = "rafle hub"\ntc = "5+0.1"\n'
                    'options = { eval = "hand", threads = 2 }\n\n'
                    '[[engine]]\nname = "b"\ncommand = "scan dxp {port}"\nprotocol = "dxp"\n')
    a, b = tournament.load_engines(str(toml))
    assert (a.name, a.command, a.tc, a.options) == ("a", "rafle hub", "5+0.1",
                                                    {"eval": "hand", "threads": "2"})
    assert b.protocol == "dxp"
    js = tmp_path / "engines.json"
    js.write_text(json.dumps({"engine": [{"name": "x", "command": "dame hub", "depth": 3}]}))
    assert tournament.load_engines(str(js))[0].depth == 3
    spec = tournament.parse_engine(["name=r", "cmd=rafle hub", "option.eval=hand", "nodes=500"])
    assert spec.options == {"eval": "hand"} and spec.nodes == 500
    for bad in (["name=r"], ["name=r", "cmd=x", "proto=uci"], ["name=r", "cmd=x", "colour=red"],
                ["name=r", "cmd=x", "tc=fast"], ["name=r", "cmd=dxp-engine", "proto=dxp"],
                ["name=r", "cmd=x", "depth=deep"], ["cmd"]):
        with pytest.raises(ValueError):
            tournament.parse_engine(bad)
    (tmp_path / "broken.toml").write_text("[[engine]\nname=")
    with pytest.raises(ValueError, match="broken.toml"):
        tournament.load_engines(str(tmp_path / "broken.toml"))


def test_bad_tournaments_are_refused(tmp_path, capsys):
    base = ["--state", str(tmp_path / "s.json"), "--pdn", str(tmp_path / "s.pdn")]
    assert tournament.main(base + ["--engine", "name=a", "cmd=x"]) == 2          # one engine
    assert tournament.main(base + ["--engine", "name=a", "cmd=x", "--engine", "name=a", "cmd=y"]) == 2
    assert tournament.main(base + ["--engines", str(tmp_path / "missing.toml")]) == 2
    err = capsys.readouterr().err
    assert "two engines" in err and "must differ" in err and "missing.toml" in err


def test_an_engine_without_games_has_no_rating(tmp_path):
    args = tournament.build_parser().parse_args(
        [*three_rafles(), "--state", str(tmp_path / "t.json"), "--pdn", str(tmp_path / "t.pdn")])
    event = tournament.Tournament(args, [tournament.parse_engine(e) for e in args.engine])
    event.done = {0: {"id": 0, "a": 0, "b": 1, "score_a": 0.5, "reason": "draw"},
                  1: {"id": 1, "a": 0, "b": 1, "score_a": 0.5, "reason": "draw"}}
    table = event.report()
    rows = {line.split()[1]: line.split() for line in table[1:4]}
    assert rows["d3"][3:] == ["0", "0.00", "n/a", "n/a"]
    for name in ("d1", "d2"):
        assert rows[name][3] == "2" and rows[name][5] == "+0"     # never -0
    assert summary("\n".join(table))["elo.d3"] == "none"


def test_the_rating_fit_recovers_known_strengths():
    rng = random.Random(4)
    true = np.array([0.0, 120.0, 300.0, -200.0, 60.0])
    games = []
    for i in range(5):
        for j in range(i + 1, 5):
            p = 1.0 / (1.0 + 10 ** ((true[j] - true[i]) / 400.0))
            for _ in range(300):
                u = rng.random()
                draw = 0.4 * min(p, 1.0 - p)
                games.append((i, j, 1.0 if u < p - draw / 2 else 0.5 if u < p + draw / 2 else 0.0))
    elo, err = fit_ratings(5, games)
    expected = true - true.mean()
    assert abs(elo.mean()) < 1e-6
    assert np.all(np.abs(elo - expected) < np.maximum(err, 25.0)), (elo, expected, err)
    assert np.all((err > 10) & (err < 60))
    # more games, smaller error bars; one engine's results reversed, another order
    elo2, err2 = fit_ratings(5, games * 4)
    assert np.all(err2 < err * 0.6)
    flipped = [(i, j, 1.0 - s) if 2 in (i, j) else (i, j, s) for i, j, s in games]
    assert fit_ratings(5, flipped)[0][2] < elo[2] - 300
    # an engine that won every game still gets a finite rating above the rest
    sweep, _ = fit_ratings(3, [(0, 1, 1.0), (0, 2, 1.0), (1, 2, 0.5)] * 5)
    assert np.all(np.isfinite(sweep)) and sweep[0] > sweep[1] + 100


def test_openings_from_a_pdn_file_and_from_fens(tmp_path, capsys, monkeypatch):
    from protocol.tools.match.openings import load_openings
    pdn = tmp_path / "starts.pdn"
    pdn.write_text('[Event "a"]\n[Result "*"]\n\n1. 32-28 19-23 2. 28x19 14x23 *\n\n'
                   '[Event "b"]\n[FEN "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:'
                   'B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"]\n[Result "*"]\n\n1. 33-29 *\n')
    openings = load_openings(pdn)
    assert [len(o.moves) for o in openings] == [4, 1]
    with pytest.raises(Exception, match="russian"):
        load_openings(pdn, __import__("engine").get_variant("russian"))
    monkeypatch.chdir(ROOT)
    run(tmp_path, capsys, "--engine", "name=a", f"cmd={RAFLE} hub", "depth=1", "--engine", "name=b",
        f"cmd={RAFLE} hub", "depth=1", "--games", "4", "--max-plies", "12", "--openings", str(pdn))
    games = read_pdn((tmp_path / "t.pdn").read_text())
    assert [str(g.moves[0]) for g in games[:2]] == [str(openings[0].moves[0])] * 2
    assert [len(g.moves) for g in games] == [12] * 4


def test_a_russian_round_robin(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run(tmp_path, capsys, "--engine", "name=a", f"cmd={RAFLE} hub", "depth=1", "--engine", "name=b",
        f"cmd={RAFLE} hub", "depth=2", "--games", "2", "--max-plies", "20", "--variant", "russian")
    games = read_pdn((tmp_path / "t.pdn").read_text())
    assert len(games) == 2 and all(g.game().position.variant.name == "russian" for g in games)


def test_ctrl_c_keeps_the_finished_games_and_the_same_command_goes_on(tmp_path):
    import signal
    import subprocess
    import time
    state = tmp_path / "c.json"
    # Each game takes about a second (30 plies at 30 ms a move), so that the Ctrl-C sent
    # after the second game lands long before the twelfth, even on a loaded machine.
    engines = []
    for name in ("a", "b", "c"):
        engines += ["--engine", f"name={name}", f"cmd={RAFLE} hub", "movetime=0.03"]
    argv = [sys.executable, "-m", "protocol.cli", "tournament", "--state", str(state),
            "--pdn", str(tmp_path / "c.pdn"), *engines, "--games", "4", "--max-plies", "30",
            "--concurrency", "1"]
    # A shell without job control starts background jobs with SIGINT ignored, and the child
    # would inherit that: give it the default disposition, as a terminal's Ctrl-C finds it.
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if state.exists() and len(json.loads(state.read_text())["games"]) >= 2:
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    kept = len(json.loads(state.read_text())["games"])
    assert 2 <= kept < 12 and "interrupted" in out
    again = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"({kept} played before, {12 - kept} to play)" in again.stdout
    ids = [g["id"] for g in json.loads(state.read_text())["games"]]
    assert sorted(ids) == list(range(12))
    assert len(read_pdn((tmp_path / "c.pdn").read_text())) == 12


def test_ctrl_c_to_the_whole_group_drops_the_games_in_progress_and_forfeits_none(tmp_path):
    # A terminal's Ctrl-C, and `timeout`, signal the whole process group (timeout twice: the
    # manager, then the group). Engines of their own session go on until the manager stops
    # the game in order: no game is scored as a crash, and the second signal prints no traceback.
    import os
    import signal
    import subprocess
    import time
    state = tmp_path / "g.json"
    argv = [sys.executable, "-m", "protocol.cli", "tournament", "--state", str(state),
            "--pdn", str(tmp_path / "g.pdn"), "--engine", "name=a", f"cmd={RAFLE} hub", "movetime=0.03",
            "--engine", "name=b", f"cmd={RAFLE} hub", "movetime=0.03", "--games", "40",
            "--max-plies", "30", "--concurrency", "2"]
    # (SIGINT at its default disposition, as in the test above: a background job inherits it ignored.)
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if state.exists() and len(json.loads(state.read_text())["games"]) >= 2:
            break
        time.sleep(0.1)
    time.sleep(0.3)                     # both workers are in the middle of a game
    proc.send_signal(signal.SIGINT)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "interrupted" in out
    games = json.loads(state.read_text())["games"]
    assert 2 <= len(games) < 40
    assert not [g for g in games if "crashed" in g["reason"] or "hung" in g["reason"]]
    assert "forfeited" not in out
