"""The draw rules of every variant: one definition, read by the search and the referee.

A variant's draw rules are data in its kernel table (:mod:`engine.variants`):
``V_REPETITIONS`` (occurrences of a position that draw), ``V_REVERSIBLE`` (plies of king
moves without capture that draw, 0 = none), ``V_ENDGAME`` (which lone-king rules apply,
``EG_*``), ``V_RULE_PIECES`` (no rule below concerns more pieces than this) and
``V_LONG_DIAGONAL`` (Russian 7.2.7).  The kernels here read that data; the search kernel
calls them at every node and :mod:`engine.game` calls the very same functions to referee
a game, so the engine's idea of a draw is the referee's.

A position reached in a game carries four counters, each in plies:

* ``king``: consecutive king moves without capture (the 25-move rule of FMJD, 15 moves
  in Russian 7.2.5, 40 in English; it also bounds the positions that can repeat).  In
  Turkish a man stepping sideways can step back, so it counts there too: the count is
  of reversible moves, and only a capture or a man's step forward ends it;
* ``ending``: plies since the material came under the lone-king rule in force (FMJD 16-
  and 5-move rules, Frisian 7 and 2, Russian 7.2.4 and 7.2.8).  The move that brings
  the balance about is not counted; a capture or promotion that leaves the same rule in
  force counts on; another rule taking over starts a new count;
* ``road``: plies since Russian 7.2.7 came into force (three pieces with a king against
  a lone king on the long diagonal a1-h8); leaving the diagonal ends it;
* ``stable``: plies since the last capture or promotion (Russian 7.2.6).

A lone-king rule of N moves counts either each side's moves (FMJD, Frisian: N moves by
each, 2N plies) or the stronger side's moves only (Russian: drawn when the side playing
against the lone king has made its Nth move; with king against king, either side's).
Whose moves a count holds needs no extra state: the plies alternate, and the last one
was played by the side not to move.

Counters advance from the boards before and after a move alone (no move record), so a
search can carry them down its tree and the root's can be computed from the game's
positions (:func:`root_counters` in :mod:`engine.game`).
"""
import numpy as np
from numba import njit

from .bits import lsb_index, popcount
from .variants import (EG_FMJD, EG_FRISIAN, EG_TURKISH, V_ENDGAME, V_FULL_BOARD,
                       V_LONG_DIAGONAL, V_REVERSIBLE, V_RULE_PIECES, V_WIDTH)

# Whose moves a lone-king count holds.
WHOSE_EACH, WHOSE_WHITE, WHOSE_BLACK, WHOSE_EITHER = 0, 1, 2, 3
# What draws (0: nothing).
DRAW_NONE, DRAW_ENDING, DRAW_ROAD, DRAW_STABLE, DRAW_REVERSIBLE = range(5)
# Counter slots.
C_KING, C_ENDING, C_ROAD, C_STABLE = range(4)
NCOUNTERS = 4


@njit(cache=True, nogil=True, _nrt=False)
def material_rules(white, black, kings, V):
    """The rules that the material of a position brings into force:
    (lone-king rule's moves N or 0, whose moves it counts, 7.2.7 in force, 7.2.6 plies or 0).
    """
    kind = V[V_ENDGAME]
    if kind == 0 or popcount(white | black) > V[V_RULE_PIECES]:
        return 0, 0, False, 0
    wk, bk = popcount(white & kings), popcount(black & kings)
    wn, bn = popcount(white), popcount(black)
    if kind == EG_FMJD:
        for lone in range(2):
            own_n, own_k = (wn, wk) if lone == 0 else (bn, bk)
            opp_n, opp_k = (bn, bk) if lone == 0 else (wn, wk)
            if own_n == 1 and own_k == 1 and opp_k >= 1:
                if opp_n == 3:
                    return 16, WHOSE_EACH, False, 0
                if opp_n <= 2:
                    return 5, WHOSE_EACH, False, 0
        return 0, 0, False, 0
    if kind == EG_TURKISH:
        if wn == 1 and bn == 1:
            return 2, WHOSE_EACH, False, 0
        return 0, 0, False, 0
    if kind == EG_FRISIAN:
        if wn == wk and bn == bk and wk >= 1 and bk >= 1:
            if wk + bk == 3:
                return 7, WHOSE_EACH, False, 0
            if wk + bk == 2:
                return 2, WHOSE_EACH, False, 0
        return 0, 0, False, 0
    # Russian and Brazilian, fmjd64 7.2.4-7.2.8.
    ending = 0
    whose = 0
    road = False
    for lone in range(2):
        own_n, own_k = (wn, wk) if lone == 0 else (bn, bk)
        opp_n, opp_k = (bn, bk) if lone == 0 else (wn, wk)
        if own_n != 1 or own_k != 1 or opp_k == 0:
            continue
        strong = False
        if opp_n <= 2:
            ending = 5                                   # 7.2.8
            strong = True
        elif opp_k >= 3:
            ending = 15                                  # 7.2.4
            strong = True
        if opp_n == 3 and (white if lone == 0 else black) & V[V_LONG_DIAGONAL]:
            road = True                                  # 7.2.7
            strong = True
        if strong:
            whose |= WHOSE_BLACK if lone == 0 else WHOSE_WHITE
    stable = 0
    if wk and bk:
        total = wn + bn
        if total == 4 or total == 5:
            stable = 60                                  # 7.2.6: 30 moves each
        elif total == 6 or total == 7:
            stable = 120                                 # 60 moves each
    return ending, whose, road, stable


@njit(cache=True, nogil=True, _nrt=False)
def _moves_of(plies, turn, whose):
    """Moves that the side(s) ``whose`` made in the last ``plies`` plies (``turn``: to move)."""
    last = (plies + 1) // 2      # the side not to move made the last ply
    other = plies // 2
    if whose == WHOSE_EACH:
        return other
    if whose == WHOSE_EITHER:
        return last
    side = 0 if whose == WHOSE_WHITE else 1
    return last if side != turn else other


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _sideways(men, men2, V):
    """A man went from ``men`` to ``men2`` along its row (a full board's sideways step)."""
    if not V[V_FULL_BOARD]:
        return False
    frm, to = men & ~men2, men2 & ~men
    if frm == 0 or to == 0:
        return False
    return lsb_index(frm) // V[V_WIDTH] == lsb_index(to) // V[V_WIDTH]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def advance(king, ending, road, stable, white, black, kings, turn, w2, b2, k2, V):
    """The counters after the side ``turn`` moved from (white, black, kings) to (w2, b2, k2)."""
    own, opp = (white, black) if turn == 0 else (black, white)
    own2, opp2 = (w2, b2) if turn == 0 else (b2, w2)
    captured = opp2 != opp
    men, men2 = own & ~kings, own2 & ~k2
    if not captured and (men == men2 or _sideways(men, men2, V)):
        king += 1                # a reversible move: a king's, or a man's sideways step
    else:
        king = 0
    promoted = popcount(own2 & k2) > popcount(own & kings)
    stable = 0 if captured or promoted else stable + 1
    if V[V_ENDGAME] == 0 or popcount(white | black) > V[V_RULE_PIECES]:
        return king, 0, 0, stable        # no material rule before the move: none counts yet
    n_before, _, road_before, _ = material_rules(white, black, kings, V)
    n_after, _, road_after, _ = material_rules(w2, b2, k2, V)
    if n_after == 0 or n_after != n_before:
        ending = 0               # no rule, or this move brought it about
    else:
        ending += 1
    if road_after and road_before:
        road += 1
    else:
        road = 0
    return king, ending, road, stable


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def count_draw(king, ending, road, stable, white, black, kings, turn, V):
    """The move-count rule that draws this position with these counters (``DRAW_*``), or 0.

    Whether the side to move has lost (no legal move) is judged first, by the caller.
    """
    if popcount(white | black) <= V[V_RULE_PIECES]:
        n, whose, road_on, stable_limit = material_rules(white, black, kings, V)
        if n and _moves_of(ending, turn, whose) >= n:
            return DRAW_ENDING
        if road_on and _moves_of(road, turn, whose) >= 5:
            return DRAW_ROAD
        if stable_limit and stable >= stable_limit:
            return DRAW_STABLE
    limit = V[V_REVERSIBLE]
    if limit and king >= limit:
        return DRAW_REVERSIBLE
    return DRAW_NONE


@njit(cache=True, nogil=True, _nrt=False)
def repeated(keys, at, king, since, repetitions):
    """The position whose key is ``keys[at]`` occurred often enough before to draw.

    ``keys``: the Zobrist keys of the game (and search path), oldest first; only the
    last ``king`` plies (king moves without capture) can hold the same position, and
    only every second one has the same side to move.  An occurrence at index ``since``
    or later (inside the search tree) draws on its own, as one more repetition would be
    forced by the side that avoided it; before it, ``repetitions - 1`` earlier
    occurrences draw.
    """
    key = keys[at]
    seen = 0
    j = at - 4
    while j >= 0 and j >= at - king:
        if keys[j] == key:
            seen += 1
            if j >= since or seen >= repetitions - 1:
                return True
        j -= 2
    return False


def new_counters() -> np.ndarray:
    """Counters of a position nothing is known to precede."""
    return np.zeros(NCOUNTERS, dtype=np.int64)
