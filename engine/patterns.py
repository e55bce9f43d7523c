"""Pattern evaluation: learned weights for the men standing in overlapping 4x4 windows.

A window is 4 rows by 4 columns of the board, starting at an even column; it holds
8 dark squares, two per row, which sit next to each other in the row's bits.  The
10x10 board has 7 x 4 = 28 windows (rows 0-6, columns 0, 2, 4, 6), the 8x8 board
5 x 3 = 15.  The men of one colour in a window read as an 8-bit code (row by row from
the top, left square first), so a window's contents is one of 3^8 = 6561 indices,
``B3[own] + 2 * B3[opponent]`` (``B3`` turns 8 bits into base-3 digits).  The four rows
of a band of windows are taken once, a row per byte (:func:`band`); each window's code
is then a shift, a mask and three shifts (:func:`code`), and its index two table
look-ups: no loop over squares.  In the search the indices are not recomputed: each
node keeps White's index of every window and the windows' sum, and a move updates only
the windows of the squares whose men changed (:func:`square_slots`,
``engine.eval.windows_after``).  Kings count as empty squares
in windows: they are material and dense terms of their own.

A second family may join them (``odd``: the weight file says so): the 4x4 windows
starting at an odd column, 3 per band of rows on the 10x10 board (21 windows), 2 on the
8x8 (10).  Such a window takes squares ``c, c+1`` of the even rows (whose dark squares
stand on odd columns) and ``c+1, c+2`` of the odd rows (:func:`odd_code`); it is read,
numbered and turned as the first family, after it.  Together the two families see
every 4x4 square of the board.

**Rectangles** (``rect``: the weight file says so) replace both families: 4 columns by 6
rows, 12 dark squares, 3^12 = 531,441 contents each, two per row (its squares ``c, c+1``
of each row, read row by row from the top), at columns 0, 2, .. and in two bands of rows,
the top six and the bottom six: 8 on the 10x10 board (rows 0-5 and 4-9), 6 on the 8x8
(rows 0-5 and 2-7).  They are numbered band by band, left to right, so that the turned
board puts rectangle ``u`` on ``n - 1 - u``, and read, updated and turned as the
windows are (:func:`square_slots`, :data:`RECT_TURNED`).  Every man and the
squares one row ahead and behind it lie in one rectangle together, so the men's local
terms ride in them too.  Or they join the first family (``rect`` 2, :data:`RECT_PLUS`):
the 4x4 windows first, numbered as alone, then the rectangles, numbered after them; each
window's weights start where the families before it end (:func:`window_bases`).

Turkish draughts plays on all 64 squares (bit = row * 8 + column): its windows are
2 rows by 4 columns, 8 squares too, starting at rows 0-6 and columns 0, 2, 4 (21
windows, :func:`full_code`), numbered and turned the same way.

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

import numpy as np
from numba import njit

from .bits import popcount

NCONFIG = 6561                         # 3^8 contents of a window
RCONFIG = 3 ** 12                      # 3^12 contents of a rectangle (rect)
RECT_ROWS = 6                          # a rectangle's rows (two squares each)
FULL_BANDS, FULL_PER = 7, 3            # the plain 8x8 board: 2x4 windows, rows 0-6, columns 0, 2, 4
NDENSE = 24                            # the hand terms engine.eval.MAN .. TEMPO
KING_TERMS = 2 + 64                    # the kings' terms (engine.eval.king_terms): a first king,
                                       # kings beyond it, and a king on each square (64 at most)
SCALE = 16
PHASE_ONE = 256                        # phase: 256 with all start pieces, 0 with none


RECT_ALONE, RECT_PLUS = 1, 2
"""A model's rectangles of 12 squares (a weight file's ``rect``): alone (1), or after the first
family of 4x4 windows (2); 0 is none."""


def families(width: int, full: bool = False, odd: bool = False,
             rect: int = 0) -> list[tuple[int, int]]:
    """(windows, contents of one) of each family of a model, in its block's order: on a
    board of this width (``full``: the plain 8x8 board), with the second family
    (``odd``), the rectangles alone (``rect`` 1) or after the first family (2)."""
    per = width // 2 - 1
    if rect:
        if full or odd:
            raise ValueError("rectangles are a model of their own, on a diagonal board")
        rects = (2 * per, RCONFIG)
        return [rects] if rect == RECT_ALONE else [((width - 3) * per, NCONFIG), rects]
    if full:
        if odd:
            raise ValueError("the plain 8x8 board has one family of windows")
        return [(FULL_BANDS * FULL_PER, NCONFIG)]
    return [((width - 3) * per, NCONFIG)] + ([(odd_windows(width), NCONFIG)] if odd else [])


def windows(width: int, full: bool = False, odd: bool = False, rect: int = 0) -> int:
    """The number of windows of a model (:func:`families`)."""
    return sum(n for n, _ in families(width, full, odd, rect))


def odd_windows(width: int) -> int:
    """The number of windows of the second family (odd columns) on a diagonal board."""
    return (width - 3) * (width // 2 - 2)


def window_bases(width: int, full: bool = False, odd: bool = False,
                 rect: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(where each window's weights start in the block, its contents): the families'
    windows one after another."""
    size = np.array([s for n, s in families(width, full, odd, rect) for _ in range(n)],
                    dtype=np.int64)
    return np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64), size


def layout(width: int, full: bool = False, odd: bool = False,
           rect: int = 0) -> tuple[int, int, int, int, int]:
    """Offsets of (opening windows, endgame windows, opening dense, endgame dense) in a
    weight block, and its size.  The kings' terms follow the endgame dense weights, opening
    then endgame, ``KING_TERMS`` each (a block written before they were, without them,
    reads them as zero: ``engine.weights``)."""
    nw = sum(n * s for n, s in families(width, full, odd, rect))
    return 0, nw, 2 * nw, 2 * nw + NDENSE, 2 * nw + 2 * NDENSE + 2 * KING_TERMS


def row_bits(width: int) -> list[int]:
    """The bit of each row's first square (rows from the top; a row's squares are
    consecutive bits, left to right)."""
    half = width // 2
    return [r * half + (r * half) // width for r in range(width)]


def _base3() -> tuple[np.ndarray, np.ndarray]:
    b3 = np.zeros(256, dtype=np.int64)
    b3r = np.zeros(256, dtype=np.int64)
    for x in range(256):
        b3[x] = sum(3 ** i for i in range(8) if x >> i & 1)
        b3r[x] = sum(3 ** (7 - i) for i in range(8) if x >> i & 1)   # the code read backwards
    return b3, b3r


B3, B3R = _base3()


def _turned() -> np.ndarray:
    """For each index of a window as White reads it (``B3[white] + 2 * B3[black]``), the
    index Black reads from the same squares (``B3R[black] + 2 * B3R[white]``)."""
    out = np.zeros(NCONFIG, dtype=np.int64)
    for i in range(NCONFIG):
        cw = cb = 0
        x = i
        for j in range(8):
            if x % 3 == 1:
                cw |= 1 << j
            elif x % 3 == 2:
                cb |= 1 << j
            x //= 3
        out[i] = B3R[cb] + 2 * B3R[cw]
    return out


TURNED = _turned()


def _rect_turned() -> np.ndarray:
    """:data:`TURNED` for rectangles: a content read backwards, the colours swapped."""
    digits = np.arange(RCONFIG)[:, None] // 3 ** np.arange(12) % 3     # digit j of each
    swapped = np.where(digits == 0, 0, 3 - digits)
    return (swapped * 3 ** np.arange(11, -1, -1)).sum(axis=1).astype(np.int64)


RECT_TURNED = _rect_turned()
MAX_SLOTS = 16                         # windows a square belongs to, at most (both families)
SLOTS_AT = 2                           # a square's slot row: [n first family, n both, u1, p1, ...]


def _add_slot(out, x, u, power):
    n = out[x, 1]
    out[x, SLOTS_AT + 2 * n] = u
    out[x, SLOTS_AT + 1 + 2 * n] = power
    out[x, 1] = n + 1


def square_slots(width: int, rect: int = 0) -> np.ndarray:
    """For each bit of a square: ``[n1, n, u1, p1, ..., u16, p16]``: the windows ``u`` the
    square lies in (the first ``n1`` of the first family, all ``n`` with the second) and
    its power of three ``p`` in each window's code (a White man there adds ``p`` to
    White's index of the window, a Black man ``2 * p``).  The incremental update of the
    windows (``engine.eval.windows_after``) reads it.  ``rect``: the rectangles alone (1:
    at most 4 a square), or after the first family (2: ``n1`` counts both)."""
    half = width // 2
    per = half - 1
    # Each band of rows: its first window's number, its first row and its rows.
    bands = [] if rect == RECT_ALONE else [(r0 * per, r0, 4) for r0 in range(width - 3)]
    if rect:
        at = 0 if rect == RECT_ALONE else (width - 3) * per
        bands += [(at, 0, RECT_ROWS), (at + per, width - RECT_ROWS, RECT_ROWS)]
    out = np.zeros((64, SLOTS_AT + 2 * MAX_SLOTS), dtype=np.int64)
    for r, first in enumerate(row_bits(width)):
        for q in range(half):
            x = first + q
            for u0, r0, rows in bands:
                if r0 <= r < r0 + rows:
                    for c in (q - 1, q):
                        if 0 <= c < per:
                            _add_slot(out, x, u0 + c, 3 ** (2 * (r - r0) + (q - c)))
            out[x, 0] = out[x, 1]
    if rect:
        return out
    nw = (width - 3) * per
    for r, first in enumerate(row_bits(width)):
        s = r % 2                              # odd rows: the window's squares c+1, c+2
        for q in range(half):
            x = first + q
            for r0 in range(max(0, r - 3), min(r, width - 4) + 1):
                for c in (q - 1 - s, q - s):
                    if 0 <= c < per - 1:
                        _add_slot(out, x, nw + r0 * (per - 1) + c,
                                  3 ** (2 * (r - r0) + (q - c - s)))
    return out


def full_square_slots() -> np.ndarray:
    """:func:`square_slots` on the plain 8x8 board (bit = row * 8 + column): the 2x4
    windows a square lies in, and its power of three there (its place in the window's
    code: row by row from the top, left square first)."""
    out = np.zeros((64, SLOTS_AT + 2 * MAX_SLOTS), dtype=np.int64)
    for x in range(64):
        r, c = divmod(x, 8)
        for r0 in range(max(0, r - 1), min(r, FULL_BANDS - 1) + 1):
            for k in range(FULL_PER):
                if 2 * k <= c <= 2 * k + 3:
                    _add_slot(out, x, r0 * FULL_PER + k, 3 ** (4 * (r - r0) + c - 2 * k))
        out[x, 0] = out[x, 1]
    return out


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def full_code(bb, r0, k):
    """The 8-bit code of the 2x4 window ``k`` (columns ``2k .. 2k+3``) of rows ``r0, r0+1``
    of the plain 8x8 board: the top row's four squares, then the next row's."""
    at = r0 * 8 + 2 * k
    return ((bb >> at) & 0xF) | (((bb >> (at + 8)) & 0xF) << 4)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def band(bb, T, t_rows, r0, mask):
    """Rows ``r0 .. r0+3`` of ``bb``, one row (``mask``: its squares) per byte."""
    return (((bb >> T[t_rows + r0]) & mask) | (((bb >> T[t_rows + r0 + 1]) & mask) << 8)
            | (((bb >> T[t_rows + r0 + 2]) & mask) << 16)
            | (((bb >> T[t_rows + r0 + 3]) & mask) << 24))


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def code(rows, c):
    """The 8-bit code of the window at squares ``c, c+1`` of each row of a band: two
    bits per row, gathered from the four bytes by three shifts."""
    x = (rows >> c) & 0x03030303
    return (x | (x >> 6) | (x >> 12) | (x >> 18)) & 0xFF


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def odd_code(rows, c, r0):
    """The 8-bit code of the second family's window ``c`` of the band of rows ``r0 ..``:
    squares ``c, c+1`` of its even rows, ``c+1, c+2`` of its odd rows."""
    m = 0x00030003 if r0 % 2 == 0 else 0x03000300
    x = ((rows >> c) & m) | ((rows >> (c + 1)) & (0x03030303 ^ m))
    return (x | (x >> 6) | (x >> 12) | (x >> 18)) & 0xFF


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def pair(rw, rb, c, T, t_b3, t_b3r):
    """For the window at squares ``c, c+1`` of a band (White's rows ``rw``, Black's
    ``rb``): White's index of its weights, and Black's index of the weights of the
    window the turned board puts there (the codes reversed, the colours swapped)."""
    return indices(code(rw, c), code(rb, c), T, t_b3, t_b3r)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def indices(cw, cb, T, t_b3, t_b3r):
    """White's and Black's (turned) indices of a window whose codes are ``cw``, ``cb``."""
    return T[t_b3 + cw] + 2 * T[t_b3 + cb], T[t_b3r + cb] + 2 * T[t_b3r + cw]


@njit(cache=True, nogil=True, _nrt=False)
def window_indices(wm, bm, T, t_rows, t_b3, t_b3r, width, full, out_w, out_b, odd=False):
    """Every window's (White's, Black's) index of its weights, into ``out_w``/``out_b``.

    Windows are numbered row band by row band, left to right, so the window the turned
    board puts on window ``u`` is ``nw - 1 - u``: Black reads window ``nw - 1 - u``'s
    weights with the codes of ``u`` reversed and the colours swapped.  ``full``: the
    plain 8x8 board's 2x4 windows (the same numbering and turning).  ``odd``: the second
    family too, numbered after the first and turned within itself."""
    if full:
        nw = FULL_BANDS * FULL_PER
        for r0 in range(FULL_BANDS):
            for k in range(FULL_PER):
                u = r0 * FULL_PER + k
                cw = full_code(wm, r0, k)
                cb = full_code(bm, r0, k)
                out_w[u] = T[t_b3 + cw] + 2 * T[t_b3 + cb]
                out_b[nw - 1 - u] = T[t_b3r + cb] + 2 * T[t_b3r + cw]
        return
    half = width // 2
    mask = (1 << half) - 1
    per = half - 1
    nw = (width - 3) * per
    for r0 in range(width - 3):
        rw = band(wm, T, t_rows, r0, mask)
        rb = band(bm, T, t_rows, r0, mask)
        for c in range(per):
            u = r0 * per + c
            out_w[u], out_b[nw - 1 - u] = pair(rw, rb, c, T, t_b3, t_b3r)
        if odd:
            n2 = (width - 3) * (per - 1)
            for c in range(per - 1):
                u = r0 * (per - 1) + c
                out_w[nw + u], out_b[nw + n2 - 1 - u] = indices(
                    odd_code(rw, c, r0), odd_code(rb, c, r0), T, t_b3, t_b3r)


@njit(cache=True, nogil=True, _nrt=False)
def phase(white, black, start):
    """The opening share of the blend, 0..PHASE_ONE, from the pieces left of ``start``."""
    n = popcount(white | black)
    return PHASE_ONE if n >= start else (PHASE_ONE * n) // start
