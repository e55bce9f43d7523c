"""The board's analysis beyond one line: several lines (MultiPV) and database marks.

* :func:`set_lines` is the page's ``lines`` request (1 to :data:`MAX_LINES`, read by
  :func:`lines_count`); the engine is asked for them with Rafle's Hub extension
  ``set-param name=multipv`` (docs/hub.md, MultiPV), sent only for analysis and only when it
  differs from what the engine has, so an engine that does not know it never sees it
  unless the person asks for lines.
* :func:`line_of` reads the line number of an ``info`` (``multipv=N``; none: line 1),
  :func:`first_move` the squares of its first move (for the page's arrow).
* :class:`Databases` marks each legal move of a position that the endgame databases hold
  as a ``win``, ``draw`` or ``loss`` for the side that plays it (loaded on first use, per
  variant, from where ``rafle egdb`` puts them and the shipped ones).
"""
from __future__ import annotations

import threading

from engine import (BadInput, capture_paths, egdb_dirs, egdb_load, egdb_value_name, move_from_hub,
                    move_to_pdn, play)

MAX_LINES = 5
FLIP = {"win": "loss", "loss": "win", "draw": "draw"}


def lines_count(msg: dict) -> int:
    count = msg.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_LINES:
        raise BadInput(f"lines needs a \"count\" from 1 to {MAX_LINES}")
    return count


def line_of(args: dict[str, str]) -> int:
    """The MultiPV line of an ``info`` (1 when it has none, or a number that is not one)."""
    try:
        line = int(args.get("multipv", "1"))
    except ValueError:
        return 1
    return line if 1 <= line <= MAX_LINES else 1


def first_move(pos, pv: str) -> dict | None:
    """The squares of a variation's first move (Hub text; the page draws its arrow), or
    None when there is none or it cannot be read."""
    words = pv.split()
    try:
        move = move_from_hub(pos, words[0]) if words else None
    except BadInput:
        return None
    if move is None:
        return None
    paths = capture_paths(pos, move, limit=1)
    return {"from": move.frm, "to": move.to, "path": paths[0] if paths else [move.to]}


class Databases:
    """The endgame databases of each variant, loaded when first asked for."""

    def __init__(self):
        self._lock = threading.Lock()
        self._tables: dict[str, object] = {}

    def _for(self, variant):
        with self._lock:
            if variant.name not in self._tables:
                try:
                    self._tables[variant.name] = egdb_load(egdb_dirs(), variant)
                except (OSError, ValueError):
                    self._tables[variant.name] = None
            return self._tables[variant.name]

    def marks(self, pos, moves) -> dict[str, str]:
        """``{move text: win|draw|loss}`` for the side to move, for the ``moves`` whose
        result the databases hold ({} when the position is too big for them)."""
        pieces = bin(pos.white | pos.black).count("1")
        if not moves or pieces > 7:
            return {}
        tables = self._for(pos.variant)
        if tables is None or pieces > tables.pieces:
            return {}
        out = {}
        for move in moves:
            after = play(pos, move)
            value = egdb_value_name(tables.probe(after))     # for the side to move after it
            if value in FLIP:
                out[move_to_pdn(pos, move)] = FLIP[value]
        return out


def set_lines(session, msg: dict) -> None:
    """How many lines analysis shows (1-5); a running analysis starts again with them."""
    session.multipv = lines_count(msg)
    if session.task is not None and session.task["mode"] == "analyze":
        session._halt()
    session._changed()
