"""Zobrist hashing of positions: one 64-bit key per (piece kind, bit) plus a side key.

The keys are drawn once at import from a fixed seed, so a position's key is the same
in every process and every run (the bench signature and the tests rely on that).
Piece kinds: 0 white man, 1 white king, 2 black man, 3 black king; ``ZOBRIST[4, 0]``
is XORed in when Black is to move.  The search keeps the key incrementally
(:func:`move_key`); :func:`position_key` recomputes it from scratch.
"""
import numpy as np
from numba import njit

from .bits import lsb_index

SEED = 0x5AF1E_D4A6
ZOBRIST = np.random.Generator(np.random.PCG64(SEED)).integers(
    np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=(5, 64), dtype=np.int64)
ZOBRIST.flags.writeable = False
SIDE = 4


@njit(cache=True, nogil=True, _nrt=False)
def board_key(white, black, kings, turn, Z):
    """The key of a position computed from scratch."""
    key = 0
    for side in range(2):
        bb = white if side == 0 else black
        while bb:
            b = lsb_index(bb)
            bb &= bb - 1
            key ^= Z[2 * side + ((kings >> b) & 1), b]
    if turn:
        key ^= Z[SIDE, 0]
    return key


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def move_key(key, kings, turn, frm, to, captured, promotes, Z):
    """The key after a move, from the key before it (``kings`` is the board before)."""
    king = (kings >> frm) & 1
    key ^= Z[2 * turn + king, frm]
    key ^= Z[2 * turn + (king | promotes), to]
    opp = 2 * (1 - turn)
    while captured:
        b = lsb_index(captured)
        captured &= captured - 1
        key ^= Z[opp + ((kings >> b) & 1), b]
    return key ^ Z[SIDE, 0]


def position_key(pos) -> int:
    """The Zobrist key of a :class:`~engine.position.Position`."""
    return int(board_key(*pos.words, ZOBRIST))
