"""Geometry and rule switches of each variant, as data the kernels read.

A board is described by its width (10 or 8).  Dark squares are numbered 1..N row by
row from the top-left, as in FMJD notation (square 1 = b10 on 10x10, b8 on 8x8).
Internally square s (1-based) lives at bit ``(s-1) + (s-1)//width``: every pair of
rows is followed by one unused "ghost" bit, so that every diagonal step is a single
shift (by width/2 or width/2+1) and steps off the board land on a ghost bit or fall
off the word.

Everything a kernel needs about a variant is packed in two int64 arrays:

* ``table`` (``V_*`` indices): board masks, shift amounts and rule switches;
* ``steps`` (``NDIRS x 64``): the neighbouring bit in each direction, or -1.

Directions: 0 up-left, 1 up-right, 2 down-left, 3 down-right (diagonals, "up" is
towards square 1, White's forward), then 4 left, 5 right, 6 up, 7 down (orthogonal
captures of Frisian: the next square of the same colour on that line).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NDIRS = 8
REVERSE = (3, 2, 1, 0, 5, 4, 7, 6)

# Indices into a variant table.
V_BOARD = 0          # mask of the playable bits
V_PROMO_WHITE = 1    # squares where a white man is crowned (row of squares 1..)
V_PROMO_BLACK = 2    # squares where a black man is crowned
V_SHIFT_UL = 3       # shift of a step up-left (negative: right shift)
V_SHIFT_UR = 4
V_SHIFT_DL = 5
V_SHIFT_DR = 6
V_MAN_BACK_CAPTURE = 7   # men capture backwards
V_FLYING_KING = 8        # kings move and capture at any distance
V_PRECEDENCE = 9         # which captures are compulsory, see PREC_*
V_PASSING_PROMOTION = 10  # a man crowned mid-capture goes on as a king
V_HALT_BEHIND_KING = 11  # killer: a capture ending after a king stops right behind it
V_LAND_BEHIND = 12       # thai: a king lands right behind each captured piece
V_MAN_TAKES_KING = 13    # 0 in italian: men cannot capture kings
V_CAPTURE_DIRS = 14      # 4 (diagonal) or 8 (with orthogonal captures)
V_NSQUARES = 15
V_WIDTH = 16
V_SIZE = 17

PREC_NONE = 0       # free choice among captures
PREC_COUNT = 1      # most pieces (kings and men alike)
PREC_FRISIAN = 2    # highest value, king worth more than a man but less than two; then king first
PREC_SPANISH = 3    # most pieces, then most kings
PREC_CZECH = 4      # a capture with a king before a capture with a man
PREC_ITALIAN = 5    # most pieces, king first, most kings, earliest king


@dataclass(frozen=True)
class Variant:
    """A variant's name, rules and the kernel tables built from them."""

    name: str
    hub_name: str
    width: int
    white_starts: bool
    table: np.ndarray
    steps: np.ndarray

    @property
    def nsquares(self) -> int:
        return self.width * self.width // 2

    def square_bit(self, square: int) -> int:
        """Internal bit of a 1-based square number."""
        return (square - 1) + (square - 1) // self.width

    def bit_square(self, bit: int) -> int:
        """1-based square number of an internal bit."""
        return bit - bit // (self.width + 1) + 1


def _coords(width: int, square: int) -> tuple[int, int]:
    half = width // 2
    row, i = divmod(square - 1, half)
    col = 2 * i + 1 if row % 2 == 0 else 2 * i
    return row, col


def _build_steps(width: int) -> np.ndarray:
    half = width // 2
    by_coord = {}
    for s in range(1, width * half + 1):
        by_coord[_coords(width, s)] = (s - 1) + (s - 1) // width
    deltas = [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, -2), (0, 2), (-2, 0), (2, 0)]
    steps = np.full((NDIRS, 64), -1, dtype=np.int64)
    for (row, col), bit in by_coord.items():
        for d, (dr, dc) in enumerate(deltas):
            steps[d, bit] = by_coord.get((row + dr, col + dc), -1)
    return steps


def _make(name, hub_name, width, *, man_back_capture, flying_king, precedence,
          passing_promotion=False, halt_behind_king=False, land_behind=False,
          man_takes_king=True, orthogonal=False, white_starts=True) -> Variant:
    half = width // 2
    n = width * half
    bit = lambda s: (s - 1) + (s - 1) // width
    table = np.zeros(V_SIZE, dtype=np.int64)
    table[V_BOARD] = sum(1 << bit(s) for s in range(1, n + 1))
    table[V_PROMO_WHITE] = sum(1 << bit(s) for s in range(1, half + 1))
    table[V_PROMO_BLACK] = sum(1 << bit(s) for s in range(n - half + 1, n + 1))
    table[V_SHIFT_UL] = -(half + 1)
    table[V_SHIFT_UR] = -half
    table[V_SHIFT_DL] = half
    table[V_SHIFT_DR] = half + 1
    table[V_MAN_BACK_CAPTURE] = man_back_capture
    table[V_FLYING_KING] = flying_king
    table[V_PRECEDENCE] = precedence
    table[V_PASSING_PROMOTION] = passing_promotion
    table[V_HALT_BEHIND_KING] = halt_behind_king
    table[V_LAND_BEHIND] = land_behind
    table[V_MAN_TAKES_KING] = man_takes_king
    table[V_CAPTURE_DIRS] = 8 if orthogonal else 4
    table[V_NSQUARES] = n
    table[V_WIDTH] = width
    table.flags.writeable = False
    steps = _build_steps(width)
    steps.flags.writeable = False
    return Variant(name, hub_name, width, white_starts, table, steps)


INTERNATIONAL = _make("international", "normal", 10, man_back_capture=True,
                      flying_king=True, precedence=PREC_COUNT)

VARIANTS = {v.name: v for v in (INTERNATIONAL,)}
HUB_NAMES = {v.hub_name: v for v in VARIANTS.values()}
ALIASES = {"normal": "international", "standard": "international"}


def get_variant(name: str) -> Variant:
    """The variant called ``name`` (its own name or its Hub name)."""
    from .errors import BadInput

    key = ALIASES.get(name.lower(), name.lower())
    if key in VARIANTS:
        return VARIANTS[key]
    if key in HUB_NAMES:
        return HUB_NAMES[key]
    raise BadInput(f"unknown variant {name!r} (known: {', '.join(sorted(VARIANTS))})")
