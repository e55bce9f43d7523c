"""Moves as a person types them, read against the legal moves of a position.

Accepted forms (``x``, ``:`` and ``*`` all mean a capture):

* ``32-28`` a move from 32 to 28 (a capture too, when that is the only move between them);
* ``28x19`` a capture from 28 to 19;
* ``28x19x10`` either the landing squares of the capture (PDN) or the captured squares
  after from and to (Hub) -- whichever names a legal move;
* ``3228`` from and to run together;
* ``28x`` the capture from 28, ``x19`` the capture that lands on 19;
* ``28`` the only move that ends on 28, or else the only move of the piece on 28;
* algebraic names for any of these squares (``c3-d4``, ``c3xe5``), as Russian players write.

A move number and ``!``/``?`` marks around the move are ignored.  An entry that names no
legal move, or several, raises :class:`engine.BadInput` with the legal moves (or the
candidates) listed, so the person can pick one.
"""
from __future__ import annotations

import re

from engine import BadInput, Move, Position, capture_paths, find_move, legal_moves, move_to_pdn


def describe(pos: Position, moves: list[Move]) -> str:
    """Moves in PDN notation, space separated."""
    return " ".join(move_to_pdn(pos, m) for m in moves) if moves else "none"


def _subsequence(small: list[int], big: list[int]) -> bool:
    it = iter(big)
    return all(x in it for x in small)


def _by_squares(pos: Position, moves: list[Move], squares: list[int]) -> list[Move]:
    """Captures named by from, to and then landing or captured squares."""
    frm, rest = squares[0], squares[1:]
    as_hub = find_move(pos, frm, rest[0], rest[1:], moves) if len(rest) >= 2 else None
    return [m for m in moves if m == as_hub or (
        m.captured and m.frm == frm and m.to == rest[-1] and (len(rest) == 1 or any(
            _subsequence(rest[:-1], p[:-1]) for p in capture_paths(pos, m))))]


def _splits(digits: str, n: int) -> list[tuple[int, int]]:
    """Ways to cut ``3228`` into two square numbers."""
    out = []
    for i in range(1, len(digits)):
        a, b = digits[:i], digits[i:]
        if a[0] != "0" and b[0] != "0" and 1 <= int(a) <= n and 1 <= int(b) <= n:
            out.append((int(a), int(b)))
    return out


def _candidates(pos: Position, moves: list[Move], t: str, n: int) -> list[Move]:
    if re.fullmatch(r"\d{1,2}", t):
        square = int(t)
        ending = [m for m in moves if m.to == square]
        return ending or [m for m in moves if m.frm == square]
    if re.fullmatch(r"\d{3,4}", t):
        pairs = _splits(t, n)
        return [m for m in moves if (m.frm, m.to) in pairs]
    m = re.fullmatch(r"(\d+)-(\d+)", t)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        quiet = [mv for mv in moves if not mv.captured and (mv.frm, mv.to) == (a, b)]
        return quiet or [mv for mv in moves if mv.captured and (mv.frm, mv.to) == (a, b)]
    m = re.fullmatch(r"(\d+)x", t)
    if m:
        return [mv for mv in moves if mv.captured and mv.frm == int(m.group(1))]
    m = re.fullmatch(r"x(\d+)", t)
    if m:
        return [mv for mv in moves if mv.captured and mv.to == int(m.group(1))]
    if re.fullmatch(r"\d+(x\d+)+", t):
        return _by_squares(pos, moves, [int(s) for s in t.split("x")])
    raise BadInput(f"{t!r} is not a move (try 32-28, 28x19, 3228, 28x or a square number)")


_NAME = re.compile(r"([a-j])(10|[1-9])")    # an algebraic square name: c3, e5, j10


def looks_like_move(text: str) -> bool:
    """True if ``text`` is shaped like a move entry rather than a command word."""
    t = _NAME.sub("1", _clean(text))
    return bool(re.fullmatch(r"\d+(-\d+|x(\d+(x\d+)*)?)?|x\d+", t))


def _numbers(pos: Position, t: str) -> str:
    """Algebraic square names (``c3-d4``) replaced by the variant's square numbers."""
    v = pos.variant

    def number(m: re.Match) -> str:
        row, col = v.width - int(m.group(2)), ord(m.group(1)) - ord("a")
        square = v.square_at(row, col) if row >= 0 and col < v.width else None
        if square is None:
            raise BadInput(f"{m.group(0)} is not a square pieces stand on")
        return str(square)

    return _NAME.sub(number, t)


def _clean(text: str) -> str:
    t = text.strip().lower().replace(" ", "")
    t = re.sub(r"^\d+\.(\.\.)?(?=\d)", "", t)   # a move number: "12.32-28", "12...19-23"
    t = t.rstrip("!?+#")
    return re.sub(r"[:*]", "x", t)


def parse_move(pos: Position, text: str) -> Move:
    """The one legal move that ``text`` names; BadInput listing the choices otherwise."""
    moves = legal_moves(pos)
    t = _numbers(pos, _clean(text))
    if not moves:
        raise BadInput("there is no legal move in this position: the game is over")
    n = pos.variant.nsquares
    for number in re.findall(r"\d+", t):
        if not 1 <= int(number) <= n and len(number) <= 2:
            raise BadInput(f"square {int(number)} is off the board (1-{n}); "
                           f"legal moves: {describe(pos, moves)}")
    found = _candidates(pos, moves, t, n)
    if len(found) == 1:
        return found[0]
    if not found:
        why = ("a capture is compulsory" if all(m.captured for m in moves)
               else "not a legal move here")
        raise BadInput(f"{text.strip()}: {why}; legal moves: {describe(pos, moves)}")
    choices = " or ".join(_full(pos, m) for m in found)
    raise BadInput(f"{text.strip()} is ambiguous: it could be {choices}")


def _full(pos: Position, move: Move) -> str:
    """PDN text, with the captured squares (two captures may share from and to)."""
    text = move_to_pdn(pos, move)
    return f"{text} (takes {','.join(map(str, move.captured))})" if move.captured else text
