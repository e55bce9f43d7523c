"""Drawing a position in the terminal: the board, square numbers, last move, colour.

The board is drawn from White's side (square 1 near the top left) or flipped, with one
three-character cell per square; where the variant's players use algebraic names (a1-h8)
the ranks and files are written around it.  Pieces are letters, so the board reads the same with
or without colour: ``w``/``W`` a white man/king, ``b``/``B`` a black man/king, ``.`` an
empty dark square.  Without colour the last move's squares are bracketed (``[w]``);
with colour they get a highlighted background.  Square numbers, when shown, are a
second diagram beside the board, so that no piece hides its number.
"""
from __future__ import annotations

import os
from typing import TextIO

from engine import BLACK, WHITE, Move, Position

GLYPH = {"w": "w", "W": "W", "b": "b", "B": "B", "e": "."}
LEGEND = "w/W white man/king   b/B black man/king"

# 256-colour ANSI: board squares as backgrounds, pieces as bold foregrounds.
_RESET = "\x1b[0m"
_BG_LIGHT = "\x1b[48;5;223m"
_BG_DARK = "\x1b[48;5;94m"
_BG_LAST = "\x1b[48;5;136m"
_FG = {"w": "\x1b[1;38;5;231m", "b": "\x1b[1;38;5;16m", "e": "\x1b[38;5;137m"}


def wants_color(stream: TextIO, env: dict | None = None) -> bool:
    """Colour only on a terminal that is not ``dumb``, and never with ``NO_COLOR`` set."""
    env = os.environ if env is None else env
    if env.get("NO_COLOR", "") != "":
        return False
    if env.get("TERM", "") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _cell(pos: Position, square: int | None, last: set[int], color: bool) -> str:
    if square is None:
        return f"{_BG_LIGHT}   {_RESET}" if color else "   "
    piece = pos.piece_at(square)
    glyph = GLYPH[piece]
    if color:
        bg = _BG_LAST if square in last else _BG_DARK
        return f"{bg}{_FG[piece.lower()]} {glyph} {_RESET}"
    return f"[{glyph}]" if square in last else f" {glyph} "


def render(pos: Position, *, flipped: bool = False, numbers: bool = True,
           last: Move | None = None, color: bool = False, title: str = "") -> str:
    """The board of ``pos`` as lines of text (no trailing newline)."""
    variant = pos.variant
    width = variant.width
    order = list(range(width))
    if flipped:
        order.reverse()
    marked = {last.frm, last.to} if last is not None else set()
    edge = "+" + "-" * (3 * width) + "+"
    top_name, bottom_name = ("White", "Black") if flipped else ("Black", "White")
    gap = "   "
    lines = [f"  {top_name:^{3 * width + 2}}"]
    lines.append("  " + edge + (gap + edge if numbers else ""))
    for row in order:
        cells = "".join(_cell(pos, variant.square_at(row, col), marked, color) for col in order)
        rank = f"{width - row:>2}" if variant.algebraic else "  "
        line = f"{rank}|{cells}|"
        if numbers:
            nums = "".join(f"{s:>3}" if (s := variant.square_at(row, col)) else "   "
                           for col in order)
            line += f"{gap}|{nums}|"
        lines.append(line)
    lines.append("  " + edge + (gap + edge if numbers else ""))
    if variant.algebraic:      # files a, b, ... under the board (Russian style notation)
        lines.append("   " + "".join(f" {'abcdefghij'[col]} " for col in order))
    lines.append(f"  {bottom_name:^{3 * width + 2}}")
    lines.append("  " + LEGEND)
    if title:
        lines.append("  " + title)
    return "\n".join(line.rstrip() for line in lines)


def side_name(side: int) -> str:
    return "White" if side == WHITE else "Black" if side == BLACK else "?"
