"""What Rafle says about itself: its name and version, for ``rafle --version`` and the
Hub's ``id`` line."""
from __future__ import annotations

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

