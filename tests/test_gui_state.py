"""The board keeps its games (``protocol/gui/store.py``) and plays timed games with endings
(``clock.py``, ``table.py``): a restarted server, a page's own copy, bad saved games, flag
fall, resignation, draw offers, and a page that goes away while the server streams."""
from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time

from engine import WHITE, Game, legal_moves, read_pdn
from gui_pages import Page, served
from protocol.gui.session import BoardSession
from protocol.gui.store import GameStore

HUMANS = {"white": {"kind": "human"}, "black": {"kind": "human"}}


def game_id(page: Page) -> str:
    return [m for m in page.seen if m["type"] == "setup"][0]["game"]


def play(page: Page, *moves: str) -> dict:
    for text in moves:
        page.send("move", text=text)
    n = len(moves)
    return page.expect("state", lambda s: len(s["record"]) >= n and s["ply"] == n)


def test_a_restarted_server_keeps_the_game(tmp_path):
    with served(state_dir=tmp_path) as base:
        page = Page(base)
        gid = game_id(page)
        page.send("new", names={"white": "Ann"}, **HUMANS)
        play(page, "32-28", "19-23", "28x19", "14x23")
        page.send("undo")
        before = page.expect("state", lambda s: s["ply"] == 3)
        page.close()
    saved = json.loads((tmp_path / f"{gid}.json").read_text())
    assert saved["moves"] == ["32-28", "19-23", "28x19", "14x23"] and saved["ply"] == 3
    with served(state_dir=tmp_path) as base:
        page = Page(base, game=gid)
        setup = [m for m in page.seen if m["type"] == "setup"][0]
        assert setup["game"] == gid and setup["known"] is True
        s = page.state
        assert s["record"] == before["record"] and s["ply"] == 3 and s["pieces"] == before["pieces"]
        assert s["player_names"]["white"] == "Ann" and s["players"] == before["players"]
        page.send("redo")                                  # the record ahead is kept
        assert page.expect("state", lambda s: s["ply"] == 4)["record"][3]["played"]
        page.close()


def test_a_page_refeeds_a_server_that_does_not_know_its_game(tmp_path):
    with served(state_dir=tmp_path / "one") as base:
        page = Page(base)
        gid = game_id(page)
        page.send("new", **HUMANS)
        copy = play(page, "32-28", "19-23")["saved"]
        page.close()
    with served(state_dir=tmp_path / "two") as base:
        page = Page(base, game=gid)
        assert [m for m in page.seen if m["type"] == "setup"][0]["known"] is False
        assert "refused" in page.error(kind="restore", saved={"format": "something else"})
        bad = dict(copy, moves=["32-28", "33-27"])
        assert "move 2 ('33-27')" in page.error(kind="restore", saved=bad)
        page.send("restore", saved=copy)
        s = page.expect("state", lambda s: s["ply"] == 2)
        assert [r["text"] for r in s["record"]] == ["32-28", "19-23"]
        page.close()
        assert (tmp_path / "two" / f"{gid}.json").exists()


def test_a_bad_saved_game_gives_a_fresh_one_and_says_why(tmp_path):
    tmp_path.joinpath("brokenfile.json").write_text("{not json", encoding="utf-8")
    tmp_path.joinpath("foreigner.json").write_text(json.dumps({"format": "chess", "moves": 3}))
    GameStore(tmp_path).save("illegalgame", {"format": "rafle-board-game", "version": 1,
                                             "variant": "international", "start": "W:W31-50:B1-20",
                                             "moves": ["32-28", "32-28"], "ply": 2, "players": {}})
    with served(state_dir=tmp_path) as base:
        for gid, says in [("brokenfile", "cannot be read"), ("foreigner", "not a saved game"),
                          ("illegalgame", "move 2")]:
            page = Page(base, game=gid)
            s = page.state
            assert s["ply"] == 0 and s["record"] == [] and "could not be used" in s["message"]
            assert says in s["message"] and game_id(page) == gid
            page.close()
        page = Page(base, game="../../etc/passwd")           # not an id: a new one
        assert re.fullmatch(r"[A-Za-z0-9_-]+", game_id(page))
        page.close()


def test_resigning_ends_the_game_and_is_written_in_the_pdn(tmp_path):
    with served(state_dir=tmp_path) as base:
        page = Page(base)
        page.send("new", names={"white": "Ann", "black": "Bob"}, **HUMANS)
        play(page, "32-28")
        page.send("resign", side="white")
        s = page.expect("state", lambda s: s["outcome"] is not None)
        assert s["outcome"]["result"] == "0-2" and "White resigned" in s["outcome"]["text"]
        assert s["moves"] == []
        assert "the game is over" in page.error(kind="move", text="19-23")
        assert "the game is over" in page.error(kind="resign")
        page.send("save")
        text = page.expect("pdn")["text"]
        assert '[Result "0-2"]' in text and '[Termination "White resigned"]' in text
        assert '[White "Ann"]' in text and '[Black "Bob"]' in text
        assert "{White resigned}" in text and read_pdn(text)[0].moves
        page.send("undo", single=True)                      # taking back reopens the game
        s = page.expect("state", lambda s: s["ply"] == 0)
        assert s["outcome"] is None
        page.send("redo")                                   # and the same record ends again
        assert page.expect("state", lambda s: s["ply"] == 1)["outcome"]["result"] == "0-2"
        page.close()


def test_a_flag_falls_when_a_person_does_not_move(tmp_path):
    with served(state_dir=tmp_path) as base:
        page = Page(base)
        page.send("new", clock={"kind": "sudden", "base": 1}, **HUMANS)
        s = page.expect("state", lambda s: s["clock"]["ticking"] == "white")
        assert s["clock"]["white"] <= 1 and s["clock"]["describe"] == "1"
        s = page.expect("state", lambda s: s["outcome"] is not None, wait=10)
        assert s["outcome"]["result"] == "0-2" and "White lost on time" in s["outcome"]["text"]
        assert s["clock"]["white"] == 0 and s["clock"]["flagged"] == "white"
        page.send("save")
        text = page.expect("pdn")["text"]
        assert '[Termination "White lost on time"]' in text and '[TimeControl "1"]' in text
        page.close()


def test_a_set_up_position_is_played_without_the_clock(tmp_path):
    with served(state_dir=tmp_path) as base:
        page = Page(base)
        page.send("new", clock={"kind": "fischer", "base": 60, "inc": 1}, **HUMANS)
        page.expect("state", lambda s: s["clock"]["ticking"] == "white")
        page.send("fen", fen="W:W31-50:B1-20")
        s = page.expect("state", lambda s: s["clock"]["control"]["kind"] == "none")
        assert s["clock"]["ticking"] is None
        page.close()


def test_the_engine_plays_on_its_clock(tmp_path):
    with served(state_dir=tmp_path) as base:
        page = Page(base)
        page.send("new", clock={"kind": "fischer", "base": 30, "inc": 1},
                  white={"kind": "human"}, black={"kind": "engine", "level": "hard"})
        page.expect("state", lambda s: s["clock"]["ticking"] == "white")
        page.send("move", text="32-28")
        thinking = page.expect("state", lambda s: s["clock"]["ticking"] == "black", wait=120)
        assert thinking["clock"]["white"] <= 31
        s = page.expect("state", lambda s: s["ply"] == 2, wait=60)
        assert s["clock"]["ticking"] == "white" and 0 < s["clock"]["black"] < 31
        assert s["player_names"]["black"] == "Rafle"         # from its Hub id line
        page.close()


def test_draw_offers_between_people(tmp_path):
    with served(state_dir=tmp_path) as base:
        page = Page(base)
        page.send("new", **HUMANS)
        play(page, "32-28")
        assert "no draw offer" in page.error(kind="draw", action="accept")
        assert "\"action\"" in page.error(kind="draw", action="maybe")
        page.send("draw", side="black")
        s = page.expect("state", lambda s: s["draw_offer"] == "black")
        assert "Black offers a draw" in s["message"]
        page.send("draw", action="accept")
        s = page.expect("state", lambda s: s["outcome"] is not None)
        assert s["outcome"]["result"] == "1-1" and "draw agreed" in s["outcome"]["text"]
        page.close()


class QuietSeat:
    """An engine seat that never thinks (the draw rule reads only the scores)."""
    name = "Quiet"

    def submit(self, job): pass
    def cancel(self): pass
    def stop(self): pass
    def close(self): pass


def test_the_engine_takes_a_draw_only_when_level_after_enough_moves():
    session = BoardSession(lambda m: None, seat=QuietSeat())
    session.handle({"type": "new", **HUMANS})
    for text in ["32-28", "17-21", "31-27", "21-26"]:
        session.handle({"type": "move", "text": text})
    session.handle({"type": "players", "black": {"kind": "engine"}})
    session.evals = {4: 0.0}
    session.handle({"type": "draw"})
    assert session.outcome() is None and "declines" in session.message     # too early

    def offer_at_ply_40(white_score: float):
        game = Game()
        while len(game.moves) < 40:
            game.push(legal_moves(game.position)[0])
        assert game.outcome() is None and game.position.turn == WHITE
        session.game, session.evals, session.message = game, {40: white_score}, ""
        session.handle({"type": "draw"})
        return session.outcome()

    assert offer_at_ply_40(0.1).reason == "draw agreed"        # level
    assert offer_at_ply_40(1.5).reason == "draw agreed"        # worse for the engine (Black)
    assert offer_at_ply_40(-1.0) is None                       # better for it: declined
    assert "declines" in session.message


def test_closing_pages_while_the_engine_streams_leaves_no_traceback(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "protocol.cli", "gui", "--no-browser",
                             "--state-dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+", proc.stdout.readline()).group(0)
        for i in range(2):
            page = Page(url)
            page.send("analyze", on=True)
            for _ in range(3):
                page.expect("info", wait=120)
            for _ in range(300):                           # the server has much to send
                page.send("hello")
            if i % 2:
                page.ws.socket.shutdown(socket.SHUT_RDWR)  # cut off
                page.ws.socket.close()
            else:
                page.close()                               # closed by the page
            time.sleep(0.3)
        page = Page(url)                                    # it still serves
        page.close()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err and "Exception" not in err, err[-3000:]


def test_a_game_opened_in_a_second_page_moves_there(tmp_path):
    from websockets.exceptions import ConnectionClosed
    with served(state_dir=tmp_path) as base:
        first = Page(base)
        gid = game_id(first)
        first.send("new", **HUMANS)
        play(first, "32-28")
        second = Page(base, game=gid)
        assert [r["text"] for r in second.state["record"]] == ["32-28"]
        try:
            while True:
                first.ws.recv(timeout=10)
        except ConnectionClosed as closed:
            assert closed.rcvd.code == 4001
        second.send("move", text="19-23")
        second.expect("state", lambda s: s["ply"] == 2)
        second.close()


def test_analysis_survives_a_restart(tmp_path):
    with served(state_dir=tmp_path) as base:
        page = Page(base)
        gid = game_id(page)
        page.send("new", **HUMANS)
        play(page, "32-28")
        page.send("analyze", on=True)
        page.expect("state", lambda s: s["analysing"])
        page.close()
    with served(state_dir=tmp_path) as base:
        page = Page(base, game=gid)
        assert page.state["analysing"] is True
        assert page.expect("info", lambda m: m["mode"] == "analyze")["ply"] == 1
        page.close()


def test_the_store_keeps_the_latest_games_only(tmp_path):
    import os
    store = GameStore(tmp_path)
    for i in range(6):
        store.save(f"game{i}", {"n": i})
        os.utime(tmp_path / f"game{i}.json", (1000 + i, 1000 + i))
    assert store.prune(keep=4) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"game{i}.json" for i in range(2, 6)]
    assert store.load("game5") == {"n": 5} and store.load("game0") is None


def test_a_crashing_engine_stops_its_clock(tmp_path):
    from gui_pages import FAKE
    with served(f"{FAKE} crash", state_dir=tmp_path) as base:
        page = Page(base)
        page.send("new", clock={"kind": "sudden", "base": 60},
                  white={"kind": "human"}, black={"kind": "engine", "level": "easy"})
        page.send("move", text="32-28")
        s = page.expect("state", lambda s: "the engine failed" in s["message"])
        assert s["clock"]["ticking"] is None and s["outcome"] is None
        page.close()


def test_a_seat_closed_while_its_engine_starts_quits_it_quietly(monkeypatch):
    """The server stopping while a page's engine is in its handshake: the engine is quit,
    nothing is reported to the gone page, and no thread dies with an exception."""
    import threading

    from protocol.gui.engine import EngineSeat, Job
    errors, said = [], []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_value))
    mute = f"{sys.executable} -c \"import time; time.sleep(60)\""     # never answers 'hub'
    seat = EngineSeat(mute, said.append)
    answers = []
    seat.submit(Job("international", "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww", [], [], True,
                    lambda args: None, lambda move, error: answers.append((move, error))))
    deadline = time.monotonic() + 30
    while seat._starting is None or seat._starting.proc is None:
        assert time.monotonic() < deadline, "the engine was not started"
        time.sleep(0.01)
    process = seat._starting.proc
    seat.close()
    assert not seat._thread.is_alive()
    assert process.poll() is not None                      # the engine was quit
    assert [m["state"] for m in said] == ["starting"]      # no "failed" for a closed seat
    assert answers == [] and errors == []
