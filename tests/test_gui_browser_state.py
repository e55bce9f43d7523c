"""The board in a real browser, part 2: a reload keeps the game, a timed game to a flag
fall, resigning (``rafle gui`` with a scratch ``--state-dir``, headless Chromium as in
``test_gui_browser.py``, whose helpers are used)."""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from test_gui_browser import (CHROMIUM, FLAGS, WAIT, browser, drag, moves, new_game,  # noqa: F401
                              page, plies)


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    state = tmp_path_factory.mktemp("gui-state")
    proc = subprocess.Popen([sys.executable, "-m", "protocol.cli", "gui", "--no-browser",
                             "--state-dir", str(state)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+/", line)
    assert found, f"no address printed: {line!r}"
    yield found.group(0)
    proc.terminate()
    _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err, err


# browser and page: test_gui_browser's fixtures (page opens this module's url).


def saved_pdn(pg) -> str:
    with pg.expect_download() as download:
        pg.click("#btn-save")
    return Path(download.value.path()).read_text()


def test_a_reload_keeps_the_game_and_the_moves_ahead(page):
    new_game(page, black="human")
    for i, (a, b) in enumerate(((32, 28), (19, 23), (28, 19))):
        drag(page, a, b)
        plies(page, i + 1)
    page.click("#btn-undo")
    expect(page.locator("#moves span.future")).to_have_count(1)
    page.fill("#name-white", "Ann")
    page.press("#name-white", "Enter")
    game = re.search(r"[?&]game=([\w-]+)", page.url)
    assert game, page.url
    page.reload()
    page.wait_for_selector("g.piece")
    expect(page.locator("#moves span")).to_have_count(3)
    assert moves(page) == ["32-28", "19-23", "28x19"] and game.group(1) in page.url
    expect(page.locator("#moves span.future")).to_have_count(1)
    expect(page.locator("#name-white")).to_have_value("Ann")
    page.click("#btn-redo")
    expect(page.locator("#moves span.future")).to_have_count(0)


def test_a_person_who_does_not_move_loses_on_time(page):
    page.click("#btn-new")
    page.check("input[name=white-kind][value=human]")
    page.check("input[name=black-kind][value=engine]")
    page.select_option("#clock-kind", "sudden")
    page.fill("#clock-base", "0.03")                    # 1.8 seconds
    expect(page.locator("#clock-inc-label")).to_be_hidden()     # no increment in sudden death
    page.click("#new-start")
    expect(page.locator("#clock-white")).to_have_class(re.compile("running"))
    expect(page.locator("#status")).to_contain_text("White lost on time", timeout=15_000)
    expect(page.locator("#clock-white")).to_have_class(re.compile("flagged"))
    expect(page.locator("#clock-white")).to_have_text("0.0")
    text = saved_pdn(page)
    assert '[Result "0-2"]' in text and '[Termination "White lost on time"]' in text


def test_resigning(page):
    new_game(page)
    drag(page, 32, 28)
    plies(page, 2)
    expect(page.locator("#name-black")).to_have_value("Rafle")     # from the engine's id
    page.click("#btn-resign")
    expect(page.locator("#btn-resign")).to_contain_text("Sure")
    page.click("#btn-resign")
    expect(page.locator("#status")).to_contain_text("White resigned")
    expect(page.locator("#btn-resign")).to_be_disabled()
    text = saved_pdn(page)
    assert '[Result "0-2"]' in text and '[Termination "White resigned"]' in text
    assert '[Black "Rafle (easy)"]' in text


FAKE_HUB = Path(__file__).resolve().parent / "fake_hub.py"


def test_a_live_tournament_is_followed_on_the_watch_page(browser, tmp_path):
    live = tmp_path / "live.json"
    gui = subprocess.Popen([sys.executable, "-m", "protocol.cli", "gui", "--no-browser",
                            "--state-dir", str(tmp_path / "games"), "--watch", str(live)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tour = None
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    try:
        found = re.search(r"http://127\.0\.0\.1:\d+/", gui.stdout.readline())
        assert found
        pg = context.new_page()
        pg.goto(found.group(0) + "watch")
        expect(pg.locator("#watch-error")).to_contain_text("waiting for")
        fake = f"{sys.executable} {FAKE_HUB} first 0.1"
        tour = subprocess.Popen(
            [sys.executable, "-m", "protocol.cli", "tournament", "--engine", "name=alpha",
             f"cmd={fake}", "--engine", "name=beta", f"cmd={fake}", "--games", "2", "--depth",
             "1", "--max-plies", "16", "--concurrency", "1", "--live", str(live),
             "--state", str(tmp_path / "t.json"), "--pdn", str(tmp_path / "t.pdn")],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        seen: set[str] = set()              # the first game's moves, as the page showed them
        progress = pg.locator("#watch-progress")
        deadline = time.monotonic() + 180                  # a guard against a hang, not a timing
        while tour.poll() is None or progress.inner_text() != "2 / 2 games":
            assert tour.poll() in (None, 0), tour.stderr.read()
            assert time.monotonic() < deadline, f"the page shows {progress.inner_text()!r}"
            cards = pg.locator('.watch-game[data-key="alpha|beta|0"] .wmoves')
            if cards.count():
                seen.add(cards.first.inner_text())
            pg.wait_for_timeout(150)
        assert len({s for s in seen if s}) >= 2, seen      # the moves came one by one
        expect(pg.locator("#watch-title")).to_contain_text("over")
        rows = pg.locator("#standings tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.first).to_contain_text("2")            # two games each: drawn at 16 plies
        expect(pg.locator("#crosstable tbody tr").first).to_contain_text("1/2")
        expect(pg.locator("#results li")).to_have_count(2)
        assert pg.locator(".watch-game svg circle.wpiece").count() > 0
    finally:
        context.close()
        if tour is not None and tour.poll() is None:
            tour.kill()
        gui.terminate()
        gui.wait(10)


def start_gui(state: Path, port: int = 0) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "protocol.cli", "gui", "--no-browser",
                             "--state-dir", str(state), "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    found = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline())
    assert found
    return proc, found.group(0)


def test_a_server_that_lost_the_game_gets_it_back_from_the_page(browser, tmp_path):
    first, url = start_gui(tmp_path / "one")
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    second = None
    try:
        pg = context.new_page()
        pg.goto(url)
        pg.wait_for_selector("g.piece")
        new_game(pg, black="human")
        for i, (a, b) in enumerate(((32, 28), (19, 23))):
            drag(pg, a, b)
            plies(pg, i + 1)
        first.terminate()
        first.wait(10)
        expect(pg.locator("#error")).to_contain_text("connection to Rafle lost")
        port = int(url.rsplit(":", 1)[1].strip("/"))
        second, _ = start_gui(tmp_path / "two", port)     # the same address, no saved game
        expect(pg.locator("#error")).to_be_empty(timeout=WAIT)
        expect(pg.locator("#moves span")).to_have_count(2)
        assert moves(pg) == ["32-28", "19-23"]
        pg.reload()                                        # and the new server has saved it
        pg.wait_for_selector("g.piece")
        expect(pg.locator("#moves span")).to_have_count(2)
        assert list((tmp_path / "two").glob("*.json"))
    finally:
        context.close()
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(10)


def test_the_watch_page_runs_the_clock_of_the_side_to_move(browser, tmp_path, monkeypatch):
    from engine import Game, move_from_pdn
    from gui_pages import served
    from protocol.tools.match import live as live_module

    path = tmp_path / "live.json"
    live = live_module.Live(path, "match", "m", "international", 2)
    monkeypatch.setattr(live_module, "EVERY", 0.0)
    game = Game()
    live.begin("a|b|0", "a", "b", game)
    game.push(move_from_pdn(game.position, "32-28"))
    live.moved("a|b|0", game, {"white": 50.0, "black": 40.0})     # Black to move, the file still
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    try:
        with served(watch=path) as base:
            pg = context.new_page()
            pg.goto(base + "/watch")
            black, white = pg.locator(".wc-black"), pg.locator(".wc-white")
            expect(white).to_have_text("White 50.0")
            first = float(black.inner_text().split()[1])
            assert first < 40
            pg.wait_for_function(f"Number(document.querySelector('.wc-black').textContent"
                                 f".split(' ')[1]) < {first}")        # it runs between polls
            expect(white).to_have_text("White 50.0")                 # the other one waits
            assert "running" in black.get_attribute("class")
    finally:
        context.close()
