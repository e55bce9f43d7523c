"""The README's pictures of the board: ``python tests/gui_screenshots.py`` runs ``rafle gui``,
opens it in headless Chromium (as the browser tests do) at a desktop and a phone size, loads
a short annotated game, analyses a position with three lines and writes
``protocol/gui/screenshots/desktop.png`` and ``phone.png``."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "protocol" / "gui" / "screenshots"
GAME = """[White "Rafle"]
[Black "Reader"]
[Result "*"]

1. 32-28 {the centre} 18-23 (1... 19-23 2. 28x19 14x23) 2. 37-32 12-18 3. 41-37 7-12
4. 46-41 {a classical set-up} 1-7 *
"""
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
                page.set_input_files("#pdn-file", files=[{"name": "game.pdn", "mimeType": "text/plain",
                                                          "buffer": GAME.encode()}])
                page.wait_for_selector("#moves em.comment")
                page.click("#btn-end")
                page.select_option("#lines-count", "3")
                page.click("#btn-analyze")
                page.wait_for_selector("#lines li[data-line='3']", timeout=120_000)
                page.wait_for_timeout(3000)
                page.screenshot(path=str(OUT / f"{name}.png"))
                page.close()
                print(f"wrote {OUT / (name + '.png')}")
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
