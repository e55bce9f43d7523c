"""The ``rafle`` command itself: its version, its help texts and how it dispatches."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version
from pathlib import Path

import pytest

from protocol import about, cli

ROOT = Path(__file__).resolve().parents[1]


def rafle(capsys, *args: str) -> tuple[int, str, str]:
    """``rafle ARGS`` in this process: (exit code, stdout, stderr)."""
    try:
        code = cli.main(list(args))
    except SystemExit as exc:                 # argparse's --help and errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


# ----- version --------------------------------------------------------------------------

@pytest.mark.parametrize("word", ["--version", "-V", "version"])
def test_version_prints_the_installed_distributions_version(capsys, word):
    code, out, _ = rafle(capsys, word)
    assert code == 0
    assert out == f"rafle {installed_version('rafle')}\n"


def test_the_installed_version_is_the_checkouts():
    assert about.version() == about._pyproject_version(ROOT / "pyproject.toml")


def test_version_falls_back_to_pyproject_when_not_installed(monkeypatch, tmp_path):
    def missing(name):
        raise PackageNotFoundError(name)

    monkeypatch.setattr(about, "_installed_version", missing)
    project = tmp_path / "pyproject.toml"
    project.write_text('[project]\nname = "rafle"\nversion = "9.8.7"\n')
    monkeypatch.setattr(about, "_PYPROJECT", project)
    assert about.version() == "9.8.7"
    project.write_text('[project]\nname = "other"\nversion = "1.2.3"\n')
    assert about.version() == "unknown"
    project.write_text("not [toml")
    assert about.version() == "unknown"
