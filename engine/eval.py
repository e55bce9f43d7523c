"""Static evaluation: a numba kernel over bitboards, integer hundredths of a man.

The score is from the side to move's point of view.  Every term is a count of
pieces or moves times a weight from ``WEIGHTS`` (an int64 array, so a tuner can pass
another one); the masks the terms need are built once per board width by
:func:`eval_tables`.  ``tests/test_search.py`` holds a slow twin written square by
square from the definitions below; keep the two in step.

Terms (White's count minus Black's; "row" of a man counts from its own back row, 0):

* material: men and kings;
* advancement (tempo): a weight per row for each man; back-rank guard: men on row 0;
* centre: men on the six central squares (22-24, 27-29 on 10x10);
* support: men whose two rear diagonal neighbours are own pieces; outposts: supported
  men in the far half of the board;
* balance: minus the difference between men on the left and the right half;
* blocked men (locked formations): minus men with no free forward square;
* mobility: quiet moves of men and of kings;
* runaway men: a man in the far half with no piece in the cone ahead of it, while
  the other side has no king, cannot be stopped from crowning;
* kings on the long diagonal;
* drawish endings: the side ahead with at most three pieces against a king keeps a
  fraction of its score (1 king against 3 is a draw in practice and by the 16-move rule);
  with ``DRAW_KINGS`` set (the ``drawish-kings`` option; 0, off, in the shipped weights),
  so does a side ahead where both sides have as many kings and the men differ by at most
  one (Scan 2.0 halves such scores);
* the side to move gets a small tempo bonus.

The goal of the variant (``V[V_GOAL]``) changes the sense of the score:

* breakthrough (the first king wins the game): the same terms, but advancement and
  runaway men count ``BT_MULT`` times: a man about to crown is a won game there, not
  a king worth a few men;
* antidraughts (the side that cannot move wins): material and mobility with their
  signs reversed, ``-(material + mobility)``: fewer pieces and fewer moves bring a side
  closer to having no move.  The positional terms of the normal game mean nothing
  there and are left out, as is the tempo bonus.
"""
from functools import lru_cache

import numpy as np
from numba import njit

from .bits import ix, lsb_index, popcount
from .movegen import king_quiet_count as _king_moves, man_free, man_steps, opposite, step
from .patterns import (B3, B3R, FULL_BANDS, FULL_PER, KING_TERMS, MAX_SLOTS, NCONFIG, NDENSE, PHASE_ONE,
                       RCONFIG, RECT_ALONE, RECT_PLUS, RECT_ROWS, SCALE,
                       SLOTS_AT, band, code, full_code, full_square_slots, odd_code, phase,
                       row_bits, square_slots, windows)
from .variants import (
    KG_BREAKTHROUGH, KG_LOSING, NDIRS, V_BOARD, V_FLYING_KING, V_GOAL, V_MAN_STEPS, V_WIDTH,
)

# ----- weights -------------------------------------------------------------------
MAN, KING, ROW = 0, 1, 2          # ROW..ROW+9: advancement of a man by its row
BACK = 12
CENTRE = 13
SUPPORT = 14
OUTPOST = 15
BALANCE = 16
BLOCKED = 17
MOB_MAN = 18
MOB_KING = 19
RUNAWAY = 20
RUN_ROW = 21
KING_DIAG = 22
TEMPO = 23
DRAW_DIV = 24
DRAW_KINGS = 25    # 0: off; else the divisor of a score with equal kings and men within one
N_WEIGHTS = 26
assert NDENSE == TEMPO + 1     # the learned evaluation's dense terms are MAN .. TEMPO

WEIGHTS = np.zeros(N_WEIGHTS, dtype=np.int64)
WEIGHTS[MAN] = 100
WEIGHTS[KING] = 320
WEIGHTS[ROW:ROW + 10] = (0, 1, 2, 3, 4, 6, 8, 11, 15, 0)
WEIGHTS[BACK] = 4
WEIGHTS[CENTRE] = 5
WEIGHTS[SUPPORT] = 2
WEIGHTS[OUTPOST] = 6
WEIGHTS[BALANCE] = 3
WEIGHTS[BLOCKED] = 2
WEIGHTS[MOB_MAN] = 1
WEIGHTS[MOB_KING] = 1
WEIGHTS[RUNAWAY] = 50
WEIGHTS[RUN_ROW] = 10
WEIGHTS[KING_DIAG] = 10
WEIGHTS[TEMPO] = 2
WEIGHTS[DRAW_DIV] = 8
WEIGHTS[DRAW_KINGS] = 0
WEIGHTS.flags.writeable = False
BT_MULT = 3        # breakthrough: weight of advancement and runaways against the normal game

# ----- tables --------------------------------------------------------------------
T_ROW_W = 0        # +r: squares on White's row r (counted from White's back row)
T_ROW_B = 10       # +r: squares on Black's row r
T_CENTRE = 20
T_LEFT = 21        # left half of the board (columns 0 .. width/2-1)
T_DIAG = 22        # the long diagonal (46-5 on 10x10)
T_FAR_W = 23       # White's far half (rows width/2 ..)
T_FAR_B = 24
T_FULL = 25        # 1 on the plain 8x8 board (Turkish): 2x4 windows (engine.patterns.full_code)
T_NW = 26          # the first family's windows: more in W[LEARNED] means the second family too
T_CONE_W = 32      # +bit: squares ahead of a white man on bit, widening one column per row
T_CONE_B = 96
T_RANK = 160       # +bit: row number from the top (0 = row of square 1)
T_ROWS = 224       # +r: the bit of row r's first square (engine.patterns.band)
T_B3 = 364         # +code: an 8-bit window code in base 3
T_B3R = 620        # +code: the same, the code read backwards
T_SLOTS = 876      # +bit * SLOT_ROW: the windows of a square (engine.patterns.square_slots)
SLOT_ROW = SLOTS_AT + 2 * MAX_SLOTS
T_KSQ = T_SLOTS + 64 * SLOT_ROW   # +bit: the square (0 ..) of a White king on bit, for its weight;
                                  # +64+bit: a Black king's, the board turned 180 degrees
T_PIP = T_KSQ + 128               # +k: squares where a White man has 2^k in its rows still to go;
                                  # +4+k: the same for a Black man (engine.eval.pip_phase)
T_RSLOTS = T_PIP + 8              # +bit * SLOT_ROW: the rectangles of a square (square_slots)
T_PSLOTS = T_RSLOTS + 64 * SLOT_ROW   # +bit * SLOT_ROW: the same, the windows, then the rectangles
N_TABLE = T_PSLOTS + 64 * SLOT_ROW
# windows_after keeps the windows a move changed as the bits of one int64 (on the boards of
# engine.variants, 10x10 and 8x8, with both families, or the rectangles after the first):
assert max(windows(10, odd=True), windows(8, odd=True), windows(8, full=True),
           windows(10, rect=RECT_PLUS)) < 64

# The learned evaluation's weights follow the hand weights in the same array:
LEARNED = N_WEIGHTS        # W[LEARNED]: number of pattern windows; 0 = hand evaluation
LEARNED_START = N_WEIGHTS + 1   # W[LEARNED_START]: pieces at the start (the phase's 100%)
LEARNED_LOCAL = N_WEIGHTS + 2   # W[LEARNED_LOCAL]: 1 where the men's local terms ride in the
# windows too (support, outposts, blocked men, men's mobility: engine.weights.learned)
LEARNED_PIP = N_WEIGHTS + 3     # W[LEARNED_PIP]: 0 for the phase by pieces; else the phase is
# by the men's rows still to go (Scan's pip count, engine.eval.pip_phase), and this their sum at
# the start (the phase's 100%)
LEARNED_RECT = N_WEIGHTS + 4    # W[LEARNED_RECT]: 1 where the windows are the rectangles
# (engine.patterns: RCONFIG entries a window, their squares in T_RSLOTS), 2 where the
# rectangles follow the first family of windows (RECT_PLUS: T_PSLOTS), else 0
LEARNED_DENSE = N_WEIGHTS + 5   # W[LEARNED_DENSE]: where the opening dense weights begin
LEARNED_AT = N_WEIGHTS + 6      # the packed weight block (engine.weights.learned): for
# each window and each of White's indices, the window's opening * 2^32 + endgame weight
# as White reads it minus the weight Black reads from the same squares (one read a window)


def square_coords(width: int, square: int) -> tuple[int, int]:
    """(row from the top, column from the left) of a 1-based square."""
    half = width // 2
    row, i = divmod(square - 1, half)
    return row, (2 * i + 1 if row % 2 == 0 else 2 * i)


def _pip_masks(T, bit: int, row: int, width: int) -> None:
    """Square ``bit`` (on ``row`` from the top) into the pip masks: a White man there has
    ``row`` rows still to go, a Black one ``width - 1 - row``."""
    for k in range(4):
        if row >> k & 1:
            T[T_PIP + k] |= bit
        if (width - 1 - row) >> k & 1:
            T[T_PIP + 4 + k] |= bit


@lru_cache(maxsize=None)
def _tables(width: int) -> np.ndarray:
    T = np.zeros(N_TABLE, dtype=np.int64)
    n = width * width // 2
    coords = {s: square_coords(width, s) for s in range(1, n + 1)}
    bit = {s: (s - 1) + (s - 1) // width for s in coords}
    mid = width // 2
    for s, (row, col) in coords.items():
        b = 1 << bit[s]
        T[T_ROW_W + (width - 1 - row)] |= b
        T[T_ROW_B + row] |= b
        if row in (mid - 1, mid) and 2 <= col <= width - 3:
            T[T_CENTRE] |= b
        if col < mid:
            T[T_LEFT] |= b
        if row + col == width - 1:
            T[T_DIAG] |= b
        if width - 1 - row >= mid:
            T[T_FAR_W] |= b
        if row >= mid:
            T[T_FAR_B] |= b
        T[T_RANK + bit[s]] = row
        _pip_masks(T, b, row, width)
        for s2, (r2, c2) in coords.items():
            if r2 < row and abs(c2 - col) <= row - r2:
                T[T_CONE_W + bit[s]] |= 1 << bit[s2]
            if r2 > row and abs(c2 - col) <= r2 - row:
                T[T_CONE_B + bit[s]] |= 1 << bit[s2]
    T[T_ROWS:T_ROWS + width] = row_bits(width)
    T[T_B3:T_B3 + 256] = B3
    T[T_B3R:T_B3R + 256] = B3R
    T[T_NW] = windows(width)
    T[T_SLOTS:T_KSQ] = square_slots(width).ravel()
    T[T_RSLOTS:T_PSLOTS] = square_slots(width, RECT_ALONE).ravel()
    T[T_PSLOTS:N_TABLE] = square_slots(width, RECT_PLUS).ravel()
    for s, b in bit.items():
        T[T_KSQ + b] = s - 1
        T[T_KSQ + 64 + b] = n - s
    T.flags.writeable = False
    return T


@lru_cache(maxsize=None)
def _full_tables() -> np.ndarray:
    """The same masks on the plain 8x8 board of Turkish draughts (bit = row * 8 + col,
    row 0 at the top): the centre is the middle four squares of the two middle rows, there
    is no long diagonal worth a king's while, and the cone ahead of a man (who may step
    sideways) is every square of the rows ahead."""
    width = 8
    T = [0] * N_TABLE                 # Python ints first: bit 63 (h1) is in the masks
    for b in range(64):
        row, col = divmod(b, width)
        bit = 1 << b
        T[T_ROW_W + (width - 1 - row)] |= bit
        T[T_ROW_B + row] |= bit
        if row in (3, 4) and 2 <= col <= 5:
            T[T_CENTRE] |= bit
        if col < 4:
            T[T_LEFT] |= bit
        if row < 4:
            T[T_FAR_W] |= bit
        if row >= 4:
            T[T_FAR_B] |= bit
        T[T_RANK + b] = row
        _pip_masks(T, bit, row, width)
        T[T_CONE_W + b] = (1 << (width * row)) - 1
        T[T_CONE_B + b] = ((1 << 64) - 1) & ~((1 << (width * (row + 1))) - 1)
    T[T_B3:T_B3 + 256] = B3
    T[T_B3R:T_B3R + 256] = B3R
    T[T_FULL] = 1
    T[T_NW] = windows(8, True)
    T[T_SLOTS:T_KSQ] = full_square_slots().ravel()
    for b in range(64):
        T[T_KSQ + b] = b
        T[T_KSQ + 64 + b] = 63 - b
    T = np.array([x - (1 << 64) if x >> 63 else x for x in map(int, T)], dtype=np.int64)
    T.flags.writeable = False
    return T


def eval_tables(variant) -> np.ndarray:
    """The masks :func:`evaluate` needs for ``variant``'s board."""
    return board_tables(variant.width, variant.full_board)


def board_tables(width: int, full: bool = False) -> np.ndarray:
    """The masks of a board of ``width`` (``full``: the plain 8x8 board)."""
    return _full_tables() if full else _tables(width)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _supported(men, own, turn, V):
    """The men of ``men`` (side ``turn``) with an own piece on every square behind them:
    the squares a man of the other side steps to and a man of this side does not (the
    two rear diagonals; straight behind on a full board)."""
    rear = V[V_MAN_STEPS + 1 - turn] & ~V[V_MAN_STEPS + turn]
    for d in range(NDIRS):
        if (rear >> d) & 1:
            men &= step(own, opposite(d), V)
    return men


@njit(cache=True, nogil=True, _nrt=False)
def _evaluate_losing(white, black, kings, turn, V, W):
    """Antidraughts: ``-(material + mobility)`` for the side to move."""
    empty = V[V_BOARD] & ~(white | black)
    wm = white & ~kings
    bm = black & ~kings
    wk = white & kings
    bk = black & kings
    score = (popcount(wm) - popcount(bm)) * W[MAN] + (popcount(wk) - popcount(bk)) * W[KING]
    score += W[MOB_MAN] * (man_steps(wm, empty, 0, V) - man_steps(bm, empty, 1, V))
    if wk | bk:
        flying = V[V_FLYING_KING] != 0
        score += W[MOB_KING] * (_king_moves(wk, empty, V, flying) - _king_moves(bk, empty, V, flying))
    score = -score
    return -score if turn else score


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _toward_zero(x, k):
    """x / k rounded toward zero: the same for a score and its negation."""
    return x // k if x >= 0 else -((-x) // k)


@njit(cache=True, nogil=True, _nrt=False)
def _drawish(score, white, black, kings, W):
    """The side ahead with at most three pieces against a king keeps a fraction; with
    ``W[DRAW_KINGS]``, so does a side ahead where both sides have as many kings (at least
    one) and the men differ by at most one."""
    if score > 0 and black & kings:
        if popcount(white) <= 3:
            return score // W[DRAW_DIV]
        if W[DRAW_KINGS] and _level_kings(white, black, kings):
            return score // W[DRAW_KINGS]
    if score < 0 and white & kings:
        if popcount(black) <= 3:
            return -((-score) // W[DRAW_DIV])
        if W[DRAW_KINGS] and _level_kings(white, black, kings):
            return -((-score) // W[DRAW_KINGS])
    return score


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _level_kings(white, black, kings):
    """Both sides have as many kings, and their men differ by at most one."""
    if popcount(white & kings) != popcount(black & kings):
        return False
    return abs(popcount(white & ~kings) - popcount(black & ~kings)) <= 1


@njit(cache=True, nogil=True, _nrt=False)
def hand_terms(white, black, kings, V, T, W, a, b, race):
    """The hand terms from White's side, summed twice: with the weights at ``W[a + i]``
    and with those at ``W[b + i]`` (``i`` = MAN .. KING_DIAG; TEMPO and DRAW_DIV are not
    terms of a position's pieces).  The hand evaluation reads one sum; the learned one
    reads its opening and endgame sums of the same terms; ``race`` multiplies
    advancement and runaways (breakthrough)."""
    sa, sb = men_terms(white & ~kings, black & ~kings, V[V_WIDTH], T, W, a, b, race)
    pa, pb = piece_terms(white, black, kings, V, T, W, a, b, race, 0)
    return sa + pa, sb + pb


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def men_terms(wm, bm, width, T, W, a, b, race):
    """:func:`hand_terms`' terms that are a sum over single men (material, advancement,
    back rank, centre): the learned evaluation folds them into its windows
    (``engine.weights.learned``)."""
    n = popcount(wm) - popcount(bm)
    sa = n * W[a + MAN]
    sb = n * W[b + MAN]
    for r in range(width):
        n = race * (popcount(wm & T[T_ROW_W + r]) - popcount(bm & T[T_ROW_B + r]))
        sa += n * W[a + ROW + r]
        sb += n * W[b + ROW + r]
    n = popcount(wm & T[T_ROW_W]) - popcount(bm & T[T_ROW_B])
    sa += n * W[a + BACK]
    sb += n * W[b + BACK]
    n = popcount(wm & T[T_CENTRE]) - popcount(bm & T[T_CENTRE])
    sa += n * W[a + CENTRE]
    sb += n * W[b + CENTRE]
    return sa, sb


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def local_terms(wm, bm, white, black, empty, V, T, W, a, b):
    """The terms of a man and its neighbours (support, outposts, blocked men, men's
    mobility) of the men ``wm``, ``bm`` among the pieces ``white``, ``black``, for
    :func:`piece_terms`."""
    wsup = _supported(wm, white, 0, V)
    bsup = _supported(bm, black, 1, V)
    n = popcount(wsup) - popcount(bsup)
    sa = n * W[a + SUPPORT]
    sb = n * W[b + SUPPORT]
    n = popcount(wsup & T[T_FAR_W]) - popcount(bsup & T[T_FAR_B])
    sa += n * W[a + OUTPOST]
    sb += n * W[b + OUTPOST]
    n = man_steps(wm, empty, 0, V) - man_steps(bm, empty, 1, V)
    sa += n * W[a + MOB_MAN]
    sb += n * W[b + MOB_MAN]
    wfree = man_free(wm, empty, 0, V)
    bfree = man_free(bm, empty, 1, V)
    n = -(popcount(wm & ~wfree) - popcount(bm & ~bfree))
    sa += n * W[a + BLOCKED]
    sb += n * W[b + BLOCKED]
    return sa, sb


@njit(cache=True, nogil=True, _nrt=False)
def piece_terms(white, black, kings, V, T, W, a, b, race, folded):
    """:func:`hand_terms` but :func:`men_terms`: kings, and the terms of men among others.
    ``folded``: the learned windows hold :func:`local_terms` as the men alone make them
    (kings read as empty squares), so only what kings change is added here."""
    empty = V[V_BOARD] & ~(white | black)
    wm = white & ~kings
    bm = black & ~kings
    wk = white & kings
    bk = black & kings
    n = popcount(wk) - popcount(bk)
    sa = n * W[a + KING]
    sb = n * W[b + KING]

    if not folded:
        la, lb = local_terms(wm, bm, white, black, empty, V, T, W, a, b)
        sa += la
        sb += lb
    elif kings:
        # Only the men next to a king (in a direction a man looks: ahead or behind) have
        # other local terms than the windows gave them, kings read as empty squares.
        near = 0
        dirs = V[V_MAN_STEPS] | V[V_MAN_STEPS + 1]
        for d in range(NDIRS):
            if (dirs >> d) & 1:
                near |= step(kings, opposite(d), V)
        if (wm | bm) & near:
            la, lb = local_terms(wm & near, bm & near, white, black, empty, V, T, W, a, b)
            ma, mb = local_terms(wm & near, bm & near, wm, bm, V[V_BOARD] & ~(wm | bm),
                                 V, T, W, a, b)
            sa += la - ma
            sb += lb - mb

    if wk | bk:
        flying = V[V_FLYING_KING] != 0
        n = _king_moves(wk, empty, V, flying) - _king_moves(bk, empty, V, flying)
        sa += n * W[a + MOB_KING]
        sb += n * W[b + MOB_KING]
        n = popcount(wk & T[T_DIAG]) - popcount(bk & T[T_DIAG])
        sa += n * W[a + KING_DIAG]
        sb += n * W[b + KING_DIAG]

    la, lb = open_terms(wm, bm, wk, bk, V[V_WIDTH], T, W, a, b, race)
    return sa + la, sb + lb


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def open_terms(wm, bm, wk, bk, width, T, W, a, b, race):
    """Balance and runaway men: the terms of men that no window holds (the men ``wm``,
    ``bm`` among the kings ``wk``, ``bk``), for :func:`piece_terms`; the learned
    evaluation asks them alone where no king is on the board (the rest is in its windows)."""
    left = T[T_LEFT]
    n = -(abs(popcount(wm & left) - popcount(wm & ~left))
          - abs(popcount(bm & left) - popcount(bm & ~left)))
    sa = n * W[a + BALANCE]
    sb = n * W[b + BALANCE]
    occupied = wm | bm | wk | bk
    runs = rows = 0
    if bk == 0:
        c = wm & T[T_FAR_W]
        while c:
            x = lsb_index(c)
            c &= c - 1
            if T[T_CONE_W + x] & occupied == 0:
                runs += race
                rows += race * (width - 1 - T[T_RANK + x])
    if wk == 0:
        c = bm & T[T_FAR_B]
        while c:
            x = lsb_index(c)
            c &= c - 1
            if T[T_CONE_B + x] & occupied == 0:
                runs -= race
                rows -= race * T[T_RANK + x]
    sa += runs * W[a + RUNAWAY] + rows * W[a + RUN_ROW]
    sb += runs * W[b + RUNAWAY] + rows * W[b + RUN_ROW]
    return sa, sb


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def king_terms(wk, bk, T, W, a, b):
    """The learned evaluation's terms of kings (White's minus Black's), with the weights at
    ``W[a + i]`` and ``W[b + i]``: 0, a side has a king; 1, its kings beyond the first; 2 +
    the square of each king (Black's read on the board turned 180 degrees)."""
    nw = popcount(wk)
    nb = popcount(bk)
    first = (1 if nw else 0) - (1 if nb else 0)
    more = max(nw - 1, 0) - max(nb - 1, 0)
    sa = first * W[a] + more * W[a + 1]
    sb = first * W[b] + more * W[b + 1]
    c = wk
    while c:
        x = lsb_index(c)
        c &= c - 1
        sa += W[a + 2 + T[T_KSQ + x]]
        sb += W[b + 2 + T[T_KSQ + x]]
    c = bk
    while c:
        x = lsb_index(c)
        c &= c - 1
        sa -= W[a + 2 + T[T_KSQ + 64 + x]]
        sb -= W[b + 2 + T[T_KSQ + 64 + x]]
    return sa, sb


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _white_index(rw, rb, c, T):
    """White's index of the window at squares ``c, c+1`` of a band (rows ``rw``, ``rb``)."""
    return T[T_B3 + code(rw, c)] + 2 * T[T_B3 + code(rb, c)]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _odd_white_index(rw, rb, c, r0, T):
    """White's index of the second family's window ``c`` of the band of rows ``r0 ..``."""
    return T[T_B3 + odd_code(rw, c, r0)] + 2 * T[T_B3 + odd_code(rb, c, r0)]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _full_white_index(wm, bm, r0, k, T):
    """White's index of the full board's 2x4 window ``k`` of rows ``r0, r0+1``."""
    return T[T_B3 + full_code(wm, r0, k)] + 2 * T[T_B3 + full_code(bm, r0, k)]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _rect_code(bb, r0, c, T):
    """The 12-bit code of the rectangle at squares ``c, c+1`` of rows ``r0 .. r0+5`` (two
    bits a row, from the top)."""
    x = 0
    for j in range(RECT_ROWS):
        x |= ((bb >> T[T_ROWS + r0 + j]) >> c & 3) << (2 * j)
    return x


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _base3_12(x, T):
    """A 12-bit code in base 3 (its low 8 bits, then its high 4 times 3^8)."""
    return T[T_B3 + (x & 0xFF)] + NCONFIG * T[T_B3 + (x >> 8)]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def rect_white_index(wm, bm, u, width, T):
    """White's index of rectangle ``u`` (engine.patterns: band by band, left to right)."""
    per = width // 2 - 1
    r0 = 0 if u < per else width - RECT_ROWS
    c = u % per
    return _base3_12(_rect_code(wm, r0, c, T), T) + 2 * _base3_12(_rect_code(bm, r0, c, T), T)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _window_at(wm, bm, u, width, T, W):
    """Where the weight of window ``u`` for these men is in ``W``: its entry as White reads
    it.  The first family, band by band (of ``per`` windows), then the second (of ``per -
    1``) or the rectangles (``W[LEARNED_RECT]``: alone, or after the first family); on the
    plain 8x8 board its 2x4 windows."""
    if T[T_FULL]:
        r0, k = u // FULL_PER, u % FULL_PER
        return LEARNED_AT + u * NCONFIG + _full_white_index(wm, bm, r0, k, T)
    rect = W[LEARNED_RECT]
    first = 0 if rect == RECT_ALONE else T[T_NW]
    if u >= first and rect:
        r = u - first
        return (LEARNED_AT + first * NCONFIG + r * RCONFIG
                + rect_white_index(wm, bm, r, width, T))
    half = width // 2
    mask = (1 << half) - 1
    per = half - 1
    if u < first:
        r0, c = u // per, u % per
        return LEARNED_AT + u * NCONFIG + _white_index(band(wm, T, T_ROWS, r0, mask),
                                                       band(bm, T, T_ROWS, r0, mask), c, T)
    r0, c = (u - first) // (per - 1), (u - first) % (per - 1)
    return LEARNED_AT + u * NCONFIG + _odd_white_index(band(wm, T, T_ROWS, r0, mask),
                                                       band(bm, T, T_ROWS, r0, mask), c, r0, T)


@njit(cache=True, nogil=True, _nrt=False)
def window_sum(wm, bm, width, T, W, idx):
    """The windows' packed sum (``LEARNED_AT``) for White's men ``wm`` and Black's ``bm``,
    each window's entry written to ``idx`` (the search keeps them to update,
    :func:`windows_after`) as an offset from ``LEARNED_AT + u * stride`` (the model's
    :func:`window_form`: the rectangles after the windows lie past that, at the same
    offset for every content).  Read at the root of a search only: window by window."""
    stride = window_form(T, W)[2]
    acc = 0
    for u in range(W[LEARNED]):
        i = _window_at(wm, bm, u, width, T, W)
        idx[u] = i - (LEARNED_AT + u * stride)
        acc += W[i]
    return acc


@njit(cache=True, nogil=True, _nrt=False)
def _window_acc(wm, bm, width, T, W):
    """:func:`window_sum` without keeping the entries (a fresh evaluation: the root's, and
    eval-check's)."""
    acc = 0
    for u in range(W[LEARNED]):
        acc += W[_window_at(wm, bm, u, width, T, W)]
    return acc


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _shift_men(touched, idx, men, sign, both, slots, T):
    """``idx`` with each man of ``men`` added (``sign`` +1 for White's, +2 for Black's) or
    taken away (-1, -2) in every window it lies in (``both``: 1 with the second family,
    else 0; ``slots``: where the squares' windows are, T_SLOTS, or T_RSLOTS for the
    rectangles); ``touched`` with those windows' bits set."""
    while men:
        x = lsb_index(men)
        men &= men - 1
        at = slots + x * SLOT_ROW
        for j in range(T[ix(at + both)]):
            u = T[ix(at + SLOTS_AT + 2 * j)]
            idx[ix(u)] += sign * T[ix(at + SLOTS_AT + 1 + 2 * j)]
            touched |= 1 << u
    return touched


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def windows_after(acc, idx, p, q, wm, bm, wm2, bm2, T, W, form):
    """The windows' sum after the men went from (``wm``, ``bm``) to (``wm2``, ``bm2``), from
    the sum ``acc`` before; the windows' entries before, ``idx[p]`` (:func:`window_sum`), are
    copied to ``idx[q]`` and updated there: only the windows of the squares that changed are
    read again.  First every entry is brought up to date, then each window changed is read
    once (its old and new weight: loads that do not wait on one another).  ``form``: the
    model's :func:`window_form`, read once a search (a branch here on the model slowed the
    search by 6-12%; entries kept whole in ``W``, without the stride, by 7%)."""
    both, slots, stride = form
    for u in range(W[LEARNED]):
        idx[q, u] = idx[p, u]
    row = idx[q]
    touched = _shift_men(0, row, wm & ~wm2, -1, both, slots, T)
    touched = _shift_men(touched, row, bm & ~bm2, -2, both, slots, T)
    touched = _shift_men(touched, row, wm2 & ~wm, 1, both, slots, T)
    touched = _shift_men(touched, row, bm2 & ~bm, 2, both, slots, T)
    while touched:
        u = lsb_index(touched)
        touched &= touched - 1
        base = LEARNED_AT + u * stride
        acc += W[ix(base) + ix(row[u])] - W[ix(base) + ix(idx[p, u])]
    return acc


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def window_form(T, W):
    """``(both, slots, stride)`` of a learned evaluation's windows for :func:`windows_after`:
    1 to read every window of a square's row in ``T`` (else the first family's alone), where
    the squares' windows are in ``T`` (T_SLOTS, T_RSLOTS for the rectangles, T_PSLOTS for
    the windows and the rectangles), and the stride of the entries' offsets
    (:func:`window_sum`)."""
    if W[LEARNED_RECT] == RECT_ALONE:
        return 0, T_RSLOTS, RCONFIG
    if W[LEARNED_RECT] == RECT_PLUS:
        return 0, T_PSLOTS, NCONFIG
    return (1 if W[LEARNED] > T[T_NW] else 0), T_SLOTS, NCONFIG


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def pip_phase(wm, bm, T, start):
    """The opening share of the blend, 0..PHASE_ONE, from the rows the men ``wm`` and
    ``bm`` still have to go to promote (Scan's pip count), of ``start`` (the start's)."""
    pips = 0
    for k in range(4):
        pips += (popcount(wm & T[T_PIP + k]) + popcount(bm & T[T_PIP + 4 + k])) << k
    return PHASE_ONE if pips >= start else (PHASE_ONE * pips) // start


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def learned_score(acc, white, black, kings, turn, V, T, W):
    """The pattern evaluation (engine.patterns) for the side to move, from the windows'
    packed sum ``acc``: the windows, the hand terms with learned opening and endgame
    weights, and with kings on the board the kings' own terms (:func:`king_terms`),
    blended by the phase."""
    # Each window entry holds its opening weight times 2^32 plus its endgame weight, so
    # one sum gives both: the endgame sum is the low 32 bits (signed), the opening the rest.
    op_d = W[LEARNED_DENSE]
    eg_d = op_d + NDENSE
    eg = ((acc & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
    op = (acc - eg) >> 32
    if kings == 0 and W[LEARNED_LOCAL]:      # the other terms of men are in acc
        dop, deg = open_terms(white, black, 0, 0, V[V_WIDTH], T, W, op_d, eg_d, 1)
    else:
        dop, deg = piece_terms(white, black, kings, V, T, W, op_d, eg_d, 1, W[LEARNED_LOCAL])
        if kings:
            kop, keg = king_terms(white & kings, black & kings, T, W, eg_d + NDENSE,
                                  eg_d + NDENSE + KING_TERMS)
            dop += kop
            deg += keg
    side = 1 if turn == 0 else -1
    op += dop + side * W[op_d + TEMPO]
    eg += deg + side * W[eg_d + TEMPO]
    if W[LEARNED_PIP]:
        ph = pip_phase(white & ~kings, black & ~kings, T, W[LEARNED_PIP])
    else:
        ph = phase(white, black, W[LEARNED_START])
    score = _toward_zero(op * ph + eg * (PHASE_ONE - ph), PHASE_ONE * SCALE)
    if V[V_GOAL] != KG_LOSING:           # antidraughts has no drawish endings
        score = _drawish(score, white, black, kings, W)
    return -score if turn else score


@njit(cache=True, nogil=True, _nrt=False)
def _evaluate_learned(white, black, kings, turn, V, T, W):
    """The pattern evaluation, its windows read from the position."""
    acc = _window_acc(white & ~kings, black & ~kings, V[V_WIDTH], T, W)
    return learned_score(acc, white, black, kings, turn, V, T, W)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def uses_windows(V, W):
    """The evaluation has learned windows (a weight file of the variant's board; every
    goal: the fit learns antidraughts' and breakthrough's sense of the terms)."""
    return W.shape[0] > LEARNED and W[LEARNED] > 0


@njit(cache=True, nogil=True, _nrt=False)
def evaluate(white, black, kings, turn, V, T, W):
    """Static score of a position for the side to move, in hundredths of a man."""
    if uses_windows(V, W):
        return _evaluate_learned(white, black, kings, turn, V, T, W)
    return evaluate_hand(white, black, kings, turn, V, T, W)


@njit(cache=True, nogil=True, _nrt=False)
def evaluate_hand(white, black, kings, turn, V, T, W):
    """The hand evaluation (and antidraughts' and breakthrough's own)."""
    goal = V[V_GOAL]
    if goal == KG_LOSING:
        return _evaluate_losing(white, black, kings, turn, V, W)
    race = BT_MULT if goal == KG_BREAKTHROUGH else 1
    score, _ = hand_terms(white, black, kings, V, T, W, 0, 0, race)
    score = _drawish(score, white, black, kings, W)
    if turn:
        score = -score
    return score + W[TEMPO]


def evaluate_position(pos, weights: np.ndarray = WEIGHTS) -> int:
    """The static score of ``pos`` for its side to move (hundredths of a man)."""
    v = pos.variant
    return int(evaluate(*pos.words, v.table,
                        eval_tables(v), weights))
