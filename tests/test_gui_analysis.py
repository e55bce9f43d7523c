"""The board's analysis beyond one line (``protocol.gui.analysis``): several lines
(MultiPV through Rafle's Hub extension) and the endgame databases' verdict on each move,
as transcripts over a real WebSocket with Rafle's ``hub`` behind it."""
from __future__ import annotations

import json

import pytest

from engine import get_variant, legal_moves, move_from_pdn, play, pos_from_fen
from test_gui_browser import browser, drag  # noqa: F401  (Chromium, module-wide)
from test_gui_server import base, page  # noqa: F401  (the server and a page on it)

WAIT_MS = 60_000


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


# ----- the game reviewed, learn from your mistakes, puzzles (review.py, puzzles.py) ---------

BLUNDER_FEN = ("W:W26,31,35,37,38,39,40,41,42,43,44,45,46,47,48,49,50:"
               "B1,2,3,4,5,6,7,8,9,10,12,13,14,15,16,17,28,29")
# 26-21?? hangs two men (16x36 takes 21 and 31); 38-32 is the move that holds.
BLUNDER_PDN = f'[FEN "{BLUNDER_FEN}"]\n\n1. 26-21 16x36 2. 38-32 28-33 *\n'
SHOT_FEN = ("W:W25,27,31,36,39,40,41,42,43,44,45,46,48,49,50:"
            "B2,3,4,5,6,7,8,9,10,11,12,14,15,16,18,19,29")
SHOT = ["27-21", "16x27", "31x33"]        # a man given, three taken back
PUZZLE_JSON = json.dumps([{"fen": SHOT_FEN, "solution": SHOT, "depth": 3, "gain": 3}])


def test_the_planted_blunder_and_the_shot_are_what_the_tests_say():
    v = get_variant("international")
    pos = pos_from_fen(BLUNDER_FEN, v)
    after = play(pos, move_from_pdn(pos, "26-21"))
    assert all(len(m.captured) == 2 for m in legal_moves(after))
    pos = pos_from_fen(SHOT_FEN, v)
    men = (pos.white.bit_count(), pos.black.bit_count())
    for word in SHOT:
        pos = play(pos, move_from_pdn(pos, word))
    assert men[0] - pos.white.bit_count() == 1 and men[1] - pos.black.bit_count() == 4


def reviewed(page) -> dict:
    """The blunder game loaded and analysed: the state with its review."""
    page.send("load", text=BLUNDER_PDN)
    page.expect("state", lambda s: len(s["record"]) == 4 and s["ply"] == 0)
    page.send("review", on=True)
    progress = page.expect("review", lambda m: m["state"] == "running" and m["done"] > 0)
    assert progress["total"] == 5
    done = page.expect("review", lambda m: m["state"] != "running")
    assert done["state"] == "done"
    return page.expect("state", lambda s: s["review"]["moves"])


def test_a_review_marks_the_blunder_and_fills_the_graph(page):
    s = reviewed(page)
    first = s["review"]["moves"][0]
    assert (first["move"], first["mark"], first["best"]) == ("26-21", "??", "38-32")
    assert first["arrows"][0] == {"from": 38, "to": 32, "path": [32]}
    assert [m["mark"] for m in s["review"]["moves"][1:]] == ["", "", ""]
    assert sorted(s["evals"], key=int) == ["0", "1", "2", "3", "4"]
    assert s["evals"]["1"] < -2 < 0 < s["evals"]["0"]
    page.send("new", white={"kind": "human"}, black={"kind": "human"})   # another game: gone
    s = page.expect("state", lambda s: not s["record"])
    assert s["review"]["moves"] == []


def test_learn_refuses_the_blunder_and_a_bad_move_and_accepts_one_that_holds(page):
    reviewed(page)
    page.send("goto", ply=4)
    page.expect("state", lambda s: s["ply"] == 4)
    page.send("learn", on=True)
    s = page.expect("state", lambda s: s["review"]["learn"])
    assert s["ply"] == 0 and "Learn (1 of 1): 26-21??" in s["message"]
    for bad in ("26-21", "31-27"):
        page.send("move", text=bad)
        s = page.expect("state", lambda s: s["message"].startswith("Try again"))
        assert s["ply"] == 0 and s["fen"] == BLUNDER_FEN and len(s["record"]) == 4
    page.send("move", text="38-32")
    s = page.expect("state", lambda s: s["message"].startswith("Good move"))
    assert "done" in s["message"] and s["review"]["learn"] is None
    assert [r["text"] for r in s["record"]][:2] == ["26-21", "16x36"]      # the game is kept


def test_a_puzzle_is_solved_by_its_line_only(page):
    page.send("puzzles", text=PUZZLE_JSON, name="shots.json")
    s = page.expect("state", lambda s: s["puzzle"])
    assert s["fen"] == SHOT_FEN and "Puzzle 1 of 1: White to play and win 3" in s["message"]
    page.send("move", text="39-34")
    s = page.expect("state", lambda s: s["message"].startswith("Not the move"))
    assert s["fen"] == SHOT_FEN and s["ply"] == 0
    page.send("move", text="27-21")
    s = page.expect("state", lambda s: s["ply"] == 2)                     # 16x27 played for Black
    assert [r["text"] for r in s["record"]] == ["27-21", "16x27"] and not s["puzzle"]["solved"]
    page.send("move", text="31x33")
    s = page.expect("state", lambda s: s["puzzle"]["solved"])
    assert s["message"].startswith("Solved!")
    page.send("puzzle", index=0)                                           # again
    s = page.expect("state", lambda s: s["ply"] == 0 and not s["puzzle"]["solved"])
    page.send("puzzle", on=False)
    assert page.expect("state", lambda s: s["puzzle"] is None)["fen"] == SHOT_FEN


def test_puzzles_from_the_review_are_its_missed_shots(page):
    reviewed(page)
    page.send("puzzles", **{"from": "review"})
    s = page.expect("state", lambda s: s["puzzle"])
    assert s["fen"] == BLUNDER_FEN and s["puzzle"]["count"] >= 1


def test_a_review_is_cancelled(page):
    page.send("new", white={"kind": "human"}, black={"kind": "human"})
    s = page.expect("state", lambda s: not s["record"] and s["players"]["black"]["kind"] == "human")
    for ply in range(30):
        page.send("move", text=s["moves"][ply % len(s["moves"])]["text"])
        s = page.expect("state", lambda s, n=ply + 1: s["ply"] == n)
    page.send("review", on=True)
    page.expect("review", lambda m: m["state"] == "running")
    page.send("review", on=False)
    assert page.expect("review", lambda m: m["state"] != "running")["state"] == "cancelled"
    s = page.expect("state", lambda s: not s["review"]["running"])
    assert s["review"]["moves"] == []
    assert "no analysis of the game is running" in page.error(kind="review", on=False)


@pytest.mark.parametrize("request_, says", [
    ({"kind": "review", "on": "yes"}, "review needs \"on\": true or false"),
    ({"kind": "review", "on": False}, "no analysis of the game is running"),
    ({"kind": "learn"}, "analyse the game first"),
    ({"kind": "learn", "on": False}, "learn mode is not on"),
    ({"kind": "puzzle", "index": 0}, "no puzzle set"),
    ({"kind": "puzzles", "from": "review"}, "analyse the game first"),
    ({"kind": "puzzles", "from": "disk"}, "puzzles come from a file"),
    ({"kind": "puzzles"}, "\"text\" must be a non-empty string"),
    ({"kind": "puzzles", "text": "[1, 2", "name": "p.json"}, "not a puzzle file"),
    ({"kind": "puzzles", "text": "[1]", "name": "p.json"}, "each puzzle is a JSON object"),
    ({"kind": "puzzles", "text": "{}", "name": "p.json"}, "is a list of puzzles"),
    ({"kind": "puzzles", "text": "[]", "name": "p.json"}, "no puzzle found"),
    ({"kind": "puzzles", "text": json.dumps([{"fen": SHOT_FEN}]), "name": "p.json"},
     "not a puzzle file"),
    ({"kind": "puzzles", "text": json.dumps([{"fen": SHOT_FEN, "solution": ["27-26"]}]),
      "name": "p.json"}, "puzzle 1: "),
    ({"kind": "puzzles", "text": json.dumps([{"fen": "W:W99:B1", "solution": ["27-26"]}]),
      "name": "p.json"}, "puzzle 1: "),
    ({"kind": "puzzles", "text": json.dumps([{"fen": SHOT_FEN, "solution": SHOT, "gain": "3"}]),
      "name": "p.json"}, "whole numbers"),
    ({"kind": "puzzles", "text": "not a game at all", "name": "p.pdn"}, "not a PDN puzzle file"),
    ({"kind": "puzzles", "text": "{a comment}", "name": "p.pdn"}, "non-empty \"solution\""),
    ({"kind": "puzzles", "text": PUZZLE_JSON, "name": 5}, "\"name\" is the file's name"),
])
def test_bad_review_learn_and_puzzle_requests_are_refused(page, request_, says):
    page.send("new", white={"kind": "human"}, black={"kind": "human"})
    page.expect("state", lambda s: not s["record"])
    assert says in page.error(**request_)


def test_out_of_order_requests_change_nothing(page):
    page.send("new", white={"kind": "human"}, black={"kind": "human"})
    page.expect("state", lambda s: not s["record"] and s["players"]["black"]["kind"] == "human")
    assert "there is no move to analyse" in page.error(kind="review")
    reviewed(page)
    assert "no puzzle set" in page.error(kind="puzzle", index=3)
    page.send("puzzles", text=PUZZLE_JSON, name="p.json")
    page.expect("state", lambda s: s["puzzle"])
    assert "from 0 to 0" in page.error(kind="puzzle", index=1)
    assert "true or false" in page.error(kind="puzzle", on=1)
    assert "analyse the game first" in page.error(kind="learn")      # the board shows the puzzle


# ----- the same in a real browser (as test_gui_browser.py: Chromium driven by Playwright) ---

@pytest.fixture
def board(browser, base):
    from playwright.sync_api import expect
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(base + "/")
    pg.wait_for_selector("g.piece")
    expect(pg.locator("#status")).to_contain_text("to move")
    yield pg
    context.close()
    assert not errors, errors


def upload(pg, field: str, name: str, text: str) -> None:
    pg.set_input_files(field, files=[{"name": name, "mimeType": "text/plain",
                                      "buffer": text.encode()}])


def test_the_page_reviews_a_game_shows_the_line_and_learns(board):
    from playwright.sync_api import expect
    upload(board, "#pdn-file", "blunder.pdn", BLUNDER_PDN)
    expect(board.locator("#moves span")).to_have_count(4, timeout=WAIT_MS)
    board.keyboard.press("v")                               # Analyse game
    blunder = board.locator('#moves span.blunder[data-ply="1"]')
    expect(blunder).to_have_count(1, timeout=WAIT_MS)
    expect(blunder).to_contain_text("26-21??")
    assert board.locator("#moves span.marked").count() == 1
    expect(board.locator("#review-status")).to_contain_text("1 blunders")
    points = board.locator("#graph polyline.g-line").get_attribute("points")
    assert len(points.split()) == 5                         # the start and each of 4 moves
    board.click("#btn-end")
    expect(board.locator("#moves span.current")).to_have_attribute("data-ply", "4")
    blunder.click()                                         # the position before it, the line
    expect(board.locator("#moves span.current")).to_have_count(0)
    expect(board.locator("#board polyline.arrow")).to_have_count(3)
    assert board.locator('#board polyline.arrow.first').count() == 1
    expect(board.locator("#message")).to_contain_text("better 38-32")
    board.click("#btn-learn")
    expect(board.locator("#message")).to_contain_text("Learn (1 of 1)")
    drag(board, 26, 21)
    expect(board.locator("#message")).to_contain_text("Try again")
    assert board.locator('g.piece.w:not(.ghost)[data-piece="26"]').count() == 1
    drag(board, 38, 32)
    expect(board.locator("#message")).to_contain_text("Good move")


def test_the_page_plays_a_puzzle_file(board):
    from playwright.sync_api import expect
    upload(board, "#puzzle-file", "shots.json", PUZZLE_JSON)
    expect(board.locator("#puzzle-bar")).to_be_visible(timeout=WAIT_MS)
    expect(board.locator("#puzzle-text")).to_have_text("Puzzle 1 of 1")
    drag(board, 39, 34)
    expect(board.locator("#message")).to_contain_text("Not the move")
    assert board.locator("#moves span").count() == 0
    drag(board, 27, 21)
    expect(board.locator("#moves span")).to_have_count(2)   # Black's forced 16x27 follows
    board.fill("#move-input", "31x33")
    board.press("#move-input", "Enter")
    expect(board.locator("#message")).to_contain_text("Solved!")
    expect(board.locator("#puzzle-text")).to_have_text("Puzzle 1 of 1: solved")
    board.click("#btn-puzzle-stop")
    expect(board.locator("#puzzle-bar")).to_be_hidden()
