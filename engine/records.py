"""The search kernel's records: the arrays of :func:`engine.negamax.search_root`, named.

Three named tuples (numba passes a named tuple of arrays as one argument, and caches the
kernel compiled for it): ``Tables``, what the variant and the evaluation give the search
(read only); ``Shared``, what every thread of a search shares (the transposition table
and the endgame databases); ``Workspace``, the arrays one searching thread owns.  The
searcher builds a thread's ``Workspace`` once and each search's ``Tables`` and ``Shared``
once.
"""
from typing import NamedTuple

import numpy as np

from . import egdb
from .movegen import new_move_buffer, new_state
from .negamax import C_SIZE, EVAL_SLOTS, MAX_PLY, NF, P_SIZE


class Tables(NamedTuple):
    """The variant's and the evaluation's tables a search reads (never writes)."""

    variant: np.ndarray       # the variant's rule table (engine.variants: V_*)
    steps: np.ndarray         # its per-direction steps (Variant.steps)
    eval_tables: np.ndarray   # engine.eval.eval_tables(variant)
    weights: np.ndarray       # the evaluation weights
    zobrist: np.ndarray       # engine.zobrist.ZOBRIST


class Shared(NamedTuple):
    """The tables every thread of a search shares: the transposition table (engine.tt
    rejects an entry torn between two threads' writes) and the endgame databases."""

    tt_keys: np.ndarray
    tt_data: np.ndarray
    db_x: np.ndarray          # engine.egdb.Tables.X, BINOM, offsets, data (empty: none)
    db_binom: np.ndarray
    db_offsets: np.ndarray
    db_data: np.ndarray


def shared_tables(tt_keys, tt_data, db) -> Shared:
    """The shared record of a transposition table and loaded databases (``egdb.Tables``)."""
    return Shared(tt_keys, tt_data, db.X, egdb.BINOM, db.offsets, db.data)


class Workspace(NamedTuple):
    """The arrays one searching thread owns and the kernel writes."""

    stack: np.ndarray         # st[ply, F_*]: a node's position, window and move loop
    order: np.ndarray         # order[ply, i]: the ordering score of move i
    pv: np.ndarray            # pv[ply, j]: the line found from ply, pvlen[ply] its end
    pvlen: np.ndarray
    killers: np.ndarray       # killers[ply]: two quiet moves that cut (move ids)
    hist: np.ndarray          # hist[side, from, to]: history scores of quiet moves; hist[2 +
                              # side, from, to]: the counter-move to the opponent's from-to
    keys: np.ndarray          # the game's repeatable tail, then the search path's keys
    h0: int                   # the root's index in keys
    buf: np.ndarray           # buf[ply]: the node's move list
    state: np.ndarray         # the capture search's scratch space
    ctl: np.ndarray           # C_*: control and report words
    params: np.ndarray        # P_*: the search's parameters
    windows: np.ndarray       # windows[ply, u]: White's index of pattern window u (engine.eval)
    evals: np.ndarray         # evals[slot]: (key, static evaluation) of recent positions


def new_workspace() -> Workspace:
    """A thread's arrays, zeroed; its path of keys holds no game history yet (a search
    replaces ``keys`` and ``h0`` with its root's)."""
    return Workspace(np.zeros((MAX_PLY, NF), dtype=np.int64),
                     np.zeros((MAX_PLY, 1024), dtype=np.int64),
                     np.zeros((MAX_PLY, MAX_PLY, 4), dtype=np.int64),
                     np.zeros(MAX_PLY, dtype=np.int64),
                     np.zeros((MAX_PLY, 2), dtype=np.int64),
                     np.zeros((4, 64, 64), dtype=np.int64),
                     np.zeros(MAX_PLY + 1, dtype=np.int64), 0,
                     new_move_buffer(MAX_PLY), new_state(),
                     np.zeros(C_SIZE, dtype=np.int64), np.zeros(P_SIZE, dtype=np.int64),
                     np.zeros((MAX_PLY, 64), dtype=np.int32),    # 49 windows at most, entries < 2^31
                     np.zeros((EVAL_SLOTS, 2), dtype=np.int64))
