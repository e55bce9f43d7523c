"""Positions and moves as small frozen values, and the public rules API over the kernels.

Squares in this API are the variant's 1-based square numbers (1..50 on 10x10); bits
are an internal matter of the kernels.  Everything here is safe to call from several
threads: each thread gets its own scratch buffers.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from . import movegen as mg
from .variants import GOAL_BREAKTHROUGH, GOAL_LOSING, INTERNATIONAL, Variant

WHITE, BLACK = 0, 1
"""The sides, as ``Position.turn`` holds them: White (0) moves first, Black is 1."""
MASK64 = (1 << 64) - 1


def signed64(x: int) -> int:
    """A 64-bit board as the signed int64 a kernel takes (bit 63 is the sign bit)."""
    return x - (1 << 64) if x >> 63 else x


@dataclass(frozen=True, slots=True)
class Move:
    """A move: from and to squares, captured squares (ascending), crowning flag."""

    frm: int
    to: int
    captured: tuple[int, ...] = ()
    promotes: bool = False

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)


@dataclass(frozen=True, slots=True)
class Position:
    """Bitboards of White's and Black's pieces and of kings, side to move, variant.

    The boards are plain non-negative Python ints (a kernel's int64 with bit 63 set,
    Turkish h1, becomes 2**63); :attr:`words` gives them back as the kernels take them.
    """

    white: int
    black: int
    kings: int
    turn: int
    variant: Variant = INTERNATIONAL

    def __post_init__(self):
        if self.white < 0 or self.black < 0 or self.kings < 0:
            object.__setattr__(self, "white", int(self.white) & MASK64)
            object.__setattr__(self, "black", int(self.black) & MASK64)
            object.__setattr__(self, "kings", int(self.kings) & MASK64)

    @property
    def words(self) -> tuple[int, int, int, int]:
        """(white, black, kings, turn) as the kernels take them (signed int64)."""
        return signed64(self.white), signed64(self.black), signed64(self.kings), self.turn

    # ----- squares -------------------------------------------------------------
    def piece_at(self, square: int) -> str:
        """'w', 'b', 'W', 'B' (kings upper case) or 'e' for an empty square."""
        bit = 1 << self.variant.square_bit(square)
        king = bool(self.kings & bit)
        if self.white & bit:
            return "W" if king else "w"
        if self.black & bit:
            return "B" if king else "b"
        return "e"

    def squares(self, side: int, kings: bool | None = None) -> list[int]:
        """Squares of ``side``'s pieces; only kings or only men if ``kings`` is given."""
        bb = self.white if side == WHITE else self.black
        if kings is True:
            bb &= self.kings
        elif kings is False:
            bb &= ~self.kings
        return [self.variant.bit_square(b) for b in _bits(bb)]

    def count(self, side: int) -> tuple[int, int]:
        """(men, kings) of ``side``."""
        bb = self.white if side == WHITE else self.black
        return bin(bb & ~self.kings).count("1"), bin(bb & self.kings).count("1")

    @property
    def key(self) -> tuple[int, int, int, int]:
        """Identity of the position for repetition checks."""
        return (self.white, self.black, self.kings, self.turn)


def _bits(bb: int):
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


_local = threading.local()


def _scratch():
    s = getattr(_local, "scratch", None)
    if s is None:
        s = _local.scratch = (mg.new_move_buffer(2), mg.new_state())
    return s


def start_position(variant: Variant = INTERNATIONAL) -> Position:
    """The initial position of ``variant`` (its own setup and side to move first)."""
    black = sum(1 << variant.square_bit(s) for s in variant.start_black)
    white = sum(1 << variant.square_bit(s) for s in variant.start_white)
    return Position(white, black, 0, WHITE if variant.white_starts else BLACK, variant)


def move_of_row(variant: Variant, row) -> Move:
    """The :class:`Move` of a kernel's move row (from bit, to bit, captured bits, flags)."""
    bit_squares = variant.bit_squares
    cap = int(row[2]) & MASK64
    captured = tuple(sorted(bit_squares[b] for b in _bits(cap))) if cap else ()
    return Move(bit_squares[int(row[0])], bit_squares[int(row[1])], captured,
                bool(row[3] & mg.FLAG_PROMOTE))


_MEMO_SIZE = 8        # positions whose moves each thread remembers


def legal_moves(pos: Position, paths: bool = False) -> list[Move]:
    """Every legal move of the side to move: duplicate captures once, or with ``paths``
    once per capture path (a capture reached by two paths is listed twice).

    A game asks for the same position's moves several times (the referee, the search's
    root, the record), so each thread remembers the last few answers; a caller gets its
    own list."""
    memo = getattr(_local, "memo", None)
    if memo is None:
        memo = _local.memo = {}
    moves = memo.get((pos, paths))
    if moves is None:
        moves = _generate(pos, paths)
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[(pos, paths)] = moves
    return list(moves)


def _generate(pos: Position, paths: bool) -> tuple[Move, ...]:
    buf, state = _scratch()
    v = pos.variant
    state[mg._PATHS] = int(paths)
    n = mg.generate(*pos.words, v.table, v.steps, buf[0], state)
    state[mg._PATHS] = 0
    return tuple(move_of_row(v, buf[0, i]) for i in range(n)
                 for _ in range((int(buf[0, i, 3]) >> mg.PATHS_SHIFT) + 1))


def play(pos: Position, move: Move) -> Position:
    """The position after ``move`` (assumed legal: use ``legal_moves`` to check), made by
    the kernels' own copy-make (:func:`engine.movegen.make`)."""
    v = pos.variant
    captured = 0
    for s in move.captured:
        captured |= 1 << v.square_bit(s)
    white, black, kings, turn = mg.make(*pos.words, v.square_bit(move.frm), v.square_bit(move.to),
                                        signed64(captured), mg.FLAG_PROMOTE if move.promotes else 0)
    return Position(int(white), int(black), int(kings), int(turn), v)


def winner(pos: Position) -> int | None:
    """WHITE or BLACK if the game is over by the variant's goal, else None.

    Normal goal: the side to move without a legal move (no pieces or all blocked)
    has lost.  Antidraughts (losing): it has won.  Breakthrough: the side that owns a
    king has crowned it first and has won (a position with kings of both sides is
    never reached in a game; White is then taken to have won).  Draw rules are the
    game record's business (:mod:`engine.game`).
    """
    goal = pos.variant.goal
    if goal == GOAL_BREAKTHROUGH and pos.kings:
        return WHITE if pos.kings & pos.white else BLACK
    if legal_moves(pos):
        return None
    return pos.turn if goal == GOAL_LOSING else 1 - pos.turn


def is_lost(pos: Position) -> bool:
    """The side to move has lost: no legal move (normal goal), or see :func:`winner`."""
    return winner(pos) == 1 - pos.turn


def barred_square(history: list[Position], pos: Position) -> int | None:
    """Frisian: the square of the king of the side to move that may not make a quiet move
    now, read from the game's positions before ``pos`` (oldest first), or None.

    A side that still has men may not move the same king more than
    ``variant.max_same_king_moves`` times in a row without capturing (spec/rules.md 4.3);
    captures stay allowed.  A record that starts later than the game knows fewer moves.
    """
    limit = pos.variant.max_same_king_moves
    if not limit or len(history) < 2 * limit or not pos.count(pos.turn)[0]:
        return None
    seq = list(history[-2 * limit:]) + [pos]
    mine = WHITE if pos.turn == WHITE else BLACK
    chain_from = None
    for i in range(limit):                      # own moves, latest first
        before, after = seq[-3 - 2 * i], seq[-2 - 2 * i]
        own_b = before.white if mine == WHITE else before.black
        own_a = after.white if mine == WHITE else after.black
        opp_b = before.black if mine == WHITE else before.white
        opp_a = after.black if mine == WHITE else after.white
        frm, to = own_b & ~own_a, own_a & ~own_b
        if opp_a != opp_b or not (frm & before.kings) or bin(frm).count("1") != 1:
            return None                          # a capture, a man's move or no move
        if chain_from is not None and to != chain_from:
            return None                          # another king
        chain_from = frm
        if i == 0:
            last_to = to
    if not (last_to & pos.kings & (pos.white if mine == WHITE else pos.black)):
        return None
    return pos.variant.bit_square(last_to.bit_length() - 1)


def allowed_moves(history: list[Position], pos: Position) -> list[Move]:
    """The moves a game allows in ``pos`` after the positions ``history``: the legal moves,
    less the quiet moves of a Frisian king barred by :func:`barred_square`."""
    barred = barred_square(history, pos)
    return [m for m in legal_moves(pos) if m.captured or m.frm != barred]
