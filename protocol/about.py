"""What Rafle says about itself: its name and version (``rafle --version``, the Hub's
``id`` line) and the plain-text summary that heads each command's ``--help``."""
from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _installed_version
from pathlib import Path

NAME = "Rafle"
DISTRIBUTION = "rafle"
_PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def version() -> str:
    """The version of the installed distribution; in a checkout that is not installed,
    the one its ``pyproject.toml`` declares; "unknown" if neither can be read."""
    try:
        return _installed_version(DISTRIBUTION)
    except PackageNotFoundError:
        return _pyproject_version(_PYPROJECT) or "unknown"


def _pyproject_version(path: Path) -> str | None:
    try:
        project = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {})
    except (OSError, ValueError):      # TOMLDecodeError is a ValueError
        return None
    found = project.get("version") if project.get("name") == DISTRIBUTION else None
    return found if isinstance(found, str) else None


# ``rafle bench``: (a module docstring's title) and reST/Sphinx roles such as :mod:`x`
_TITLE = re.compile(r"^``[^`]*``:\s*")
_ROLE = re.compile(r":[a-z]+:`~?([^`]*)`")


def add_subcommand(subparsers, name: str, text: str):
    """A subcommand (``rafle book build``) whose one-line help, listed under its command,
    is also the description its own ``--help`` starts with."""
    return subparsers.add_parser(name, help=text, description=text[:1].upper() + text[1:] + ".")


def summary(doc: str | None) -> str:
    """The first paragraph of a module docstring as plain text for ``--help``: without its
    ``rafle NAME``: title, without reST markup, starting with a capital."""
    first = (doc or "").strip().split("\n\n")[0]
    text = " ".join(_TITLE.sub("", first).split())
    text = _ROLE.sub(r"\1", text).replace("``", "")
    return text[:1].upper() + text[1:]
