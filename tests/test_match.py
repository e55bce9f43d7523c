"""``rafle match``: statistics, openings, the Hub client against misbehaving engines,
and a real match between two Rafle Hub processes."""
import json
import math
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import VARIANTS, BadInput, get_variant, legal_moves, move_from_hub, move_to_hub, play, start_position
from engine.pdn import read_pdn
from protocol.tools.match import cli as match
from protocol.tools.match.elo import (Sprt, elo_estimate, format_elo, signed, elo_from_score, score_from_elo,
                                      sprt_bounds, sprt_llr)
from protocol.hub.client import HubClient, parse_line
from protocol.tools.match import openings as openings_module
from protocol.tools.match.openings import load_openings, parse_opening
from protocol.tools.match.runner import parse_tc, per_engine
from protocol.tools.match.score import EngineStats, Score, overshoot_text

ROOT = Path(__file__).resolve().parents[1]

# A Hub engine that plays the first legal move, or misbehaves as asked on the command line.
FAKE = r'''
import sys, time
mode = sys.argv[1]
if mode in ("good", "sleepy"):   # load the rules before "ready", so that moves come at once
    from engine import legal_moves, move_from_hub, move_to_hub, pos_from_hub, play, start_position
    legal_moves(start_position())
pos = None
def out(line):
    print(line, flush=True)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    cmd = words[0]
    if cmd == "hub":
        out("id name=fake-" + mode)
        out("wait")
    elif cmd == "init":
        out("ready")
    elif cmd == "ping":
        out("pong")
    elif cmd == "quit":
        break
    elif cmd == "pos":
        pos = line
    elif cmd == "go":
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            continue
        if mode == "slow":
            time.sleep(1.0)
        if mode == "sleepy":
            time.sleep(0.05)
        if mode == "illegal":
            out("done move=1-2")
            continue
        body = pos.split("pos=")[1]
        p = pos_from_hub(body.split()[0])
        for m in body.split('moves="')[1].split('"')[0].split():
            p = play(p, move_from_hub(p, m))
        out("")                                   # noise a client must survive
        out("info depth=1 garbage")
        out("done move=" + move_to_hub(legal_moves(p)[0]))
'''


def fake(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "fake_hub.py"
    script.write_text(FAKE)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {mode}"


def summary(text: str) -> dict[str, str]:
    line = [l for l in text.splitlines() if l.startswith("match ")][-1]
    return parse_line(line)[1]


# ----- statistics ------------------------------------------------------------------

def test_elo_on_known_results():
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)     # 400 log10(3)
    assert score_from_elo(elo_from_score(0.3)) == pytest.approx(0.3)
    est = elo_estimate(60, 20, 20)
    assert est.score == pytest.approx(0.7) and est.elo == pytest.approx(147.19, abs=0.01)
    # per-game sd = sqrt(0.6*0.09 + 0.2*0.04 + 0.2*0.49) = 0.4, so the score is 0.7 +- 1.96*0.04
    assert est.low == pytest.approx(elo_from_score(0.7 - 1.959964 * 0.04), abs=0.01)
    assert est.high == pytest.approx(elo_from_score(0.7 + 1.959964 * 0.04), abs=0.01)
    even = elo_estimate(10, 10, 10)
    assert even.elo == 0.0 and even.low == pytest.approx(-even.high)
    assert elo_estimate(0, 0, 0).error == math.inf


def test_elo_lines_say_n_a_where_the_games_define_nothing():
    assert format_elo(0, 0, 0) == "Elo n/a (no games)"
    assert format_elo(3, 0, 0) == "Elo n/a (every game won)"
    assert format_elo(0, 0, 2) == "Elo n/a (every game lost)"
    assert format_elo(0, 4, 0) == "Elo +0.0 +- n/a"              # no spread: no error bar
    assert format_elo(3, 1, 0) == f"Elo {signed(elo_from_score(0.875))} +- n/a"   # reaches 100%
    est = elo_estimate(60, 20, 20)
    assert format_elo(60, 20, 20) == f"Elo +{est.elo:.1f} +- {est.error:.1f}"
    assert elo_estimate(10000, 1, 10001).elo < 0
    assert format_elo(10000, 1, 10001) == f"Elo +0.0 +- {elo_estimate(10000, 1, 10001).error:.1f}"
    assert [signed(x) for x in (-0.04, -0.0, 0.04, -1.25, 3)] == ["+0.0", "+0.0", "+0.0", "-1.2", "+3.0"]
    assert signed(-0.4, 0) == "+0"


def test_progress_lines_show_no_minus_zero_and_no_infinity():
    score = Score(["a", "b"], 4)
    assert score.table_line().endswith("a vs b: +0 =0 -0  50.0%  Elo n/a (no games)")
    for line in [score.table_line()] + score.report(aborted=True):
        assert not re.search(r"\binf\b|-0\.0+\b|Elo -0\b", line), line
    assert " elo=none error=none " in score.summary()


def test_overshoot_is_none_when_every_move_kept_its_budget():
    stats = EngineStats("a")
    assert overshoot_text(stats.max_overshoot) == "- (no move had a budget)"
    stats.record(0.54, 1.0, 3.0)
    stats.record(0.2, 1.0, 2.8)
    assert overshoot_text(stats.max_overshoot) == "none (the closest move 0.460s within its budget)"
    stats.record(1.25, 1.0, 1.55)
    assert overshoot_text(stats.max_overshoot) == "0.250s"
    score = Score(["a", "b"], 2, stats=[EngineStats("a"), EngineStats("b")])
    score.stats[0].record(0.54, 1.0, 3.0)
    assert "largest overshoot none (the closest move 0.460s within its budget)" in score.report(False)[0]


def test_sprt_llr_on_known_results():
    assert sprt_bounds(0.05, 0.05) == pytest.approx((-2.944439, 2.944439))
    # Without draws the GSPRT has a closed form: W log(s1/s0) + L log((1-s1)/(1-s0)).
    s0, s1 = score_from_elo(0), score_from_elo(50)
    exact = 7 * math.log(s1 / s0) + 3 * math.log((1 - s1) / (1 - s0))
    assert sprt_llr(7, 0, 3, 0, 50) == pytest.approx(exact, rel=1e-6)
    # With many games it agrees with the usual normal approximation.
    w, d, l = 100, 300, 80
    n, s = 480, (100 + 150) / 480
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s ** 2) / n
    s0, s1 = score_from_elo(0), score_from_elo(10)
    assert sprt_llr(w, d, l, 0, 10) == pytest.approx(n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var),
                                                     rel=0.01)
    sprt = Sprt.parse("0,10")
    assert sprt.status(100, 300, 80)[1] is None
    assert sprt.status(400, 300, 100)[1] == "H1"
    assert sprt.status(100, 300, 400)[1] == "H0"
    with pytest.raises(ValueError):
        Sprt.parse("10,0")


def test_time_controls_and_per_engine_values():
    assert parse_tc("10+0.1") == (10.0, 0.1, 0)
    assert parse_tc("40/300") == (300.0, 0.0, 40)
    assert per_engine("4,2", int) == (4, 2) and per_engine("3", int) == (3, 3)
    for zero in ("0+1", "40/0m"):
        with pytest.raises(ValueError, match="the base time must be more than 0"):
            parse_tc(zero)


@pytest.mark.parametrize("text, expected", [("5m", (300.0, 0.0, 0)), ("90s", (90.0, 0.0, 0)),
                                            ("1m30s", (90.0, 0.0, 0)), ("5m+2s", (300.0, 2.0, 0)),
                                            ("40/5m", (300.0, 0.0, 40)), ("1h+0.5", (3600.0, 0.5, 0)),
                                            (".5+.1", (0.5, 0.1, 0)), ("40/2m+1s", (120.0, 1.0, 40))])
def test_time_controls_take_units(text, expected):
    assert parse_tc(text) == expected


@pytest.mark.parametrize("text", ["5x", "", "+1", "5m+", "nan", "inf", "-5", "1e3", "a/5m",
                                  "40/5m/3", "1h2h", "5m 2s"])
def test_a_bad_time_control_names_the_accepted_forms(text):
    with pytest.raises(ValueError) as caught:
        parse_tc(text)
    message = str(caught.value)
    assert message.startswith(f"bad time control {text!r}") and "could not convert" not in message
    assert "5m+2s" in message


# ----- openings ----------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_builtin_openings_are_legal_varied_and_level(name):
    variant = get_variant(name)
    openings = load_openings("builtin", variant)
    assert len(openings) > 100
    assert len({o.moves[0] for o in openings[:30]}) >= 4      # shuffled: a prefix is varied
    for o in openings:
        assert o.start == start_position(variant) and len(o.moves) == 3
        pos = o.position
        assert legal_moves(pos)
        assert sum(pos.count(0)) - sum(pos.count(1)) in (-1, 0, 1)   # mid-exchange at most


def test_a_variant_without_builtin_openings_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(openings_module, "DATA", tmp_path)       # no openings file there
    assert openings_module.builtin(get_variant("brazilian")) is None
    with pytest.raises(BadInput, match="no built-in openings for brazilian"):
        load_openings("builtin", get_variant("brazilian"))


def test_opening_lines_and_errors(tmp_path):
    o = parse_opening("B:W31-50:B1-20 | 19-23")
    assert o.start.turn == 1 and len(o.moves) == 1
    assert len(parse_opening("1. 32-28 19-23 2. 28x19").moves) == 3
    bad = tmp_path / "bad.txt"
    bad.write_text("# fine\n32-28\n32-28 32-28\n")
    with pytest.raises(BadInput, match="bad.txt line 3"):
        load_openings(bad)


# ----- the Hub client and the runner with misbehaving engines ------------------------------

def test_hub_client_handshake_and_search(tmp_path):
    client = HubClient(fake(tmp_path, "good"))
    try:
        client.start(60)
        assert client.name == "fake-good"
        client.ping()
        now = time.monotonic()
        reply = client.search("W" + "b" * 20 + "e" * 10 + "w" * 20, ["32-28"], ["depth=1"],
                              now + 60, now + 30)
        after = play(start_position(), move_from_hub(start_position(), "32-28"))
        assert reply.move == move_to_hub(legal_moves(after)[0])
    finally:
        client.quit()
    assert not client.alive()


@pytest.mark.parametrize("mode, limit, counter", [
    ("illegal", ["--depth", "1"], "illegal2"),
    ("crash", ["--depth", "1"], "crashes2"),
    ("hang", ["--movetime", "1,0.05", "--hang-timeout", "0.5"], "crashes2"),
    ("slow", ["--tc", "60+0,0.3+0"], "time_losses2"),
])
def test_a_misbehaving_engine_loses_every_game(tmp_path, capsys, mode, limit, counter):
    pdn = tmp_path / "games.pdn"
    code = match.main(["--engine1", fake(tmp_path, "good"), "--engine2", fake(tmp_path, mode),
                       "--games", "2", "--openings", "startpos", "--pdn", str(pdn)] + limit)
    out = capsys.readouterr().out
    assert code == 0
    s = summary(out)
    assert (s["games"], s["wins"], s["draws"], s["losses"]) == ("2", "2", "0", "0")
    assert s[counter] == "2"                      # the engine was restarted for game 2
    games = read_pdn(pdn.read_text())
    assert [g.result for g in games] == ["0-2", "2-0"] or [g.result for g in games] == ["2-0", "0-2"]
    assert all(g.tags["Black" if g.result == "2-0" else "White"] == "fake-" + mode for g in games)


def test_concurrent_games_are_all_counted(tmp_path, capsys):
    pdn = tmp_path / "games.pdn"
    code = match.main(["--engine1", fake(tmp_path, "good"), "--engine2", fake(tmp_path, "good"),
                       "--games", "2", "--concurrency", "2", "--depth", "1",
                       "--max-plies", "30", "--pdn", str(pdn)])
    assert code == 0
    s = summary(capsys.readouterr().out)
    assert s["games"] == "2" and int(s["wins"]) + int(s["draws"]) + int(s["losses"]) == 2
    games = read_pdn(pdn.read_text())
    assert sorted(int(g.tags["Round"]) for g in games) == [1, 2]
    for g in games:
        assert g.game().position is not None and len(g.moves) <= 30


@pytest.mark.parametrize("tc, kind", [("4/2+0", "periods"), ("2+0.1", "games")])
def test_the_share_of_its_clock_each_engine_used_is_reported(tmp_path, capsys, tc, kind):
    code = match.main(["--engine1", fake(tmp_path, "sleepy"), "--engine2", fake(tmp_path, "good"),
                       "--name1", "sleepy", "--name2", "good", "--games", "2", "--tc", tc,
                       "--max-plies", "20", "--openings", "startpos"])
    assert code == 0
    out = capsys.readouterr().out
    shares = {}
    for name in ("sleepy", "good"):
        line = [l for l in out.splitlines() if l.startswith(name + ":")][0]
        if kind == "periods":        # 10 moves a game at 4 moves a period: 2 periods a game
            found = re.search(r"clock used at the move limit ([\d.]+)% \(mean of (\d+) periods", line)
            assert found and found.group(2) == "4", line
        else:
            found = re.search(r"clock used by the game's end ([\d.]+)%", line)
            assert found, line
        shares[name] = float(found.group(1))
        assert 0 <= shares[name] < 100      # an engine that answers at once may print 0.0
    assert shares["sleepy"] > shares["good"]     # 50 ms a move against next to nothing


def test_first_opening_starts_further_in_the_set_and_goes_round(tmp_path, capsys):
    openings = tmp_path / "o.txt"
    openings.write_text("32-28 19-23\n33-28 18-23\n34-29 17-22\n")
    pdn = tmp_path / "games.pdn"
    code = match.main(["--engine1", fake(tmp_path, "good"), "--engine2", fake(tmp_path, "good"),
                       "--games", "4", "--depth", "1", "--max-plies", "6", "--openings",
                       str(openings), "--first-opening", "3", "--pdn", str(pdn)])
    assert code == 0
    assert re.findall(r"opening (\d+)\)", capsys.readouterr().out) == ["3", "3", "1", "1"]
    sets = load_openings(openings)
    assert [g.moves[:2] for g in read_pdn(pdn.read_text())] == [list(sets[i].moves)
                                                                 for i in (2, 2, 0, 0)]
    with pytest.raises(SystemExit):
        match.main(["--first-opening", "0"])
    assert "--first-opening must be at least 1" in capsys.readouterr().err


def test_bad_arguments_and_an_engine_that_never_starts_are_reported(tmp_path, capsys):
    assert match.main(["--openings", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read openings" in capsys.readouterr().err
    assert match.main(["--engine1", str(tmp_path / "no-such-engine"), "--depth", "1"]) == 1
    err = capsys.readouterr().err
    assert "engine 1" in err and "failed to start" in err


# ----- the real thing -----------------------------------------------------------------

def test_match_between_two_rafle_hub_processes(tmp_path):
    pdn = tmp_path / "rafle.pdn"
    run = subprocess.run(
        [sys.executable, "-m", "protocol.cli", "match", "--engine1", f"{sys.executable} -m protocol.cli hub",
         "--engine2", f"{sys.executable} -m protocol.cli hub", "--games", "2", "--depth", "2",
         "--max-plies", "40", "--pdn", str(pdn)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    s = summary(run.stdout)
    assert s["games"] == "2" and int(s["wins"]) + int(s["draws"]) + int(s["losses"]) == 2
    assert s["crashes1"] == s["crashes2"] == s["illegal1"] == s["illegal2"] == "0"
    games = read_pdn(pdn.read_text())
    assert len(games) == 2
    for g in games:
        assert g.tags["GameType"] == "20" and g.result in ("2-0", "1-1", "0-2")
        assert len(g.moves) <= 40
        assert g.moves[:3] == list(load_openings("builtin")[0].moves)
    assert games[0].tags["White"] == games[1].tags["Black"]
    assert re.search(r"Elo [+-]\d+\.\d \+- ", run.stdout)
    if sys.platform.startswith("linux"):         # resident memory is read from /proc
        memory = re.findall(r"memory of \S+ \(1 process\): ([\d.]+) MB after its first game, "
                            r"([\d.]+) MB after its last", run.stdout)
        assert len(memory) == 2 and all(float(a) > 10 for a, _ in memory), run.stdout


def test_sprt_stops_the_match_once_decided(tmp_path, capsys):
    code = match.main(["--engine1", fake(tmp_path, "good"), "--engine2", fake(tmp_path, "illegal"),
                       "--games", "40", "--depth", "1", "--openings", "startpos",
                       "--sprt", "0,200,0.05,0.05"])
    assert code == 0
    out = capsys.readouterr().out
    s = summary(out)
    assert s["sprt"] == "H1" and int(s["games"]) < 40
    assert s["wins"] == s["games"] and s["illegal2"] == s["games"]
    assert "SPRT: H1 accepted" in out


# ----- --state: a match that goes on ----------------------------------------------------

def test_a_match_with_a_state_file_goes_on_playing_only_the_games_it_lacks(tmp_path, capsys):
    """A stop is a state file without some games (as Ctrl-C or a lost Ray head leaves it):
    the same command plays those only, and the PDN and the report cover the whole match."""
    state, pdn = tmp_path / "m.json", tmp_path / "m.pdn"
    command = ["--engine1", fake(tmp_path, "good"), "--engine2", fake(tmp_path, "good"),
               "--games", "4", "--depth", "1", "--max-plies", "10", "--pdn", str(pdn),
               "--state", str(state)]
    assert match.main(command) == 0
    whole = summary(capsys.readouterr().out)
    kept = json.loads(state.read_text())
    assert [g["number"] for g in kept["games"]] == [0, 1, 2, 3]
    kept["games"] = [g for g in kept["games"] if g["number"] in (0, 2)]
    kept["stats"] = None
    state.write_text(json.dumps(kept))

    assert match.main(command) == 0
    out = capsys.readouterr().out
    assert "match: 4 games, depth=1, " in out and f", 2 played before ({state})" in out
    assert re.findall(r"^game (\d+):", out, re.M) == ["2", "4"]
    assert sorted(int(g.tags["Round"]) for g in read_pdn(pdn.read_text())) == [1, 2, 3, 4]
    again = summary(out)
    assert again["games"] == "4" and again["engine1"] == whole["engine1"] == "fake-good"
    assert len(json.loads(state.read_text())["games"]) == 4

    assert match.main(command) == 0                      # nothing left: the report only
    out = capsys.readouterr().out
    assert "game " not in out and summary(out)["games"] == "4"


def test_a_state_file_of_another_match_is_refused_and_the_pdn_kept(tmp_path, capsys):
    state, pdn = tmp_path / "m.json", tmp_path / "m.pdn"
    command = ["--engine1", fake(tmp_path, "good"), "--engine2", fake(tmp_path, "good"),
               "--games", "2", "--depth", "1", "--max-plies", "6", "--pdn", str(pdn),
               "--state", str(state)]
    assert match.main(command) == 0
    capsys.readouterr()
    games = pdn.read_text()
    assert match.main([*command, "--max-plies", "8"]) == 2
    err = capsys.readouterr().err
    assert err == (f"rafle match: {state} holds another match (other max_plies): give another "
                   f"--state file to start a new one\n")
    assert pdn.read_text() == games
    state.write_text("{")
    assert match.main(command) == 2
    assert f"rafle match: cannot read the match state {state}: " in capsys.readouterr().err
