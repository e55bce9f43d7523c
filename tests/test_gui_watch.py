"""Following a match or tournament: the live file the events write (``--live``,
``protocol/tools/match/live.py``) and the board's reading of it (``rafle gui --watch``,
``protocol/gui/watch.py``, served on ``/watch/state``).  The page itself is driven in
``test_gui_browser_state.py``."""
from __future__ import annotations

import json
import subprocess
import sys

import urllib.request
from pathlib import Path

from engine import Game, get_variant, move_from_pdn
from gui_pages import served
from protocol.gui.watch import read_live
from protocol.tools.match import live as live_module
from protocol.tools.match.live import Live, standings


def test_the_live_file_follows_games_and_scores_them(tmp_path, monkeypatch):
    monkeypatch.setattr(live_module, "EVERY", 0.0)          # write on every change
    path = tmp_path / "live.json"
    live = Live(path, "tournament", "Test cup", "international", 3)
    game = Game()
    live.begin("a|b|0", "a", "b", game)
    for text in ("32-28", "19-23"):
        game.push(move_from_pdn(game.position, text))
        live.moved("a|b|0", game, {"white": 9.5, "black": 9.25})
    data = json.loads(path.read_text())
    assert data["games"][0]["moves"] == ["32-28", "19-23"] and data["games"][0]["result"] is None
    assert data["games"][0]["clock"] == {"white": 9.5, "black": 9.25}
    live.end("a|b|0", "a", "b", "2-0", "b resigned", 2)
    live.add_result("c", "a", "1-1", "move limit", 80)
    data = json.loads(path.read_text())
    assert data["games"][0]["result"] == "2-0" and len(data["results"]) == 2
    assert [(r["name"], r["points"], r["games"]) for r in data["standings"]] == \
           [("a", 1.5, 2), ("c", 0.5, 1), ("b", 0.0, 1)]
    assert data["crosstable"]["names"] == ["a", "c", "b"]
    assert data["crosstable"]["rows"][0] == ["-", "0.5/1", "1/1"]
    live.close()
    assert json.loads(path.read_text())["over"] is True
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]   # renamed into place


def test_standings_break_ties_by_sonneborn_berger():
    results = [{"white": "a", "black": "b", "result": "2-0"},
               {"white": "b", "black": "c", "result": "2-0"},
               {"white": "c", "black": "a", "result": "2-0"},
               {"white": "d", "black": "a", "result": "1-1"}]
    table, cross = standings(results)
    assert [r["name"] for r in table][0] == "a" and table[0]["points"] == 1.5
    assert cross["rows"][0][0] == "-"


def test_a_bad_live_file_is_a_message_not_an_error(tmp_path):
    missing = tmp_path / "none.json"
    assert "waiting for" in read_live(missing)["error"]
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "rafle-live", "games": [')
    assert "cannot read" in read_live(broken)["error"]
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"signature": {}, "games": []}))      # a --state file
    assert "not the live state" in read_live(foreign)["error"]
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"format": "rafle-live", "variant": "chess", "games": []}))
    assert "unknown variant" in read_live(odd)["error"]
    bad_fen = tmp_path / "fen.json"
    bad_fen.write_text(json.dumps({"format": "rafle-live", "variant": "russian",
                                   "games": [{"fen": "nonsense"}, 7]}))
    data = read_live(bad_fen)
    assert data["games"] == [{"fen": "nonsense", "board": None}]


def get(url: str):
    with urllib.request.urlopen(url) as r:
        body = r.read()
    return json.loads(body) if r.headers.get_content_type() == "application/json" else body


def test_the_watch_routes(tmp_path, monkeypatch):
    monkeypatch.setattr(live_module, "EVERY", 0.0)
    path = tmp_path / "live.json"
    live = Live(path, "match", "m", "russian", 2)
    live.begin("x|y|0", "x", "y", Game(variant=get_variant("russian")))
    with served(watch=path) as base:
        assert b"watch.js" in get(base + "/watch")
        board = get(base + "/watch/state")["games"][0]["board"]
        assert board["width"] == 8 and len(board["pieces"]) == 24 and len(board["dark"]) == 32
        live.close()
        data = get(base + "/watch/state")
        assert data["kind"] == "match" and data["over"] and data["games"] == []
        assert get(base + "/static/watch.js")
    with served() as base:
        assert "nothing to watch" in get(base + "/watch/state")["error"]


def test_rafle_match_writes_its_live_file(tmp_path):
    fake = f"{sys.executable} {Path(__file__).resolve().parent / 'fake_hub.py'} first"
    path = tmp_path / "live.json"
    done = subprocess.run([sys.executable, "-m", "protocol.cli", "match", "--engine1", fake,
                           "--engine2", fake, "--name1", "one", "--name2", "two", "--games", "2",
                           "--depth", "1", "--max-plies", "10", "--openings", "startpos",
                           "--live", str(path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(path.read_text())
    assert data["kind"] == "match" and data["over"] and len(data["results"]) == 2
    assert {r["white"] for r in data["results"]} == {"one", "two"}
    assert all(len(g["moves"]) == 10 for g in data["games"])
    assert [r["points"] for r in data["standings"]] == [1.0, 1.0]
    refused = subprocess.run([sys.executable, "-m", "protocol.cli", "match", "--live", "x.json",
                              "--ray"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "not with --ray" in refused.stderr
