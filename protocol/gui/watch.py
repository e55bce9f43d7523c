"""``rafle gui --watch FILE``: follow a running ``rafle match`` or ``rafle tournament`` in the
browser.  The event writes its live state (``--live FILE``, see
:mod:`protocol.tools.match.live`); the watch page (``/watch``: ``static/watch.html`` and
``watch.js``) asks ``/watch/state`` for it every second and shows the games in progress
(a board each, its moves as played, the clocks), the standings and the crosstable.  The
side to move's clock runs on the page between two polls: each board says whose turn it is,
and the state carries the server's time (``now``) beside each game's ``moved_at``.

:func:`read_live` reads the file the event wrote, never trusting it: a missing, half-written,
foreign or broken file gives a message for the page, not an error; each game's position is
turned into a board (squares and pieces) by Rafle's rules.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from engine import WHITE, BadInput, get_variant, parse_position

FORMAT = "rafle-live"
MOST_BYTES = 20_000_000


def _board(fen: str, variant) -> dict | None:
    try:
        pos = parse_position(fen, variant)
    except (BadInput, ValueError, TypeError):
        return None
    turn = "white" if pos.turn == WHITE else "black"
    pieces = []
    for square in range(1, variant.nsquares + 1):
        piece = pos.piece_at(square)
        if piece not in (".", " ", "e"):
            row, col = variant.coords(square)
            pieces.append([row, col, piece])
    return {"width": variant.width, "pieces": pieces, "turn": turn,
            "dark": [list(variant.coords(s)) for s in range(1, variant.nsquares + 1)]}


def read_live(path: str | Path) -> dict:
    """The live state for the page: the file's content plus a board per game, or
    ``{"error": why}``."""
    path = Path(path)
    try:
        if path.stat().st_size > MOST_BYTES:
            return {"error": f"{path} is too big for a live state"}
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"error": f"waiting for {path}: start the event with --live {path}"}
    except (OSError, ValueError) as e:
        return {"error": f"cannot read {path}: {e}"}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {"error": f"{path} is not the live state of a rafle match or tournament"}
    try:
        variant = get_variant(str(data.get("variant", "international")))
    except (KeyError, ValueError, BadInput):
        return {"error": f"{path} names an unknown variant"}
    games = data.get("games")
    if not isinstance(games, list):
        return {"error": f"{path} has no list of games"}
    for game in games:
        if isinstance(game, dict):
            game["board"] = _board(str(game.get("fen", "")), variant)
    data["games"] = [g for g in games if isinstance(g, dict)]
    data["file"] = str(path)
    data["now"] = time.time()       # the page runs the clocks from the file's moved_at
    return data
