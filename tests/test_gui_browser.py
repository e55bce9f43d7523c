"""The board in a real browser: ``rafle gui`` as a child process, headless Chromium from
the system packages driven by Playwright (``executable_path``: no browser download).
``.ci/run`` installs Chromium when it is missing."""
from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

CHROMIUM = os.environ.get("RAFLE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
AMBIGUOUS_FEN = "W:WK42:B21,37,23,38,28"     # two captures go from 42 to 48
WAIT = 90_000                                 # ms


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    state = tmp_path_factory.mktemp("gui-state")
    proc = subprocess.Popen([sys.executable, "-m", "protocol.cli", "gui", "--no-browser",
                             "--state-dir", str(state)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+/", line)
    assert found, f"no address printed: {line!r} {proc.stderr.read() if proc.poll() else ''}"
    yield found.group(0)
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def browser():
    assert CHROMIUM, "Chromium is missing: .ci/run installs it (apt-get install chromium)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, url):
    context = browser.new_context(viewport={"width": 1200, "height": 800}, accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(url)
    pg.wait_for_selector("g.piece")
    expect(pg.locator("#status")).to_contain_text("to move")
    yield pg
    context.close()
    assert not errors, errors


def centre(pg, square: int) -> tuple[float, float]:
    """The square's centre on the screen (the board is redrawn on every state: retry)."""
    for _ in range(50):
        box = pg.locator(f'rect[data-square="{square}"]').bounding_box()
        if box is not None:
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        pg.wait_for_timeout(100)
    raise AssertionError(f"square {square} is not on the page")


def drag(pg, frm: int, to: int) -> None:
    x, y = centre(pg, frm)
    pg.mouse.move(x, y)
    pg.mouse.down()
    x2, y2 = centre(pg, to)
    pg.mouse.move((x + x2) / 2, (y + y2) / 2, steps=4)
    pg.mouse.move(x2, y2, steps=4)
    pg.mouse.up()


def click(pg, square: int) -> None:
    pg.mouse.click(*centre(pg, square))


def moves(pg) -> list[str]:
    return pg.locator("#moves span").all_inner_texts()


def plies(pg, n: int) -> None:
    pg.wait_for_function(f"document.querySelectorAll('#moves span').length >= {n}", timeout=WAIT)


def new_game(pg, *, white="human", black="engine", fen="", delay="0", variant=None) -> None:
    pg.click("#btn-new")
    if variant:
        pg.select_option("#new-variant", variant)
    pg.check(f"input[name=white-kind][value={white}]")
    pg.check(f"input[name=black-kind][value={black}]")
    pg.fill("#white-level", "easy")
    pg.fill("#black-level", "easy")
    pg.fill("#new-fen", fen)
    pg.locator("#new-delay").evaluate(f"(e) => {{ e.value = '{delay}'; }}")
    pg.click("#new-start")


def test_drag_and_drop_then_the_engine_answers(page):
    new_game(page)
    drag(page, 32, 28)
    plies(page, 2)
    assert moves(page)[0] == "32-28"
    expect(page.locator("#status")).to_have_text("White to move")
    assert page.locator('g.piece.w:not(.ghost)[data-piece="28"]').count() == 1
    assert page.locator("rect.sq-last").count() == 2      # the engine's move is marked


def test_click_click_and_typed_moves(page):
    new_game(page, black="human")
    click(page, 33)
    assert page.locator("circle.dot").count() == 2          # its targets: 28 and 29
    click(page, 29)
    plies(page, 1)
    page.fill("#move-input", "19-24")
    page.press("#move-input", "Enter")
    plies(page, 2)
    assert moves(page) == ["33-29", "19-24"]
    page.fill("#move-input", "44-39x")
    page.press("#move-input", "Enter")
    expect(page.locator("#error")).to_contain_text("bad move")


def test_undo_redo_and_the_move_list(page):
    new_game(page, black="human")
    for i, (a, b) in enumerate(((32, 28), (19, 23), (28, 19))):
        drag(page, a, b)
        plies(page, i + 1)
    assert moves(page) == ["32-28", "19-23", "28x19"]
    page.click("#btn-undo")
    expect(page.locator("#moves span.future")).to_have_count(1)
    assert page.locator('g.piece.w:not(.ghost)[data-piece="28"]').count() == 1
    page.click("#btn-redo")
    expect(page.locator("#moves span.future")).to_have_count(0)
    assert page.locator('g.piece.w:not(.ghost)[data-piece="19"]').count() == 1
    page.locator("#moves span", has_text="32-28").click()
    expect(page.locator("#moves span.current")).to_have_text("32-28")
    expect(page.locator("#moves span.future")).to_have_count(2)


def test_load_a_pdn_and_step_through_it(page, tmp_path: Path):
    pdn = tmp_path / "game.pdn"
    pdn.write_text('[White "A"]\n[Black "B"]\n[Result "*"]\n\n1. 32-28 19-23 2. 28x19 14x23 *\n')
    page.set_input_files("#pdn-file", str(pdn))
    expect(page.locator("#message")).to_contain_text("loaded A - B (4 plies")
    expect(page.locator("#moves span.future")).to_have_count(4)
    page.click("#btn-fwd")
    expect(page.locator("#moves span.current")).to_have_text("32-28")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#moves span.current")).to_have_text("19-23")
    page.click("#btn-end")
    expect(page.locator("#moves span.current")).to_have_text("14x23")
    assert page.locator('g.piece.b:not(.ghost)[data-piece="23"]').count() == 1
    assert page.locator("g.ghost").count() == 1               # the man taken on 19
    page.click("#btn-start")
    expect(page.locator("#moves span.current")).to_have_count(0)
    bad = tmp_path / "bad.pdn"
    bad.write_text("1. 32-28 19-23 2. 28-22 *")
    page.set_input_files("#pdn-file", str(bad))
    expect(page.locator("#error")).to_contain_text("not a PDN game")
    expect(page.locator("#moves span")).to_have_count(4)      # the game shown is kept
    with page.expect_download() as download:
        page.click("#btn-save")
    saved = Path(download.value.path()).read_text()
    assert "1. 32-28 19-23 2. 28x19 14x23" in " ".join(saved.split())


def test_a_multi_capture_entered_square_by_square(page):
    page.fill("#fen-input", AMBIGUOUS_FEN)
    page.click("#fen-form button")
    expect(page.locator('g.piece.w[data-king="1"]')).to_have_count(1)
    page.click("#btn-play")                     # set-up pauses the engine; Black answers
    drag(page, 42, 48)                          # two captures end there
    expect(page.locator("#message")).to_contain_text("several captures fit")
    click(page, 29)                             # the one through 29 takes 23, not 28
    plies(page, 1)
    assert moves(page)[0].startswith("42x29")
    assert page.locator('g.piece.b:not(.ghost)[data-piece="28"]').count() == 1
    assert page.locator("g.ghost").count() == 4                # taken along the path
    plies(page, 2)                              # Black's engine answers with its last man


def test_engine_against_engine_to_the_end(page):
    new_game(page, white="engine", black="engine", fen="W:WK47:BK4", delay="0")
    expect(page.locator("#status")).to_contain_text("Game over", timeout=WAIT)
    expect(page.locator("#status")).to_contain_text("Draw")
    assert len(moves(page)) == 10
    assert page.locator("#graph polyline").count() == 1      # the evaluation over the game


def test_stop_and_analysis_show_the_engine_thinking(page):
    new_game(page, black="human")
    page.click("#btn-analyze")
    expect(page.locator("#info-depth")).to_contain_text("depth", timeout=WAIT)
    expect(page.locator("#info-pv")).not_to_be_empty()
    expect(page.locator("#btn-analyze")).to_have_attribute("aria-pressed", "true")
    page.click("#btn-stop")
    expect(page.locator("#btn-analyze")).to_have_attribute("aria-pressed", "false")
    drag(page, 32, 28)                          # the page answers while nothing thinks
    plies(page, 1)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("width, height, name", [(1200, 800, "desktop"), (390, 844, "phone")])
def test_screenshots_are_a_board(browser, url, width, height, name):
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    pg.goto(url)
    pg.wait_for_selector("g.piece")
    board = pg.locator("#board").bounding_box()
    assert 0 < board["width"] <= width and abs(board["width"] - board["height"]) < 2
    assert pg.locator("rect[data-square]").count() == 50
    assert pg.locator("g.piece").count() == 40
    shot = pg.screenshot()
    assert png_size(shot) == (width, height) and len(shot) > 10_000
    element = pg.locator("#board").screenshot()
    w, h = png_size(element)
    assert abs(w - round(board["width"])) <= 1 and abs(h - round(board["height"])) <= 1
    out = os.environ.get("RAFLE_SCREENSHOTS")          # README pictures: docs/
    if out:
        Path(out, f"gui-{name}.png").write_bytes(shot)
    context.close()
