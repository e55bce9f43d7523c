"""The search kernel: one call searches the root to a given depth inside a window.

Negamax alpha-beta with principal variation search and late-move reductions, a
transposition table, killer and history move ordering, and a quiescence search
that plays every pending capture (a capture is compulsory in draughts, so a side
that must capture cannot "stand pat").  Mate scores count plies from the root
(``MATE - n`` for a win in n plies).

The variant's goal (``V[V_GOAL]``) decides the terminal nodes: normal, the side to
move without a move has lost; antidraughts, it has won; breakthrough, a position
with a king is won by the king's owner (White if both have one, as
:func:`engine.position.winner` says), checked on entering every node below the
root; a quiescence leaf whose side to move can crown by a quiet move (no capture
is pending there, so the move is legal) is a win in one ply.

Numba caches no recursive function, so the tree walk is a loop over an explicit
stack: ``st[ply]`` holds a node's position, key, window, depth and the state of its
move loop; ``buf[ply]`` its move list.  Each node is *entered* (draw rules, the
threshold test, a TT probe, move generation), then *steps* through its moves one
child at a time, and *returns* its value to its parent, which may search the same
child again (a reduced or a null-window search that beat alpha).

Threshold pruning: at every ``interval``-th ply the static evaluation of the node,
seen from the root's side, is compared with the window ``[lo, hi]`` set around the
root's static evaluation; a node outside it is not expanded further but searched
as a leaf (quiescence only).

The kernel reads no clock.  It stops when ``ctl[C_STOP]`` is set by another thread
(checked every 1024 nodes) or when the node budget is spent, and then reports
``ctl[C_ABORTED]``; the best root move found so far is in ``pv[0, 0]`` when
``ctl[C_ROOT_DONE]`` is set.
"""
import numpy as np
from numba import njit

from . import tt
from .bits import lsb_index, popcount
from .eval import evaluate
from .movegen import FLAG_PROMOTE, generate, generate_captures, make, shift
from .variants import (
    KG_BREAKTHROUGH, KG_LOSING, V_BOARD, V_GOAL, V_PROMO_BLACK, V_PROMO_WHITE, V_SHIFT_UL,
)
from .zobrist import move_key

MATE = 10000
WIN_BOUND = MATE - 200   # scores beyond are wins or losses at a known distance
INF = 30000
MAX_PLY = 128

# ctl: shared control and report words
C_STOP, C_NODES, C_NODE_LIMIT, C_ABORTED, C_ROOT_DONE, C_LEAVES, C_LEAF_PLY, C_CAN_STOP = range(8)
C_SIZE = 8
# params: threshold switch and window, its ply interval, TT age, late-move reductions
# (smallest depth reduced, 0 = off; moves tried before reducing)
P_THRESHOLD, P_LO, P_HI, P_INTERVAL, P_AGE, P_LMR_DEPTH, P_LMR_MOVES = range(7)
P_SIZE = 7
# stack fields
(F_W, F_B, F_K, F_T, F_KEY, F_REV, F_EG, F_ALPHA, F_BETA, F_DEPTH, F_ALPHA0, F_BEST,
 F_BESTI, F_N, F_I, F_CUR, F_PHASE, F_TRIED, F_QS, F_TTMOVE) = range(20)
NF = 20
PH_FULL, PH_NULL, PH_REDUCED = 0, 1, 2
ENTER, STEP, RETURN = 0, 1, 2

REVERSIBLE_LIMIT = 50       # 25-move rule: 25 king moves each without capture or man move
HIST_MAX = 1 << 20
S_TT, S_CAPTURE, S_PROMOTE, S_KILLER1, S_KILLER2 = 1 << 30, 1 << 26, 1 << 25, 1 << 24, 1 << 23


def new_stack():
    """The per-ply arrays one searcher owns: stack, order scores, PV table and length."""
    return (np.zeros((MAX_PLY, NF), dtype=np.int64), np.zeros((MAX_PLY, 1024), dtype=np.int64),
            np.zeros((MAX_PLY, MAX_PLY, 4), dtype=np.int64), np.zeros(MAX_PLY, dtype=np.int64))


@njit(cache=True, nogil=True)
def endgame_limit(white, black, kings):
    """Plies after which the 16-move (32) or 5-move (10) rule draws; 0 if neither applies.

    A lone king against three pieces with a king: 16 moves each; against one or two
    pieces with a king: 5 moves each.
    """
    for side in range(2):
        own = white if side == 0 else black
        opp = black if side == 0 else white
        if popcount(own) == 1 and own & kings and opp & kings:
            n = popcount(opp)
            if n == 3:
                return 32
            if n <= 2:
                return 10
    return 0


@njit(cache=True, nogil=True, inline="always")
def _man_steps(white, black, kings, turn, V):
    """The empty squares a man of the side to move can step onto."""
    empty = V[V_BOARD] & ~(white | black)
    men = (white if turn == 0 else black) & ~kings
    fwd = 0 if turn == 0 else 2
    return (shift(men, V[V_SHIFT_UL + fwd]) | shift(men, V[V_SHIFT_UL + fwd + 1])) & empty


@njit(cache=True, nogil=True, inline="always")
def _has_quiet(white, black, kings, turn, V):
    if _man_steps(white, black, kings, turn, V):
        return True
    empty = V[V_BOARD] & ~(white | black)
    ks = (white if turn == 0 else black) & kings
    if ks:
        for d in range(4):
            if shift(ks, V[V_SHIFT_UL + d]) & empty:
                return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _can_crown(white, black, kings, turn, V):
    """A man of the side to move can step onto its promotion row."""
    row = V[V_PROMO_WHITE] if turn == 0 else V[V_PROMO_BLACK]
    return (_man_steps(white, black, kings, turn, V) & row) != 0


@njit(cache=True, nogil=True)
def search_root(st, depth, alpha, beta, V, S, T, W, Z, tt_keys, tt_data, killers, hist,
                keys, h0, P, ctl, buf, order, pv, pvlen, state):
    """Search the root in ``st[0]`` (position, key, rule counters) to ``depth`` plies.

    Returns the root's value (fail-soft); meaningless if ``ctl[C_ABORTED]`` is set.
    """
    nodes = ctl[C_NODES]
    limit = ctl[C_NODE_LIMIT]
    can_stop = ctl[C_CAN_STOP] != 0
    ctl[C_ABORTED] = 0
    ctl[C_ROOT_DONE] = 0
    age = P[P_AGE]
    threshold = P[P_THRESHOLD] != 0
    interval = max(P[P_INTERVAL], 1)
    lmr_depth = P[P_LMR_DEPTH]
    lmr_moves = P[P_LMR_MOVES]
    goal = V[V_GOAL]
    # Best value a node at ply p can reach: a win at p + 1, or at p itself where
    # having no move wins (antidraughts).
    win_here = 1 if goal == KG_LOSING else 0
    st[0, F_ALPHA] = alpha
    st[0, F_BETA] = beta
    st[0, F_DEPTH] = depth
    p = 0
    v = 0
    mode = ENTER
    while True:
        if mode == ENTER:
            if nodes >= limit or (can_stop and (nodes & 1023) == 0 and ctl[C_STOP] != 0):
                ctl[C_ABORTED] = 1
                break
            nodes += 1
            pvlen[p] = p
            w = st[p, F_W]
            b = st[p, F_B]
            k = st[p, F_K]
            t = st[p, F_T]
            key = st[p, F_KEY]
            alpha = st[p, F_ALPHA]
            beta = st[p, F_BETA]
            d = st[p, F_DEPTH]
            if p > 0:
                if goal == KG_BREAKTHROUGH and k != 0:
                    winner = 0 if k & w else 1
                    v = MATE - p if winner == t else -(MATE - p)
                    mode = RETURN
                    continue
                rev = st[p, F_REV]
                if rev >= REVERSIBLE_LIMIT:
                    v = 0
                    mode = RETURN
                    continue
                if popcount(w | b) <= 4:
                    lim = endgame_limit(w, b, k)
                    if lim and st[p, F_EG] >= lim:
                        v = 0
                        mode = RETURN
                        continue
                if rev >= 4:
                    # Repetition: a position of the search path repeated once, or one
                    # of the game before the root repeated twice, is a draw.
                    i = h0 + p
                    j = i - 4
                    seen = 0
                    draw = False
                    while j >= 0 and j >= i - rev:
                        if keys[j] == key:
                            seen += 1
                            if j >= h0 or seen >= 2:
                                draw = True
                                break
                        j -= 2
                    if draw:
                        v = 0
                        mode = RETURN
                        continue
                if alpha < -(MATE - p):
                    alpha = -(MATE - p)
                if beta > MATE - p - 1 + win_here:
                    beta = MATE - p - 1 + win_here
                if alpha >= beta:
                    v = alpha
                    mode = RETURN
                    continue
                st[p, F_ALPHA] = alpha
                st[p, F_BETA] = beta
                if threshold and d > 0 and p % interval == 0:
                    e = evaluate(w, b, k, t, V, T, W)
                    if p & 1:
                        e = -e
                    if e < P[P_LO] or e > P[P_HI]:
                        d = 0
                        st[p, F_DEPTH] = 0
            if p >= MAX_PLY - 1:
                v = evaluate(w, b, k, t, V, T, W)
                mode = RETURN
                continue
            moves = buf[p]
            if d <= 0:
                n = generate_captures(w, b, k, t, V, S, moves, state)
                if n == 0:
                    ctl[C_LEAVES] += 1
                    ctl[C_LEAF_PLY] += p
                    if not _has_quiet(w, b, k, t, V):
                        v = MATE - p if goal == KG_LOSING else -(MATE - p)
                    elif goal == KG_BREAKTHROUGH and _can_crown(w, b, k, t, V):
                        v = MATE - p - 1
                    else:
                        v = evaluate(w, b, k, t, V, T, W)
                    mode = RETURN
                    continue
                st[p, F_QS] = 1
                st[p, F_TTMOVE] = -1
                for j in range(n):
                    order[p, j] = 0
            else:
                st[p, F_QS] = 0
                ttmove = -1
                entry = tt.probe(tt_keys, tt_data, key)
                if entry != 0:
                    ttmove = tt.entry_move(entry)
                    if p > 0 and beta - alpha == 1 and tt.entry_depth(entry) >= d:
                        s = tt.entry_score(entry)
                        if s > WIN_BOUND:
                            s -= p
                        elif s < -WIN_BOUND:
                            s += p
                        bound = tt.entry_bound(entry)
                        if (bound == tt.BOUND_EXACT or (bound == tt.BOUND_LOWER and s >= beta)
                                or (bound == tt.BOUND_UPPER and s <= alpha)):
                            v = s
                            mode = RETURN
                            continue
                st[p, F_TTMOVE] = ttmove
                n = generate(w, b, k, t, V, S, moves, state)
                if n == 0:
                    v = MATE - p if goal == KG_LOSING else -(MATE - p)
                    mode = RETURN
                    continue
                if n == 1 and p > 0:
                    st[p, F_DEPTH] = d + 1   # a forced move costs no depth
                k1 = killers[p, 0]
                k2 = killers[p, 1]
                for j in range(n):
                    frm = moves[j, 0]
                    to = moves[j, 1]
                    cap = moves[j, 2]
                    mid = tt.move_id(frm, to, cap)
                    if mid == ttmove:
                        sc = S_TT
                    elif cap:
                        sc = S_CAPTURE + popcount(cap & k) * 16 + (moves[j, 3] & FLAG_PROMOTE)
                    elif moves[j, 3] & FLAG_PROMOTE:
                        sc = S_PROMOTE
                    elif mid == k1:
                        sc = S_KILLER1
                    elif mid == k2:
                        sc = S_KILLER2
                    else:
                        sc = hist[t, frm, to]
                    order[p, j] = sc
            st[p, F_N] = n
            st[p, F_I] = 0
            st[p, F_BEST] = -INF
            st[p, F_BESTI] = -1
            st[p, F_ALPHA0] = alpha
            st[p, F_TRIED] = 0
            mode = STEP
        elif mode == STEP:
            i = st[p, F_I]
            n = st[p, F_N]
            qs = st[p, F_QS] != 0
            if i >= n:
                v = st[p, F_BEST]
                if not qs:
                    _store(st, p, tt_keys, tt_data, buf, age)
                mode = RETURN
                continue
            moves = buf[p]
            if not qs:
                top = i
                for j in range(i + 1, n):
                    if order[p, j] > order[p, top]:
                        top = j
                if top != i:
                    for c in range(4):
                        x = moves[i, c]
                        moves[i, c] = moves[top, c]
                        moves[top, c] = x
                    x = order[p, i]
                    order[p, i] = order[p, top]
                    order[p, top] = x
            st[p, F_I] = i + 1
            st[p, F_CUR] = i
            frm = moves[i, 0]
            to = moves[i, 1]
            cap = moves[i, 2]
            fl = moves[i, 3]
            w = st[p, F_W]
            b = st[p, F_B]
            k = st[p, F_K]
            t = st[p, F_T]
            cw, cb, ck, ct = make(w, b, k, t, frm, to, cap, fl)
            q = p + 1
            ckey = move_key(st[p, F_KEY], k, t, frm, to, cap, fl & FLAG_PROMOTE, Z)
            st[q, F_W] = cw
            st[q, F_B] = cb
            st[q, F_K] = ck
            st[q, F_T] = ct
            st[q, F_KEY] = ckey
            keys[h0 + q] = ckey
            if cap == 0 and (k >> frm) & 1:
                st[q, F_REV] = st[p, F_REV] + 1
            else:
                st[q, F_REV] = 0
            # 16/5-move count: restarts when the move changes which rule applies.
            st[q, F_EG] = 0
            if popcount(cw | cb) <= 4:
                lim = endgame_limit(cw, cb, ck)
                if lim and popcount(w | b) <= 4 and endgame_limit(w, b, k) == lim:
                    st[q, F_EG] = st[p, F_EG] + 1
            alpha = st[p, F_ALPHA]
            beta = st[p, F_BETA]
            d = st[p, F_DEPTH]
            tried = st[p, F_TRIED]
            st[p, F_TRIED] = tried + 1
            if qs or tried == 0:
                st[p, F_PHASE] = PH_FULL
                st[q, F_ALPHA] = -beta
                st[q, F_BETA] = -alpha
                st[q, F_DEPTH] = d - 1
            else:
                r = 0
                if (lmr_depth and d >= lmr_depth and tried >= lmr_moves and p > 0 and cap == 0
                        and order[p, i] < S_KILLER2):
                    r = 2 if (tried >= 2 * lmr_moves + 2 and d >= 2 * lmr_depth) else 1
                st[p, F_PHASE] = PH_REDUCED if r else PH_NULL
                st[q, F_ALPHA] = -alpha - 1
                st[q, F_BETA] = -alpha
                st[q, F_DEPTH] = d - 1 - r
            p = q
            mode = ENTER
        else:
            if p == 0:
                break
            p -= 1
            v = -v
            alpha = st[p, F_ALPHA]
            beta = st[p, F_BETA]
            phase = st[p, F_PHASE]
            q = p + 1
            if phase == PH_REDUCED and v > alpha:
                st[p, F_PHASE] = PH_NULL
                st[q, F_ALPHA] = -alpha - 1
                st[q, F_BETA] = -alpha
                st[q, F_DEPTH] = st[p, F_DEPTH] - 1
                p = q
                mode = ENTER
                continue
            if phase == PH_NULL and alpha < v < beta:
                st[p, F_PHASE] = PH_FULL
                st[q, F_ALPHA] = -beta
                st[q, F_BETA] = -alpha
                st[q, F_DEPTH] = st[p, F_DEPTH] - 1
                p = q
                mode = ENTER
                continue
            mode = STEP
            if v > st[p, F_BEST]:
                cur = st[p, F_CUR]
                st[p, F_BEST] = v
                st[p, F_BESTI] = cur
                if v > alpha:
                    st[p, F_ALPHA] = v
                    for c in range(4):
                        pv[p, p, c] = buf[p, cur, c]
                    for j in range(q, pvlen[q]):
                        for c in range(4):
                            pv[p, j, c] = pv[q, j, c]
                    pvlen[p] = max(pvlen[q], q)
                    if p == 0:
                        ctl[C_ROOT_DONE] = 1
                    if v >= beta:
                        if st[p, F_QS] == 0:
                            m = buf[p, cur]
                            if m[2] == 0:
                                _reward(killers, hist, p, st[p, F_T], m[0], m[1], st[p, F_DEPTH])
                            _store(st, p, tt_keys, tt_data, buf, age)
                        mode = RETURN
    ctl[C_NODES] = nodes
    return v


@njit(cache=True, nogil=True)
def _reward(killers, hist, p, turn, frm, to, depth):
    mid = tt.move_id(frm, to, 0)
    if killers[p, 0] != mid:
        killers[p, 1] = killers[p, 0]
        killers[p, 0] = mid
    hist[turn, frm, to] += depth * depth
    if hist[turn, frm, to] > HIST_MAX:
        for a in range(hist.shape[0]):
            for x in range(hist.shape[1]):
                for y in range(hist.shape[2]):
                    hist[a, x, y] >>= 1


@njit(cache=True, nogil=True)
def _store(st, p, tt_keys, tt_data, buf, age):
    best = st[p, F_BEST]
    if best >= st[p, F_BETA]:
        bound = tt.BOUND_LOWER
    elif best > st[p, F_ALPHA0]:
        bound = tt.BOUND_EXACT
    else:
        bound = tt.BOUND_UPPER
    s = best
    if s > WIN_BOUND:
        s += p
    elif s < -WIN_BOUND:
        s -= p
    bi = st[p, F_BESTI]
    mid = 0
    if bi >= 0:
        mid = tt.move_id(buf[p, bi, 0], buf[p, bi, 1], buf[p, bi, 2])
    tt.store(tt_keys, tt_data, st[p, F_KEY], mid, s, max(st[p, F_DEPTH], 0), bound, age)
