"""Setting up and editing study positions: FEN, the loose form people write, square edits.

The loose form is how problems are printed in books and magazines::

    W: 3, 32k B: 18k, 19k
    White: K3, 32; Black: 18K, 19K; Black to move

Each colour (``W``/``B``/``White``/``Black``, a colon optional) is followed by its squares;
``k`` before or after a square (or a range ``31-35``) makes a king.  The side to move is
``W to move``/``Black to move``, or a lone colour right before another one (``B W: 3
B: 18``); otherwise White (the variant's first side) moves.  A man written on its own
crowning row cannot exist, so it is read as a king and a note says so.

Positions are frozen values: every edit returns a new :class:`engine.Position`.
"""
from __future__ import annotations

import re

from engine import (BLACK, WHITE, BadInput, Position, Variant, pos_from_fen, pos_from_hub,
                    pos_from_pieces)

_COLOUR = {"w": WHITE, "white": WHITE, "b": BLACK, "black": BLACK}
_PIECE = {"w": (WHITE, False), "b": (BLACK, False), "W": (WHITE, True), "B": (BLACK, True),
          "wk": (WHITE, True), "bk": (BLACK, True), "wm": (WHITE, False), "bm": (BLACK, False)}
_SQUARES = re.compile(r"(k?)(\d+)(?:-(\d+))?(k?)", re.I)


def crowning_row(variant: Variant, side: int) -> range:
    """Squares where ``side``'s men are crowned (White moves towards square 1)."""
    half = variant.per_row
    n = variant.nsquares
    return range(1, half + 1) if side == WHITE else range(n - half + 1, n + 1)


def build(variant: Variant, pieces: dict[int, tuple[int, bool]], turn: int) -> Position:
    """A position from {square: (side, is_king)}, with the engine's checks."""
    letters = {square: ("W" if king else "w") if side == WHITE else ("B" if king else "b")
               for square, (side, king) in pieces.items()}
    return pos_from_pieces(letters, turn, variant)


def pieces_of(pos: Position) -> dict[int, tuple[int, bool]]:
    out = {}
    for square in range(1, pos.variant.nsquares + 1):
        p = pos.piece_at(square)
        if p != "e":
            out[square] = (WHITE if p in "wW" else BLACK, p.isupper())
    return out


def _tokens(text: str) -> list[str]:
    t = re.sub(r"([:;,()\[\]])", " ", text)
    return t.split()


def parse_loose(text: str, variant: Variant) -> tuple[Position, list[str]]:
    """Read the loose form; returns the position and notes about what was assumed."""
    n = variant.nsquares
    pieces: dict[int, tuple[int, bool]] = {}
    notes: list[str] = []
    turn: int | None = None
    colour: int | None = None
    pending: int | None = None    # a colour word not yet followed by a square
    words = _tokens(text)
    i = 0
    while i < len(words):
        word = words[i].lower()
        if word in _COLOUR:
            if [w.lower() for w in words[i + 1:i + 3]] == ["to", "move"]:
                turn = _COLOUR[word]
                i += 3
                continue
            if pending is not None:
                turn = pending          # "B W: ... B: ...": a lone colour is the side to move
            pending = colour = _COLOUR[word]
            i += 1
            continue
        m = _SQUARES.fullmatch(word)
        if not m:
            raise BadInput(f"cannot read {words[i]!r} in the position (expected W:, B: and "
                           "squares such as 32, 18k or 31-35)")
        if colour is None:
            raise BadInput(f"square {words[i]} comes before any colour: start with W: or B:")
        pending = None
        lo = int(m.group(2))
        hi = int(m.group(3)) if m.group(3) else lo
        king = bool(m.group(1) or m.group(4))
        if hi < lo:
            raise BadInput(f"bad range {words[i]!r}")
        for square in range(lo, hi + 1):
            if not 1 <= square <= n:
                raise BadInput(f"square {square} is off the board (1-{n})")
            if square in pieces:
                raise BadInput(f"square {square} is given twice")
            if not king and square in crowning_row(variant, colour):
                notes.append(f"a {'white' if colour == WHITE else 'black'} man cannot stand "
                             f"on {square} (its crowning row): it is a king")
                pieces[square] = (colour, True)
            else:
                pieces[square] = (colour, king)
        i += 1
    if not pieces:
        raise BadInput("no pieces given: write e.g. W: 32, 33k B: 18, 19k")
    if turn is None:
        turn = WHITE if variant.white_starts else BLACK
        notes.append(f"{'White' if turn == WHITE else 'Black'} to move "
                     "(add 'B to move', or use the turn command)")
    return build(variant, pieces, turn), notes


_TO_MOVE = re.compile(r"[\s,;]*\b(white|black|w|b)\s+to\s+move\b[\s,;.]*", re.I)


def parse_setup(text: str, variant: Variant) -> tuple[Position, list[str]]:
    """A FEN (``W:W31-50:B1-20``), ``startpos``, a Hub position string, or the loose form;
    ``B to move`` may follow a FEN or the loose form and says who moves."""
    t = text.strip()
    clause = _TO_MOVE.search(t)
    if clause and re.match(r"(?i)^[WB?]\s*:\s*[WB]", t):
        t = (t[:clause.start()] + " " + t[clause.end():]).strip()
        pos = pos_from_fen(t, variant)
        return with_turn(pos, WHITE if clause.group(1)[0] in "wW" else BLACK), []
    if re.fullmatch(r"(?i)start(pos)?", t) or re.match(r"(?i)^[WB?]\s*:\s*[WB]", t):
        return pos_from_fen(t, variant), []
    if re.fullmatch(r"[WB][wbWBe]+", t):
        return pos_from_hub(t, variant), []          # a Hub position string, as perft takes
    return parse_loose(t, variant)


def put(pos: Position, piece: str, squares: list[int]) -> Position:
    """``pos`` with ``piece`` (w, b, W, B, wk, bk) on each of ``squares``."""
    if piece not in _PIECE:
        raise BadInput(f"unknown piece {piece!r}: use w or b for men, W or B (or wk, bk) "
                       "for kings")
    side, king = _PIECE[piece]
    _check_squares(pos, squares)
    if not king:
        bad = [s for s in squares if s in crowning_row(pos.variant, side)]
        if bad:
            raise BadInput(f"a man cannot stand on {bad[0]}, its crowning row: "
                           f"put a king there ({'W' if side == WHITE else 'B'})")
    pieces = pieces_of(pos)
    for s in squares:
        pieces[s] = (side, king)
    return build(pos.variant, pieces, pos.turn)


def remove(pos: Position, squares: list[int]) -> Position:
    """``pos`` with ``squares`` emptied."""
    _check_squares(pos, squares)
    pieces = pieces_of(pos)
    for s in squares:
        pieces.pop(s, None)
    return build(pos.variant, pieces, pos.turn)


def with_turn(pos: Position, side: int) -> Position:
    return Position(pos.white, pos.black, pos.kings, side, pos.variant)


def _check_squares(pos: Position, squares: list[int]) -> None:
    n = pos.variant.nsquares
    if not squares:
        raise BadInput("which squares? e.g. 28 or 31-35")
    for s in squares:
        if not 1 <= s <= n:
            raise BadInput(f"square {s} is off the board (1-{n})")


def read_squares(words: list[str]) -> list[int]:
    """Square numbers and ranges (``28``, ``31-35``) from command words."""
    out = []
    for w in words:
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", w.strip(","))
        if not m:
            raise BadInput(f"{w!r} is not a square number or a range such as 31-35")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        out.extend(range(lo, hi + 1))
    return out
