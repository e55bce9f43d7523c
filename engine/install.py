"""How to add an optional extra (``gui``, ``cluster``, ``bench``) to this installation.

Rafle is installed from a checkout or a built wheel, not from a package index, so
``pip install "rafle[gui]"`` would find nothing.  The command names where this copy came
from: the checkout it runs from, or the folder or wheel pip recorded (``direct_url.json``).
"""
from __future__ import annotations

import json
from importlib.metadata import distributions
from pathlib import Path
from urllib.parse import unquote, urlparse

_HERE = Path(__file__).resolve().parent.parent


def install_command(extra: str) -> str:
    """The pip command that installs Rafle with ``extra`` from where this copy came from."""
    if (_HERE / "pyproject.toml").exists():            # running from a checkout
        return f'pip install -e "{_HERE}[{extra}]"'
    for dist in distributions(name="rafle"):
        try:
            recorded = json.loads(dist.read_text("direct_url.json") or "null")
        except ValueError:
            recorded = None
        url = (recorded or {}).get("url", "")
        if url.startswith("file:"):
            editable = (recorded.get("dir_info") or {}).get("editable", False)
            source = unquote(urlparse(url).path)
            return f'pip install {"-e " if editable else ""}"{source}[{extra}]"'
    return f'pip install "rafle[{extra}]"'
