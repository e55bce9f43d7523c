"""The board's analysis beyond one line (``protocol.gui.analysis``): several lines
(MultiPV through Rafle's Hub extension) and the endgame databases' verdict on each move,
as transcripts over a real WebSocket with Rafle's ``hub`` behind it."""
from __future__ import annotations

import pytest

from test_gui_server import base, page  # noqa: F401  (the server and a page on it)


def test_three_lines_with_different_first_moves_then_stop(page):
    page.send("new", white={"kind": "human"}, black={"kind": "human"})
    page.expect("state", lambda s: s["players"]["black"]["kind"] == "human")
    page.send("lines", count=3)
    s = page.expect("state", lambda s: s["multipv"] == 3)
    page.send("analyze", on=True)
    page.expect("state", lambda s: s["analysing"])
    third = page.expect("info", lambda m: m["mode"] == "analyze" and m["line"] == 3
                        and int(m["depth"]) >= 3)
    depth = third["depth"]
    same = [m for m in page.seen if m["type"] == "info" and m["depth"] == depth
            and m["mode"] == "analyze"][-3:]
    assert [m["line"] for m in same] == [1, 2, 3]
    firsts = [(m["first"]["from"], m["first"]["to"]) for m in same]
    legal = {(m["from"], m["to"]) for m in s["moves"]}
    assert len(set(firsts)) == 3 and set(firsts) <= legal
    assert all(m["pv"] for m in same)
    scores = [float(m["score"]) for m in same]
    assert scores == sorted(scores, reverse=True)
    assert same[0]["white"] is not None
    page.send("stop")
    page.expect("state", lambda s: not s["analysing"] and s["task"] is None)
    page.send("lines", count=1)                 # one line again: no multipv key is sent
    page.expect("state", lambda s: s["multipv"] == 1)
    page.send("analyze", on=True)
    info = page.expect("info", lambda m: m["mode"] == "analyze")
    assert info["line"] == 1
    page.send("analyze", on=False)
    page.expect("state", lambda s: not s["analysing"])


@pytest.mark.parametrize("count", [0, 6, "3", True, None])
def test_a_bad_line_count_is_refused(page, count):
    assert "lines needs a \"count\" from 1 to 5" in page.error(kind="lines", count=count)


def test_each_move_marked_from_the_databases(page):
    page.send("fen", fen="W:W33,28:B19")
    s = page.expect("state", lambda s: s["fen"].startswith("W:W28,33") or s["fen"] == "W:W28,33:B19")
    assert s["db"] == {"28-22": "draw", "28-23": "loss", "33-29": "win"}
    page.send("fen", fen="W:W31-50:B1-20")
    s = page.expect("state", lambda s: s["fen"].startswith("W:W31"))
    assert s["db"] == {}


# ----- the board editor's position (protocol.gui.editor) ------------------------------------

def pieces(**squares) -> str:
    """50 squares, empty but those given (``s28="w"``)."""
    row = ["e"] * 50
    for name, piece in squares.items():
        row[int(name[1:]) - 1] = piece
    return "".join(row)


@pytest.mark.parametrize("request_, says", [
    ({"pieces": pieces(), "turn": "white"}, "the board is empty"),
    ({"pieces": pieces(s28="w", s33="W"), "turn": "white"}, "Black has no piece"),
    ({"pieces": pieces(s19="b"), "turn": "black"}, "White has no piece"),
    ({"pieces": "w" * 21 + "e" * 28 + "b", "turn": "white"}, "White has 21 pieces: at most 20"),
    ({"pieces": pieces(s3="w", s19="b"), "turn": "white"},
     "white man on square 3, its promotion row: a man there must be a king"),
    ({"pieces": pieces(s48="b", s19="w"), "turn": "white"}, "black man on square 48"),
    ({"pieces": "wb", "turn": "white"}, "must be 50 characters"),
    ({"pieces": pieces(s28="x"), "turn": "white"}, "must be 50 characters"),
    ({"pieces": pieces(s28="w", s19="b"), "turn": "red"}, "\"turn\" must be"),
])
def test_the_editor_refuses_a_bad_position(page, request_, says):
    assert says in page.error(kind="edit", **request_)


def test_the_editor_sets_up_a_position(page):
    page.send("edit", pieces=pieces(s28="w", s33="W", s19="b"), turn="black")
    s = page.expect("state", lambda s: s["fen"] == "B:W28,K33:B19")
    assert s["ply"] == 0 and s["record"] == [] and s["running"] is False


# ----- a loaded PDN's comments and variations (protocol.gui.annotations) --------------------

ANNOTATED = ("1. 32-28 {the centre} (1. 33-29 19-23 (1... 20-24 2. 29x20 15x24)) 1... 19-23 "
             "2. 28x19 14x23 {forced} *")
MARKED = "1. 32-28! 19-23 $14 (1... 18-23?! 2. 33-29 $1) 2. 28x19!? 14x23 *"


def test_notes_are_shown_kept_on_save_and_dropped_with_their_moves(page):
    page.send("load", text=ANNOTATED)
    s = page.expect("state", lambda s: s["notes"])
    assert s["notes"]["1"]["comment"] == "the centre"
    line = s["notes"]["1"]["variations"][0]
    assert [w["text"] for w in line] == ["33-29", "19-23"]
    assert [w["text"] for w in line[1]["variations"][0]] == ["20-24", "29x20", "15x24"]
    assert s["notes"]["4"] == {"comment": "forced", "nags": [], "unread": [], "variations": []}
    page.send("peek", ply=0, moves=["33-29", "20-24", "29x20"])
    peek = page.expect("peek")
    assert peek["fen"].startswith("B:") and peek["last"]["from"] == 29 and peek["last"]["to"] == 20
    page.send("save")
    text = " ".join(page.expect("pdn")["text"].split())
    assert "1. 32-28 {the centre} (1. 33-29 19-23 (1... 20-24 2. 29x20 15x24)) 1... 19-23" in text
    page.send("goto", ply=3)
    page.expect("state", lambda s: s["ply"] == 3)
    page.send("move", text="13x24")              # another move at ply 4: its note goes
    s = page.expect("state", lambda s: s["ply"] == 4)
    assert sorted(s["notes"]) == ["1"]
    page.send("new", white={"kind": "human"}, black={"kind": "human"})
    s = page.expect("state", lambda s: s["ply"] == 0 and not s["record"])
    assert s["notes"] == {}


def test_move_annotations_are_sent_with_their_moves_and_saved(page):
    page.send("load", text=MARKED)
    s = page.expect("state", lambda s: s["notes"])
    assert {ply: note["nags"] for ply, note in s["notes"].items()} == {"1": ["!"], "2": ["$14"],
                                                                      "3": ["!?"]}
    assert [w["nags"] for w in s["notes"]["2"]["variations"][0]] == [["?!"], ["$1"]]
    page.send("save")
    text = " ".join(page.expect("pdn")["text"].split())
    assert "1. 32-28! 19-23 $14 (1... 18-23?! 2. 33-29 $1) 2. 28x19!? 14x23 *" in text


def test_a_promoted_variation_becomes_the_main_line_and_keeps_the_old_one(page):
    page.send("load", text=ANNOTATED)
    page.expect("state", lambda s: s["notes"])
    page.send("promote", ply=0, moves=["33-29"])
    s = page.expect("state", lambda s: s["record"] and s["record"][0]["text"] == "33-29")
    assert [r["text"] for r in s["record"]] == ["33-29", "19-23"]       # the whole variation
    assert s["ply"] == 1 and [r["played"] for r in s["record"]] == [True, False]
    old = s["notes"]["1"]["variations"][0]
    assert [w["text"] for w in old] == ["32-28", "19-23", "28x19", "14x23"]
    assert old[0]["comment"] == "the centre" and old[3]["comment"] == "forced"
    assert [w["text"] for w in s["notes"]["2"]["variations"][0]] == ["20-24", "29x20", "15x24"]
    page.send("save")
    text = " ".join(page.expect("pdn")["text"].split())
    assert ("1. 33-29 (1. 32-28 {the centre} 1... 19-23 2. 28x19 14x23 {forced}) 1... 19-23 "
            "(1... 20-24 2. 29x20 15x24) *") in text
    page.send("move", text="18-23")                   # play goes on from there
    s = page.expect("state", lambda s: s["ply"] == 2)
    assert [r["text"] for r in s["record"]] == ["33-29", "18-23"] and sorted(s["notes"]) == ["1"]


def test_a_nested_variation_promoted_from_the_start(page):
    page.send("load", text=ANNOTATED)
    page.expect("state", lambda s: s["notes"])
    page.send("promote", ply=0, moves=["33-29", "20-24", "29x20"])
    s = page.expect("state", lambda s: s["record"] and s["record"][0]["text"] == "33-29")
    assert [r["text"] for r in s["record"]] == ["33-29", "20-24", "29x20"] and s["ply"] == 3
    assert [w["text"] for w in s["notes"]["1"]["variations"][0]][:2] == ["32-28", "19-23"]
    assert "variation is now the main line" in s["message"]


@pytest.mark.parametrize("request_, says", [
    ({"ply": 5, "moves": ["32-28"]}, "promote needs a ply from 0 to 4"),
    ({"ply": 0, "moves": None}, "promote needs \"moves\""),
    ({"ply": 0, "moves": ["32-26"]}, "32-26"),
])
def test_a_bad_promote_changes_nothing(page, request_, says):
    page.send("load", text=ANNOTATED)
    page.expect("state", lambda s: s["notes"])
    assert says in page.error(kind="promote", **request_)


@pytest.mark.parametrize("request_, says", [
    ({"ply": 9, "moves": ["32-28"]}, "peek needs a ply from 0 to 0"),
    ({"ply": 0, "moves": []}, "peek needs \"moves\""),
    ({"ply": 0, "moves": "32-28"}, "peek needs \"moves\""),
    ({"ply": 0, "moves": ["32-26"]}, "32-26"),
])
def test_a_bad_peek_is_refused(page, request_, says):
    page.send("new", white={"kind": "human"}, black={"kind": "human"})
    page.expect("state", lambda s: s["ply"] == 0 and not s["record"])
    assert says in page.error(kind="peek", **request_)
