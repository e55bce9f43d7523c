"""Pattern evaluation: learned weights for the men standing in overlapping 4x4 windows.

A window is 4 rows by 4 columns of the board, starting at an even column; it holds
8 dark squares, two per row, which sit next to each other in the row's bits.  The
10x10 board has 7 x 4 = 28 windows (rows 0-6, columns 0, 2, 4, 6), the 8x8 board
5 x 3 = 15.  The men of one colour in a window read as an 8-bit code (row by row from
the top, left square first), so a window's contents is one of 3^8 = 6561 indices,
``B3[own] + 2 * B3[opponent]`` (``B3`` turns 8 bits into base-3 digits): four shifts
and two table look-ups a window, no loop over squares.  Kings count as empty squares
in windows: they are material and dense terms of their own.

Colour symmetry by construction: White's side of the score reads each window's
weights with White's men as "own"; Black's side reads the same weights through the
board turned 180 degrees (the opposite window, its code reversed, colours swapped).
The score is their difference, so a position and its mirror with colours swapped
score the negation of each other.

Dense terms: every term of the hand evaluation (``engine.eval.hand_terms``: material,
advancement by row, back rank, centre, support, outposts, balance, blocked men,
mobility, runaway men, kings on the long diagonal; and the side to move) with learned
weights, so that the windows only have to learn what those terms miss; a fit starts
from the hand weights.  Every weight has an opening and an endgame value, blended by
the number of pieces on the board.

The weights ride in the evaluation's weight array after the hand weights
(``W[LEARNED]`` holds the number of windows, 0 for the hand evaluation), laid out by
:func:`layout`, in units of 1/``SCALE`` of a hundredth of a man.  They are fitted by
``rafle train`` (:mod:`engine.learn`) and ship as ``engine/data/weights-*.npz``.
"""
from functools import lru_cache

import numpy as np
from numba import njit

from .bits import popcount

NCONFIG = 6561                         # 3^8 contents of a window
NDENSE = 24                            # the hand terms engine.eval.MAN .. TEMPO
SCALE = 16
PHASE_ONE = 256                        # phase: 256 with all start pieces, 0 with none


def windows(width: int) -> int:
    """The number of windows on a board of this width."""
    return (width - 3) * ((width - 4) // 2 + 1)


def layout(width: int) -> tuple[int, int, int, int, int]:
    """Offsets of (opening windows, endgame windows, opening dense, endgame dense) in a
    weight block, and its size."""
    nw = windows(width) * NCONFIG
    return 0, nw, 2 * nw, 2 * nw + NDENSE, 2 * nw + 2 * NDENSE


@lru_cache(maxsize=None)
def window_tables(width: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, opposite): ``offsets[w, j]`` is the bit of the left square of row ``j``
    of window ``w``; ``opposite[w]`` the window the board turned 180 degrees puts there."""
    half = width // 2
    index = {(r0, c0): i for i, (r0, c0) in enumerate(
        (r, c) for r in range(width - 3) for c in range(0, width - 3, 2))}
    offsets = np.zeros((len(index), 4), dtype=np.int64)
    opposite = np.zeros(len(index), dtype=np.int64)
    for (r0, c0), w in index.items():
        for j in range(4):
            k = (r0 + j) * half + c0 // 2          # layout square - 1 of the left square
            offsets[w, j] = k + k // width
        opposite[w] = index[(width - 4 - r0, width - 4 - c0)]
    return offsets, opposite


def _base3() -> tuple[np.ndarray, np.ndarray]:
    b3 = np.zeros(256, dtype=np.int64)
    b3r = np.zeros(256, dtype=np.int64)
    for x in range(256):
        b3[x] = sum(3 ** i for i in range(8) if x >> i & 1)
        b3r[x] = sum(3 ** (7 - i) for i in range(8) if x >> i & 1)   # the code read backwards
    return b3, b3r


B3, B3R = _base3()


@njit(cache=True, nogil=True, inline="always")
def _code(bb, T, at):
    """The 8-bit code of ``bb`` in the window whose row offsets are ``T[at..at+3]``."""
    return (((bb >> T[at]) & 3) | (((bb >> T[at + 1]) & 3) << 2)
            | (((bb >> T[at + 2]) & 3) << 4) | (((bb >> T[at + 3]) & 3) << 6))


@njit(cache=True, nogil=True)
def window_index(wm, bm, T, t_off, t_opp, t_b3, t_b3r, w):
    """(White's index, Black's index) of window ``w``'s weights (men only)."""
    at = t_off + 4 * w
    white = T[t_b3 + _code(wm, T, at)] + 2 * T[t_b3 + _code(bm, T, at)]
    at = t_off + 4 * T[t_opp + w]
    black = T[t_b3r + _code(bm, T, at)] + 2 * T[t_b3r + _code(wm, T, at)]
    return white, black


@njit(cache=True, nogil=True)
def phase(white, black, start):
    """The opening share of the blend, 0..PHASE_ONE, from the pieces left of ``start``."""
    n = popcount(white | black)
    return PHASE_ONE if n >= start else (PHASE_ONE * n) // start
