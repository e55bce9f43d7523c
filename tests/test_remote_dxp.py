"""DXP engines on other hosts: ``rafle match --engine2 dxp://HOST:PORT`` and ``rafle tournament
--engine name=X proto=dxp host=HOST port=PORT``.  The fake DXP engine (``fake_dxp.py --serve``)
is started by each test, listening on its own as an operator would run it; the runner only
connects.  A refused connection and a silent peer forfeit the game, named with the address;
the event goes on and the engine is tried again at its next game."""
import select
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from engine.pdn import read_pdn
from protocol.tools.match import cli as match
from protocol.tools.match import tournament
from protocol.tools.match.dxp_client import parse_address
from protocol.tools.match.engines import check_command

ROOT = Path(__file__).resolve().parents[1]
HUB = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'tests' / 'fake_hub.py'))} first"


@pytest.fixture(autouse=True)
def shipped_databases_only(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)


@pytest.fixture
def operator():
    """Starts fake DXP engines listening on a port, as their operator; stops them at the end."""
    procs = []

    def start(port: int, mode: str, requests: Path | None = None) -> subprocess.Popen:
        argv = [sys.executable, str(ROOT / "tests" / "fake_dxp.py"), str(port), mode, "--serve"]
        proc = subprocess.Popen(argv + ([str(requests)] if requests else []), cwd=ROOT,
                                stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready and proc.stdout.readline() == "listening\n", "the fake DXP engine did not start"
        return proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_is_checked_before_anything_starts():
    assert parse_address("dxp://10.0.0.7:27531") == ("10.0.0.7", 27531)
    assert parse_address("dxp://[::1]:27531") == ("::1", 27531)
    assert parse_address("scan dxp {port}") is None
    for bad, says in (("dxp://host", "dxp://HOST:PORT"), ("dxp://h:0", "from 1 to 65535"),
                      ("dxp://h:x", "must be a number")):
        with pytest.raises(ValueError, match=says):
            parse_address(bad)
    with pytest.raises(ValueError, match="is for a DXP engine"):
        check_command("hub", "dxp://h:1", "engine 2")
    check_command("dxp", "dxp://h:1", "engine 2")
    for tokens, says in (
            (["cmd=scan {port}", "host=h", "port=5"], "a command or an address .*not both"),
            (["host=h"], "needs both host= and port="),
            (["port=5"], "needs both host= and port="),
            (["host=h", "port=70000"], "from 1 to 65535, not 70000"),
            (["host=h", "port=five"], "must be a number"),
            (["host=h", "port=5", "dir=/tmp"], "dir= is for a command")):
        with pytest.raises(ValueError, match=says):
            tournament.parse_engine(["name=x", "proto=dxp", *tokens])
    with pytest.raises(ValueError, match="proto=dxp"):
        tournament.parse_engine(["name=x", "host=h", "port=5"])
    spec = tournament.parse_engine(["name=x", "proto=dxp", "host=h", "port=5"])
    assert spec.target == "dxp://h:5" and spec.record()["port"] == 5
    # a command's record has no address fields: state files written before them still match
    assert "host" not in tournament.parse_engine(["name=y", "cmd=rafle hub"]).record()
    assert tournament.main(["--engine", "name=a", "cmd=rafle hub", "--engine", "name=b",
                            "proto=dxp", "host=h"]) == 2


def test_a_match_with_an_engine_by_address_plays_and_leaves_it_running(tmp_path, capsys,
                                                                       operator):
    port, requests = free_port(), tmp_path / "requests.txt"
    fake = operator(port, "limit", requests)
    pdn = tmp_path / "m.pdn"
    code = match.main(["--protocol", "hub,dxp", "--engine1", HUB,
                       "--engine2", f"dxp://127.0.0.1:{port}", "--name2", "far", "--tc", "4/60",
                       "--games", "2", "--pdn", str(pdn), "--init-timeout", "60"])
    out = capsys.readouterr().out
    assert code == 0, out
    games = read_pdn(pdn.read_text())
    assert len(games) == 2
    for g in games:
        assert "far" in (g.tags["White"], g.tags["Black"]) and g.result == "1-1"
        assert "the move limit (4), adjudicated a draw" in g.tags["Termination"]
    assert sorted(requests.read_text().split()[2::3]) == ["W", "Z"]   # one game in each colour
    assert fake.poll() is None, "the runner must not stop an engine it did not start"


def test_a_refused_engine_forfeits_and_is_tried_again_at_its_next_game(tmp_path, operator):
    """hub - far (refused: nothing listens), hub - hub2, then far - hub2 once its operator has
    started it."""
    port = free_port()
    lines = []

    class Out:
        def write(self, text):
            lines.append(text)
            if text.startswith("game 1:"):       # the operator starts it after the forfeit
                operator(port, "limit")

        def flush(self):
            pass

    args = tournament.build_parser().parse_args([
        "--state", str(tmp_path / "t.json"), "--pdn", str(tmp_path / "t.pdn"),
        "--engine", "name=hub", f"cmd={HUB}",
        "--engine", "name=far", "proto=dxp", "host=127.0.0.1", f"port={port}",
        "--engine", "name=hub2", f"cmd={HUB}",
        "--games", "1", "--tc", "4/60", "--max-plies", "20", "--concurrency", "1",
        "--init-timeout", "60"])
    specs = [tournament.parse_engine(tokens) for tokens in args.engine]
    assert tournament.Tournament(args, specs, out=Out()).run() == 0
    out = "".join(lines)
    games = read_pdn((tmp_path / "t.pdn").read_text())
    assert [(g.tags["White"], g.tags["Black"]) for g in games] == [
        ("hub", "far"), ("hub", "hub2"), ("far", "hub2")]
    refused, other, retried = games
    assert refused.tags["Termination"] == (f"far at 127.0.0.1:{port}: connection refused, "
                                           "a forfeit")
    assert refused.result == "2-0"          # only the opening was played
    assert len(other.moves) >= 10
    assert retried.result == "1-1" and "move limit (4)" in retried.tags["Termination"]
    assert "incidents (1 games forfeited):" in out and "connection refused" in out


def test_a_silent_peer_forfeits_within_the_hang_timeout(tmp_path, capsys, operator):
    port = free_port()
    fake = operator(port, "silent")
    pdn = tmp_path / "m.pdn"
    code = match.main(["--protocol", "dxp,hub", "--engine1", f"dxp://127.0.0.1:{port}",
                       "--name1", "mute", "--engine2", HUB, "--tc", "60", "--games", "1",
                       "--hang-timeout", "1", "--pdn", str(pdn)])
    out = capsys.readouterr().out
    assert code == 0, out
    (game,) = read_pdn(pdn.read_text())
    assert game.tags["Termination"] == (f"mute at 127.0.0.1:{port}: no GAMEACC within 1 s of the "
                                        "GAMEREQ, a forfeit")
    assert game.result == "0-2" and game.tags["White"] == "mute"
    assert fake.poll() is None
