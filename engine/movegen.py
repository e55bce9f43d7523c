"""Legal move generation and copy-make, as numba kernels over int64 bitboards: the one
generator that play, search, the endgame databases and perft share.  Perft's counting
kernels, which count the last ply's moves without listing them, are :mod:`engine.counting`.

A position is four integers: ``white``, ``black``, ``kings`` (bitboards in the layout
of :mod:`engine.variants`) and ``turn`` (0 White, 1 Black).  A move is a row of four
integers in a caller-owned array: from bit, to bit, captured bitboard, flags
(``FLAG_PROMOTE`` when the moving man ends the move as a king).

Captures are found by a depth-first search over jumps in which jumped pieces stay on
the board until the capture ends (they block and cannot be jumped twice), except in
Thai and Turkish draughts, where they leave at once.  The directions men and kings
step and jump in are masks of the table (``V_MAN_STEPS``, ``V_KING_CAPTURES``...), and
a step in a direction is a shift kept to the squares it may land on (:func:`step`), so
the diagonal layout and Turkish's plain 8x8 board share every kernel.  The capture precedence of the variant
(majority rule, Frisian values, Italian's four rules...) and the removal of duplicate
captures (same from, to, captured set and crowning by another path; counted, not
dropped, in the capture-path mode of :func:`new_state`) both live in ``_record``.  Every
rule is read from the variant table: the kernels never ask which variant they play.
"""
import numpy as np
from numba import njit

from .bits import lsb_index, popcount
from .variants import (
    PREC_COUNT, PREC_CZECH, PREC_FRISIAN, PREC_ITALIAN, PREC_NONE, PREC_SPANISH,
    NDIRS, V_BOARD, V_CAPTURE_DIRS, V_FLYING_KING, V_HALT_BEHIND_KING,
    V_KEEP, V_KING_CAPTURES, V_KING_STEPS, V_LAND_BEHIND, V_MAN_CAPTURES, V_MAN_STEPS,
    V_MAN_TAKES_KING, V_PASSING_CAPTURE, V_PASSING_PROMOTION, V_PRECEDENCE,
    V_PROMO_BLACK, V_PROMO_WHITE, V_SHIFT_UL, V_STEP, V_TURN_BACK, V_WIDTH, V_DUP_MIN,
    V_LANDINGS_APART,
)

MAX_MOVES = 1024   # rows of one move list; far above any legal position's count
MAX_PLY = 128
MOVE_FROM, MOVE_TO, MOVE_CAPTURED, MOVE_FLAGS = 0, 1, 2, 3
FLAG_PROMOTE = 1
# In the capture-path mode a move's flags also count its other paths from this bit up
# (0: one path).  Play never sets the mode, so the search never sees these bits.
PATHS_SHIFT = 8

# Scratch of the capture search (``state`` array): move count, best precedence key,
# the capture-path mode, then a stack of partial captures, three slots each.
_COUNT, _BEST, _PATHS = 0, 1, 2
_STACK = 8
_STACK_SIZE = 4096
STATE_SIZE = _STACK + 3 * _STACK_SIZE


def new_move_buffer(plies: int = MAX_PLY) -> np.ndarray:
    """A move array for ``plies`` plies of search: ``buf[ply]`` is one move list."""
    return np.zeros((plies, MAX_MOVES, 4), dtype=np.int64)


def new_state(paths: bool = False) -> np.ndarray:
    """Scratch space of the capture search, owned by one caller (one thread).

    ``paths``: a capture still appears once per (from, to, captured set, crowning),
    but its flags count the paths that reach it (:func:`paths_of`): other orders of the
    same jumps, or other squares where a king turns.  A king going on along one line
    is one path, wherever it could have landed on it.  Play never uses it; it gives
    the published "keep duplicates" perft counts."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[_PATHS] = int(paths)
    return state


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def paths_of(flags):
    """The number of capture paths of a move (1 unless counted in the capture-path mode)."""
    return (flags >> PATHS_SHIFT) + 1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def shift(bb, amount):
    if amount > 0:
        return bb << amount
    return bb >> (-amount)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def opposite(d):
    """The direction opposite ``d`` (diagonals 0-3 pair as 0/3 and 1/2, orthogonals 4-7 as
    4/5 and 6/7: engine.variants' numbering)."""
    return d ^ 3 if d < 4 else d ^ 1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def step(bb, d, V):
    """The squares of ``bb`` moved one step in direction ``d`` (those that stay on a
    square a step may reach; off-board bits are the caller's to mask)."""
    return shift(bb, V[V_STEP + d]) & V[V_KEEP + d]


@njit(cache=True, nogil=True, _nrt=False)
def _precedence_key(V, captured, kings, king_moves, order):
    """Larger is stronger: only the captures of the largest key are legal.

    ``order`` (Italian only) has bit ``31 - i`` set when the i-th piece jumped was a
    king, so at equal counts the capture meeting a king earliest has the larger key.
    """
    prec = V[V_PRECEDENCE]
    if prec == PREC_NONE:
        return 0
    n = popcount(captured)
    if prec == PREC_COUNT:
        return n
    nk = popcount(captured & kings)
    if prec == PREC_FRISIAN:
        return ((n + nk) * 64 - nk) * 2 + king_moves
    if prec == PREC_SPANISH:
        return n * 64 + nk
    if prec == PREC_CZECH:
        return king_moves
    if prec == PREC_ITALIAN:
        return (((n * 2 + king_moves) * 64 + nk) << 32) | order
    return 0


@njit(cache=True, nogil=True, _nrt=False)
def _record(V, out, state, start, end, captured, kings, king_moves, flags, order):
    key = _precedence_key(V, captured, kings, king_moves, order)
    if key < state[_BEST]:
        return
    if key > state[_BEST]:
        state[_BEST] = key
        state[_COUNT] = 0
    n = state[_COUNT]
    if popcount(captured) >= V[V_DUP_MIN]:
        # Fewer jumped pieces cannot be reached by two paths (3 on the diagonal boards;
        # 2 where a king's landing squares make paths apart, Turkish).  The flags
        # are compared too: a Russian man crowned on the way is a different move.
        for i in range(n):
            if (out[i, 2] == captured and out[i, 0] == start and out[i, 1] == end
                    and (out[i, 3] & FLAG_PROMOTE) == flags):
                if state[_PATHS]:
                    out[i, 3] += 1 << PATHS_SHIFT
                return
    if n < out.shape[0]:
        out[n, 0] = start
        out[n, 1] = end
        out[n, 2] = captured
        out[n, 3] = flags
        state[_COUNT] = n + 1


@njit(cache=True, nogil=True, _nrt=False)
def _king_can_jump(V, S, sq, skip, skip2, opp, empty, captured):
    """Whether a king on ``sq`` has a jump, not in directions ``skip`` or ``skip2``."""
    flying = V[V_FLYING_KING] != 0
    kdirs = V[V_KING_CAPTURES]
    for d in range(NDIRS):
        if d == skip or d == skip2 or not (kdirs >> d) & 1:
            continue
        p = S[d, sq]
        if flying:
            while p >= 0 and (empty >> p) & 1:
                p = S[d, p]
        if p >= 0 and (opp >> p) & 1 and not (captured >> p) & 1:
            q = S[d, p]
            if q >= 0 and (empty >> q) & 1:
                return True
    return False


@njit(cache=True, nogil=True, _nrt=False)
def _man_can_jump(V, S, sq, dirs, opp, kings, empty, captured):
    """Whether a man on ``sq`` has a jump in one of the directions ``dirs``."""
    takes_king = V[V_MAN_TAKES_KING] != 0
    for d in range(V[V_CAPTURE_DIRS]):
        if not (dirs >> d) & 1:
            continue
        p = S[d, sq]
        if p < 0 or not (opp >> p) & 1 or (captured >> p) & 1:
            continue
        if not takes_king and (kings >> p) & 1:
            continue
        q = S[d, p]
        if q >= 0 and (empty >> q) & 1:
            return True
    return False


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _push(state, top, sq, captured, info):
    if top < _STACK_SIZE:
        base = _STACK + 3 * top
        state[base] = sq
        state[base + 1] = captured
        state[base + 2] = info
        return top + 1
    return top


@njit(cache=True, nogil=True, _nrt=False)
def _piece_captures(V, S, start, king_moves, dirs, promo, opp, kings, empty, out, state):
    """Record every complete capture of the piece on ``start``.

    Depth-first over partial captures held on an explicit stack: (square reached,
    captured set, info = back direction + 1 | king << 4 | promoted << 5 | straight
    direction + 1 << 6 | Italian king order << 16).  A partial capture is pushed only
    if it can go on; otherwise it is complete and recorded.  A flying king that may
    land on several squares goes on straight ahead only from the first of them: from
    the others the same jumps would be found again (the same move by a different
    path).  With passing capture (Thai, Turkish) a jumped piece leaves its square at
    once and the square is free again; a king may then turn back the way it came only
    where ``V_TURN_BACK`` allows it (Thai, not Turkish).
    """
    flying = V[V_FLYING_KING] != 0
    land_behind = V[V_LAND_BEHIND] != 0
    halt_king = V[V_HALT_BEHIND_KING] != 0
    passing = V[V_PASSING_PROMOTION] != 0
    passing_capture = V[V_PASSING_CAPTURE] != 0
    turn_back = V[V_TURN_BACK] != 0
    italian = V[V_PRECEDENCE] == PREC_ITALIAN
    takes_king = V[V_MAN_TAKES_KING] != 0
    ndirs = V[V_CAPTURE_DIRS]
    kdirs = V[V_KING_CAPTURES]
    landings_apart = state[_PATHS] != 0 and V[V_LANDINGS_APART] != 0
    top = _push(state, 0, start, 0, king_moves << 4)
    while top > 0:
        top -= 1
        base = _STACK + 3 * top
        sq = state[base]
        captured = state[base + 1]
        info = state[base + 2]
        skip = (info & 15) - 1
        order = info >> 16
        free = empty | captured if passing_capture else empty
        if (info >> 4) & 1:
            flags = (info >> 5) & 1
            skip2 = ((info >> 6) & 15) - 1
            for d in range(ndirs):
                if d == skip or d == skip2 or not (kdirs >> d) & 1:
                    continue
                p = S[d, sq]
                if flying:
                    while p >= 0 and (free >> p) & 1:
                        p = S[d, p]
                if p < 0 or not (opp >> p) & 1 or (captured >> p) & 1:
                    continue
                q = S[d, p]
                if q < 0 or not (free >> q) & 1:
                    continue
                now = captured | (1 << p)
                if italian:
                    order2 = order | (((kings >> p) & 1) << (31 - popcount(captured)))
                else:
                    order2 = 0
                free2 = free | (1 << p) if passing_capture else free
                back = -1 if turn_back else opposite(d)
                only_first = not flying or land_behind
                more = False
                land = q
                straight = -1
                while land >= 0 and (free2 >> land) & 1:
                    if _king_can_jump(V, S, land, back, straight, opp, free2, now):
                        top = _push(state, top, land, now,
                                    (back + 1) | 16 | (flags << 5) | ((straight + 1) << 6)
                                    | (order2 << 16))
                        more = True
                    if only_first:
                        break
                    # Every landing square sees the same jump straight ahead, and
                    # the first one (which looks that way too) decides ``more``;
                    # unless each landing square makes a path of its own.
                    if not landings_apart:
                        straight = d
                    land = S[d, land]
                if more:
                    continue
                if halt_king and (kings >> p) & 1:
                    only_first = True
                land = q
                while land >= 0 and (free2 >> land) & 1:
                    _record(V, out, state, start, land, now, kings, king_moves, flags, order2)
                    if only_first:
                        break
                    land = S[d, land]
        else:
            for d in range(ndirs):
                if not (dirs >> d) & 1:
                    continue
                p = S[d, sq]
                if p < 0 or not (opp >> p) & 1 or (captured >> p) & 1:
                    continue
                if not takes_king and (kings >> p) & 1:
                    continue
                q = S[d, p]
                if q < 0 or not (free >> q) & 1:
                    continue
                now = captured | (1 << p)
                if italian:
                    order2 = order | (((kings >> p) & 1) << (31 - popcount(captured)))
                else:
                    order2 = 0
                free2 = free | (1 << p) if passing_capture else free
                back = opposite(d)
                crowned = (promo >> q) & 1
                if passing and crowned:
                    if turn_back:
                        back = -1
                    if _king_can_jump(V, S, q, back, -1, opp, free2, now):
                        top = _push(state, top, q, now, (back + 1) | 16 | 32 | (order2 << 16))
                    else:
                        _record(V, out, state, start, q, now, kings, 0, FLAG_PROMOTE, order2)
                elif _man_can_jump(V, S, q, dirs, opp, kings, free2, now):
                    top = _push(state, top, q, now, (back + 1) | (order2 << 16))
                else:
                    _record(V, out, state, start, q, now, kings, 0, crowned, order2)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _sides(V, white, black, turn):
    if turn == 0:
        return white, black, V[V_PROMO_WHITE], 0
    return black, white, V[V_PROMO_BLACK], 2


@njit(cache=True, nogil=True, _nrt=False)
def generate_captures(white, black, kings, turn, V, S, out, state):
    """Write the legal captures to ``out``; return their number (0 if none)."""
    return captures_inline(white, black, kings, turn, V, S, out, state)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def captures_inline(white, black, kings, turn, V, S, out, state):
    """:func:`generate_captures`, inlined where it is called: the search's quiescence asks it
    at nearly every leaf, most often to find none, and a call costs more than that."""
    own, opp, promo, fwd = _sides(V, white, black, turn)
    empty = V[V_BOARD] & ~(white | black)
    men = own & ~kings
    state[_COUNT] = 0
    state[_BEST] = -1
    ndirs = V[V_CAPTURE_DIRS]
    dirs = V[V_MAN_CAPTURES + turn]
    # Men that may have a jump: a quick bitwise filter, checked exactly later.
    prey = opp if V[V_MAN_TAKES_KING] else opp & ~kings
    cand = 0
    for d in range(4):
        if (dirs >> d) & 1:
            s = V[V_SHIFT_UL + d]
            cand |= shift(prey, -s) & shift(empty, -2 * s)
    if ndirs == 8:
        if dirs == 255:
            # Orthogonal jumps: the next square on a row is one bit away, on a column
            # two rows (width + 1 bits) away.  Shifts that wrap around a row end only
            # add candidates, never lose one.
            for s in (1, -1, V[V_WIDTH] + 1, -V[V_WIDTH] - 1):
                cand |= shift(prey, -s) & shift(empty, -2 * s)
        else:
            cand = men          # some directions only (Turkish men): no filter
    cand &= men
    while cand:
        b = lsb_index(cand)
        cand &= cand - 1
        _piece_captures(V, S, b, 0, dirs, promo, opp, kings, empty | (1 << b), out, state)
    ks = own & kings
    while ks:
        b = lsb_index(ks)
        ks &= ks - 1
        _piece_captures(V, S, b, 1, dirs, promo, opp, kings, empty | (1 << b), out, state)
    return state[_COUNT]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _jump_starts(prey, empty, turn, V):
    """Per diagonal direction (up-left, up-right, down-left, down-right), the squares a
    jump of side ``turn``'s men that way starts from: ``prey`` next, ``empty`` beyond
    (0 where its men do not capture that way).  Diagonal boards only."""
    dirs = V[V_MAN_CAPTURES + turn]
    # Up-left and up-right are right shifts, down-left and down-right left shifts.
    ul, ur = -V[V_SHIFT_UL], -V[V_SHIFT_UL + 1]
    dl, dr = V[V_SHIFT_UL + 2], V[V_SHIFT_UL + 3]
    c0 = (prey << ul) & (empty << 2 * ul) if dirs & 1 else 0
    c1 = (prey << ur) & (empty << 2 * ur) if dirs & 2 else 0
    c2 = (prey >> dl) & (empty >> 2 * dl) if dirs & 4 else 0
    c3 = (prey >> dr) & (empty >> 2 * dr) if dirs & 8 else 0
    return c0, c1, c2, c3


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _land(bb, d, V):
    """The squares two steps from ``bb`` in diagonal direction ``d`` (a jump's landing)."""
    if d == 0:
        return bb >> (-2 * V[V_SHIFT_UL])
    if d == 1:
        return bb >> (-2 * V[V_SHIFT_UL + 1])
    if d == 2:
        return bb << (2 * V[V_SHIFT_UL + 2])
    return bb << (2 * V[V_SHIFT_UL + 3])


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _plain_captures(prey, kings, V):
    """Whether men's captures are followed by bitboards here: diagonal only, pieces taken
    stay in the way until the end, and no precedence weighs the kings among ``prey``."""
    if V[V_CAPTURE_DIRS] != 4 or V[V_PASSING_CAPTURE] != 0:
        return False
    prec = V[V_PRECEDENCE]
    return (prey & kings) == 0 or prec == PREC_NONE or prec == PREC_COUNT or prec == PREC_CZECH


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _crowned_going_on(turn, V):
    """The squares where side ``turn``'s man, crowned mid-capture, goes on as a king."""
    return V[V_PROMO_WHITE + turn] if V[V_PASSING_PROMOTION] != 0 else 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _man_jumps(men, prey, kings, empty, turn, V):
    """The men of ``men`` with a jump in each diagonal direction (0 where side ``turn``'s
    men do not capture that way, or the board has orthogonal captures), and whether the
    jumps are all the legal captures: each ends the capture (no further jump from its
    landing square but straight back, where the piece just taken is), and the variant's
    precedence ranks every single jump alike.  A test before any capture search, and
    the whole search where it is enough.  (The man's own square is the landing square
    of that jump back only, and no other square is freed by a single jump.)"""
    if V[V_CAPTURE_DIRS] != 4:
        return 0, 0, 0, 0, False
    c0, c1, c2, c3 = _jump_starts(prey, empty, turn, V)
    j0, j1, j2, j3 = men & c0, men & c1, men & c2, men & c3
    landings = _land(j0, 0, V) | _land(j1, 1, V) | _land(j2, 2, V) | _land(j3, 3, V)
    if landings == 0:
        return j0, j1, j2, j3, True
    if not _plain_captures(prey, kings, V) or (landings & _crowned_going_on(turn, V)) != 0:
        return j0, j1, j2, j3, False
    more = ((_land(j0, 0, V) & (c0 | c1 | c2)) | (_land(j1, 1, V) & (c0 | c1 | c3))
            | (_land(j2, 2, V) & (c0 | c2 | c3)) | (_land(j3, 3, V) & (c1 | c2 | c3)))
    return j0, j1, j2, j3, more == 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def may_capture(white, black, kings, turn, V):
    """Whether side ``turn`` may have a capture: its men have a jump, or it has a king, or
    the board captures orthogonally (then not tested: True).  Exact for men on diagonal
    boards; a cheap test, no search."""
    own, prey = (white, black) if turn == 0 else (black, white)
    if V[V_CAPTURE_DIRS] != 4 or (own & kings) != 0:
        return True
    c0, c1, c2, c3 = _jump_starts(prey, V[V_BOARD] & ~(white | black), turn, V)
    men = own & ~kings
    return (men & c0) | (men & c1) | (men & c2) | (men & c3) != 0


@njit(cache=True, nogil=True, _nrt=False)
def generate(white, black, kings, turn, V, S, out, state):
    """Write every legal move to ``out`` and return their number."""
    own, opp, promo, fwd = _sides(V, white, black, turn)
    empty = V[V_BOARD] & ~(white | black)
    men = own & ~kings
    n = 0
    if own & kings:
        n = generate_captures(white, black, kings, turn, V, S, out, state)
    else:
        prey = opp if V[V_MAN_TAKES_KING] else opp & ~kings
        j0, j1, j2, j3, whole = _man_jumps(men, prey, kings, empty, turn, V)
        if whole:
            # Single jumps only, in the capture search's order: by man, then direction.
            jumpers = j0 | j1 | j2 | j3
            while jumpers:
                frm = lsb_index(jumpers)
                jumpers &= jumpers - 1
                for d in range(4):
                    j = j0 if d == 0 else j1 if d == 1 else j2 if d == 2 else j3
                    if (j >> frm) & 1:
                        s = V[V_SHIFT_UL + d]
                        to = frm + 2 * s
                        out[n, 0] = frm
                        out[n, 1] = to
                        out[n, 2] = 1 << (frm + s)
                        out[n, 3] = FLAG_PROMOTE if (promo >> to) & 1 else 0
                        n += 1
        else:
            n = generate_captures(white, black, kings, turn, V, S, out, state)
    if n:
        return n
    mdirs = V[V_MAN_STEPS + turn]
    while mdirs:
        d = lsb_index(mdirs)
        mdirs &= mdirs - 1
        s = V[V_STEP + d]
        tos = step(men, d, V) & empty
        while tos:
            to = lsb_index(tos)
            tos &= tos - 1
            out[n, 0] = to - s
            out[n, 1] = to
            out[n, 2] = 0
            out[n, 3] = FLAG_PROMOTE if (promo >> to) & 1 else 0
            n += 1
    flying = V[V_FLYING_KING] != 0
    kdirs = V[V_KING_STEPS]
    ks = own & kings
    while ks:
        b = lsb_index(ks)
        ks &= ks - 1
        dirs = kdirs
        while dirs:
            d = lsb_index(dirs)
            dirs &= dirs - 1
            to = S[d, b]
            while to >= 0 and (empty >> to) & 1 and n < out.shape[0]:
                out[n, 0] = b
                out[n, 1] = to
                out[n, 2] = 0
                out[n, 3] = 0
                n += 1
                if not flying:
                    break
                to = S[d, to]
    return n


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def man_steps(men, empty, turn, V):
    """Number of quiet moves of the men ``men`` of side ``turn`` onto ``empty`` squares."""
    mdirs = V[V_MAN_STEPS + turn]
    n = 0
    while mdirs:
        d = lsb_index(mdirs)
        mdirs &= mdirs - 1
        n += popcount(step(men, d, V) & empty)
    return n


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def man_targets(men, empty, turn, V):
    """The empty squares that a man of ``men`` (side ``turn``) can step onto."""
    mdirs = V[V_MAN_STEPS + turn]
    t = 0
    while mdirs:
        d = lsb_index(mdirs)
        mdirs &= mdirs - 1
        t |= step(men, d, V) & empty
    return t


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def man_free(men, empty, turn, V):
    """The men of ``men`` (side ``turn``) that have an empty square to step onto."""
    mdirs = V[V_MAN_STEPS + turn]
    t = 0
    while mdirs:
        d = lsb_index(mdirs)
        mdirs &= mdirs - 1
        t |= step(empty, opposite(d), V)
    return men & t


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def king_quiet_count(ks, empty, V, flying):
    """Number of quiet moves of the kings ``ks`` onto ``empty`` squares."""
    n = 0
    kdirs = V[V_KING_STEPS]
    while kdirs:
        d = lsb_index(kdirs)
        kdirs &= kdirs - 1
        t = step(ks, d, V) & empty
        while t:
            n += popcount(t)
            if not flying:
                break
            t = step(t, d, V) & empty
    return n


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def make(white, black, kings, turn, frm, to, captured, flags):
    """The position after a move (copy-make): returns (white, black, kings, turn)."""
    moved = (1 << frm) ^ (1 << to)
    if turn == 0:
        white ^= moved
        black &= ~captured
    else:
        black ^= moved
        white &= ~captured
    if (kings >> frm) & 1:
        kings = (kings & ~captured) ^ moved
    else:
        kings &= ~captured
        if flags & FLAG_PROMOTE:
            kings |= 1 << to
    return white, black, kings, 1 - turn
