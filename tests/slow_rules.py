"""A slow, obvious international-draughts move generator, written from the rules text.

No bitboards: squares are numbered 1..50 and mapped to (row, column) on the 10x10
board, row 0 at the top (Black's side).  It is the twin against which the numba
kernels are tested, so it shares no code with ``engine/``.

A board is a dict square -> piece ('w', 'b' men, 'W', 'B' kings); the side to move is
'W' or 'B'.  A move is (from, to, frozenset(captured)).
"""
from __future__ import annotations

SIZE = 10
DIAGONALS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def coords(square: int) -> tuple[int, int]:
    row = (square - 1) // 5
    col = 2 * ((square - 1) % 5) + (1 if row % 2 == 0 else 0)
    return row, col


def square_at(row: int, col: int) -> int | None:
    if not (0 <= row < SIZE and 0 <= col < SIZE) or (row + col) % 2 == 0:
        return None
    return row * 5 + col // 2 + 1


def is_own(piece: str | None, side: str) -> bool:
    return piece is not None and piece.upper() == side


def captures(board: dict, side: str) -> set:
    """All complete captures of ``side`` (before the majority rule)."""
    found = set()
    for start, piece in board.items():
        if not is_own(piece, side):
            continue
        king = piece.isupper()
        # The moving piece has left its square; captured pieces stay until the end.
        occupied = {s for s in board if s != start}

        def extend(square, taken):
            row, col = coords(square)
            went_on = False
            for dr, dc in DIAGONALS:
                r, c = row + dr, col + dc
                if king:
                    while square_at(r, c) is not None and square_at(r, c) not in occupied:
                        r, c = r + dr, c + dc
                victim = square_at(r, c)
                if victim is None or victim in taken:
                    continue
                if not (victim in board and not is_own(board[victim], side)):
                    continue
                r, c = r + dr, c + dc
                while square_at(r, c) is not None and square_at(r, c) not in occupied:
                    went_on = True
                    extend(square_at(r, c), taken | {victim})
                    if not king:
                        break
                    r, c = r + dr, c + dc
            if not went_on and taken:
                found.add((start, square, frozenset(taken)))

        extend(start, frozenset())
    return found


def quiet_moves(board: dict, side: str) -> set:
    moves = set()
    forward = -1 if side == "W" else 1
    for start, piece in board.items():
        if not is_own(piece, side):
            continue
        row, col = coords(start)
        for dr, dc in DIAGONALS:
            if piece.islower() and dr != forward:
                continue
            r, c = row + dr, col + dc
            while square_at(r, c) is not None and square_at(r, c) not in board:
                moves.add((start, square_at(r, c), frozenset()))
                if piece.islower():
                    break
                r, c = r + dr, c + dc
    return moves


def legal_moves(board: dict, side: str) -> set:
    """Captures taking the most pieces if any capture exists, else the quiet moves."""
    caps = captures(board, side)
    if caps:
        most = max(len(m[2]) for m in caps)
        return {m for m in caps if len(m[2]) == most}
    return quiet_moves(board, side)


def play(board: dict, side: str, move) -> tuple[dict, str]:
    start, end, taken = move
    new = {s: p for s, p in board.items() if s not in taken and s != start}
    piece = board[start]
    far_row = 0 if side == "W" else SIZE - 1
    if piece.islower() and coords(end)[0] == far_row:
        piece = piece.upper()
    new[end] = piece
    return new, ("B" if side == "W" else "W")


def perft(board: dict, side: str, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(*play(board, side, m), depth - 1) for m in legal_moves(board, side))
