"""The board players know and the analysis beyond one line, in a real browser (headless
Chromium, as ``test_gui_browser.py``, whose fixtures and helpers these tests share):
coordinates, numbered move rows, settings kept, premove, MultiPV lines with their arrows
and stop, the evaluation graph, the board editor refusing a bad position, the databases'
verdicts and a PDN with a comment and a variation kept through load and save."""
from __future__ import annotations

import random
from pathlib import Path

from playwright.sync_api import expect

from engine import Game, find_move, legal_moves, play, pos_from_fen, write_pdn

from test_gui_browser import WAIT, browser, centre, click, drag, moves, new_game, page, plies, url  # noqa: F401


def test_coordinates_toggle_and_settings_are_kept(page):
    expect(page.locator("text.coord")).to_have_count(20)       # 1-5, 46-50, 6..46, 5..45
    page.keyboard.press("c")
    expect(page.locator("text.coord")).to_have_count(0)
    page.click("#btn-settings")
    page.check("#set-coords")
    page.check("#set-numbers")
    page.select_option("#set-board", "contrast")
    page.select_option("#set-pieces", "flat")
    page.click("#settings-dialog button[value=close]")
    expect(page.locator("text.coord")).to_have_count(20)
    expect(page.locator("text.num")).to_have_count(50)
    fill = page.locator("rect.sq-dark").first.evaluate("(e) => getComputedStyle(e).fill")
    assert fill == "rgb(29, 29, 29)"                              # the high-contrast board
    page.reload()
    page.wait_for_selector("g.piece")
    expect(page.locator("text.num")).to_have_count(50)            # kept in localStorage
    assert page.evaluate("document.body.dataset.board") == "contrast"
    assert page.evaluate("document.body.dataset.pieces") == "flat"
    new_game(page, black="human", variant="russian")          # files and ranks on 8x8
    expect(page.locator("text.coord")).to_have_count(16)
    labels = page.locator("text.coord").evaluate_all("(ts) => ts.map((t) => t.textContent)")
    assert sorted(labels) == sorted("abcdefgh12345678")
    page.evaluate("localStorage.clear()")


def test_the_move_list_in_numbered_rows(page):
    new_game(page, black="human")
    for i, (a, b) in enumerate(((32, 28), (19, 23), (28, 19))):
        drag(page, a, b)
        plies(page, i + 1)
    rows = page.locator("#moves li.row").all_inner_texts()
    assert [" ".join(r.split()) for r in rows] == ["1. 32-28 19-23", "2. 28x19"]
    expect(page.locator("#moves span.current")).to_have_text("28x19")
    page.click("#btn-back")
    expect(page.locator("#moves span.current")).to_have_text("19-23")
    # The graph: axes from the start, the move under the cursor, a click goes there.
    assert page.locator("#graph .g-zero").count() == 1
    box = page.locator("#graph").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] / 2)
    expect(page.locator("#graph .g-tip")).to_contain_text("1. 32-28")
    page.mouse.click(box["x"] + box["width"] * 0.45, box["y"] + box["height"] / 2)
    expect(page.locator("#moves span.current")).to_have_text("32-28")


def against_a_slow_engine(page, seconds: int, fen: str = "") -> None:
    """A new game, the person White, Black an engine thinking ``seconds`` a move."""
    page.click("#btn-new")
    page.check("input[name=white-kind][value=human]")
    page.check("input[name=black-kind][value=engine]")
    page.fill("#black-level", f"time {seconds}")
    page.fill("#new-fen", fen)
    page.click("#new-start")
    expect(page.locator("#moves span")).to_have_count(0)
    # The new game's position on the board before a move is made: a drag made before the
    # server's state arrives lands on the previous position (40 pieces at the start; a
    # drag of 42-38 there is no move, and the test waited in vain for the engine).
    pos = pos_from_fen(fen) if fen else Game().position
    pieces = bin(pos.white | pos.black).count("1")
    expect(page.locator("g.piece:not(.ghost)")).to_have_count(pieces)


def test_a_premove_is_played_as_soon_as_the_engine_has_moved(page):
    # Men far apart: no reply of Black's can force a capture and so cancel the premove
    # (from the start position, 32-28 19-23 forces 28x19, and a loaded machine's engine
    # sometimes chose it).
    fen = "W:W41-50:B1-10"
    pos = pos_from_fen(fen)
    after = play(pos, find_move(pos, 42, 38))
    assert all(find_move(play(after, m), 47, 42) is not None for m in legal_moves(after))
    against_a_slow_engine(page, 5, fen)   # long enough for two clicks on a loaded machine
    header = page.locator("header nav button")
    buttons = [header.nth(i).bounding_box() for i in range(header.count())]
    drag(page, 42, 38)
    expect(page.locator("#status")).to_contain_text("thinking")
    # The longer status moves no button (it has a line of its own).
    assert [header.nth(i).bounding_box() for i in range(header.count())] == buttons
    click(page, 47)
    click(page, 42)                     # 47-42: premoved
    expect(page.locator("rect.sq-premove")).to_have_count(2)
    expect(page.locator("#message")).to_contain_text("premove 47-42")
    plies(page, 3)
    assert moves(page)[2] == "47-42"


def test_a_premove_is_cancelled_by_a_click_elsewhere(page):
    against_a_slow_engine(page, 5)     # thinking long enough for two clicks on a loaded machine
    drag(page, 32, 28)
    expect(page.locator("#status")).to_contain_text("thinking")
    click(page, 37)
    click(page, 32)
    expect(page.locator("rect.sq-premove")).to_have_count(2)
    page.click("#moves")                # off the board
    expect(page.locator("rect.sq-premove")).to_have_count(0)
    plies(page, 2)
    page.wait_for_timeout(300)
    assert len(moves(page)) == 2        # nothing was played for White


def test_three_analysis_lines_with_arrows_then_stop(page):
    new_game(page, black="human")
    page.select_option("#lines-count", "3")
    page.click("#btn-analyze")
    expect(page.locator("#lines li")).to_have_count(2, timeout=WAIT)
    expect(page.locator("polyline.arrow")).to_have_count(3)
    expect(page.locator("polyline.arrow.first")).to_have_count(1)
    expect(page.locator("#info-pv")).to_contain_text("1. ")
    for li in page.locator("#lines li").all():
        assert li.locator(".score").inner_text() and li.locator(".depth").inner_text().startswith("d")
    info = page.locator("#info").bounding_box()
    nav = page.locator("#nav").bounding_box()
    page.click("#btn-stop")
    expect(page.locator("#btn-analyze")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("polyline.arrow")).to_have_count(0)
    assert page.locator("#info").bounding_box()["height"] == info["height"]   # a fixed box
    assert page.locator("#nav").bounding_box()["y"] == nav["y"]
    page.select_option("#lines-count", "1")
    page.evaluate("localStorage.clear()")


def test_the_editor_refuses_a_bad_position_then_sets_one_up(page):
    page.click("#btn-editor")
    page.click("#editor-clear")
    expect(page.locator("g.piece")).to_have_count(0)
    page.click("#editor-done")
    expect(page.locator("#editor-error")).to_contain_text("the board is empty")
    page.click("#palette [data-tool=w]")
    click(page, 3)                                  # a white man on its promotion row
    page.click("#palette [data-tool=b]")
    click(page, 19)
    expect(page.locator("#editor-fen")).to_have_value("W:W3:B19")
    page.click("#editor-done")
    expect(page.locator("#editor-error")).to_contain_text("white man on square 3, its promotion row")
    page.click("#palette [data-tool=W]")
    click(page, 3)
    page.check("input[name=editor-turn][value=black]")
    # A piece dragged from the palette onto the board.
    box = page.locator("#palette [data-tool=w]").bounding_box()
    page.mouse.move(box["x"] + 10, box["y"] + 10)
    page.mouse.down()
    x, y = centre(page, 33)
    page.mouse.move(x, y, steps=5)
    page.mouse.up()
    expect(page.locator("#editor-fen")).to_have_value("B:WK3,33:B19")
    page.click("#editor-done")
    expect(page.locator("#editor")).to_be_hidden()
    expect(page.locator("#fen-input")).to_have_attribute("placeholder", "W:W31-50:B1-20")
    expect(page.locator("#status")).to_contain_text("Black to move")
    assert page.locator("g.piece").count() == 3


def test_database_verdicts_on_each_move(page):
    page.fill("#fen-input", "W:W33,28:B19")
    page.click("#fen-form button")
    expect(page.locator("#dbmoves button.db")).to_have_count(3)
    expect(page.locator("#dbmoves button.db.win")).to_have_text("33-29 win")
    expect(page.locator("#dbmoves button.db.loss")).to_have_text("28-23 loss")
    page.fill("#fen-input", "W:W31-50:B1-20")
    page.click("#fen-form button")
    expect(page.locator("#dbmoves")).to_be_hidden()


ANNOTATED = """[White "A"]
[Black "B"]
[Result "*"]

1. 32-28 {the centre} (1. 33-29 {quieter} 19-23 (1... 20-24 2. 29x20 15x24) 2. 38-33)
1... 19-23 2. 28x19!? 14x23 $14 {forced} *
"""


def test_a_pdn_with_comments_and_variations_shown_and_saved(page, tmp_path: Path):
    pdn = tmp_path / "notes.pdn"
    pdn.write_text(ANNOTATED)
    page.set_input_files("#pdn-file", str(pdn))
    expect(page.locator("#message")).to_contain_text("loaded A - B (4 plies")
    expect(page.locator("#moves em.comment")).to_have_count(3)
    expect(page.locator("#moves em.comment").first).to_have_text("the centre")
    variation = page.locator("#moves li.note .variation").first
    expect(variation).to_contain_text("(1. 33-29")
    expect(variation).to_contain_text("(1... 20-24 2. 29x20 15x24)")
    rows = [" ".join(r.split()) for r in page.locator("#moves li.row").all_inner_texts()]
    assert rows == ["1. 32-28", "1. ... 19-23", "2. 28x19!? 14x23⩲"]      # annotations as glyphs
    expect(page.locator("#moves span .nag").last).to_have_attribute("title", "$14")
    assert moves(page) == ["32-28", "19-23", "28x19!?", "14x23⩲"]      # the main line's moves
    page.locator("#moves .var-move", has_text="29x20").click()        # a nested variation
    expect(page.locator("#message")).to_contain_text("variation: 33-29 20-24 29x20")
    expect(page.locator("#moves .var-move.current")).to_have_text("29x20")
    assert page.locator('g.piece.w:not(.ghost)[data-piece="20"]').count() == 1
    page.locator("#moves span", has_text="28x19").click()              # back to the game
    expect(page.locator("#moves span.current")).to_have_text("28x19!?")
    assert page.locator('g.piece.w:not(.ghost)[data-piece="19"]').count() == 1
    with page.expect_download() as download:
        page.click("#btn-save")
    saved = " ".join(Path(download.value.path()).read_text().split())
    assert ("1. 32-28 {the centre} (1. 33-29 {quieter} 1... 19-23 (1... 20-24 2. 29x20 15x24) "
            "2. 38-33) 1... 19-23 2. 28x19!? 14x23 $14 {forced} *") in saved


def test_the_shown_move_is_scrolled_into_view(page, tmp_path: Path):
    rng, game = random.Random(7), Game()
    while len(game.moves) < 80 and legal_moves(game.position) and not game.outcome():
        game.push(rng.choice(legal_moves(game.position)))
    pdn = tmp_path / "long.pdn"
    pdn.write_text(write_pdn(game))
    page.set_input_files("#pdn-file", str(pdn))
    expect(page.locator("#moves span.future")).to_have_count(len(game.moves))
    page.click("#btn-end")
    expect(page.locator("#moves span.current")).to_have_count(1)
    box, cur = page.locator("#moves").bounding_box(), page.locator("#moves span.current").bounding_box()
    assert box["y"] <= cur["y"] and cur["y"] + cur["height"] <= box["y"] + box["height"] + 1
    page.click("#btn-start")
    expect(page.locator("#moves span.current")).to_have_count(0)
    page.click("#btn-fwd")
    expect(page.locator("#moves span.current")).to_have_text(page.locator("#moves span").first.inner_text())
    cur = page.locator("#moves span.current").bounding_box()
    assert box["y"] <= cur["y"] and cur["y"] + cur["height"] <= box["y"] + box["height"] + 1


def test_sounds_and_animation_follow_their_settings(page):
    page.evaluate("""() => {
        window.tones = 0; window.animations = 0;
        const osc = AudioContext.prototype.createOscillator;
        AudioContext.prototype.createOscillator = function () { window.tones++; return osc.call(this); };
        const animate = Element.prototype.animate;
        Element.prototype.animate = function (...a) { window.animations++; return animate.apply(this, a); };
    }""")
    new_game(page, black="human")
    drag(page, 32, 28)
    plies(page, 1)
    page.wait_for_function("window.tones > 0 && window.animations > 0")
    page.click("#btn-settings")
    page.uncheck("#set-sound")
    page.uncheck("#set-animate")
    page.click("#settings-dialog button[value=close]")
    before = page.evaluate("[window.tones, window.animations]")
    drag(page, 19, 23)
    plies(page, 2)
    page.wait_for_timeout(200)
    assert page.evaluate("[window.tones, window.animations]") == before
    page.evaluate("localStorage.clear()")


def test_play_from_a_variation_makes_it_the_main_line(page, tmp_path: Path):
    pdn = tmp_path / "notes.pdn"
    pdn.write_text(ANNOTATED)
    page.set_input_files("#pdn-file", str(pdn))
    expect(page.locator("#message")).to_contain_text("loaded A - B")
    expect(page.locator("#btn-promote")).to_be_hidden()
    page.locator("#moves .var-move", has_text="33-29").first.click()
    expect(page.locator("#message")).to_contain_text("variation: 33-29")
    page.click("#btn-promote")
    expect(page.locator("#message")).to_contain_text("the variation is now the main line")
    expect(page.locator("#btn-promote")).to_be_hidden()
    assert moves(page) == ["33-29", "19-23", "38-33"]               # the whole variation
    expect(page.locator("#moves span.current")).to_have_text("33-29")
    old = page.locator("#moves li.note .variation").first
    expect(old).to_contain_text("(1. 32-28 the centre 1... 19-23 2. 28x19!? 14x23")
    page.fill("#move-input", "18-23")                                 # play goes on from here
    page.press("#move-input", "Enter")
    expect(page.locator("#moves span.current")).to_have_text("18-23")
    assert moves(page) == ["33-29", "18-23"]
