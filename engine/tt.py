"""Transposition table: two int64 arrays (keys, packed data) of 2**log2 entries, views of
one array where an entry's key and data stand side by side (a bucket is one cache line).

Entries live in buckets of two: the first slot keeps the deeper (or newer) result,
the second is always replaced.  A data word packs, from bit 0 up: the best move's
identity (32 bits, see :func:`move_id`), score + 32768 (16), depth (8), bound (2),
age (5).  Data 0 is an empty slot.  The table is sized by the Hub ``tt-size``
parameter (log2 of the entry count, 16 bytes an entry).

Lock-free for several search threads: a slot's key word holds ``key ^ data``, so a slot
whose two words come from two different writes (one thread's key, another's data) does
not match its key and reads as a miss, never as another position's result.

The search asks for a child's bucket (:func:`prefetch`) as it makes the move, so that the
memory load runs while the child's first steps do (the draw rules, the windows), not
while its probe waits.
"""
import numpy as np
from numba import njit

from .bits import ix
from .bits import prefetch as _prefetch
from .options import TT_DEFAULT_LOG2 as DEFAULT_LOG2
from .options import TT_MAX_LOG2 as MAX_LOG2
from .options import TT_MIN_LOG2 as MIN_LOG2

BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 1, 2, 3


def new_table(log2: int) -> tuple[np.ndarray, np.ndarray]:
    """Empty (keys, data) arrays of ``2**log2`` entries."""
    n = 1 << log2
    both = np.zeros(2 * n + 8, dtype=np.int64)
    at = (-both.ctypes.data % 64) // 8             # a bucket (2 entries, 32 bytes) in one line
    both = both[at:at + 2 * n]
    return both[0::2], both[1::2]                  # an entry's key and data side by side


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def move_id(frm, to, captured):
    """A 32-bit identity of a move: from and to bits and a 20-bit fold of the captured set.

    Two captures with the same ends differ in their captured set; the fold tells them
    apart except by a 2**-20 accident, which costs only move ordering.
    """
    fold = (captured ^ (captured >> 20) ^ (captured >> 40)) & 0xFFFFF
    return frm | (to << 6) | (fold << 12)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def probe(keys, data, key):
    """The data word stored for ``key``, or 0."""
    i = key & (keys.shape[0] - 2)
    d = data[ix(i)]
    if d != 0 and keys[ix(i)] ^ d == key:
        return d
    d = data[ix(i + 1)]
    if d != 0 and keys[ix(i + 1)] ^ d == key:
        return d
    return 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def prefetch(keys, data, key, due):
    """Start loading ``key``'s bucket if ``due`` (a child that will probe it: one with depth
    left), so that the probe, a little later, does not wait on memory."""
    if due:
        i = key & (keys.shape[0] - 2)
        _prefetch(keys, i)
        _prefetch(data, i)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def entry_move(d):
    return d & 0xFFFFFFFF


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def entry_score(d):
    return ((d >> 32) & 0xFFFF) - 32768


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def entry_depth(d):
    return (d >> 48) & 0xFF


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def entry_bound(d):
    return (d >> 56) & 3


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _pack(mid, score, depth, bound, age):
    return mid | ((score + 32768) << 32) | (depth << 48) | (bound << 56) | ((age & 31) << 58)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def store(keys, data, key, mid, score, depth, bound, age, keep=0):
    """Record a search result (score already made ply-independent by the caller).

    ``keep`` 0: the result takes the first slot if that slot holds this position, is empty,
    is from an older search or is no deeper, else the second.  ``keep`` N > 0 (the option
    ``tt-keep-deeper``, as Scan): a slot that holds this position from this search and is N
    or more plies deeper is kept as it is; otherwise the result takes that slot, with its
    move where the result has none."""
    if depth > 255:
        depth = 255
    i = key & (keys.shape[0] - 2)
    if keep:
        for j in range(i, i + 2):
            old = data[ix(j)]
            if old != 0 and keys[ix(j)] ^ old == key:
                if ((old >> 58) & 31) == (age & 31) and entry_depth(old) >= depth + keep:
                    return
                if mid == 0:
                    mid = entry_move(old)
                d = _pack(mid, score, depth, bound, age)
                keys[ix(j)] = key ^ d
                data[ix(j)] = d
                return
    d = _pack(mid, score, depth, bound, age)
    old = data[ix(i)]
    if (keys[ix(i)] ^ old == key or old == 0 or ((old >> 58) & 31) != (age & 31)
            or ((old >> 48) & 0xFF) <= depth):
        keys[ix(i)] = key ^ d
        data[ix(i)] = d
    else:
        keys[ix(i + 1)] = key ^ d
        data[ix(i + 1)] = d
