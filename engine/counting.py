"""Perft's counting kernels: leaf counts of the move tree, and the move counts of its last ply.

Only perft uses this module; play and search use the generator (:mod:`engine.movegen`), whose
capture search, men's jump bitboards and copy-make these kernels call.  A count is exact
and equal to the length of the list :func:`engine.movegen.generate` would write (each
capture path counted in the capture-path mode of ``new_state``); the twins in the tests
check it.  The last ply is counted, not made (*bulk* counting): :func:`quick_count` by
bitboards where the side to move has no king and short captures, then
:func:`_count_men_only` (each man's captures followed by shifts), then the capture search
(:func:`_count_searched`).  :func:`perft` walks the tree on an explicit stack;
:func:`perft_hashed` also keeps the counts of subtrees in a table (:func:`new_perft_table`)
that threads may share.  The Python side (stop flag, divide) is :mod:`engine.divide`.
"""
import numpy as np
from numba import njit

from .bits import lsb_index, popcount
from .movegen import (
    _BEST, _COUNT, _PATHS, _STACK, _crowned_going_on, _jump_starts, _land, _piece_captures,
    _plain_captures, _push, _sides, generate, generate_captures, king_quiet_count, make,
    man_steps, paths_of,
)
from .variants import (
    PREC_CZECH, PREC_NONE, V_BOARD, V_CAPTURE_DIRS, V_DUP_MIN, V_FLYING_KING, V_MAN_CAPTURES,
    V_MAN_TAKES_KING, V_PRECEDENCE, V_PROMO_WHITE, V_SHIFT_UL,
)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def quick_count(white, black, kings, turn, V):
    """The number of legal moves where bitboards alone give it, else -1: the side to move
    has no king, and its captures (if any) take one or two pieces.

    ``c[e]``: the squares a jump in direction e starts from.  A man's jump in direction
    d lands on ``l[d]``; it goes on in direction e (not straight back) from ``l[d] & c[e]``.
    The squares counted that way are exact: a man's own square, empty once he has left,
    is reached again only by jumping straight back, and only then could a piece already
    taken lie in his way (two or three jumps cannot turn round otherwise).  Where a
    third jump follows, or a man would be crowned on the way and go on as a king, or
    the precedence weighs kings, the capture search must tell.  Inlined into perft's
    loop, it spares most leaves a call."""
    own = white if turn == 0 else black
    if own & kings or V[V_CAPTURE_DIRS] != 4:
        return -1
    opp = black if turn == 0 else white
    empty = V[V_BOARD] & ~(white | black)
    prey = opp if V[V_MAN_TAKES_KING] else opp & ~kings
    c0, c1, c2, c3 = _jump_starts(prey, empty, turn, V)
    l0, l1 = _land(own & c0, 0, V), _land(own & c1, 1, V)
    l2, l3 = _land(own & c2, 2, V), _land(own & c3, 3, V)
    landings = l0 | l1 | l2 | l3
    if landings == 0:
        return man_steps(own, empty, turn, V)
    if not _plain_captures(prey, kings, V):
        return -1
    promo = _crowned_going_on(turn, V)
    if landings & promo:
        return -1
    # Going on from a landing square, every way but straight back.
    k0, k1, k2, k3 = c0 | c1 | c2, c0 | c1 | c3, c0 | c2 | c3, c1 | c2 | c3
    single = (popcount(l0 & ~k0) + popcount(l1 & ~k1)
              + popcount(l2 & ~k2) + popcount(l3 & ~k3))
    if (l0 & k0) | (l1 & k1) | (l2 & k2) | (l3 & k3) == 0:
        return single
    c = (c0, c1, c2, c3)
    k = (k0, k1, k2, k3)
    ls = (l0, l1, l2, l3)
    double = 0
    for d in range(4):
        for e in range(4):
            if e == 3 - d:
                continue
            x = ls[d] & c[e]
            if x == 0:
                continue
            y = _land(x, e, V)
            if y & (k[e] | promo):
                return -1
            double += popcount(x)
    prec = V[V_PRECEDENCE]
    if prec == PREC_NONE or prec == PREC_CZECH:
        return single + double
    return double


@njit(cache=True, nogil=True, _nrt=False)
def count_moves(white, black, kings, turn, V, S, out, state):
    """The number of legal moves, counting quiet moves without listing them (and each
    capture path in the capture-path mode)."""
    n = quick_count(white, black, kings, turn, V)
    if n < 0:
        n = _count_men_only(white, black, kings, turn, V, S, out, state)
    if n < 0:
        n = _count_searched(white, black, kings, turn, V, S, out, state)
    return n


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _count_men_only(white, black, kings, turn, V, S, out, state):
    """The number of legal moves of a side with men only by :func:`_count_man_captures`
    (inlined where it is called: a call passing arrays costs as much as the count);
    -1 where it cannot tell, or the side has a king."""
    own, opp, promo, fwd = _sides(V, white, black, turn)
    if own & kings:
        return -1
    empty = V[V_BOARD] & ~(white | black)
    prey = opp if V[V_MAN_TAKES_KING] else opp & ~kings
    n = _count_man_captures(own, prey, opp, kings, empty, turn, V, S, out, state)
    if n == 0:
        return man_steps(own, empty, turn, V)
    return n


@njit(cache=True, nogil=True, _nrt=False)
def _count_searched(white, black, kings, turn, V, S, out, state):
    """:func:`count_moves` where neither :func:`quick_count` nor :func:`_count_men_only`
    could tell: by the capture search."""
    own, opp, promo, fwd = _sides(V, white, black, turn)
    empty = V[V_BOARD] & ~(white | black)
    men = own & ~kings
    n = generate_captures(white, black, kings, turn, V, S, out, state)
    if n:
        if state[_PATHS]:
            total = 0
            for i in range(n):
                total += paths_of(out[i, 3])
            return total
        return n
    n = man_steps(men, empty, turn, V)
    ks = own & kings
    if ks:
        n += king_quiet_count(ks, empty, V, V[V_FLYING_KING] != 0)
    return n


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _count_man_captures(men, prey, opp, kings, empty, turn, V, S, out, state):
    """The number of legal captures of a side with men only, by bitboards: each man's
    jumps followed depth-first, a jump tested by two shifts (the man's square emptied,
    the pieces taken still in the way).  -1 where it cannot tell: orthogonal or
    passing captures, the capture-path mode, a precedence that weighs the kings taken,
    or one that ranks captures where a man is crowned mid-capture and goes on as a king
    (without precedence, that man's captures are counted by the capture search).
    ``out`` keeps the captures that two paths might reach (``V_DUP_MIN`` pieces or
    more), to count them once."""
    if state[_PATHS] != 0 or not _plain_captures(prey, kings, V):
        return -1
    prec = V[V_PRECEDENCE]
    longest = not (prec == PREC_NONE or prec == PREC_CZECH)
    promo = V[V_PROMO_WHITE + turn]
    crowning = _crowned_going_on(turn, V)
    dirs = V[V_MAN_CAPTURES + turn]
    dup_min = V[V_DUP_MIN]
    c0, c1, c2, c3 = _jump_starts(prey, empty, turn, V)
    cand = men & (c0 | c1 | c2 | c3)
    best = 0
    count = 0
    kept = 0
    # Up-left and up-right are right shifts, down-left and down-right left shifts.
    ul, ur = -V[V_SHIFT_UL], -V[V_SHIFT_UL + 1]
    dl, dr = V[V_SHIFT_UL + 2], V[V_SHIFT_UL + 3]
    while cand:
        frm = lsb_index(cand)
        cand &= cand - 1
        free = empty | (1 << frm)
        top = _push(state, 0, 1 << frm, 0, -1)
        crowned = False
        before = count
        while top > 0:
            top -= 1
            base = _STACK + 3 * top
            at = state[base]
            captured = state[base + 1]
            back = state[base + 2]
            left = prey & ~captured
            n0 = top
            if back != 0 and (dirs & 1) and ((at >> ul) & left) and ((at >> 2 * ul) & free):
                top = _push(state, top, at >> 2 * ul, captured | (at >> ul), 3)
            if back != 1 and (dirs & 2) and ((at >> ur) & left) and ((at >> 2 * ur) & free):
                top = _push(state, top, at >> 2 * ur, captured | (at >> ur), 2)
            if back != 2 and (dirs & 4) and ((at << dl) & left) and ((at << 2 * dl) & free):
                top = _push(state, top, at << 2 * dl, captured | (at << dl), 1)
            if back != 3 and (dirs & 8) and ((at << dr) & left) and ((at << 2 * dr) & free):
                top = _push(state, top, at << 2 * dr, captured | (at << dr), 0)
            done = top == n0
            if crowning and not done:
                for i in range(n0, top):
                    if state[_STACK + 3 * i] & crowning:
                        crowned = True
            if crowned:
                break
            if not done or captured == 0:
                continue
            n = popcount(captured)
            if longest:
                if n < best:
                    continue
                if n > best:
                    best = n
                    count = 0
                    kept = 0
            if n >= dup_min:
                to = lsb_index(at)
                seen = False
                for i in range(kept):
                    if out[i, 0] == frm and out[i, 1] == to and out[i, 2] == captured:
                        seen = True
                        break
                if seen:
                    continue
                if kept < out.shape[0]:
                    out[kept, 0] = frm
                    out[kept, 1] = to
                    out[kept, 2] = captured
                    kept += 1
            count += 1
        if crowned:
            if longest:
                return -1
            # This man's captures, all of them again, by the capture search.
            state[_COUNT] = 0
            state[_BEST] = -1
            _piece_captures(V, S, frm, 0, dirs, promo, opp, kings, free, out, state)
            count = before + state[_COUNT]
            kept = 0
    return count


# Per ply of a walk's stack: the position, its move count, the next move's index and the
# number of paths that lead to the position.
WALK_STACK = 7


@njit(cache=True, nogil=True)
def perft(white, black, kings, turn, depth, bulk, V, S, buf, state, stop):
    """Leaf count at ``depth`` plies; ``bulk`` counts the last ply without making it.
    ``stop[0]``, set by another thread, ends the count early: -1 is returned.  The walk
    is :func:`walk`, on a stack of its own."""
    return walk(white, black, kings, turn, depth, bulk, V, S, buf, state, stop,
                np.empty((max(depth, 1), WALK_STACK), dtype=np.int64))


@njit(cache=True, nogil=True, _nrt=False)
def walk(white, black, kings, turn, depth, bulk, V, S, buf, state, stop, stack):
    """:func:`perft` on the caller's ``stack`` (``depth`` rows of ``WALK_STACK``): the
    GPU's threads walk their subtrees with it too (:mod:`engine.gpu_perft`).

    Iterative (numba cannot cache recursive kernels, and a GPU thread has no room to
    recurse): ``buf[ply]`` holds the move list of each ply, ``stack`` the position, the
    next move index and the number of paths that lead to the position (always 1 unless
    ``state`` is in the capture-path mode: a move reached by k paths counts its subtree
    k times).  ``stop[0]`` is checked every 4096 moves.
    """
    if depth == 0:
        return 1
    if bulk and depth == 1:
        return count_moves(white, black, kings, turn, V, S, buf[0], state)
    stack[0, 0] = white
    stack[0, 1] = black
    stack[0, 2] = kings
    stack[0, 3] = turn
    stack[0, 4] = generate(white, black, kings, turn, V, S, buf[0], state)
    stack[0, 5] = 0
    stack[0, 6] = 1
    total = 0
    ply = 0
    steps = 0
    while ply >= 0:
        i = stack[ply, 5]
        if i >= stack[ply, 4]:
            ply -= 1
            continue
        stack[ply, 5] = i + 1
        steps += 1
        if (steps & 4095) == 0 and stop[0] != 0:
            return -1
        m = buf[ply, i]
        w, b, k, t = make(stack[ply, 0], stack[ply, 1], stack[ply, 2], stack[ply, 3],
                          m[0], m[1], m[2], m[3])
        weight = stack[ply, 6] * paths_of(m[3])
        left = depth - ply - 1
        if left == 0:
            total += weight
        elif left == 1 and bulk:
            n = quick_count(w, b, k, t, V)
            if n < 0:
                n = _count_men_only(w, b, k, t, V, S, buf[ply + 1], state)
                if n < 0:
                    n = _count_searched(w, b, k, t, V, S, buf[ply + 1], state)
            total += weight * n
        else:
            ply += 1
            stack[ply, 0] = w
            stack[ply, 1] = b
            stack[ply, 2] = k
            stack[ply, 3] = t
            stack[ply, 4] = generate(w, b, k, t, V, S, buf[ply], state)
            stack[ply, 5] = 0
            stack[ply, 6] = weight
    return total


# ----- a tree cut into many subtrees, as arrays ---------------------------------------
# A row of a frontier: white, black, kings, turn, the number of paths that lead to the
# position (1 unless counting capture paths) and the index of the subtree it belongs to.
FRONTIER_ROW = 6


@njit(cache=True, nogil=True)
def children(rows, V, S, buf, state):
    """The frontier one ply below ``rows`` (``FRONTIER_ROW`` columns): a row per move of
    each position, in generation order, with its paths and subtree index carried down
    (positions without a move have no row).  ``buf`` is one move list.  For splitting a
    tree into more subtrees than :func:`engine.divide.split`'s Python objects can hold."""
    total = 0
    for i in range(rows.shape[0]):
        total += generate(rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3], V, S, buf, state)
    out = np.empty((total, FRONTIER_ROW), dtype=np.int64)
    j = 0
    for i in range(rows.shape[0]):
        n = generate(rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3], V, S, buf, state)
        for r in range(n):
            w, b, k, t = make(rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3],
                              buf[r, 0], buf[r, 1], buf[r, 2], buf[r, 3])
            out[j, 0] = w
            out[j, 1] = b
            out[j, 2] = k
            out[j, 3] = t
            out[j, 4] = rows[i, 4] * paths_of(buf[r, 3])
            out[j, 5] = rows[i, 5]
            j += 1
    return out


@njit(cache=True, nogil=True)
def move_counts(rows, V, S, buf, state):
    """The number of moves of each row's position (:func:`count_moves`)."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        out[i] = count_moves(rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3], V, S, buf, state)
    return out


# ----- perft with a hash table of subtree counts ------------------------------------
# One slot: white, black, kings, turn + 2 * plies left, count, check (a mix of the five:
# a slot torn between two threads' writes fails it and reads as a miss).
HASH_SLOT = 6


def new_perft_table(megabytes: int) -> np.ndarray:
    """A table of subtree counts of about ``megabytes`` MB (a power of two of slots)."""
    slots = max(1, (megabytes << 20) // (8 * HASH_SLOT))
    return np.zeros((1 << (slots.bit_length() - 1), HASH_SLOT), dtype=np.int64)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _mix(x):
    x = (x ^ (x >> 31)) * 0x7FB5D329728EA185
    x = (x ^ (x >> 27)) * 0x01A3A1BA4FE1A5E3
    return x ^ (x >> 33)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _check(w, b, k, tl, n):
    return _mix(w) ^ _mix(b + 1) ^ _mix(k + 2) ^ _mix(tl + 3) ^ _mix(n + 4)


@njit(cache=True, nogil=True)
def perft_hashed(white, black, kings, turn, depth, bulk, V, S, buf, state, stop, table):
    """:func:`perft` with the counts of subtrees of 2 plies or more kept in ``table``
    (from :func:`new_perft_table`, possibly shared by threads) and reused when the same
    position comes again with as many plies left.  Entries hold the whole position, so
    a hit is exact.  Returns the count, or -1 if stopped."""
    if depth == 0:
        return 1
    if bulk and depth == 1:
        return count_moves(white, black, kings, turn, V, S, buf[0], state)
    mask = table.shape[0] - 1
    # Per ply: position, move count, next move, paths into it, leaves counted below it.
    stack = np.empty((depth, 8), dtype=np.int64)
    stack[0, 0] = white
    stack[0, 1] = black
    stack[0, 2] = kings
    stack[0, 3] = turn
    stack[0, 4] = generate(white, black, kings, turn, V, S, buf[0], state)
    stack[0, 5] = 0
    stack[0, 6] = 1
    stack[0, 7] = 0
    ply = 0
    steps = 0
    while True:
        i = stack[ply, 5]
        if i >= stack[ply, 4]:
            total = stack[ply, 7]
            if ply == 0:
                return total
            w, b, k, t = stack[ply, 0], stack[ply, 1], stack[ply, 2], stack[ply, 3]
            tl = t + 2 * (depth - ply)
            slot = _mix(w ^ _mix(b ^ _mix(k ^ tl))) & mask
            table[slot, 0] = w
            table[slot, 1] = b
            table[slot, 2] = k
            table[slot, 3] = tl
            table[slot, 4] = total
            table[slot, 5] = _check(w, b, k, tl, total)
            ply -= 1
            stack[ply, 7] += stack[ply + 1, 6] * total
            continue
        stack[ply, 5] = i + 1
        steps += 1
        if (steps & 4095) == 0 and stop[0] != 0:
            return -1
        m = buf[ply, i]
        w, b, k, t = make(stack[ply, 0], stack[ply, 1], stack[ply, 2], stack[ply, 3],
                          m[0], m[1], m[2], m[3])
        paths = paths_of(m[3])
        left = depth - ply - 1
        if left == 0:
            stack[ply, 7] += paths
        elif left == 1 and bulk:
            stack[ply, 7] += paths * count_moves(w, b, k, t, V, S, buf[ply + 1], state)
        else:
            tl = t + 2 * left
            slot = _mix(w ^ _mix(b ^ _mix(k ^ tl))) & mask
            n = table[slot, 4]
            if (table[slot, 0] == w and table[slot, 1] == b and table[slot, 2] == k
                    and table[slot, 3] == tl and table[slot, 5] == _check(w, b, k, tl, n)):
                stack[ply, 7] += paths * n
                continue
            ply += 1
            stack[ply, 0] = w
            stack[ply, 1] = b
            stack[ply, 2] = k
            stack[ply, 3] = t
            stack[ply, 4] = generate(w, b, k, t, V, S, buf[ply], state)
            stack[ply, 5] = 0
            stack[ply, 6] = paths
            stack[ply, 7] = 0
