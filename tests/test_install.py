"""Install commands that work from where the user is: a checkout, a folder pip installed
from, or a built wheel (Rafle is not on a package index, so "rafle[gui]" finds nothing)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engine import install
from engine import install_command

ROOT = Path(__file__).resolve().parents[1]


class _Dist:
    def __init__(self, recorded):
        self.recorded = recorded

    def read_text(self, name):
        assert name == "direct_url.json"
        return None if self.recorded is None else json.dumps(self.recorded)


def test_from_a_checkout_the_command_names_the_checkout():
    assert install_command("gui") == f'pip install -e "{ROOT}[gui]"'


def test_an_installed_copy_names_the_folder_or_wheel_pip_recorded(monkeypatch, tmp_path):
    monkeypatch.setattr(install, "_HERE", tmp_path)          # no pyproject.toml beside it
    for recorded, expected in [
        ({"url": "file:///home/me/rafle", "dir_info": {}}, 'pip install "/home/me/rafle[cluster]"'),
        ({"url": "file:///home/me/rafle", "dir_info": {"editable": True}},
         'pip install -e "/home/me/rafle[cluster]"'),
        ({"url": "file:///tmp/dist/rafle-0.1.0-py3-none-any.whl", "archive_info": {}},
         'pip install "/tmp/dist/rafle-0.1.0-py3-none-any.whl[cluster]"'),
        ({"url": "file:///home/me/my%20rafle"}, 'pip install "/home/me/my rafle[cluster]"'),
        (None, 'pip install "rafle[cluster]"'),
    ]:
        monkeypatch.setattr(install, "distributions", lambda name, r=recorded: [_Dist(r)])
        assert install_command("cluster") == expected


def test_every_message_names_a_command_that_works():
    """No source file tells the user to pip install "rafle[...]" by that name."""
    for top in ("engine", "protocol", "perft"):
        for path in (ROOT / top).rglob("*.py"):
            if path.name != "install.py":
                text = path.read_text(encoding="utf-8")
                assert "rafle[" not in text, path
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert "rafle[" not in page.read_text(encoding="utf-8"), page


def test_the_wheel_has_the_version_and_leaves_the_data_and_docs_out(tmp_path):
    """``rafle --version``, the Hub's ``id`` line (tests/test_docs.py) and the wheel agree; the
    kept self-play games (data/) and the documentation (docs/) are not installed."""
    import tomllib
    import zipfile
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q",
                    "-w", str(tmp_path)], check=True, capture_output=True, timeout=600)
    wheel, = tmp_path.glob("rafle-*.whl")
    assert wheel.name == f"rafle-{declared}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        metadata = z.read(f"rafle-{declared}.dist-info/METADATA").decode()
    assert f"\nVersion: {declared}\n" in metadata
    assert not [n for n in names if n.startswith(("data/", "docs/", "tests/"))]
    assert "engine/data/weights-international.npz" in names
