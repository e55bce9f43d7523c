"""A slow, obvious move generator for every variant, written from spec/rules.md §3-§4.

The twin of the numba kernels for the variants beyond international (it covers
international too).  It shares no code with ``engine/``: squares are the variant's own
numbers, mapped to (row, column) on the board as a player sees it, row 0 at the top
(Black's side), and every rule is a plain field of :class:`Rules`.

A board is a dict square -> piece ('w', 'b' men, 'W', 'B' kings); the side to move is
'W' or 'B'.  A move is (from, to, frozenset(captured), crowned).  Duplicate captures
(same from, to, captured set and crowning by another path) are one move because moves
are kept in a set; with ``paths=True`` every capture path is kept (the "keep duplicates"
perft convention), keyed by its sequence of (victim, landing square) jumps, a king
going on along one line counting as one path (:func:`_path`).
"""
from __future__ import annotations

from dataclasses import dataclass

DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
ORTHOGONAL = ((0, -2), (0, 2), (-2, 0), (2, 0))   # next dark square on a row / column
ROOK = ((0, -1), (0, 1), (-1, 0), (1, 0))          # next square on a row / column (Turkish)


@dataclass(frozen=True)
class Rules:
    size: int                      # 10 or 8
    men_back: bool                 # men capture backwards
    flying: bool                   # kings move and capture at any distance
    precedence: str                # none, count, frisian, spanish, czech, italian
    italian_board: bool = False    # lower-left square light, square 1 = a8
    orthogonal: bool = False       # captures along rows and columns too (Frisian)
    passing_promotion: bool = False  # a man crowned mid-capture goes on as a king
    men_take_kings: bool = True
    halt_behind_king: bool = False   # Killer
    land_behind: bool = False        # Thai: a king lands right behind the piece
    passing_capture: bool = False    # Thai, Turkish: jumped pieces leave at once
    full_board: bool = False         # Turkish: all 64 squares, square 1 = a8, rook-wise moves
    turn_back: bool = True           # with passing capture: a king may jump back (not Turkish)
    landings_apart: bool = False     # paths: a king stops on each landing square (kish)


INTERNATIONAL = Rules(10, True, True, "count")
RULES = {
    "international": INTERNATIONAL,
    "killer": Rules(10, True, True, "count", halt_behind_king=True),
    "frisian": Rules(10, True, True, "frisian", orthogonal=True),
    "frysk": Rules(10, True, True, "frisian", orthogonal=True),
    "breakthrough": INTERNATIONAL,
    "antidraughts": INTERNATIONAL,
    "brazilian": Rules(8, True, True, "count"),
    "russian": Rules(8, True, True, "none", passing_promotion=True),
    "pool": Rules(8, True, True, "none"),
    "english": Rules(8, False, False, "none"),
    "italian": Rules(8, False, False, "italian", italian_board=True, men_take_kings=False),
    "spanish": Rules(8, False, True, "spanish", italian_board=True),
    "czech": Rules(8, False, True, "czech"),
    "thai": Rules(8, False, True, "none", land_behind=True, passing_capture=True),
    "turkish": Rules(8, False, True, "count", passing_capture=True, full_board=True,
                     turn_back=False, landings_apart=True),
}


def coords(rules: Rules, square: int) -> tuple[int, int]:
    """Row and column of a square: dark squares numbered left to right from the top
    (every square on a full board)."""
    if rules.full_board:
        return divmod(square - 1, rules.size)
    half = rules.size // 2
    row, i = divmod(square - 1, half)
    first_dark = (row + (0 if rules.italian_board else 1)) % 2
    return row, 2 * i + first_dark


def square_at(rules: Rules, row: int, col: int) -> int | None:
    n = rules.size
    if not (0 <= row < n and 0 <= col < n):
        return None
    if rules.full_board:
        return row * n + col + 1
    dark = (row + col) % 2 == (0 if rules.italian_board else 1)
    if not dark:
        return None
    return row * (n // 2) + col // 2 + 1


def own(piece: str | None, side: str) -> bool:
    return piece is not None and piece.upper() == side


def _far_row(rules: Rules, side: str) -> int:
    return 0 if side == "W" else rules.size - 1


def _capture_dirs(rules: Rules, side: str, king: bool):
    forward = -1 if side == "W" else 1
    if rules.full_board:     # men: sideways and forward; kings: all four ways
        return [d for d in ROOK if king or d[0] != -forward]
    dirs = list(DIAGONAL)
    if not king and not rules.men_back:
        dirs = [d for d in dirs if d[0] == forward]
    if rules.orthogonal:
        dirs += list(ORTHOGONAL)
    return dirs


def captures(rules: Rules, board: dict, side: str, paths: bool = False) -> dict:
    """Every complete capture -> its precedence key (before the precedence rule).  The
    keys of the result are moves, or with ``paths`` (move, jumps) pairs."""
    found: dict = {}
    for start, piece in board.items():
        if own(piece, side):
            _captures_from(rules, board, side, start, piece.isupper(), found, paths)
    return found


def _captures_from(rules, board, side, start, king_start, found, paths=False):
    far = _far_row(rules, side)

    def occupied(sq, taken):
        if sq == start:
            return False             # the moving piece has left its square
        if rules.passing_capture and sq in taken:
            return False             # Thai: jumped pieces are gone at once
        return sq in board

    def jumps(square, king, taken, came=None):
        """(victim, [landing squares], direction) of each jump from ``square``; not
        straight back along ``came`` where a capture may not turn 180 degrees."""
        row, col = coords(rules, square)
        out = []
        for dr, dc in _capture_dirs(rules, side, king):
            if not rules.turn_back and came == (-dr, -dc):
                continue
            r, c = row + dr, col + dc
            if king and rules.flying:
                while square_at(rules, r, c) is not None and not occupied(square_at(rules, r, c), taken):
                    r, c = r + dr, c + dc
            victim = square_at(rules, r, c)
            if victim is None or victim in taken or not occupied(victim, taken):
                continue
            if own(board[victim], side):
                continue
            if not king and not rules.men_take_kings and board[victim].isupper():
                continue
            lands = []
            r, c = r + dr, c + dc
            while square_at(rules, r, c) is not None and not occupied(square_at(rules, r, c), taken):
                lands.append(square_at(rules, r, c))
                if not (king and rules.flying) or rules.land_behind:
                    break
                r, c = r + dr, c + dc
            if lands:
                out.append((victim, lands, (dr, dc)))
        return out

    def extend(square, king, crowned, taken, path, trail=(), came=None):
        for victim, lands, way in jumps(square, king, taken, came):
            now = taken | {victim}
            steps = []
            for land in lands:
                k, c = king, crowned
                if not king and coords(rules, land)[0] == far:
                    if rules.passing_promotion:
                        k, c = True, True
                    elif not rules.men_back and not rules.full_board:
                        c = True          # crowned, and a forward-only man stops here
                steps.append((land, k, c))
            # A capture must be completed: if some landing square lets it go on, the
            # piece must land on one of those (Russian rule for flying kings).
            going_on = [s for s in steps if jumps(s[0], s[1], now, way)
                        and not (s[2] and not s[1])]
            if going_on:
                for land, k, c in going_on:
                    extend(land, k, c, now, path + [victim], trail + ((victim, land),), way)
                continue
            if king and rules.halt_behind_king and board[victim].isupper():
                steps = steps[:1]
            for land, k, c in steps:
                ends_crowned = c or (not king_start and coords(rules, land)[0] == far)
                order = path + [victim]
                move = (start, land, frozenset(now), ends_crowned)
                key = _key(rules, board, now, king_start, order)
                if paths:
                    move = (move, _path(rules, trail + ((victim, land),)))
                found[move] = max(found.get(move, key), key)

    extend(start, king_start, False, frozenset(), [])


def _path(rules, jumps) -> tuple:
    """A capture path as (victim, landing square) jumps.  A king that jumps on along the
    same line did not stop between the two jumps: where it could have 'landed' there is
    not part of the path (landing on 22 or on 27 before jumping 31 on line 13-36 is one
    path), so that landing square is left out.  Turkish pieces leave the board as they
    are jumped and the king stops on each landing square: there (``landings_apart``,
    kish's counts) every landing square is part of the path."""
    def line(victim, land):
        (r1, c1), (r2, c2) = coords(rules, victim), coords(rules, land)
        return ((r2 > r1) - (r2 < r1), (c2 > c1) - (c2 < c1))
    out = []
    for i, (victim, land) in enumerate(jumps):
        same = (not rules.landings_apart and i + 1 < len(jumps)
                and line(*jumps[i + 1]) == line(victim, land))
        out.append((victim, None if same else land))
    return tuple(out)


def _key(rules, board, taken, with_king, order):
    n = len(taken)
    kings = sum(1 for s in taken if board[s].isupper())
    p = rules.precedence
    if p == "none":
        return ()
    if p == "count":
        return (n,)
    if p == "frisian":
        # A king is worth more than one man but less than two.
        return (n - kings + 2 * kings, -kings, with_king)
    if p == "spanish":
        return (n, kings)
    if p == "czech":
        return (with_king,)
    # Italian: most pieces, with a king, most kings, kings met earliest.
    positions = tuple(-i for i, s in enumerate(order) if board[s].isupper())
    return (n, with_king, kings, positions)


def quiet_moves(rules: Rules, board: dict, side: str) -> set:
    moves = set()
    forward = -1 if side == "W" else 1
    far = _far_row(rules, side)
    for start, piece in board.items():
        if not own(piece, side):
            continue
        row, col = coords(rules, start)
        for dr, dc in ROOK if rules.full_board else DIAGONAL:
            if piece.islower() and dr != forward and not (rules.full_board and dr == 0):
                continue
            r, c = row + dr, col + dc
            while square_at(rules, r, c) is not None and square_at(rules, r, c) not in board:
                moves.add((start, square_at(rules, r, c), frozenset(),
                           piece.islower() and r == far))
                if piece.islower() or not rules.flying:
                    break
                r, c = r + dr, c + dc
    return moves


def legal_moves(rules: Rules, board: dict, side: str) -> set:
    """The captures of highest precedence if any capture exists, else the quiet moves."""
    caps = captures(rules, board, side)
    if caps:
        best = max(caps.values())
        return {m for m, key in caps.items() if key == best}
    return quiet_moves(rules, board, side)


def path_moves(rules: Rules, board: dict, side: str) -> list:
    """:func:`legal_moves` with one entry per capture path: a capture reached by two
    paths (other jump orders, or other landing squares between jumps) is listed twice."""
    caps = captures(rules, board, side, paths=True)
    if caps:
        best = max(caps.values())
        return sorted((m for (m, _), key in caps.items() if key == best), key=repr)
    return sorted(quiet_moves(rules, board, side), key=repr)


def perft(rules: Rules, board: dict, side: str, depth: int, paths: bool = False) -> int:
    """Leaf count at ``depth`` plies, merging duplicate captures or (``paths``) not."""
    if depth == 0:
        return 1
    moves = path_moves(rules, board, side) if paths else legal_moves(rules, board, side)
    return sum(perft(rules, *play(rules, board, side, m), depth - 1, paths) for m in moves)


def play(rules: Rules, board: dict, side: str, move) -> tuple[dict, str]:
    start, end, taken, crowned = move
    new = {s: p for s, p in board.items() if s not in taken and s != start}
    piece = board[start]
    new[end] = piece.upper() if crowned else piece
    return new, ("B" if side == "W" else "W")
