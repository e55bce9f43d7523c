"""Codecs between positions and moves and their text forms.

* Hub position string: side to move then one character per square (``wbWBe``).
  English checkers follow pydraughts: the board turned 180 degrees, colours swapped
  (``Variant.hub_rotated``).
* Hub moves on 8x8 boards as pydraughts sends them: Russian and Brazilian squares
  numbered from a1 upwards (``Variant.hub_from_a1``), the variant's own numbers else.
* Algebraic squares (``c3``) are read in FEN and PDN moves on 8x8 boards, and PDN
  moves are written that way for variants whose PDN notation is algebraic
  (Russian, Brazilian, Czech).
* FMJD FEN: ``W:W31-50:B1-20`` and the loose forms seen in the wild (spaces, a trailing
  dot, lidraughts ``:H0:F1`` fields, ranges, ``K`` on ranges).
* Hub moves: ``32-28``, ``28x19x23`` (every captured square, any order on input,
  ascending on output); the short ``28x19`` is read when it is unambiguous.
* PDN moves: ``32-28``, ``28x19``, with intermediate landing squares (``26x37x48``)
  only when two legal captures share from and to.

Every function is pure; every failure raises :class:`BadInput` naming the problem.
"""
from __future__ import annotations

import re

from .errors import BadInput
from .position import BLACK, WHITE, Move, Position, legal_moves, start_position
from .variants import (
    INTERNATIONAL, NDIRS, REVERSE, V_FLYING_KING, V_KING_CAPTURES, V_LAND_BEHIND,
    V_MAN_CAPTURES, V_PASSING_CAPTURE, V_PASSING_PROMOTION, V_PROMO_BLACK, V_PROMO_WHITE,
    V_TURN_BACK, Variant,
)

_PIECES = "wbWBe"
_SWAP_COLOURS = str.maketrans("wbWB", "bwBW")
_ALGEBRAIC = re.compile(r"([a-h])([1-8])")


def _algebraic(variant: Variant, name: str) -> int:
    """The square called ``name`` (``c3``) on an 8x8 board, a1 at White's lower left."""
    m = _ALGEBRAIC.fullmatch(name.lower())
    sq = variant.square_at(8 - int(m.group(2)), "abcdefgh".index(m.group(1))) if m else None
    if variant.width != 8 or sq is None:
        kind = "square" if variant.full_board else "dark square"
        raise BadInput(f"{_clip(name)!r} is not a {kind} of the {variant.name} board")
    return sq


def square_name(variant: Variant, square: int) -> str:
    """``c3`` for an 8x8 board; the square number on 10x10."""
    if variant.width != 8:
        return str(square)
    row, col = variant.coords(square)
    return "abcdefgh"[col] + str(8 - row)


def _check_men_rows(white: int, black: int, kings: int, v: Variant) -> None:
    bad = white & ~kings & int(v.table[V_PROMO_WHITE])
    if bad:
        sq = v.bit_square((bad & -bad).bit_length() - 1)
        raise BadInput(f"white man on square {sq}, its promotion row")
    bad = black & ~kings & int(v.table[V_PROMO_BLACK])
    if bad:
        sq = v.bit_square((bad & -bad).bit_length() - 1)
        raise BadInput(f"black man on square {sq}, its promotion row")


# ----- Hub position string ------------------------------------------------------

def pos_from_hub(text: str, variant: Variant = INTERNATIONAL) -> Position:
    """Read a Hub position string such as ``Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeeww...``."""
    n = variant.nsquares
    if len(text) != n + 1:
        raise BadInput(f"hub position must have {n + 1} characters, got {len(text)}")
    if text[0] not in "WB":
        raise BadInput(f"hub position must start with W or B (side to move), got {text[0]!r}")
    white = black = kings = 0
    for i, ch in enumerate(text[1:], start=1):
        if ch not in _PIECES:
            raise BadInput(f"bad character {ch!r} for square {i} (expected one of {_PIECES})")
        if variant.hub_rotated:
            i, ch = n + 1 - i, ch.translate(_SWAP_COLOURS)
        bit = 1 << variant.square_bit(i)
        if ch in "wW":
            white |= bit
        elif ch in "bB":
            black |= bit
        if ch in "WB":
            kings |= bit
    _check_men_rows(white, black, kings, variant)
    turn = WHITE if text[0] == "W" else BLACK
    return Position(white, black, kings, 1 - turn if variant.hub_rotated else turn, variant)


def pos_to_hub(pos: Position) -> str:
    """The Hub position string of ``pos``."""
    v = pos.variant
    if v.hub_rotated:
        return ("B" if pos.turn == WHITE else "W") + "".join(
            pos.piece_at(s).translate(_SWAP_COLOURS)
            for s in range(v.nsquares, 0, -1))
    return ("W" if pos.turn == WHITE else "B") + "".join(
        pos.piece_at(s) for s in range(1, v.nsquares + 1))


# ----- DXP position (GAMEREQ) ---------------------------------------------------

_HUB_TO_DXP = str.maketrans("bB", "zZ")    # the side to move and the pieces alike
_DXP_TO_HUB = str.maketrans("zZ", "bB")


def pos_from_dxp(text: str) -> Position:
    """Read a DXP position: the side to move (``W`` or ``Z``) then 50 squares (``ewzWZ``),
    international draughts (DXP knows no other board)."""
    if len(text) != INTERNATIONAL.nsquares + 1:
        raise BadInput(f"DXP position must have {INTERNATIONAL.nsquares + 1} characters, "
                       f"got {len(text)}")
    if text[0] not in "WZ":
        raise BadInput(f"DXP position must start with W or Z (side to move), got {text[0]!r}")
    if not set(text[1:]) <= set("ewzWZ"):
        bad = next(ch for ch in text[1:] if ch not in "ewzWZ")
        raise BadInput(f"bad character {bad!r} in a DXP position (expected one of ewzWZ)")
    return pos_from_hub(text.translate(_DXP_TO_HUB), INTERNATIONAL)


def pos_to_dxp(pos: Position) -> str:
    """The DXP position of ``pos``: ``W`` or ``Z`` to move, then 50 squares (``ewzWZ``)."""
    if pos.variant.name != INTERNATIONAL.name:
        raise BadInput(f"DXP carries international positions only, not {pos.variant.name}")
    return pos_to_hub(pos).translate(_HUB_TO_DXP)


# ----- FEN ----------------------------------------------------------------------

def pos_from_fen(text: str, variant: Variant = INTERNATIONAL) -> Position:
    """Read an FMJD/PDN FEN; ``startpos`` gives the initial position."""
    s = "".join(text.split())
    if s.lower() in ("startpos", "start"):
        return start_position(variant)
    if s.startswith('"') and s.endswith('"') and len(s) >= 2:
        s = s[1:-1]
    s = s.rstrip(".")
    if not s:
        raise BadInput("empty FEN")
    fields = s.split(":")
    side = fields[0].upper()
    if side not in ("W", "B", "?"):
        raise BadInput(f"FEN must start with the side to move W or B, got {fields[0]!r}")
    n = variant.nsquares
    pieces: dict[int, str] = {}
    seen_colour = set()
    for field in fields[1:]:
        if not field:
            continue
        colour = field[0].upper()
        if colour in "HF" and field[1:].isdigit():
            continue  # lidraughts move counters
        if colour not in "WB":
            raise BadInput(f"FEN section {field!r} must start with W or B")
        if colour in seen_colour:
            raise BadInput(f"FEN has two {colour} sections")
        seen_colour.add(colour)
        body = field[1:]
        if not body:
            continue
        for item in body.split(","):
            # ASCII digits, at most 6: int() refuses thousands of digits with a ValueError.
            m = re.fullmatch(r"([Kk]?)([0-9]{1,6})(?:-([0-9]{1,6}))?", item)
            if not m and variant.width == 8 and _ALGEBRAIC.fullmatch(item.lower().lstrip("k")):
                # pydraughts writes Russian and Brazilian FENs as Wa1,c3,Kd4...
                king = item[0] in "Kk" and len(item) == 3
                sq = _algebraic(variant, item[1:] if king else item)
                m = re.fullmatch(r"([Kk]?)([0-9]+)()", ("K" if king else "") + str(sq))
            if not m:
                raise BadInput(f"bad FEN square {_clip(item)!r} in section {colour}")
            lo = int(m.group(2))
            hi = int(m.group(3)) if m.group(3) else lo
            if hi < lo:
                raise BadInput(f"bad FEN range {item!r}")
            for sq in range(lo, hi + 1):
                if not 1 <= sq <= n:
                    raise BadInput(f"FEN square {sq} is off the board (1-{n})")
                if sq in pieces:
                    raise BadInput(f"FEN lists square {sq} twice")
                piece = colour.lower() if not m.group(1) else colour
                pieces[sq] = piece
    if not seen_colour:
        raise BadInput("FEN has no W or B piece section")
    return pos_from_pieces(pieces, BLACK if side == "B" else WHITE, variant)


def pos_from_pieces(pieces: dict[int, str], turn: int, variant: Variant = INTERNATIONAL) -> Position:
    """The position with ``pieces`` ({square: ``w``, ``b``, ``W`` or ``B``}) and ``turn`` to move;
    a man on its own promotion row is refused, as in every position codec."""
    n = variant.nsquares
    white = black = kings = 0
    for sq, piece in pieces.items():
        if not 1 <= sq <= n:
            raise BadInput(f"square {sq} is off the board (1-{n})")
        if piece not in "wbWB" or len(piece) != 1:
            raise BadInput(f"bad piece {piece!r} on square {sq} (expected w, b, W or B)")
        bit = 1 << variant.square_bit(sq)
        if piece in "wW":
            white |= bit
        else:
            black |= bit
        if piece in "WB":
            kings |= bit
    _check_men_rows(white, black, kings, variant)
    return Position(white, black, kings, turn, variant)


def pos_to_fen(pos: Position) -> str:
    """Canonical FEN: side, White's then Black's squares ascending, ``K`` for kings.

    Turkish squares are written by name (``W:Wa2,b2,...:Bh7,Ka8``), as pydraughts does."""
    v = pos.variant
    name = (lambda sq: square_name(v, sq)) if v.full_board else str

    def section(side: int) -> str:
        items = []
        for sq in range(1, v.nsquares + 1):
            p = pos.piece_at(sq)
            if p.lower() == ("w" if side == WHITE else "b"):
                items.append(("K" if p.isupper() else "") + name(sq))
        return ",".join(items)

    return f"{'W' if pos.turn == WHITE else 'B'}:W{section(WHITE)}:B{section(BLACK)}"


def parse_position(text: str, variant: Variant = INTERNATIONAL) -> Position:
    """A FEN (contains ``:``), ``startpos``, or a Hub position string."""
    t = text.strip()
    if ":" in t or t.lower() in ("startpos", "start"):
        return pos_from_fen(t, variant)
    return pos_from_hub(t, variant)


# ----- Hub moves ----------------------------------------------------------------

def _hub_square(variant: Variant, square: int) -> int:
    """A square's number in Hub moves (the same map turns it back)."""
    if not variant.hub_from_a1:
        return square
    per_row = variant.per_row
    row, i = divmod(square - 1, per_row)
    return (variant.width - 1 - row) * per_row + i + 1


def move_to_hub(move: Move, variant: Variant = INTERNATIONAL) -> str:
    """``32-28`` or ``28x19x23`` (captured squares ascending)."""
    sq = lambda s: _hub_square(variant, s)
    if not move.captured:
        return f"{sq(move.frm)}-{sq(move.to)}"
    return "x".join(str(s) for s in (sq(move.frm), sq(move.to), *sorted(map(sq, move.captured))))


def _clip(text: str, size: int = 24) -> str:
    """``text`` shortened for an error message."""
    return text if len(text) <= size else text[:size] + "..."


def _squares(text: str, sep: str, n: int) -> list[int]:
    parts = text.split(sep)
    out = []
    for p in parts:
        if not (p.isascii() and p.isdigit()):
            raise BadInput(f"bad move {_clip(text)!r}: {_clip(p)!r} is not a square number")
        if len(p) > 6:   # int() refuses thousands of digits with a ValueError
            raise BadInput(f"bad move {_clip(text)!r}: square {_clip(p)} is off the board (1-{n})")
        sq = int(p)
        if not 1 <= sq <= n:
            raise BadInput(f"bad move {text!r}: square {sq} is off the board (1-{n})")
        out.append(sq)
    return out


def _legal_list(moves: list[Move], variant: Variant = INTERNATIONAL) -> str:
    shown = " ".join(move_to_hub(m, variant) for m in moves[:40])
    return shown + (" ..." if len(moves) > 40 else "") if moves else "none"


def find_move(pos: Position, frm: int, to: int, captured=(),
              moves: list[Move] | None = None) -> Move | None:
    """The legal move from ``frm`` to ``to`` that takes exactly the pieces on ``captured``
    (square numbers in any order; none for a quiet move), or None.  ``moves``: the moves to
    look in, if not all the legal moves of ``pos`` (a game's, without a barred king's)."""
    wanted = frozenset(captured)
    for m in legal_moves(pos) if moves is None else moves:
        if m.frm == frm and m.to == to and frozenset(m.captured) == wanted:
            return m
    return None


def move_from_hub(pos: Position, text: str) -> Move:
    """The legal move written ``text`` in Hub notation."""
    t = text.strip()
    v = pos.variant
    n = v.nsquares
    moves = legal_moves(pos)
    if "-" in t and "x" not in t.lower():
        sq = [_hub_square(v, s) for s in _squares(t, "-", n)]
        if len(sq) != 2:
            raise BadInput(f"bad move {text!r}: a quiet move is from-to")
        move = find_move(pos, sq[0], sq[1], (), moves)
        if move is not None:
            return move
        raise BadInput(f"illegal move {t}: legal moves are {_legal_list(moves, v)}")
    if "x" in t.lower():
        sq = [_hub_square(v, s) for s in _squares(t.lower(), "x", n)]
        if len(sq) < 2:
            raise BadInput(f"bad move {text!r}")
        frm, to, caps = sq[0], sq[1], sq[2:]
        if len(set(caps)) != len(caps):
            raise BadInput(f"bad move {text!r}: a captured square is listed twice")
        if caps:
            move = find_move(pos, frm, to, caps, moves)
            if move is not None:
                return move
            raise BadInput(f"illegal move {t}: legal moves are {_legal_list(moves, v)}")
        same = [m for m in moves if m.captured and (m.frm, m.to) == (frm, to)]
        if len(same) == 1:
            return same[0]
        if not same:
            raise BadInput(f"illegal move {t}: legal moves are {_legal_list(moves, v)}")
        raise BadInput(f"ambiguous move {t}: it could be {_legal_list(same, v)}")
    raise BadInput(f"bad move {text!r}: expected from-to or fromxto[xcaptured...]")


# ----- PDN moves ----------------------------------------------------------------

def capture_paths(pos: Position, move: Move, limit: int = 64) -> list[list[int]]:
    """Landing squares (ending with ``move.to``) of the ways ``move`` can be played."""
    if not move.captured:
        return [[move.to]]
    v = pos.variant
    steps = v.steps.tolist()
    flying = bool(v.table[V_FLYING_KING])
    land_behind = bool(v.table[V_LAND_BEHIND])
    passing_capture = bool(v.table[V_PASSING_CAPTURE])
    turn_back = bool(v.table[V_TURN_BACK])
    promo = int(v.table[V_PROMO_WHITE if pos.turn == WHITE else V_PROMO_BLACK])
    crowns_on_the_way = bool(v.table[V_PASSING_PROMOTION])
    own = pos.white if pos.turn == WHITE else pos.black
    is_king = bool(pos.kings & own & (1 << v.square_bit(move.frm)))
    targets = {v.square_bit(s) for s in move.captured}
    occupied = (pos.white | pos.black) & ~(1 << v.square_bit(move.frm))
    end = v.square_bit(move.to)
    man_dirs = [d for d in range(NDIRS) if int(v.table[V_MAN_CAPTURES + pos.turn]) >> d & 1]
    king_dirs = [d for d in range(NDIRS) if int(v.table[V_KING_CAPTURES]) >> d & 1]
    paths: list[list[int]] = []

    def walk(sq: int, done: frozenset, route: list[int], king: bool, came: int = -1) -> None:
        if len(paths) >= limit:
            return
        if done == targets:
            if sq == end:
                paths.append([v.bit_square(b) for b in route])
            return
        # Thai: jumped pieces leave the board at once.
        blocked = occupied & ~sum(1 << b for b in done) if passing_capture else occupied
        for d in (king_dirs if king else man_dirs):
            if not turn_back and came >= 0 and d == REVERSE[came]:
                continue                     # no 180-degree turn (Thai allows it)
            p = steps[d][sq]
            if king and flying:
                while p >= 0 and not (blocked >> p) & 1:
                    p = steps[d][p]
            if p < 0 or p not in targets or p in done:
                continue
            q = steps[d][p]
            while q >= 0 and not (blocked >> q) & 1:
                crowned = crowns_on_the_way and bool(promo >> q & 1)
                walk(q, done | {p}, route + [q], king or crowned, d)
                if not (king and flying) or land_behind:
                    break
                q = steps[d][q]

    walk(v.square_bit(move.frm), frozenset(), [], is_king)
    return paths


def move_to_pdn(pos: Position, move: Move) -> str:
    """PDN notation: ``32-28``, ``28x19``, or with landing squares when ambiguous.

    Squares are named ``c3`` for variants whose PDN notation is algebraic.
    """
    v = pos.variant
    name = (lambda s: square_name(v, s)) if v.algebraic else str
    if not move.captured:
        return f"{name(move.frm)}-{name(move.to)}"
    rivals = [m for m in legal_moves(pos)
              if m.captured and (m.frm, m.to) == (move.frm, move.to) and m != move]
    if not rivals:
        return f"{name(move.frm)}x{name(move.to)}"
    rival_paths = {tuple(p) for r in rivals for p in capture_paths(pos, r)}
    for path in capture_paths(pos, move):
        if tuple(path) not in rival_paths:
            return "x".join(name(s) for s in (move.frm, *path))
    return "x".join(name(s) for s in (move.frm, *capture_paths(pos, move)[0]))


def _is_subsequence(small: list[int], big: list[int]) -> bool:
    it = iter(big)
    return all(x in it for x in small)


def move_from_pdn(pos: Position, text: str) -> Move:
    """The legal move written ``text`` in PDN (also accepts Hub capture lists)."""
    t = text.strip().rstrip("!?+#*")
    t = re.sub(r"^\d+\.(\.\.)?", "", t).strip()
    n = pos.variant.nsquares
    if pos.variant.width == 8 and _ALGEBRAIC.search(t.lower()):
        t = _ALGEBRAIC.sub(lambda m: str(_algebraic(pos.variant, m.group(0))), t.lower())
    moves = legal_moves(pos)
    if re.fullmatch(r"[0-9]+-[0-9]+", t):
        a, b = _squares(t, "-", n)
        move = find_move(pos, a, b, (), moves)
        if move is not None:
            return move
        raise BadInput(f"illegal move {t}: legal moves are {_legal_list(moves)}")
    if not re.fullmatch(r"[0-9]+([x:*][0-9]+)+", t.lower()):
        raise BadInput(f"bad move {_clip(text)!r}: expected from-to or fromxto")
    sq = _squares(re.sub(r"[x:*]", "x", t.lower()), "x", n)
    frm, to, middle = sq[0], sq[-1], sq[1:-1]
    same = [m for m in moves if m.captured and (m.frm, m.to) == (frm, to)]
    if middle:
        fit = [m for m in same
               if any(_is_subsequence(middle, p[:-1]) for p in capture_paths(pos, m))]
        if not fit:
            # Also accept a Hub-style list of captured squares written in PDN.
            hub = find_move(pos, sq[0], sq[1], sq[2:], moves)
            fit = [hub] if hub is not None else []
        # Every landing square given (as move_to_pdn writes it) beats a path that only
        # passes through them on a longer way.
        whole = [m for m in fit if any(list(p[:-1]) == middle for p in capture_paths(pos, m))]
        same = whole if len(whole) == 1 else fit
    if len(same) == 1:
        return same[0]
    if not same:
        raise BadInput(f"illegal move {t}: legal moves are {_legal_list(moves)}")
    raise BadInput(f"ambiguous move {t}: give landing squares, e.g. "
                   + " or ".join(move_to_pdn(pos, m) for m in same))
