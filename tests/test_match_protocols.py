"""The match runner with DXP and Hub version 1 engines (fakes in Python: ``fake_dxp.py``,
``fake_hub1.py``, ``fake_hub.py first``): a DXP engine that ends games at its move limit is
adjudicated, never forfeited; its clock is what its GAMEREQ said; what it sends in place
of a move is named; the scoring of each GAMEEND result code; Hub-1's lines."""
import re
import shlex
import sys
from pathlib import Path

import pytest

from engine import BLACK, WHITE, egdb_dirs, egdb_load, egdb_value_name, get_variant, pos_from_fen
from engine.pdn import read_pdn
from protocol.hub.hub1 import hub1_position, level_line
from protocol.tools.match import cli as match
from protocol.tools.match import tournament
from protocol.tools.match.adjudicate import judge_game_end
from protocol.tools.match.dxp_client import DxpGameEnd, gamereq_minutes
from protocol.dxp.wire import GameEnd

ROOT = Path(__file__).resolve().parents[1]
PY = shlex.quote(sys.executable)
HUB = f"{PY} {shlex.quote(str(ROOT / 'tests' / 'fake_hub.py'))} first"
HUB1 = f"{PY} {shlex.quote(str(ROOT / 'tests' / 'fake_hub1.py'))}"


def dxp(mode: str, requests: Path | None = None) -> str:
    tail = f" {shlex.quote(str(requests))}" if requests else ""
    return f"{PY} {shlex.quote(str(ROOT / 'tests' / 'fake_dxp.py'))} {{port}} {mode}{tail}"


@pytest.fixture(autouse=True)
def shipped_databases_only(tmp_path, monkeypatch):
    """The endgame databases shipped with Rafle only (the user's own are not read)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)


def play_match(tmp_path, capsys, *args) -> tuple[str, list]:
    pdn = tmp_path / "m.pdn"
    code = match.main([*args, "--pdn", str(pdn), "--init-timeout", "60"])
    out = capsys.readouterr().out
    assert code == 0, out
    return out, read_pdn(pdn.read_text())


# ----- scoring a GAMEEND ---------------------------------------------------------------

class Known:
    """Endgame databases that know one result for every position, or nothing (None)."""

    def __init__(self, result):
        self.value = result

    def result(self, pos):
        return self.value


def ended(reason: int, moves: int, limit: int) -> DxpGameEnd:
    return DxpGameEnd("x", f"E{reason}0", GameEnd(reason, 0), moves, limit, "")


@pytest.mark.parametrize("turn", [WHITE, BLACK])
def test_each_gameend_result_code_is_scored_as_the_spec_and_the_move_limit_say(turn):
    pos = pos_from_fen(f"{'W' if turn == WHITE else 'B'}:W46,47:B5")
    own, other = ("2-0", "0-2") if turn == WHITE else ("0-2", "2-0")
    judge = lambda end, known=None: judge_game_end(end, pos, "eng", Known(known))
    # 1 "I lose": a resignation stands even where the databases see a draw
    assert judge(ended(1, 3, 75), "1-1").result == other
    # 2 and 3: the claim, unless the databases know better
    assert judge(ended(2, 3, 75)).result == "1-1"
    assert judge(ended(3, 3, 75)).result == own
    v = judge(ended(3, 3, 75), "1-1")
    assert v.result == "1-1" and "the endgame databases say a draw" in v.reason
    assert judge(ended(2, 3, 0), own).result == own
    # 0 at or past the limit: the databases, else a draw
    v = judge(ended(0, 75, 75))
    assert v.result == "1-1" and "move limit (75), adjudicated a draw" in v.reason
    v = judge(ended(0, 76, 75), other)
    assert v.result == other and "adjudicated by the endgame databases: its loss" in v.reason
    # 0 before the limit, or with none: a forfeit
    for end in (ended(0, 74, 75), ended(0, 10, 0)):
        v = judge(end, "1-1")
        assert v.result == other and "a forfeit" in v.reason and "lost on time" not in v.reason
    assert "eng sent GAMEEND 'E00' after 74 moves" in judge(ended(0, 74, 75)).reason


def test_the_gamereq_time_field_is_the_dxp_engines_clock():
    assert gamereq_minutes(60) == 1.0 and gamereq_minutes(3) == 0.05
    assert gamereq_minutes(150) == 2.5 and gamereq_minutes(0.1) == 0.01
    assert gamereq_minutes(10 ** 6) == 999


def test_hub1_level_lines_are_moves_and_milliseconds():
    assert level_line(["time=12.000 inc=0.1"]) == "level 0 12000 100"
    assert level_line(["moves=5 time=3.5 inc=0"]) == "level 5 3500 0"
    assert level_line(["move-time=0.25"]) == "time 250"
    with pytest.raises(ValueError):
        level_line(["depth=3"])


def test_hub1_positions_have_the_side_to_move_in_lower_case():
    """Scan 2.0 reads ``w``/``b`` only (``pos_from_hub`` in its fen.cpp)."""
    start = "W" + "b" * 20 + "e" * 10 + "w" * 20
    assert hub1_position(start) == "w" + start[1:]
    assert hub1_position("B" + start[1:]) == "b" + start[1:]


# ----- whole events with fake engines --------------------------------------------------

def test_a_hub1_engine_that_refuses_the_position_loses_the_game_and_says_why(tmp_path, capsys):
    """Scan 2.0 answers a position it cannot read ``error bad position`` and then searches
    the board it had before: its move is no answer, the game is its refusal."""
    out, games = play_match(tmp_path, capsys, "--protocol", "hub,hub1", "--engine1", HUB,
                            "--engine2", f"{HUB1} refuse", "--tc", "4/60", "--games", "2",
                            "--concurrency", "1", "--max-plies", "20")
    assert len(games) == 2
    for g in games:
        reason = g.tags["Termination"]
        assert " refused the game: it answered 'error bad position' to 'pos " in reason, reason
        hub1_white = g.tags["White"] != g.tags["Black"] and "hub1" in g.tags["White"]
        assert g.result == ("0-2" if hub1_white else "2-0"), (g.tags, g.result)
        assert "illegal" not in reason

def test_a_tournament_of_a_dxp_engine_that_ends_at_its_move_limit_and_a_hub1_engine(tmp_path,
                                                                                    capsys):
    requests = tmp_path / "requests.txt"
    code = tournament.main(["--state", str(tmp_path / "t.json"), "--pdn", str(tmp_path / "t.pdn"),
                            "--engine", "name=hub", f"cmd={HUB}",
                            "--engine", "name=dxp", "proto=dxp", f"cmd={dxp('limit', requests)}",
                            "--engine", "name=old", "proto=hub1", f"cmd={HUB1}",
                            "--games", "2", "--tc", "4/60", "--max-plies", "30",
                            "--concurrency", "1", "--init-timeout", "60",
                            "--log", str(tmp_path / "log")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "dxp (DXP): GAMEREQ time field 001 and a move limit of 4: its clock is 60 s for the " \
           "game" in out
    assert "incidents" not in out and "lost on time" not in out and "crashed" not in out
    games = read_pdn((tmp_path / "t.pdn").read_text())
    assert len(games) == 6
    for g in games:
        reason = g.tags["Termination"]
        if "dxp" in (g.tags["White"], g.tags["Black"]):
            # it ended every game after its 4th move: a draw, as no database holds the position
            assert reason.startswith("dxp sent GAMEEND 'E00' and CHAT 'game ended (4 moves "
                                     "played, unknown result)' after 4 moves: the move limit (4), "
                                     "adjudicated a draw"), reason
            assert g.result == "1-1" and g.tags["TimeControl"] in ("60+0", "4/60+0")
        else:               # Hub against Hub-1: both moved until the ply limit or the rules' end
            assert len(g.moves) >= 10 and ("move limit" == reason) == (len(g.moves) == 30)
    # every DXP message and Hub line is in the log, the GAMEEND and its confirmation too
    log = (tmp_path / "log").read_text()
    assert log.count(".dxp <- E00") == log.count(".dxp -> E00") == 4 and ".old < go" in log
    # the engine was told 1 minute and 4 moves in every game, as follower of either colour
    assert sorted(requests.read_text().split("\n")[:-1]) == ["1.0 4 W"] * 2 + ["1.0 4 Z"] * 2


def test_each_engine_move_carries_its_score_depth_and_time_in_the_pdn(tmp_path, capsys):
    """As cutechess writes them: ``{+0.50/1 0.012s}`` after a Hub engine's move (its last
    info line), ``{0.012s}`` after a DXP engine's, which says nothing else."""
    out, games = play_match(tmp_path, capsys, "--protocol", "hub,dxp", "--engine1", HUB,
                            "--engine2", dxp("limit"), "--tc", "4/60", "--games", "2",
                            "--concurrency", "1")
    for g in games:
        hub_moves_white = g.tags["White"] == "fake"              # fake_hub.py's id name
        said = [g.notes[i + 1].comment for i in range(len(g.moves)) if i + 1 in g.notes]
        assert len(said) == len(g.moves) - 3                     # all but the 3 opening plies
        for ply, comment in zip(range(3, len(g.moves)), said):
            hub = (ply % 2 == 0) == hub_moves_white
            form = r"\+0\.50/1 \d+\.\d{3}s" if hub else r"\d+\.\d{3}s"
            assert re.match(form + r"( |$)", comment), (ply, comment)   # the last: + the end


def test_a_dxp_engine_is_timed_by_the_clock_its_gamereq_gave_it(tmp_path, capsys):
    requests = tmp_path / "requests.txt"
    out, games = play_match(tmp_path, capsys, "--protocol", "hub,dxp", "--engine1", HUB,
                            "--engine2", dxp("slow", requests), "--tc", "3+0.5", "--games", "1",
                            "--name2", "slowpoke")
    assert "slowpoke (DXP): GAMEREQ time field .05 and no move limit: its clock is 3 s for the " \
           "game (DXP has no increment: the 0.5 s is not given)" in out
    assert requests.read_text() == "0.05 0 Z\n"
    assert games[0].tags["Termination"] == ("slowpoke lost on time (no move within 3.000s; it "
                                            "sent CHAT 'thinking')")


@pytest.mark.parametrize("mode, expected, result", [
    ("backreq", "slowpoke broke the protocol: fake dxp sent 'B001W' instead of a MoveMsg", "2-0"),
    ("resign", "slowpoke sent GAMEEND 'E10' after 1 move: it resigns", "2-0"),
    ("early", "slowpoke sent GAMEEND 'E00' after 1 move: it ended the game before the move "
              "limit (40) without a result, a forfeit", "2-0")])
def test_what_a_dxp_engine_sends_in_place_of_a_move_decides_the_game(tmp_path, capsys, mode,
                                                                      expected, result):
    out, games = play_match(tmp_path, capsys, "--protocol", "hub,dxp", "--engine1", HUB,
                            "--engine2", dxp(mode), "--tc", "40/1", "--games", "1",
                            "--name2", "slowpoke")
    assert games[0].tags["Termination"] == expected and games[0].result == result
    assert "lost on time" not in out


def test_the_move_limit_is_adjudicated_by_the_shipped_endgame_databases(tmp_path, capsys):
    (tmp_path / "open.txt").write_text("W:WK46,47:B5\n")     # White wins
    out, games = play_match(tmp_path, capsys, "--protocol", "dxp,hub", "--engine1",
                            dxp("limit-stop"), "--engine2", HUB, "--tc", "1/60", "--games", "2",
                            "--openings", str(tmp_path / "open.txt"), "--name1", "dxp")
    tables = egdb_load(egdb_dirs(), get_variant("international"))
    assert len(games) == 2
    for g in games:
        pos = g.game().position
        value = egdb_value_name(tables.probe(pos))
        assert value in ("win", "loss"), "the test position should be decided"
        winner = pos.turn if value == "win" else 1 - pos.turn
        assert g.result == ("2-0" if winner == WHITE else "0-2")
        assert "the move limit (1), adjudicated by the endgame databases" in g.tags["Termination"]
    # it left after each game (stop code 1) and was started again for the next: no forfeit
    assert "failed to start" not in out and "crashed" not in out


def test_a_dxp_engine_still_running_at_exit_is_killed():
    # Engines run in a session of their own: one that outlived a stopped game's wait is
    # killed at the manager's exit instead of serving on as an orphan.
    import subprocess
    from protocol.tools.match import dxp_client
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                            start_new_session=True)
    dxp_client._LIVE.add(proc)
    try:
        dxp_client._kill_live()
        assert proc.wait(10) is not None
    finally:
        dxp_client._LIVE.discard(proc)
