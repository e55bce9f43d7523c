"""A game kept as move indices, replayed into its labelled quiet positions by one kernel.

The game store (``protocol/tools/gamestore.py``) keeps each move as its index in
:func:`engine.legal_moves` order and a score for each searched ply.  Training reads the
positions back: those with a score where neither side has a capture.  Replaying them move by
move in Python costs 0.05-0.3 ms a position; :func:`quiet_positions` does it in a kernel over
the move generator itself, in the same order (its slow twin is the test's walk over
``legal_moves``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import movegen as mg
from .errors import BadInput
from .position import Position

NO_SCORE = -32768
"""The score the game store keeps for a searched ply whose search gave none."""


@njit(cache=True, nogil=True, _nrt=False)
def _replay(white, black, kings, turn, V, S, moves, lead, scores, buf, state, out, err):
    """Play ``moves`` (indices in ``legal_moves`` order) from the position given; write each
    quiet position of a scored ply (ply >= ``lead``) to ``out`` as (white, black, kings,
    turn, ply) and return how many.  A move index beyond the moves of its position returns
    -1, with that ply and the number of moves in ``err``."""
    kept = 0
    for ply in range(len(moves)):
        n = mg.generate(white, black, kings, turn, V, S, buf, state)
        index, seen, row, quiet = moves[ply], 0, -1, True
        for i in range(n):                  # a capture with its paths counted stands k times
            if row < 0:
                seen += (buf[i, 3] >> mg.PATHS_SHIFT) + 1
                if index < seen:
                    row = i
            if buf[i, 2] != 0:
                quiet = False
        if row < 0:
            err[0], err[1] = ply, seen
            return -1
        frm, to, captured, flags = buf[row, 0], buf[row, 1], buf[row, 2], buf[row, 3]
        if ply >= lead and scores[ply - lead] != NO_SCORE and quiet \
                and mg.generate_captures(white, black, kings, 1 - turn, V, S, buf, state) == 0:
            out[kept, 0], out[kept, 1], out[kept, 2] = white, black, kings
            out[kept, 3], out[kept, 4] = turn, ply
            kept += 1
        white, black, kings, turn = mg.make(white, black, kings, turn, frm, to, captured, flags)
    return kept


def quiet_positions(start: Position, moves: np.ndarray, lead: int,
                    scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The game from ``start`` whose moves are ``moves`` (indices in ``legal_moves`` order)
    and whose plies from ``lead`` on have ``scores`` (``NO_SCORE`` where the search gave
    none): the scored positions where neither side has a capture, as an int64 array of rows
    (white, black, kings, turn: the kernels' words) and the ply of each.  A move index
    beyond its position's moves raises :class:`BadInput` naming the ply."""
    v = start.variant
    moves = np.ascontiguousarray(moves, dtype=np.int64)
    scores = np.ascontiguousarray(scores, dtype=np.int64)
    if len(scores) != max(0, len(moves) - lead):
        raise BadInput(f"{len(scores)} scores for {len(moves) - lead} searched plies")
    out = np.empty((len(moves), 5), dtype=np.int64)
    err = np.zeros(2, dtype=np.int64)
    kept = _replay(*start.words, v.table, v.steps, moves, lead, scores,
                   mg.new_move_buffer(1)[0], mg.new_state(), out, err)
    if kept < 0:
        raise BadInput(f"move {int(moves[err[0]])} at ply {int(err[0])} of a position with "
                       f"{int(err[1])} moves")
    return out[:kept, :4], out[:kept, 4]
