"""The board's server (``rafle gui``): every request type and every bad input, as
transcripts over a real WebSocket (uvicorn and Starlette in a thread, Rafle's ``hub`` or a
misbehaving fake engine in a child process).  The browser tests are in
``test_gui_browser.py``."""
from __future__ import annotations

import json
import urllib.request

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from engine import Game, get_variant, move_from_pdn, pos_from_fen, read_pdn
from gui_pages import FAKE, Page, served

KVK_FEN = "W:WK47:BK4"                       # king against king: drawn by the 5-move rule
AMBIGUOUS_FEN = "W:WK42:B21,37,23,38,28"     # two captures go from 42 to 48


@pytest.fixture(scope="module")
def base():
    with served() as url:
        yield url


@pytest.fixture
def page(base):
    p = Page(base)
    yield p
    p.close()


def replayed(state) -> Game:
    """The state's record replayed by Rafle's rules (each move must be legal)."""
    game = Game(variant=get_variant(state["variant"]))
    for entry in state["record"]:
        game.push(move_from_pdn(game.position, entry["text"]))
    return game


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:1", "null",
                                    "file://"])
def test_a_websocket_from_a_foreign_origin_is_refused(base, origin):
    url = base.replace("http", "ws") + "/ws"
    with pytest.raises(InvalidStatus) as refused:
        with connect(url, origin=origin, open_timeout=20):
            pass
    assert refused.value.response.status_code == 403
    own = base.rstrip("/")                 # the board's own page is taken, as is no Origin
    with connect(url, origin=own, open_timeout=20) as ws:
        assert json.loads(ws.recv(timeout=20))["type"] in ("setup", "state")


def test_handshake_and_the_start(base):
    page = Page(base)
    setup = [m for m in page.seen if m["type"] == "setup"][0]
    assert len(setup["variants"]) == 15 and "easy" in setup["levels"]
    s = page.state
    assert s["variant"] == "international" and s["turn"] == "white"
    assert s["pieces"].count("w") == 20 and s["pieces"].count("b") == 20
    assert len(s["moves"]) == 9 and s["record"] == [] and s["ply"] == 0
    assert s["players"] == {"white": {"kind": "human", "level": "medium"},
                            "black": {"kind": "engine", "level": "medium"}}
    assert len(s["coords"]) == 50 and s["coords"]["1"] == [0, 1]
    page.close()
    with urllib.request.urlopen(base + "/") as r:
        assert b"<svg id=\"board\"" in r.read()
    for path in ("/static/app.js", "/static/board.js", "/static/style.css", "/favicon.ico"):
        with urllib.request.urlopen(base + path) as r:
            assert r.status == 200 and r.read()
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(base + "/static/nothing.js")


def test_a_person_moves_and_the_engine_answers_with_its_thinking(page):
    page.send("new", white={"kind": "human"}, black={"kind": "engine", "level": "easy"})
    page.expect("state", lambda s: s["ply"] == 0)
    page.send("move", text="32-28")
    page.expect("state", lambda s: s["ply"] == 1 and s["task"] and s["task"]["mode"] == "think")
    info = page.expect("info")
    assert info["depth"] and info["pv"] and info["white"] is not None
    after = page.expect("state", lambda s: s["ply"] == 2)
    assert after["turn"] == "white" and after["task"] is None
    assert [e["played"] for e in after["record"]] == [True, True]
    replayed(after)
    assert after["last"]["from"] in range(1, 51) and after["evals"]


def test_moves_by_squares_and_an_ambiguous_capture(page):
    page.send("new", fen=AMBIGUOUS_FEN, white={"kind": "human"}, black={"kind": "human"})
    s = page.expect("state", lambda s: s["fen"].startswith("W:WK42"))
    twins = [m for m in s["moves"] if (m["from"], m["to"]) == (42, 48)]
    assert len(twins) == 2
    assert "several captures go from 42 to 48" in page.error(kind="move", **{"from": 42, "to": 48})
    assert "along that path" in page.error(kind="move", path=[27, 48], **{"from": 42, "to": 48})
    page.send("move", path=[29, 12, 26, 48], **{"from": 42, "to": 48})
    s = page.expect("state", lambda s: s["ply"] == 1)
    assert s["last"]["captured"] == [21, 23, 37, 38] and s["last"]["path"] == [29, 12, 26, 48]
    assert s["last"]["pieces"] == {"21": "b", "23": "b", "37": "b", "38": "b"}
    assert s["outcome"] is None and s["pieces"].count("b") == 1


def test_undo_redo_goto(page):
    page.send("new", white={"kind": "human"}, black={"kind": "human"})
    for text in ("32-28", "19-23", "28x19", "14x23"):
        page.send("move", text=text)
    s = page.expect("state", lambda s: s["ply"] == 4)
    page.send("undo")
    s = page.expect("state", lambda s: s["ply"] == 3)
    assert [e["played"] for e in s["record"]] == [True, True, True, False]
    page.send("redo")
    page.expect("state", lambda s: s["ply"] == 4)
    page.send("goto", ply=1)
    s = page.expect("state", lambda s: s["ply"] == 1)
    assert len(s["record"]) == 4 and s["turn"] == "black"
    page.send("goto", ply=4)
    page.expect("state", lambda s: s["ply"] == 4)
    assert "goto needs a ply from 0 to 4" in page.error(kind="goto", ply=5)
    assert "goto needs a ply" in page.error(kind="goto", ply="2")
    page.send("goto", ply=0)
    page.expect("state", lambda s: s["ply"] == 0)
    assert "no move to take back" in page.error(kind="undo")
    page.send("move", text="31-27")            # a new move drops the old continuation
    s = page.expect("state", lambda s: s["ply"] == 1)
    assert len(s["record"]) == 1
    assert "no move to replay" in page.error(kind="redo")


def test_undo_against_the_engine_takes_its_reply_back_too(page):
    page.send("new", white={"kind": "human"}, black={"kind": "engine", "level": "easy"})
    page.send("move", text="33-29")
    page.expect("state", lambda s: s["ply"] == 2 and s["task"] is None)
    page.send("undo")
    s = page.expect("state", lambda s: s["ply"] == 0)
    assert s["running"] is False and s["turn"] == "white" and s["task"] is None


def test_pdn_load_step_and_save(page):
    pdn = ('[Event "t"]\n[White "A"]\n[Black "B"]\n[Result "*"]\n\n'
           "1. 32-28 19-23 2. 28x19 14x23 3. 33-29 *\n")
    page.send("load", text=pdn)
    s = page.expect("state", lambda s: len(s["record"]) == 5)
    assert s["ply"] == 0 and "loaded A - B (5 plies" in s["message"]
    assert s["players"]["white"]["kind"] == "human" and s["players"]["black"]["kind"] == "human"
    for ply in range(1, 6):
        page.send("redo")
        page.expect("state", lambda s, ply=ply: s["ply"] == ply)
    page.send("goto", ply=2)
    page.expect("state", lambda s: s["ply"] == 2)
    page.send("save")
    saved = page.expect("pdn")
    assert saved["filename"].endswith(".pdn")
    games = read_pdn(saved["text"])         # the whole record, the moves ahead too
    assert len(games) == 1 and len(games[0].moves) == 5
    assert "1. 32-28 19-23 2. 28x19 14x23 3. 33-29" in " ".join(saved["text"].split())


@pytest.mark.parametrize("text, says", [
    ("1. 32-28 19-23 2. 28-22 *", "not a PDN game: game 1, move 2 (28-22)"),
    ("\x00\x01\x02 binary", "not a PDN game"),
    ("[Event \"only tags\"", "PDN"),
    ("", "must be a non-empty string"),
    ("1. 32-28 " * 200_000, "too long"),
])
def test_bad_pdn_is_refused_and_the_game_is_kept(page, text, says):
    page.send("move", text="32-28")
    page.expect("state", lambda s: s["ply"] >= 1)
    assert says in page.error(kind="load", text=text)


def test_fen_set_up_and_new_games_of_every_kind(page):
    page.send("fen", fen="B:W28,K46:B19,K5")
    s = page.expect("state", lambda s: s["fen"].startswith("B:"))
    assert s["ply"] == 0 and s["turn"] == "black" and s["running"] is False
    assert pos_from_fen(s["fen"]) == pos_from_fen("B:W28,K46:B19,K5")
    page.send("new", variant="russian", fen="W:Wc3,e3:Bd6,f6", white={"kind": "human"},
              black={"kind": "human"})
    s = page.expect("state", lambda s: s["variant"] == "russian")
    assert s["width"] == 8 and s["names"]["1"] == "b8" and len(s["coords"]) == 32
    page.send("move", text="c3-d4")
    s = page.expect("state", lambda s: s["ply"] == 1)
    assert s["record"][0]["text"] == "c3-d4"
    page.send("new", variant="english", white={"kind": "human"}, black={"kind": "human"})
    s = page.expect("state", lambda s: s["variant"] == "english")
    assert s["turn"] == "black" and len(s["moves"]) == 7
    page.send("new", variant="turkish", white={"kind": "human"}, black={"kind": "human"})
    s = page.expect("state", lambda s: s["variant"] == "turkish")
    assert len(s["coords"]) == 64 and s["names"]["1"] == "a8" and s["coords"]["64"] == [7, 7]
    assert len(s["moves"]) == 8 and s["fen"].startswith("W:Wa3,")
    page.send("move", text="d3-d4")
    s = page.expect("state", lambda s: s["ply"] == 1)
    assert s["record"][0]["text"] == "d3-d4" and s["pieces"][35] == "w"


@pytest.mark.parametrize("request_, says", [
    ({"kind": "fen", "fen": "W:W99:B1"}, "99"),
    ({"kind": "fen", "fen": "hello"}, ""),
    ({"kind": "fen"}, "\"fen\" must be a non-empty string"),
    ({"kind": "new", "variant": "chess"}, "unknown variant 'chess'"),
    ({"kind": "new", "variant": 7}, "\"variant\" must be a variant's name"),
    ({"kind": "new", "white": {"kind": "robot"}}, "a player is 'human' or 'engine'"),
    ({"kind": "new", "black": {"kind": "engine", "level": "depth x"}}, "depth needs a number"),
    ({"kind": "new", "black": {"kind": "engine", "level": "godlike"}}, "unknown level 'godlike'"),
    ({"kind": "new", "black": "engine"}, "a player is an object"),
    ({"kind": "players", "white": {"kind": "engine", "level": "time -1"}}, "more than 0"),
    ({"kind": "move", "text": "33-27"}, "illegal move 33-27"),
    ({"kind": "move", "text": "hello"}, "bad move 'hello'"),
    ({"kind": "move", "text": ""}, "non-empty"),
    ({"kind": "move", "from": 32}, "\"from\" and \"to\""),
    ({"kind": "move", "from": True, "to": 28}, "\"from\" and \"to\""),
    ({"kind": "move", "from": 33, "to": 27}, "no legal move from 33 to 27"),
    ({"kind": "move", "from": 32, "to": 28, "path": "28"}, "\"path\" is the list"),
    ({"kind": "play", "on": "yes"}, "true or false"),
    ({"kind": "analyze", "on": 1}, "true or false"),
    ({"kind": "speed", "delay": -1}, "from 0 to 10"),
    ({"kind": "speed", "delay": "fast"}, "from 0 to 10"),
    ({"kind": "stop"}, "not thinking"),
    ({"kind": "fly"}, "unknown request type 'fly'"),
    ({"kind": None}, "a request is a JSON object with a \"type\""),
    ({"raw": "not json"}, "a request must be JSON"),
    ({"raw": "[1, 2]"}, "a request is a JSON object"),
    ({"raw": "{\"type\": 3}"}, "a request is a JSON object"),
])
def test_every_bad_request_gets_an_error_and_changes_nothing(base, request_, says):
    page = Page(base)
    page.send("new", white={"kind": "human"}, black={"kind": "human"})
    page.expect("state", lambda s: s["players"]["black"]["kind"] == "human")
    assert says in page.error(**request_)
    page.close()


def test_a_finished_game_refuses_moves(page):
    page.send("new", fen="W:W28:B23", white={"kind": "human"}, black={"kind": "human"})
    page.send("move", text="28x19")
    s = page.expect("state", lambda s: s["ply"] == 1)
    assert s["outcome"]["result"] == "2-0" and "White wins" in s["outcome"]["text"]
    assert s["moves"] == []
    assert "the game is over" in page.error(kind="move", text="19-14")
    assert "the game is over" in page.error(kind="go")


def test_engine_against_engine_to_the_end_with_speed_and_pause(page):
    page.send("speed", delay=0)
    page.expect("state", lambda s: s["delay"] == 0)
    page.send("new", fen=KVK_FEN, white={"kind": "engine", "level": "easy"},
              black={"kind": "engine", "level": "easy"})
    s = page.expect("state", lambda s: s["outcome"] is not None)
    assert s["outcome"]["result"] == "1-1" and "5" in s["outcome"]["text"]
    assert len(s["record"]) == 10
    page.send("speed", delay=0.2)
    page.send("new", white={"kind": "engine", "level": "easy"},
              black={"kind": "engine", "level": "easy"})
    page.expect("state", lambda s: s["ply"] == 2)
    page.send("play", on=False)
    s = page.expect("state", lambda s: s["running"] is False)
    stopped_at = s["ply"]
    page.send("hello")
    assert page.expect("state")["ply"] == stopped_at    # no engine move while paused
    page.send("play", on=True)
    page.expect("state", lambda s: s["ply"] >= stopped_at + 2)
    page.send("players", white={"kind": "human"}, black={"kind": "human"})
    page.expect("state", lambda s: s["players"]["white"]["kind"] == "human" and s["task"] is None)


def test_go_stop_and_analysis(page):
    page.send("new", white={"kind": "human"}, black={"kind": "human"})
    page.expect("state", lambda s: s["players"]["black"]["kind"] == "human")
    page.send("go")                                     # the engine plays White's move now
    page.expect("state", lambda s: s["ply"] == 1, wait=120)
    page.send("move", text="16-21")                     # a reply out of the book: the engine must search
    page.expect("state", lambda s: s["ply"] == 2)
    page.send("players", white={"kind": "engine", "level": "time 60"})
    page.expect("state", lambda s: s["task"] and s["task"]["mode"] == "think")
    page.expect("info")
    page.send("stop")                                   # it plays its best move so far
    s = page.expect("state", lambda s: s["ply"] == 3, wait=20)
    assert s["running"] is False and s["task"] is None
    replayed(s)
    page.send("players", white={"kind": "human"})
    page.send("analyze", on=True)
    s = page.expect("state", lambda s: s["analysing"] and s["task"]["mode"] == "analyze")
    info = page.expect("info", lambda m: m["mode"] == "analyze")
    assert info["ply"] == 3 and info["pv"]
    page.send("move", text=s["moves"][0]["text"])       # analysis follows the board
    page.expect("info", lambda m: m["mode"] == "analyze" and m["ply"] == 4)
    page.send("stop")                                   # stop ends analysis
    s = page.expect("state", lambda s: not s["analysing"] and s["task"] is None)
    page.send("analyze", on=True)
    page.expect("state", lambda s: s["analysing"])
    page.send("analyze", on=False)
    page.expect("state", lambda s: not s["analysing"] and s["task"] is None)


def test_a_crashing_engine_is_reported_and_restartable():
    with served(f"{FAKE} crash") as base:
        page = Page(base)
        page.send("new", white={"kind": "human"}, black={"kind": "engine", "level": "easy"})
        page.send("move", text="32-28")
        failed = page.expect("engine", lambda m: m["state"] == "failed")
        assert "fake" in failed["message"] and "exit code 3" in failed["message"]
        s = page.expect("state", lambda s: "the engine failed" in s["message"])
        assert s["ply"] == 1 and s["running"] is False and s["record"][0]["text"] == "32-28"
        page.send("save")                               # nothing is lost
        assert "32-28" in page.expect("pdn")["text"]
        page.send("restart")
        page.expect("engine", lambda m: m["state"] == "ready")
        page.send("go")
        page.expect("engine", lambda m: m["state"] == "failed")
        page.close()


def test_a_silent_engine_is_reported():
    with served(f"{FAKE} silent") as base:
        page = Page(base)
        page.send("new", white={"kind": "human"}, black={"kind": "engine", "level": "time 0.2"})
        page.send("move", text="32-28")
        failed = page.expect("engine", lambda m: m["state"] == "failed", wait=40)
        assert "did not answer 'stop'" in failed["message"]
        s = page.expect("state", lambda s: "the engine failed" in s["message"])
        assert s["ply"] == 1
        page.close()


def test_an_illegal_engine_move_is_refused():
    with served(f"{FAKE} illegal") as base:
        page = Page(base)
        page.send("new", white={"kind": "engine", "level": "easy"}, black={"kind": "human"})
        s = page.expect("state", lambda s: "was refused" in s["message"])
        assert s["ply"] == 0 and s["running"] is False and s["pieces"].count("w") == 20
        page.close()


def test_an_engine_that_never_gets_ready_is_reported(monkeypatch):
    from protocol.gui import engine as seat
    monkeypatch.setattr(seat.EngineSeat.__init__, "__defaults__", (5.0,))
    with served(f"{FAKE} slowstart") as base:
        page = Page(base)
        page.send("go")
        failed = page.expect("engine", lambda m: m["state"] == "failed", wait=30)
        assert "no 'wait'" in failed["message"]
        page.close()


def test_a_missing_engine_command_is_reported():
    with served("/nonexistent/engine hub") as base:
        page = Page(base)
        page.send("go")
        failed = page.expect("engine", lambda m: m["state"] == "failed")
        assert "cannot start" in failed["message"]
        page.send("hello")
        assert page.expect("state")["ply"] == 0
        page.close()


def test_oversized_message(page):
    assert "message too long" in page.error(raw=json.dumps({"type": "load", "text": "x" * 2_100_000}))


def test_the_command_refuses_a_bad_or_busy_port(capsys):
    import socket

    from protocol.gui.server import main
    with pytest.raises(SystemExit):
        main(["--port", "70000", "--no-browser"])
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        assert main(["--port", str(busy.getsockname()[1]), "--no-browser"]) == 1
    finally:
        busy.close()
    assert "cannot listen on 127.0.0.1" in capsys.readouterr().err
