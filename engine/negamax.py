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
child again (a reduced or a null-window search that beat alpha).  The loop of
:func:`search_root` is marked with the steps a node goes through, in the order a
reader follows them, each a few lines or a helper:

 1. Enter the node: the stop flag and the node budget.
 2. Breakthrough and the draw rules (``rule_verdict``).
 3. Mate-distance window.
 4. Endgame databases (``_egdb_holds``, ``_egdb_value``).
 5. Threshold pruning, plain or verified (``_plain_depth``, ``_verify_first``).
 6. Quiescence: captures only, else a leaf (``_quiescence``).
 7. Transposition table (``_tt_verdict``).
 8. Generate and order the moves (``_root_moves``, ``_order``); a node the table knows
    nothing of a ply shallower (``_iir_due``); a singular test of the TT move
    (``_singular_due``, ``_singular_first``).
 9. Make the next move and set the child's window: PVS, LMR (``_child_window``); a
    singular TT move a ply deeper.
10. Return: the singular test's verdict (``_singular_verdict``), the verification's
    (``_refuted``), re-searches, the best move and PV (``_new_best``), killers and
    history, the TT store (``_cut``).

The arrays travel as three records (:mod:`engine.records`: named tuples, which numba
passes as one argument each): ``Tables``, the variant's and the evaluation's (read
only); ``Shared``, the transposition table and the endgame databases, which every
thread of a search shares; ``Workspace``, one thread's own stack, move lists, ordering
tables, PV, path of keys, control words and parameters.  The kernel takes them
apart once a call; the helpers it calls for every node take numbers (see the note
above them).
"""
import math
from typing import NamedTuple

from numba import njit

from . import egdb, tt
from .bits import popcount
from .drawrules import advance, count_draw, repeated
from .eval import (evaluate, evaluate_hand, learned_score, uses_windows, window_form, window_sum,
                   windows_after)
from .options import FORMS, KERNEL_OPTIONS, kernel_slot
from .movegen import (FLAG_PROMOTE, captures_inline, generate, generate_captures,
                      king_quiet_count, make, man_targets, may_capture)
from .variants import (
    KG_BREAKTHROUGH, KG_LOSING, V_BOARD, V_GOAL, V_PROMO_BLACK, V_PROMO_WHITE, V_REPETITIONS,
    V_WIDTH,
)
from .zobrist import move_key

MATE = 10000
WIN_BOUND = MATE - 200   # scores beyond are wins or losses at a known distance
DB_WIN = 9000            # a win known from the endgame databases: beyond every evaluation
DB_MATERIAL = 16         # ... plus this per piece of material ahead (captures are progress)
INF = 30000
MAX_PLY = 128

# ctl: shared control and report words
C_STOP, C_NODES, C_NODE_LIMIT, C_ABORTED, C_ROOT_DONE, C_LEAVES, C_LEAF_PLY, C_CAN_STOP = range(8)
C_CHECKED, C_WRONG = 8, 9      # eval-check: evaluations checked, and found different
C_EVALS, C_EVAL_HITS = 10, 11  # static evaluations asked for, and found in the eval cache
C_SIZE = 12
EVAL_SLOTS = 1 << 16           # the eval cache's entries (eval-cache)
# params: the kernel options of engine.options first (their slots: kernel_slot), then what
# each search sets: the plain threshold window (P_LO/P_HI, around the root's static
# evaluation), the TT age, the root's barred king (Frisian: its bit + 1, 0 = none; its quiet
# moves are not generated at the root).  The verified threshold form uses a margin of
# P_MARGIN + P_SLOPE per ply of depth around the node's own window.
# P_EGDB: probe the endgame databases at nodes of at most this many pieces (0 = off) and
# fewer than P_EGDB_ROOT (the root's pieces); P_EGDB_FILTER: the root is in them, keep only
# the root moves that keep its value.  P_EXCLUDED: how many root moves are left out (the
# earlier lines of a MultiPV search, engine.multipv), their move ids in the P_EXCLUDE slots
# that follow; the root is then not stored in the table (its value is not the root's).
P_THRESHOLD = kernel_slot("threshold")
P_FORM = kernel_slot("threshold-form")          # FORM_PLAIN or FORM_VERIFIED
P_MARGIN = kernel_slot("threshold-margin")
P_INTERVAL = kernel_slot("threshold-interval")
P_SLOPE = kernel_slot("threshold-slope")
P_GATE = kernel_slot("threshold-gate")          # verify only where the evaluation says so
P_BELOW = kernel_slot("threshold-below")        # the gate also cuts below alpha
P_BELOW_MARGIN = kernel_slot("threshold-below-margin")
P_NESTED = kernel_slot("threshold-nested")      # verification searches may prune in turn
P_TT_FIRST = kernel_slot("threshold-tt-first")  # the table's probe before the verification
P_VERIFY_FROM = kernel_slot("threshold-from")   # verified threshold cuts from this depth
P_VERIFY_SHARE = kernel_slot("threshold-share") # ... confirmed by a search to this / 10 of it
P_QS_THREATS = kernel_slot("qs-threats")        # a threatened quiescence leaf gets a ply
P_QS_EXCHANGES = kernel_slot("qs-exchanges")    # quiescence plies that try exchanges (0 = off)
P_LMR_DEPTH = kernel_slot("lmr-depth")          # smallest depth reduced, 0 = off
P_LMR_MOVES = kernel_slot("lmr-moves")          # moves tried before reducing (null window)
P_LMR_PV_MOVES = kernel_slot("lmr-pv-moves")    # ... at nodes with an open window
P_LMR_TWO = kernel_slot("lmr-two-moves")        # moves tried before reducing two (0: old rule)
P_LMR_KILLERS = kernel_slot("lmr-killers")      # killers reducible
P_LMR_LOG = kernel_slot("lmr-log")              # reductions by ln(depth) ln(move number)
P_LMR_OFFERS = kernel_slot("lmr-offers")        # moves that offer a capture unreduced
P_LMR_HISTORY = kernel_slot("lmr-history")      # moves of less history reduced a ply more
P_LMR_ROOT = kernel_slot("lmr-root")            # the root's late moves reduced too
P_FUTILITY = kernel_slot("futility")            # futility margin a ply (0 = off)
P_FUTILITY_DEPTH = kernel_slot("futility-depth")
P_EVAL_CHECK = kernel_slot("eval-check")        # debug: check the updated evaluation
P_EVAL_CACHE = kernel_slot("eval-cache")        # keep recent static evaluations
P_MALUS = kernel_slot("history-malus")          # moves searched before a cut lose history
P_COUNTER = kernel_slot("counter-moves")        # counter-moves ordered after the killers
P_RATE = kernel_slot("history-rate")            # history as a rate of best moves (Scan's)
P_SINGULAR = kernel_slot("singular-depth")      # singular extensions from this depth, 0 = off
P_SINGULAR_MARGIN = kernel_slot("singular-margin")
P_IIR = kernel_slot("iir-depth")                # internal iterative reduction, 0 = off
P_TT_KEEP = kernel_slot("tt-keep-deeper")       # a position's deeper TT entry kept, 0 = off
P_LO, P_HI, P_AGE, P_BARRED, P_EGDB, P_EGDB_ROOT, P_EGDB_FILTER, P_EXCLUDED = range(
    len(KERNEL_OPTIONS), len(KERNEL_OPTIONS) + 8)
MAX_EXCLUDED = 8
P_EXCLUDE = len(KERNEL_OPTIONS) + 8
P_SIZE = P_EXCLUDE + MAX_EXCLUDED
FORM_PLAIN, FORM_VERIFIED = FORMS.index("plain"), FORMS.index("verified")
# stack fields
# (F_REV, F_EG, F_ROAD, F_STABLE: the draw-rule counters of engine.drawrules)
(F_W, F_B, F_K, F_T, F_KEY, F_REV, F_EG, F_ROAD, F_STABLE, F_ALPHA, F_BETA, F_DEPTH, F_ALPHA0,
 F_BEST, F_BESTI, F_N, F_I, F_CUR, F_PHASE, F_TRIED, F_QS, F_TTMOVE,
 F_VERIFY, F_OLD_ALPHA, F_OLD_BETA, F_OLD_DEPTH, F_INSIDE, F_WINDOWS, F_FUTILE,
 F_SING, F_SING_ALPHA, F_SING_BETA, F_SING_DEPTH) = range(33)
NF = 33
# F_VERIFY: a verified threshold cut in progress (above beta, below alpha), or tried and refuted
# F_INSIDE: the node is inside a verification search (some ancestor's F_VERIFY is in progress)
# F_WINDOWS: the pattern windows' sum of the node's position, updated move by move
# (engine.eval.windows_after; the windows' indices in the workspace's ``windows[ply]``)
# F_FUTILE: the node's futility bound (static evaluation + margin); its late quiet moves are
# skipped while it is at most alpha (INF: no futility pruning at this node)
# F_SING: the node's singular test (its moves but the TT move, searched shallower below the
# TT score: F_SING_* keep the node's own window and depth meanwhile), then its verdict
VF_NONE, VF_ABOVE, VF_BELOW, VF_REFUTED = 0, 1, 2, 3
PH_FULL, PH_NULL, PH_REDUCED = 0, 1, 2
SG_NONE, SG_TEST, SG_EXTEND, SG_PLAIN = 0, 1, 2, 3   # F_SING: none, testing, singular, not
ENTER, STEP, RETURN, DONE = 0, 1, 2, 3    # the loop's modes; DONE: the root has returned

HIST_MAX = 1 << 20
RATE_HALF, RATE_SHIFT = 1 << 11, 6      # history-rate: hist - RATE_HALF in [0, 2 RATE_HALF)
S_TT, S_CAPTURE, S_PROMOTE, S_KILLER1, S_KILLER2 = 1 << 30, 1 << 26, 1 << 25, 1 << 24, 1 << 23
S_COUNTER = 1 << 22


class Lmr(NamedTuple):
    """The late-move reductions' settings (the ``lmr-*`` options), a part of ``Knobs``."""

    depth: int                # smallest depth reduced (0: off)
    moves: int                # moves tried before reducing, at a null window
    pv_moves: int             # ... at an open window
    two: int                  # moves tried before reducing two plies (0: the old rule)
    below: int                # ordering scores below this are reducible quiet moves
    log: float                # lmr-log / 100 (0: the one-or-two-ply rule)
    offers: bool              # moves that offer the opponent a capture are not reduced
    history: int              # reducible moves of less history reduced a ply more (0: off)
    root: bool                # the root's late moves reduced too


class Knobs(NamedTuple):
    """The settings one kernel call reads once (built inside it by ``_knobs``)."""

    age: int
    plain: bool
    verified: int             # the verified form: the depth it is tried from (0: off)
    interval: int
    lmr: Lmr                  # the late-move reductions' settings
    futility: int             # futility margin a ply (0: off)
    futility_depth: int
    goal: int
    egdb_pieces: int
    egdb_root: int
    gate: bool                # verify only where the static evaluation is beyond the margin
    nested: bool              # verification searches may prune in turn
    tt_first: bool            # a node the table settles is not verified
    qs_threats: bool          # a quiescence leaf the opponent threatens is searched a ply
    qs_exchanges: int         # quiescence plies that try promotions and exchanges (0: off)
    windows: bool             # the learned evaluation's windows are updated move by move
    form: tuple               # ... their form (engine.eval.window_form)
    check: bool               # ... and checked against a full evaluation (eval-check)
    cache: bool               # recent static evaluations kept (eval-cache)
    malus: bool               # history-malus
    counter: bool             # counter-moves
    rate: int                 # history-rate (0: off; 2: no killers)
    singular: int             # singular-depth (0: off)
    singular_margin: int      # singular-margin: hundredths a ply of depth
    iir: int                  # iir-depth (0: off)
    tt_keep: int              # tt-keep-deeper (0: off)


RULE_NONE, RULE_DRAW, RULE_NO_MOVE = 0, 1, 2


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def rule_verdict(w, b, k, t, king, ending, road, stable, keys, at, since, V, S, moves, state):
    """What the draw rules make of a node (``RULE_*``), judged on entering it.

    A count rule draws (``RULE_DRAW``) unless the side to move has no move: then the
    game is over by the goal first (``RULE_NO_MOVE``).  A position repeated draws (see
    :func:`engine.drawrules.repeated`; ``keys[at]`` is this node's key, ``since`` the
    root's index).  ``moves`` is scratch space.
    """
    if count_draw(king, ending, road, stable, w, b, k, t, V):
        if generate_captures(w, b, k, t, V, S, moves, state) == 0 and not _has_quiet(w, b, k, t, V):
            return RULE_NO_MOVE
        return RULE_DRAW
    if king >= 4 and repeated(keys, at, king, since, V[V_REPETITIONS]):
        return RULE_DRAW
    return RULE_NONE


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _man_steps(white, black, kings, turn, V):
    """The empty squares a man of the side to move can step onto."""
    empty = V[V_BOARD] & ~(white | black)
    men = (white if turn == 0 else black) & ~kings
    return man_targets(men, empty, turn, V)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _has_quiet(white, black, kings, turn, V):
    if _man_steps(white, black, kings, turn, V):
        return True
    empty = V[V_BOARD] & ~(white | black)
    ks = (white if turn == 0 else black) & kings
    return ks != 0 and king_quiet_count(ks, empty, V, False) > 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _can_crown(white, black, kings, turn, V):
    """A man of the side to move can step onto its promotion row."""
    row = V[V_PROMO_WHITE] if turn == 0 else V[V_PROMO_BLACK]
    return (_man_steps(white, black, kings, turn, V) & row) != 0


@njit(cache=True, nogil=True, _nrt=False)
def search_root(work, shared, tables, depth, alpha, beta):
    """Search the root in ``work.stack[0]`` (position, key, rule counters) to ``depth`` plies
    inside ``(alpha, beta)`` (the records: :mod:`engine.records`).  Returns the root's
    value (fail-soft); meaningless if ``ctl[C_ABORTED]`` is set."""
    st, order, pv, pvlen, killers, hist, keys, h0, buf, state, ctl, P, win, evals = work
    V, S, T, W, Z = tables
    tt_keys, tt_data, EX, EC, EO, ED = shared
    nodes, limit, can_stop = ctl[C_NODES], ctl[C_NODE_LIMIT], ctl[C_CAN_STOP] != 0
    knobs = _begin(st, ctl, P, V, T, W, win, depth, alpha, beta)
    p, v, mode = 0, 0, ENTER
    while True:
        if mode == ENTER:
            # Step 1. Enter the node: the stop flag and the node budget.
            if nodes >= limit or (can_stop and (nodes & 1023) == 0 and ctl[C_STOP] != 0):
                ctl[C_ABORTED] = 1
                break
            nodes += 1
            pvlen[p] = p
            w, b, k, t = st[p, F_W], st[p, F_B], st[p, F_K], st[p, F_T]
            alpha, beta, d = st[p, F_ALPHA], st[p, F_BETA], st[p, F_DEPTH]
            mode = RETURN             # unless the node's moves are to be searched
            if p > 0:
                # Step 2. Breakthrough and the draw rules: the game may be over here.
                if knobs.goal == KG_BREAKTHROUGH and k != 0:
                    v = _breakthrough_value(p, w, k, t)
                    continue
                verdict = rule_verdict(w, b, k, t, st[p, F_REV], st[p, F_EG], st[p, F_ROAD],
                                       st[p, F_STABLE], keys, h0 + p, h0, V, S, buf[p], state)
                if verdict != RULE_NONE:
                    v = 0 if verdict == RULE_DRAW else _no_move_value(p, knobs.goal)
                    continue
                # Step 3. Mate-distance window: no score beats a win a ply on (antidraughts: here).
                alpha = max(alpha, -(MATE - p))
                beta = min(beta, MATE - p - (0 if knobs.goal == KG_LOSING else 1))
                if alpha >= beta:
                    v = alpha
                    continue
                st[p, F_ALPHA], st[p, F_BETA] = alpha, beta
                # Step 4. Endgame databases: a node of few enough pieces is scored from them.
                if knobs.egdb_pieces and _egdb_holds(w, b, knobs):
                    found, v = _egdb_value(p, w, b, k, t, EX, EC, EO, ED, v)
                    if found:
                        continue
                # Step 5. Threshold pruning, plain or verified (the module docstring).
                if _plain_due(p, d, knobs):
                    d = _plain_depth(p, d, _static(p, st, V, T, W, knobs, ctl, evals), st, P)
                elif _verify_due(p, d, alpha, beta, st, tt_keys, tt_data, knobs):
                    d, alpha, beta = _verify_first(p, d, alpha, beta, w, b, k, t, st, P, V,
                                                   S, T, W, buf, state, knobs, ctl, evals)
            if p >= MAX_PLY - 1:
                v = _static(p, st, V, T, W, knobs, ctl, evals)
                continue
            moves = buf[p]
            stand = -INF
            if d <= 0:
                # Step 6. Quiescence: the pending captures, else a leaf (qs-exchanges: standing pat
                # below beta, its promotions and exchanges too; qs-threats: a first quiescence
                # node the opponent threatens to capture from gets a ply, Step 7 on).
                d, n, v, stand = _quiescence(p, d, alpha, beta, st, V, S, T, W, buf, state, knobs,
                                             ctl, evals)
                if d <= 0 and n == 0:
                    continue              # a leaf: its value v
            if d <= 0:
                st[p, F_QS], st[p, F_TTMOVE] = 1, -1     # (not ordered)
            else:
                # Step 7. Transposition table: a cut, or the move to try first.
                entry = tt.probe(tt_keys, tt_data, st[p, F_KEY])
                cut, v, ttmove = _tt_verdict(entry, p, d, alpha, beta, v)
                if cut:
                    continue
                # Step 8. Generate and order the moves.
                n = generate(w, b, k, t, V, S, moves, state)
                if p == 0:
                    n = _root_moves(moves, n, w, b, k, t, P, EX, EC, EO, ED)
                if n == 0:
                    v = _no_move_value(p, knobs.goal)
                    continue
                alpha = _prepare(p, d, n, alpha, beta, ttmove, entry, st, buf, order, killers,
                                 hist, V, T, W, knobs, ctl, evals)
            st[p, F_N], st[p, F_I], st[p, F_TRIED] = n, 0, 0
            st[p, F_BEST], st[p, F_BESTI], st[p, F_ALPHA0] = stand, -1, alpha
            mode = STEP
        elif mode == STEP:
            # Step 9. Make the next move and enter the child with its window (PVS, LMR).
            i, n, qs = st[p, F_I], st[p, F_N], st[p, F_QS] != 0
            if i >= n:                # every move searched: the node's value is its best
                v, mode = st[p, F_BEST], RETURN
                if not qs and (p > 0 or P[P_EXCLUDED] == 0) and st[p, F_SING] != SG_TEST:
                    _settle(p, v, st, buf, hist, tt_keys, tt_data, knobs)
                continue
            moves = buf[p]
            if not qs:
                _bring_best_forward(p, i, n, moves, order)
            st[p, F_I], st[p, F_CUR] = i + 1, i
            if not qs and st[p, F_SING] == SG_TEST and order[p, i] == S_TT:
                continue              # the singular test leaves the TT move out
            frm, to, cap, fl = moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3]
            w, b, k, t = st[p, F_W], st[p, F_B], st[p, F_K], st[p, F_T]
            cw, cb, ck, ct = make(w, b, k, t, frm, to, cap, fl)
            if not qs and _futile(st[p, F_FUTILE], st[p, F_ALPHA], st[p, F_TRIED], order[p, i],
                                  cw, cb, ck, ct, V):
                st[p, F_BEST] = max(st[p, F_BEST], st[p, F_FUTILE])
                continue
            q = p + 1
            ckey = move_key(st[p, F_KEY], k, t, frm, to, cap, fl & FLAG_PROMOTE, Z)
            st[q, F_W], st[q, F_B], st[q, F_K], st[q, F_T], st[q, F_KEY] = cw, cb, ck, ct, ckey
            st[q, F_INSIDE] = st[p, F_INSIDE] | _verifying(st[p, F_VERIFY])
            if knobs.windows:
                st[q, F_WINDOWS] = windows_after(st[p, F_WINDOWS], win, p, q, w & ~k, b & ~k,
                                                 cw & ~ck, cb & ~ck, T, W, knobs.form)
            keys[h0 + q] = ckey       # the path the repetition rule reads
            (st[q, F_REV], st[q, F_EG], st[q, F_ROAD],
             st[q, F_STABLE]) = advance(st[p, F_REV], st[p, F_EG], st[p, F_ROAD],
                                        st[p, F_STABLE], w, b, k, t, cw, cb, ck, V)
            tried, st[p, F_TRIED] = st[p, F_TRIED], st[p, F_TRIED] + 1
            (st[p, F_PHASE], st[q, F_ALPHA], st[q, F_BETA], st[q, F_DEPTH]) = _child_window(
                p, st[p, F_ALPHA], st[p, F_BETA], st[p, F_DEPTH], tried, qs,
                _reducible(cap, order[p, i], cw, cb, ck, ct, V, knobs), order[p, i], knobs)
            if not qs and st[p, F_SING] == SG_EXTEND and order[p, i] == S_TT:
                st[q, F_DEPTH] += 1   # a singular TT move is searched a ply deeper
            tt.prefetch(tt_keys, tt_data, ckey, st[q, F_DEPTH] > 0)   # the child's bucket
            p, mode = q, ENTER
        else:
            # Step 10. Return: singular verdict, verification, re-search, best move, cut, store.
            if st[p, F_SING] == SG_TEST and not _singular_verdict(p, v, st):
                mode = STEP           # the node's moves again, the TT move first
                continue
            check, st[p, F_VERIFY], st[p, F_SING] = st[p, F_VERIFY], VF_NONE, SG_NONE
            if (check == VF_ABOVE or check == VF_BELOW) and _refuted(p, v, check, st):
                mode = ENTER          # the verification failed: search the node in full
                continue
            if p == 0:
                break
            p, v = p - 1, -v
            alpha, beta, phase = st[p, F_ALPHA], st[p, F_BETA], st[p, F_PHASE]
            if (phase == PH_REDUCED and v > alpha) or (phase == PH_NULL and alpha < v < beta):
                # Again: a reduced child unreduced, then a null-window one in full (PVS).
                full = phase == PH_NULL
                st[p, F_PHASE] = PH_FULL if full else PH_NULL
                st[p + 1, F_ALPHA], st[p + 1, F_BETA] = (-beta if full else -alpha - 1), -alpha
                st[p + 1, F_DEPTH] = st[p, F_DEPTH] - 1
                p, mode = p + 1, ENTER
                continue
            mode = STEP
            if v > st[p, F_BEST] and _new_best(p, v, alpha, beta, st, buf, pv, pvlen, ctl):
                if st[p, F_QS] == 0 and st[p, F_SING] != SG_TEST:  # killer, history, store
                    _cut(p, st, buf, killers, hist, tt_keys, tt_data, knobs)
                mode = RETURN
    ctl[C_NODES] = nodes
    return v


@njit(cache=True, nogil=True, _nrt=False)
def _begin(st, ctl, P, V, T, W, win, depth, alpha, beta):
    """Before the loop: the report words cleared, the settings read, the root's window and
    depth set, no verification running, the root's pattern windows read."""
    ctl[C_ABORTED], ctl[C_ROOT_DONE] = 0, 0
    knobs = _knobs(P, V, T, W)
    st[0, F_ALPHA], st[0, F_BETA], st[0, F_DEPTH] = alpha, beta, depth
    for j in range(MAX_PLY):
        st[j, F_VERIFY] = VF_NONE
        st[j, F_SING] = SG_NONE
    st[0, F_INSIDE] = 0
    if knobs.windows:
        st[0, F_WINDOWS] = window_sum(st[0, F_W] & ~st[0, F_K], st[0, F_B] & ~st[0, F_K],
                                      V[V_WIDTH], T, W, win[0])
    return knobs


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _prepare(p, d, n, alpha, beta, ttmove, entry, st, buf, order, killers, hist, V, T, W,
             knobs, ctl, evals):
    """Step 8, once the node's ``n`` moves are generated: a full-width node; one the table
    knows nothing of a ply shallower (internal iterative reduction); a forced move costs no
    depth; the moves' ordering scores; the futility bound; a singular test of the TT move.
    Returns the alpha its moves are searched with (the singular test's, if one starts)."""
    k, t = st[p, F_K], st[p, F_T]
    st[p, F_QS], st[p, F_TTMOVE] = 0, ttmove
    if _iir_due(p, d, entry, st[p, F_VERIFY], knobs):
        d = st[p, F_DEPTH] = d - 1
    if n == 1 and p > 0:
        st[p, F_DEPTH] = d + 1
    _order(p, n, k, t, ttmove, buf[p], order, killers, hist,
           _counter_move(p, t, st, buf, hist, knobs), knobs.rate != 2)
    due = _futility_due(p, d, alpha, beta, buf[p, 0, 2], knobs)
    st[p, F_FUTILE] = (_static(p, st, V, T, W, knobs, ctl, evals)
                       + knobs.futility * d) if due else INF
    if _singular_due(p, d, n, entry, st[p, F_VERIFY], st[p, F_SING], knobs):
        return _singular_first(p, d, entry, st, knobs)
    return alpha


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _quiescence(p, d, alpha, beta, st, V, S, T, W, buf, state, knobs, ctl, evals):
    """Step 6: ``(depth, moves, value, stand)`` of a quiescence node: its captures (in
    ``buf[p]``); else, at a first quiescence node the opponent threatens (``qs-threats``),
    a ply of depth; else its leaf value, and with ``qs-exchanges`` below beta its promotions
    and exchanges, searched from that value (``stand``; else -INF)."""
    w, b, k, t = st[p, F_W], st[p, F_B], st[p, F_K], st[p, F_T]
    n = captures_inline(w, b, k, t, V, S, buf[p], state)
    if n:
        return d, n, 0, -INF
    if d == 0 and knobs.qs_threats and _threatened(p, w, b, k, t, V, S, buf, state):
        st[p, F_DEPTH] = 1
        return 1, 0, 0, -INF
    v = _leaf(p, st, V, T, W, knobs, ctl, evals)
    if not _exchanges_due(p, d, v, beta, knobs):
        return d, 0, v, -INF
    n = _exchanges(p, w, b, k, t, V, S, buf, state)
    if n:
        st[p, F_ALPHA] = max(alpha, v)
    return d, n, v, v


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _leaf(p, st, V, T, W, knobs, ctl, evals):
    """Step 6: the value of a quiescence leaf (no capture): lost without a move, won by a
    crowning step in breakthrough, else its static evaluation."""
    w, b, k, t = st[p, F_W], st[p, F_B], st[p, F_K], st[p, F_T]
    ctl[C_LEAVES] += 1
    ctl[C_LEAF_PLY] += p
    if not _has_quiet(w, b, k, t, V):
        return _no_move_value(p, knobs.goal)
    if knobs.goal == KG_BREAKTHROUGH and _can_crown(w, b, k, t, V):
        return MATE - p - 1
    return _static(p, st, V, T, W, knobs, ctl, evals)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _knobs(P, V, T, W):
    """The search's settings, read once a call from the parameters, the variant and the
    evaluation."""
    windows = uses_windows(V, W)
    threshold = P[P_THRESHOLD] != 0
    verified = threshold and P[P_FORM] == FORM_VERIFIED
    goal = V[V_GOAL]
    lmr_below = S_PROMOTE if P[P_LMR_KILLERS] != 0 else S_KILLER2
    lmr = Lmr(P[P_LMR_DEPTH], P[P_LMR_MOVES], P[P_LMR_PV_MOVES], P[P_LMR_TWO], lmr_below,
              P[P_LMR_LOG] / 100.0, P[P_LMR_OFFERS] != 0, P[P_LMR_HISTORY], P[P_LMR_ROOT] != 0)
    return Knobs(P[P_AGE], threshold and not verified,
                 max(P[P_VERIFY_FROM], 1) if verified else 0, max(P[P_INTERVAL], 1),
                 lmr, P[P_FUTILITY],
                 P[P_FUTILITY_DEPTH], goal, P[P_EGDB], P[P_EGDB_ROOT],
                 P[P_GATE] != 0, P[P_NESTED] != 0, P[P_TT_FIRST] != 0, P[P_QS_THREATS] != 0,
                 P[P_QS_EXCHANGES],
                 windows, window_form(T, W) if windows else (0, 0, 0),
                 windows and P[P_EVAL_CHECK] != 0,
                 P[P_EVAL_CACHE] != 0 and P[P_EVAL_CHECK] == 0, P[P_MALUS] != 0,
                 P[P_COUNTER] != 0, P[P_RATE], P[P_SINGULAR], P[P_SINGULAR_MARGIN], P[P_IIR],
                 P[P_TT_KEEP])


# The helpers the loop calls for every node or move take and return numbers only: an
# array handed to an inlined helper is bound with a reference count (an atomic
# increment and decrement) that numba does not always prune, and helpers that took the
# kernel's arrays made the search a fifth slower.  Those that need arrays run on rare
# paths (verification, databases, root moves, cuts) or once a node, and are plain calls.

@njit(cache=True, nogil=True, _nrt=False)
def _threatened(p, w, b, k, t, V, S, buf, state):
    """Step 6: the opponent of the side to move would have a capture, were it to move
    (``buf[p + 1]`` is scratch space)."""
    return p < MAX_PLY - 2 and generate_captures(w, b, k, 1 - t, V, S, buf[p + 1], state) != 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _exchanges_due(p, d, stand, beta, knobs):
    """Step 6: a quiet quiescence node whose static value ``stand`` is below beta, away
    from mate scores, tries its promotions and exchanges (``qs-exchanges``: within that many
    plies of the search's leaves)."""
    return (knobs.qs_exchanges > 0 and d > -knobs.qs_exchanges and p < MAX_PLY - 3
            and -WIN_BOUND < stand < beta)


@njit(cache=True, nogil=True, _nrt=False)
def _exchanges(p, w, b, k, t, V, S, buf, state):
    """Step 6, ``qs-exchanges``: the quiet moves a quiescence node searches besides standing
    pat, kept in ``buf[p]``: promotions, and with no king on the board the moves that offer
    an exchange or a shot: the opponent then has a capture, and after each of its captures
    the side has one back (``buf[p + 1]`` is scratch space).  Returns their count."""
    if k != 0 and not _can_crown(w, b, k, t, V):
        return 0                  # (with a king on the board only promotions are kept)
    moves = buf[p]
    n = generate(w, b, k, t, V, S, moves, state)
    kept = 0
    for i in range(n):
        frm, to, cap, fl = moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3]
        keep = (fl & FLAG_PROMOTE) != 0
        if not keep and k == 0:
            cw, cb, ck, ct = make(w, b, k, t, frm, to, cap, fl)
            keep = _offers_exchange(p, cw, cb, ck, ct, V, S, buf, state)
        if keep:
            for c in range(4):
                moves[kept, c] = moves[i, c]
            kept += 1
    return kept


@njit(cache=True, nogil=True, _nrt=False)
def _offers_exchange(p, w, b, k, t, V, S, buf, state):
    """The side to move (the opponent of the one that just moved) must capture, and each of
    its captures can be answered by a capture."""
    if not may_capture(w, b, k, t, V):
        return False
    replies = buf[p + 1]
    n = generate_captures(w, b, k, t, V, S, replies, state)
    for j in range(n):
        dw, db, dk, dt = make(w, b, k, t, replies[j, 0], replies[j, 1], replies[j, 2],
                              replies[j, 3])
        if not may_capture(dw, db, dk, dt, V):
            return False
    return n > 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _static(p, st, V, T, W, knobs, ctl, evals):
    """The static evaluation of the node at ply ``p``: from the eval cache (``eval-cache``),
    else the learned one from its windows' sum, updated move by move (checked against a
    full evaluation with ``eval-check``), or the hand one."""
    w, b, k, t = st[p, F_W], st[p, F_B], st[p, F_K], st[p, F_T]
    ctl[C_EVALS] += 1
    if knobs.cache:
        key = st[p, F_KEY]
        slot = key & (EVAL_SLOTS - 1)
        if evals[slot, 0] == key:
            ctl[C_EVAL_HITS] += 1
            return evals[slot, 1]
    if knobs.windows:
        e = learned_score(st[p, F_WINDOWS], w, b, k, t, V, T, W)
        if knobs.check:
            ctl[C_CHECKED] += 1
            if e != evaluate(w, b, k, t, V, T, W):
                ctl[C_WRONG] += 1
    else:
        e = evaluate_hand(w, b, k, t, V, T, W)
    if knobs.cache:
        evals[slot, 0], evals[slot, 1] = key, e
    return e


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _no_move_value(p, goal):
    """The value at ply ``p`` for a side to move without a move: lost, or won (antidraughts)."""
    return MATE - p if goal == KG_LOSING else -(MATE - p)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _breakthrough_value(p, w, k, t):
    """Step 2, breakthrough: a position with a king is won by its owner (White if both
    have one, as :func:`engine.position.winner` says)."""
    winner = 0 if k & w else 1
    return MATE - p if winner == t else -(MATE - p)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _egdb_holds(w, b, knobs):
    """Step 4: the databases may hold this node: few enough pieces, fewer than the root."""
    men = popcount(w | b)
    return men <= knobs.egdb_pieces and men < knobs.egdb_root


@njit(cache=True, nogil=True, _nrt=False)
def _egdb_value(p, w, b, k, t, EX, EC, EO, ED, v):
    """Step 4: ``(True, score)`` for a node the databases hold, else ``(False, v)``."""
    found = egdb.probe(w, b, k, t, EX, EC, EO, ED)
    if found >= 0:
        return True, _db_score(found, w, b, t, p)
    return False, v


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _plain_due(p, d, knobs):
    """Step 5: the plain form is checked at this node."""
    return knobs.plain and d > 0 and p % knobs.interval == 0


@njit(cache=True, nogil=True, _nrt=False)
def _plain_depth(p, d, e, st, P):
    """Step 5, plain form: the node's depth, 0 (a leaf: quiescence only) where its
    evaluation ``e``, from the root's side, is outside the window around the root's."""
    if p & 1:
        e = -e
    if e < P[P_LO] or e > P[P_HI]:
        st[p, F_DEPTH] = 0
        return 0
    return d


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _verifying(verify):
    """1 while a node's verification search runs (its children are inside it), else 0."""
    return 1 if verify == VF_ABOVE or verify == VF_BELOW else 0


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _verify_due(p, d, alpha, beta, st, tt_keys, tt_data, knobs):
    """Step 5: the verified form is tried at this node: deep enough, a null window away
    from mate scores, no verification of it running or refuted, (``threshold-nested``
    off) not inside another node's verification search, and (``threshold-tt-first``) not
    settled by its table entry, which cuts it in Step 7 instead."""
    due = (knobs.verified and d >= knobs.verified and beta - alpha == 1
           and p % knobs.interval == 0 and st[p, F_VERIFY] == VF_NONE and p < MAX_PLY - 2
           and -WIN_BOUND < alpha and beta < WIN_BOUND and (knobs.nested or st[p, F_INSIDE] == 0))
    if due and knobs.tt_first:
        return not _tt_verdict(tt.probe(tt_keys, tt_data, st[p, F_KEY]), p, d, alpha, beta, 0)[0]
    return due


@njit(cache=True, nogil=True, _nrt=False)
def _verify_first(p, d, alpha, beta, w, b, k, t, st, P, V, S, T, W, buf, state, knobs, ctl,
                  evals):
    """Step 5, verified form: a node quiet for both sides whose evaluation lies beyond its
    window by the margin (``threshold-below`` off: above beta only; below alpha it needs
    ``threshold-below-margin`` more; ``gate`` off: every node, above beta) is first
    searched to a share of its depth around the shifted bound (``F_VERIFY`` says which
    side; Step 10 judges it).  Returns the depth and window to search now."""
    margin = P[P_MARGIN] + P[P_SLOPE] * d
    if knobs.gate:
        e = _static(p, st, V, T, W, knobs, ctl, evals)
        below = P[P_BELOW] != 0 and e <= alpha - margin - P[P_BELOW_MARGIN]
        side = VF_ABOVE if e >= beta + margin else VF_BELOW if below else VF_NONE
        if (side == VF_NONE or generate_captures(w, b, k, t, V, S, buf[p], state) != 0
                or generate_captures(w, b, k, 1 - t, V, S, buf[p + 1], state) != 0):
            return d, alpha, beta
    else:
        side = VF_ABOVE
    st[p, F_VERIFY] = side
    st[p, F_OLD_ALPHA], st[p, F_OLD_BETA], st[p, F_OLD_DEPTH] = alpha, beta, d
    alpha = beta + margin - 1 if side == VF_ABOVE else alpha - margin
    beta = alpha + 1
    d = max(1, d * P[P_VERIFY_SHARE] // 10)
    st[p, F_ALPHA], st[p, F_BETA], st[p, F_DEPTH] = alpha, beta, d
    return d, alpha, beta


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _tt_verdict(entry, p, d, alpha, beta, v):
    """Step 7: ``(cut, value, ttmove)`` from a TT entry (0: none): a cut with the stored
    score where a deep enough entry's bound settles a null-window node below the root
    (else ``v`` unchanged); the stored move (-1: none)."""
    if entry == 0:
        return False, v, -1
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
            return True, s, ttmove
    return False, v, ttmove


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _iir_due(p, d, entry, verify, knobs):
    """Step 8, internal iterative reduction: a node below the root, deep enough, that the
    table holds nothing of (every stored entry has a move), outside a verification."""
    return knobs.iir > 0 and p > 0 and d >= knobs.iir and entry == 0 and verify == VF_NONE


@njit(cache=True, nogil=True, _nrt=False)
def _root_moves(moves, n, w, b, k, t, P, EX, EC, EO, ED):
    """Step 8 at the root: without the barred king's quiet moves (Frisian), without the
    moves a MultiPV search excludes and, when the root is in the databases, only the moves
    that keep its value.  Returns the count."""
    if P[P_BARRED]:
        n = _drop_quiet_from(moves, n, P[P_BARRED] - 1)
    if P[P_EXCLUDED]:
        n = _drop_excluded(moves, n, P)
    if P[P_EGDB_FILTER]:
        n = _keep_db_best(moves, n, w, b, k, t, EX, EC, EO, ED)
    return n


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _order(p, n, k, t, ttmove, moves, order, killers, hist, counter, with_killers):
    """Step 8: the ordering scores of the node's moves: the TT move, captures (of kings
    first), promotions, the two killers (unless ``with_killers`` is off), the counter-move
    (``counter``, -1: none), then history."""
    k1 = killers[p, 0] if with_killers else -1
    k2 = killers[p, 1] if with_killers else -1
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
        elif mid == counter:
            sc = S_COUNTER
        else:
            sc = hist[t, frm, to]
        order[p, j] = sc


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _bring_best_forward(p, i, n, moves, order):
    """Step 9: swap the best-scored of the moves not yet searched into place ``i`` (a
    selection sort done lazily: a cut leaves the rest unsorted)."""
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


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _child_window(p, alpha, beta, d, tried, qs, reducible, score, knobs):
    """Step 9: ``(phase, alpha, beta, depth)`` of the child: the first move (and every
    capture in quiescence) with the full window, the others with a null window, the late
    quiet ones (killers too with ``lmr-killers``) also reduced (LMR): by one ply after
    ``lmr-moves`` moves (``lmr-pv-moves`` at an open window), by two at a null window
    after ``lmr-two-moves``; or, with ``lmr-log``, by ln(depth) ln(tried + 1) lmr-log / 100
    plies (one less at an open window; at least one, at most depth - 2); with
    ``lmr-history``, a ply more at a null window for a move whose history (its ordering
    ``score``) is below it.  The root's moves are reduced only with ``lmr-root``."""
    if qs or tried == 0:
        return PH_FULL, -beta, -alpha, d - 1
    r = 0
    lmr = knobs.lmr
    pv_node = beta - alpha > 1
    moves = lmr.pv_moves if pv_node else lmr.moves
    if lmr.depth and d >= lmr.depth and tried >= moves and (p > 0 or lmr.root) and reducible:
        if lmr.log > 0.0:
            r = max(1, min(d - 2, int(math.log(d) * math.log(tried + 1) * lmr.log)
                           - (1 if pv_node else 0)))
        elif lmr.two == 0:
            r = 2 if (tried >= 2 * moves + 2 and d >= 2 * lmr.depth) else 1
        else:
            r = 2 if (not pv_node and tried >= lmr.two) else 1
        if lmr.history and not pv_node and score < lmr.history:
            r = max(r, min(r + 1, d - 2))
    return PH_REDUCED if r else PH_NULL, -alpha - 1, -alpha, d - 1 - r


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _reducible(cap, score, cw, cb, ck, ct, V, knobs):
    """Step 9: the move just made (to ``cw, cb, ck, ct``) may be reduced: a quiet move
    scored below the killers (``lmr-killers``: below the promotions); with ``lmr-offers``,
    not one after which the opponent has a jump (its kings read as men: a sacrifice or an
    exchange offered, which the reduced search may not see through)."""
    if cap != 0 or score >= knobs.lmr.below:
        return False
    if knobs.lmr.offers:
        own = cw if ct == 0 else cb
        return not may_capture(cw, cb, ck & ~own, ct, V)
    return True


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _futility_due(p, d, alpha, beta, first_cap, knobs):
    """Step 8: the node gets a futility bound (``futility``: its static evaluation plus the
    margin for each ply of depth; else INF, no pruning): a null-window node below the root
    of at most ``futility-depth`` plies, with quiet moves (no capture), no mate in the
    window."""
    return (knobs.futility != 0 and d <= knobs.futility_depth and p > 0 and beta - alpha == 1
            and first_cap == 0 and -WIN_BOUND < alpha < WIN_BOUND)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _futile(bound, alpha, tried, score, cw, cb, ck, ct, V):
    """Step 9: a move not to search (futility): a quiet move other than the TT move, a
    promotion or a killer, after the first, at a node whose futility bound is at most
    alpha, that offers the opponent (to move in ``cw, cb, ck, ct``) no capture: one that
    does may be a shot, which the static evaluation cannot see."""
    return (bound <= alpha and tried > 0 and score < S_KILLER2
            and not may_capture(cw, cb, ck, ct, V))


@njit(cache=True, nogil=True, _nrt=False)
def _refuted(p, v, check, st):
    """Step 10: whether the verification search of ply ``p`` (``check``: the side it tested)
    was refuted by its value ``v``: the node's own window and depth are then restored, to
    search it in full (else the node is cut with ``v``)."""
    if (v >= st[p, F_BETA]) if check == VF_ABOVE else (v <= st[p, F_ALPHA]):
        return False
    st[p, F_VERIFY] = VF_REFUTED
    st[p, F_ALPHA], st[p, F_BETA] = st[p, F_OLD_ALPHA], st[p, F_OLD_BETA]
    st[p, F_DEPTH] = st[p, F_OLD_DEPTH]
    return True


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _singular_due(p, d, n, entry, verify, sing, knobs):
    """Step 8: the node's TT move is tested for a singular extension (``singular-depth``):
    below the root, deep enough, more than one move, not in a verification search of its
    own nor tested already, and a TT entry at most 3 plies shallower whose score, away from
    mates, is a lower bound or exact."""
    if not knobs.singular or d < knobs.singular or p == 0 or n < 2 or entry == 0:
        return False
    if sing != SG_NONE or verify == VF_ABOVE or verify == VF_BELOW or p >= MAX_PLY - 2:
        return False
    bound = tt.entry_bound(entry)
    s = tt.entry_score(entry)
    return (tt.entry_depth(entry) >= d - 3 and bound != tt.BOUND_UPPER
            and -WIN_BOUND < s < WIN_BOUND)


@njit(cache=True, nogil=True, _nrt=False)
def _singular_first(p, d, entry, st, knobs):
    """Step 8, singular test: the node's other moves are searched first to half its depth
    with a null window just below the TT score less the margin (Step 9 skips the TT move;
    Step 10 judges the test and searches the node again).  Returns the test's alpha."""
    st[p, F_SING] = SG_TEST
    st[p, F_SING_ALPHA], st[p, F_SING_BETA] = st[p, F_ALPHA], st[p, F_BETA]
    st[p, F_SING_DEPTH] = st[p, F_DEPTH]
    bar = tt.entry_score(entry) - knobs.singular_margin * d
    st[p, F_ALPHA], st[p, F_BETA], st[p, F_DEPTH] = bar - 1, bar, (d - 1) // 2
    return bar - 1


@njit(cache=True, nogil=True, _nrt=False)
def _singular_verdict(p, v, st):
    """Step 10: every other move failed below the bar (``v`` under the test's beta): the
    TT move is singular and gets a ply more; either way the node's window and depth come
    back and its move loop starts again (returns False).  Multi-cut: where another move
    reached the bar and the bar is at least the node's beta, two moves beat beta and the
    node returns ``v`` at once (True; not stored: its moves were not all searched)."""
    bar = st[p, F_BETA]
    st[p, F_SING] = SG_EXTEND if v < bar else SG_PLAIN
    st[p, F_ALPHA], st[p, F_BETA] = st[p, F_SING_ALPHA], st[p, F_SING_BETA]
    st[p, F_DEPTH] = st[p, F_SING_DEPTH]
    if v >= bar >= st[p, F_BETA]:
        return True
    st[p, F_I], st[p, F_TRIED] = 0, 0
    st[p, F_BEST], st[p, F_BESTI], st[p, F_ALPHA0] = -INF, -1, st[p, F_ALPHA]
    return False


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _new_best(p, v, alpha, beta, st, buf, pv, pvlen, ctl):
    """Step 10: ``v`` is the best value of ply ``p`` so far (its current move the best);
    above ``alpha`` it raises alpha and extends the PV.  Returns whether it cuts (beta)."""
    cur = st[p, F_CUR]
    st[p, F_BEST], st[p, F_BESTI] = v, cur
    if v <= alpha:
        return False
    st[p, F_ALPHA] = v
    q = p + 1
    for c in range(4):
        pv[p, p, c] = buf[p, cur, c]
    for j in range(q, pvlen[q]):
        for c in range(4):
            pv[p, j, c] = pv[q, j, c]
    pvlen[p] = max(pvlen[q], q)
    if p == 0:
        ctl[C_ROOT_DONE] = 1
    return v >= beta


@njit(cache=True, nogil=True, _nrt=False)
def _counter_move(p, t, st, buf, hist, knobs):
    """Step 8: the move id that last refuted the opponent's move into this node (-1: none,
    or ``counter-moves`` off)."""
    if not knobs.counter or p == 0:
        return -1
    prev = buf[p - 1, st[p - 1, F_CUR]]
    mid = hist[2 + t, prev[0], prev[1]]
    return mid if mid != 0 else -1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _cut(p, st, buf, killers, hist, tt_keys, tt_data, knobs):
    """Step 10 at a cut of a full-width node: a quiet best move becomes a killer, earns
    history and (``counter-moves``) becomes the counter-move to the opponent's last move;
    with ``history-malus`` the quiet moves searched before it lose history (with
    ``history-rate`` they lose their share of the rate instead); the node is stored as a
    lower bound."""
    cur, t, d = st[p, F_CUR], st[p, F_T], st[p, F_DEPTH]
    m = buf[p, cur]
    if knobs.rate:
        if m[2] == 0 and knobs.rate == 1:
            _killer(killers, p, m[0], m[1])
        _rate(hist, buf, p, t, cur)
    elif m[2] == 0:
        _reward(killers, hist, p, t, m[0], m[1], d)
    if m[2] == 0 and knobs.counter and p > 0:
        prev = buf[p - 1, st[p - 1, F_CUR]]
        hist[2 + t, prev[0], prev[1]] = tt.move_id(m[0], m[1], 0)
    if knobs.malus and not knobs.rate:
        for j in range(cur):
            if buf[p, j, 2] == 0:
                h = hist[t, buf[p, j, 0], buf[p, j, 1]] - d * d
                hist[t, buf[p, j, 0], buf[p, j, 1]] = max(h, -HIST_MAX)
    _store(st, p, tt_keys, tt_data, buf, knobs)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _settle(p, v, st, buf, hist, tt_keys, tt_data, knobs):
    """Step 9, every move of a full-width node searched (its value ``v``): the node is
    stored; with ``history-rate`` a best move above alpha gains its share of the rate."""
    _store(st, p, tt_keys, tt_data, buf, knobs)
    if knobs.rate and st[p, F_BESTI] >= 0 and v > st[p, F_ALPHA0]:
        _rate(hist, buf, p, st[p, F_T], st[p, F_BESTI])


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _db_score(found, w, b, t, p):
    """The score of a database value at ply ``p`` for the side to move: a win beyond every
    evaluation, sooner and with more material ahead better; a draw 0."""
    if found == egdb.DRAW:
        return 0
    ahead = popcount(w) - popcount(b)
    if t == 1:
        ahead = -ahead
    if found == egdb.WIN:
        return DB_WIN - p + DB_MATERIAL * ahead
    return -(DB_WIN - p - DB_MATERIAL * ahead)


@njit(cache=True, nogil=True, _nrt=False)
def _keep_db_best(moves, n, w, b, k, t, EX, EC, EO, ED):
    """Keep the root moves whose value in the databases is the root's best (a win kept
    is never thrown away, a draw never lost): the search then chooses among them."""
    best = 3
    for j in range(n):
        cw, cb, ck, ct = make(w, b, k, t, moves[j, 0], moves[j, 1], moves[j, 2], moves[j, 3])
        r = _rank_of_child(egdb.probe(cw, cb, ck, ct, EX, EC, EO, ED))
        if r < best:
            best = r
    if best == 3:
        return n
    kept = 0
    for j in range(n):
        cw, cb, ck, ct = make(w, b, k, t, moves[j, 0], moves[j, 1], moves[j, 2], moves[j, 3])
        if _rank_of_child(egdb.probe(cw, cb, ck, ct, EX, EC, EO, ED)) == best:
            for c in range(4):
                moves[kept, c] = moves[j, c]
            kept += 1
    return kept


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _rank_of_child(found):
    """0: the child is lost for the opponent (we win), 1 drawn, 2 won for it, 3 unknown."""
    if found == egdb.LOSS:
        return 0
    if found == egdb.DRAW:
        return 1
    if found == egdb.WIN:
        return 2
    return 3


@njit(cache=True, nogil=True, _nrt=False)
def _drop_quiet_from(moves, n, bit):
    """Keep the moves that do not move the piece on ``bit`` without capturing; the count."""
    kept = 0
    for j in range(n):
        if moves[j, 0] == bit and moves[j, 2] == 0:
            continue
        for c in range(4):
            moves[kept, c] = moves[j, c]
        kept += 1
    return kept


@njit(cache=True, nogil=True, _nrt=False)
def _drop_excluded(moves, n, P):
    """Keep the moves whose id is not among the ``P[P_EXCLUDED]`` excluded ones; the count."""
    kept = 0
    for j in range(n):
        mid = tt.move_id(moves[j, 0], moves[j, 1], moves[j, 2])
        out = False
        for e in range(P[P_EXCLUDED]):
            if P[P_EXCLUDE + e] == mid:
                out = True
        if out:
            continue
        for c in range(4):
            moves[kept, c] = moves[j, c]
        kept += 1
    return kept


@njit(cache=True, nogil=True, _nrt=False)
def _killer(killers, p, frm, to):
    mid = tt.move_id(frm, to, 0)
    if killers[p, 0] != mid:
        killers[p, 1] = killers[p, 0]
        killers[p, 0] = mid


@njit(cache=True, nogil=True, _nrt=False)
def _rate(hist, buf, p, turn, best):
    """``history-rate``: the quiet move ``best`` of ply ``p`` (its best, above alpha) gains
    1/64 of its distance to the top rate, the quiet moves searched before it lose 1/64 of
    their distance to the bottom (a running rate of being the best, kept less RATE_HALF so
    that a cleared table reads half)."""
    for j in range(best + 1):
        if buf[p, j, 2] != 0:
            continue
        frm, to = buf[p, j, 0], buf[p, j, 1]
        h = hist[turn, frm, to]
        if j == best:
            hist[turn, frm, to] = h + ((RATE_HALF - h) >> RATE_SHIFT)
        else:
            hist[turn, frm, to] = h - ((h + RATE_HALF) >> RATE_SHIFT)


@njit(cache=True, nogil=True, _nrt=False)
def _reward(killers, hist, p, turn, frm, to, depth):
    _killer(killers, p, frm, to)
    hist[turn, frm, to] += depth * depth
    if hist[turn, frm, to] > HIST_MAX:
        for a in range(2):                  # the history (not the counter-moves)
            for x in range(hist.shape[1]):
                for y in range(hist.shape[2]):
                    hist[a, x, y] >>= 1


@njit(cache=True, nogil=True, _nrt=False)
def _store(st, p, tt_keys, tt_data, buf, knobs):
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
    tt.store(tt_keys, tt_data, st[p, F_KEY], mid, s, max(st[p, F_DEPTH], 0), bound, knobs.age,
             knobs.tt_keep)
