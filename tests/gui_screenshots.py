"""The documentation's pictures of the board (docs/img): ``python tests/gui_screenshots.py`` runs ``rafle gui``,
opens it in headless Chromium (as the browser tests do) at a desktop and a phone size, starts a
game between two named people on a Fischer clock, turns analysis on with three lines, plays
a short opening while the engine analyses each position (the graph fills), then writes
``docs/img/desktop.png`` and ``phone.png`` (clocks, lines and arrows, graph).
A loaded game's comments and variations are in the browser tests, not in the pictures."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
MOVES = ["32-28", "18-23", "37-32", "12-18", "41-37", "7-12", "46-41", "1-7"]
SIZES = {"desktop": (1200, 800), "phone": (390, 844)}


def main() -> int:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    proc = subprocess.Popen([sys.executable, "-m", "protocol.cli", "gui", "--no-browser"],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        url = re.search(r"http://\S+/", proc.stdout.readline()).group(0)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            for name, (width, height) in SIZES.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(url)
                page.wait_for_selector("g.piece")
                page.click("#btn-new")
                page.check("input[name=black-kind][value=human]")
                page.select_option("#clock-kind", "fischer")
                page.click("#new-start")
                page.wait_for_selector("#clocks[data-timed='1']")
                for side, player in (("white", "Ann"), ("black", "Bob")):
                    page.fill(f"#name-{side}", player)
                    page.press(f"#name-{side}", "Enter")
                page.select_option("#lines-count", "3")
                page.click("#btn-analyze")
                for ply, move in enumerate(MOVES, start=1):
                    page.wait_for_selector("#lines li[data-line='3']", timeout=120_000)
                    page.wait_for_timeout(1000)
                    page.fill("#move-input", move)
                    page.press("#move-input", "Enter")
                    page.wait_for_selector(f"#moves span[data-ply='{ply}'].current")
                page.wait_for_selector("#lines li[data-line='3']", timeout=120_000)
                page.wait_for_timeout(3000)
                page.screenshot(path=str(OUT / f"{name}.png"), full_page=name == "phone")
                page.close()
                print(f"wrote {OUT / (name + '.png')}")
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
