"""Fitting the pattern evaluation to positions: features and logistic regression (numba).

Texel's method: the evaluation's score ``s`` of a position (White's side, hundredths of
a man, with the drawish-ending scale-down as the kernel applies it) predicts
``sigmoid(s / K)``; the weights minimise the squared error against a target in [0, 1]
from White's side (the game's result, a deeper search's score turned into the same
scale, or a blend), plus an L2 penalty that keeps weights that few positions touch
near zero.

Before that scale-down the score is linear in the weights (:mod:`engine.patterns`):
each position touches, per window, the entry White reads (+) and the entry Black reads
through the turned board (-), each weighted by the opening share ``ph`` (opening table)
and ``1 - ph`` (endgame table), and the dense terms likewise.  Positions are turned into
those indices once (:func:`extract_features`); an epoch then visits them in a given
order and updates the weights each touches with AdaGrad steps (a step per weight
shrinking with the gradients it has seen: rare window contents keep learning while
common ones settle).  The model is colour-symmetric by construction, so a colour-flipped
copy of a position would teach it nothing new: no flip augmentation is needed.

Everything here works on arrays; reading and writing files is ``rafle train``'s job.
"""
import math

import numpy as np
from numba import njit

from .bits import lsb_index, popcount
from .eval import (BACK, BT_MULT, DRAW_DIV, KING, MAN, MOB_KING, MOB_MAN, ROW, RUN_ROW, RUNAWAY,
                   T_B3, T_B3R, T_KSQ, T_ROWS, TEMPO, WEIGHTS, hand_terms, pip_phase,
                   rect_white_index)
from .patterns import (KING_TERMS, NCONFIG, NDENSE, PHASE_ONE, RECT_ALONE, RECT_TURNED, SCALE,
                       layout, odd_windows, phase, window_bases, window_indices, windows)
from .weights import start_pieces, start_pips
from .variants import GOAL_BREAKTHROUGH, GOAL_LOSING, GOAL_NORMAL, KG_LOSING, V_GOAL, V_WIDTH

# Unit weights: hand_terms(..., UNIT, d * NDENSE, ...) is the count of term d alone.
UNIT = np.eye(NDENSE, dtype=np.int64).ravel()
# Men on their back row are counted three times (men, row 0, back rank), and the men on
# all rows add up to the men: the fit leaves row 0 and the back rank out (their weights
# stay 0; :func:`start_weights` moves their share to the men and the other rows).
FIXED = (ROW, BACK)


def start_weights(goal: str = GOAL_NORMAL) -> np.ndarray:
    """The hand evaluation of a variant of this goal as dense weights in the fit's form
    (row 0 and back rank 0): antidraughts' ``-(material + mobility)``, breakthrough's
    advancement and runaways ``BT_MULT`` times the normal game's."""
    w = WEIGHTS[:NDENSE].astype(np.float64)
    if goal == GOAL_LOSING:
        lose = np.zeros(NDENSE)
        for d in (MAN, KING, MOB_MAN, MOB_KING):
            lose[d] = -w[d]
        return lose
    if goal == GOAL_BREAKTHROUGH:
        w[ROW:ROW + 10] *= BT_MULT
        w[RUNAWAY] *= BT_MULT
        w[RUN_ROW] *= BT_MULT
    c = w[ROW] + w[BACK]
    w[MAN] += c
    w[ROW + 1:ROW + 10] -= c
    w[ROW] = w[BACK] = 0.0
    return w


@njit(cache=True, nogil=True, _nrt=False)
def _king_features(wk, bk, T, kf, kv):
    """The kings' terms (``engine.eval.king_terms``) of one position as (index, value)
    pairs in ``kf``, ``kv``; the rest of the row -1."""
    nw, nb = popcount(wk), popcount(bk)
    kf[:] = -1
    kf[0], kv[0] = 0, (1 if nw else 0) - (1 if nb else 0)
    kf[1], kv[1] = 1, max(nw - 1, 0) - max(nb - 1, 0)
    j = 2
    c = wk
    while c:
        x = lsb_index(c)
        c &= c - 1
        kf[j], kv[j] = 2 + T[T_KSQ + x], 1
        j += 1
    c = bk
    while c:
        x = lsb_index(c)
        c &= c - 1
        kf[j], kv[j] = 2 + T[T_KSQ + 64 + x], -1
        j += 1


@njit(cache=True, nogil=True, _nrt=False)
def _extract(white, black, kings, turn, V, T, full, odd, rect, first, turned, start, pips, idx_w,
             idx_b, feats, ph, dd, kf, kv):
    for i in range(len(white)):
        w, b, k = white[i], black[i], kings[i]
        if k:
            _king_features(w & k, b & k, T, kf[i], kv[i])
        if rect != RECT_ALONE:
            window_indices(w & ~k, b & ~k, T, T_ROWS, T_B3, T_B3R, V[V_WIDTH], full, idx_w[i],
                           idx_b[i], odd)
        if rect:                        # the rectangles, after the windows (if any)
            _rect_indices(w & ~k, b & ~k, V[V_WIDTH], T, turned, idx_w[i, first:],
                          idx_b[i, first:])
        for d in range(TEMPO):
            feats[i, d] = hand_terms(w, b, k, V, T, UNIT, d * NDENSE, d * NDENSE, 1)[0]
        feats[i, TEMPO] = 1 if turn[i] == 0 else -1
        for d in FIXED:
            feats[i, d] = 0
        if pips:
            ph[i] = pip_phase(w & ~k, b & ~k, T, pips) / PHASE_ONE
        else:
            ph[i] = phase(w, b, start) / PHASE_ONE
        # The drawish endings (engine.eval._drawish): 1 if a score for White is cut down,
        # 2 if a score for Black is; none in antidraughts.
        if V[V_GOAL] != KG_LOSING:
            dd[i] = ((1 if b & k and popcount(w) <= 3 else 0)
                     | (2 if w & k and popcount(b) <= 3 else 0))


@njit(cache=True, nogil=True, _nrt=False)
def _rect_indices(wm, bm, width, T, turned, out_w, out_b):
    """Every rectangle's (White's, Black's) index: Black reads rectangle ``n - 1 - u``'s
    weights from the squares of ``u``, the content turned (``turned``: RECT_TURNED)."""
    n = len(out_w)
    for u in range(n):
        i = rect_white_index(wm, bm, u, width, T)
        out_w[u] = i
        out_b[n - 1 - u] = turned[i]


def extract_features(white, black, kings, turn, variant, tables, odd: bool = False,
                     pip: bool = False, rect: int = 0):
    """The features of each position: (White's window indices, Black's, dense terms,
    opening share, drawish-ending flags, the kings' terms as indices and values (-1 past
    the last; none without kings)); ``odd``: the second family of windows too; ``pip``:
    the opening share by the men's rows still to go (``engine.eval.pip_phase``);
    ``rect``: the rectangles instead of the windows (1) or after them (2)."""
    n = len(white)
    nw = windows(variant.width, variant.full_board, odd, rect)
    # Every feature is a whole number: the narrowest type that holds it keeps a fit of
    # tens of millions of positions in memory (3^8 window contents fit 16 bits, 3^12
    # rectangle contents do not; a dense term or king count is at most a few hundred).
    index = np.int32 if rect else np.int16
    idx_w = np.zeros((n, nw), dtype=index)
    idx_b = np.zeros((n, nw), dtype=index)
    feats = np.zeros((n, NDENSE), dtype=np.int16)
    ph = np.zeros(n, dtype=np.float64)
    dd = np.zeros(n, dtype=np.int8)
    most = max(((int(x) & (1 << 64) - 1).bit_count()          # Turkish's h1 is bit 63: int64 < 0
                for x in np.unique(np.asarray(kings, np.int64))), default=0)
    kf = np.full((n, 2 + most if most else 1), -1, dtype=np.int16)
    kv = np.zeros(kf.shape, dtype=np.int16)
    _extract(np.asarray(white, np.int64), np.asarray(black, np.int64),
             np.asarray(kings, np.int64), np.asarray(turn, np.int64), variant.table, tables,
             variant.full_board, odd, int(rect), 0 if rect == RECT_ALONE else windows(variant.width),
             RECT_TURNED,
             start_pieces(variant.width, variant.full_board),
             start_pips(variant.width, variant.full_board) if pip else 0, idx_w, idx_b, feats, ph,
             dd, kf, kv)
    return idx_w, idx_b, feats, ph, dd, kf, kv


@njit(cache=True, nogil=True, _nrt=False)
def _raw(i, idx_w, idx_b, feats, ph, kf, kv, theta, bases, eg_w, op_d, eg_d):
    a = ph[i]
    s = 0.0
    for x in range(idx_w.shape[1]):
        base = bases[x]                 # where window x's weights start
        jw = base + idx_w[i, x]
        jb = base + idx_b[i, x]
        s += a * (theta[jw] - theta[jb]) + (1.0 - a) * (theta[eg_w + jw] - theta[eg_w + jb])
    for d in range(feats.shape[1]):
        s += feats[i, d] * (a * theta[op_d + d] + (1.0 - a) * theta[eg_d + d])
    op_k = eg_d + NDENSE                # the kings' terms follow the dense ones
    for j in range(kf.shape[1]):
        if kf[i, j] < 0:
            break
        u = op_k + kf[i, j]
        s += kv[i, j] * (a * theta[u] + (1.0 - a) * theta[u + KING_TERMS])
    return s


DIV = float(WEIGHTS[DRAW_DIV])


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _shrink(s, flags):
    """The factor the drawish-ending rule puts on a score ``s`` (1 or 1/DRAW_DIV)."""
    if (s > 0 and flags & 1) or (s < 0 and flags & 2):
        return 1.0 / DIV
    return 1.0


@njit(cache=True, nogil=True, _nrt=False)
def _score(i, idx_w, idx_b, feats, ph, dd, kf, kv, theta, bases, eg_w, op_d, eg_d):
    """The score of position ``i`` from White's side, as the kernel computes it."""
    s = _raw(i, idx_w, idx_b, feats, ph, kf, kv, theta, bases, eg_w, op_d, eg_d)
    return s * _shrink(s, dd[i])


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _step(theta, g2, j, grad, lr, l2):
    grad += l2 * theta[j]
    g2[j] += grad * grad
    theta[j] -= lr * grad / (math.sqrt(g2[j]) + 1e-9)


@njit(cache=True, nogil=True, _nrt=False)
def _epoch(idx_w, idx_b, feats, ph, dd, kf, kv, target, order, theta, g2, bases, eg_w, op_d, eg_d,
           k, lr, l2):
    total = 0.0
    for i in order:
        s = _raw(i, idx_w, idx_b, feats, ph, kf, kv, theta, bases, eg_w, op_d, eg_d)
        sh = _shrink(s, dd[i])
        p = 1.0 / (1.0 + math.exp(-s * sh / k))
        err = p - target[i]
        total += err * err
        gs = 2.0 * err * p * (1.0 - p) * sh / k
        a = ph[i]
        for x in range(idx_w.shape[1]):
            base = bases[x]
            jw = base + idx_w[i, x]
            jb = base + idx_b[i, x]
            if jw == jb:
                continue                # the same entry read by both sides cancels
            _step(theta, g2, jw, gs * a, lr, l2)
            _step(theta, g2, jb, -gs * a, lr, l2)
            _step(theta, g2, eg_w + jw, gs * (1.0 - a), lr, l2)
            _step(theta, g2, eg_w + jb, -gs * (1.0 - a), lr, l2)
        for d in range(feats.shape[1]):
            f = feats[i, d]
            if f != 0.0:
                _step(theta, g2, op_d + d, gs * a * f, lr, 0.0)
                _step(theta, g2, eg_d + d, gs * (1.0 - a) * f, lr, 0.0)
        for j in range(kf.shape[1]):
            if kf[i, j] < 0:
                break
            u = eg_d + NDENSE + kf[i, j]
            f = kv[i, j]
            if f != 0.0:
                _step(theta, g2, u, gs * a * f, lr, l2)
                _step(theta, g2, u + KING_TERMS, gs * (1.0 - a) * f, lr, l2)
    return total / max(len(order), 1)


@njit(cache=True, nogil=True, _nrt=False)
def _loss(idx_w, idx_b, feats, ph, dd, kf, kv, target, theta, bases, eg_w, op_d, eg_d, k):
    total = 0.0
    for i in range(len(target)):
        s = _score(i, idx_w, idx_b, feats, ph, dd, kf, kv, theta, bases, eg_w, op_d, eg_d)
        err = 1.0 / (1.0 + math.exp(-s / k)) - target[i]
        total += err * err
    return total / max(len(target), 1)


class Fit:
    """The weights being fitted for one board width, in hundredths of a man (floats)."""

    def __init__(self, width: int, k: float = 200.0, lr: float = 2.0, l2: float = 1e-4,
                 goal: str = GOAL_NORMAL, init: np.ndarray | None = None, full: bool = False,
                 odd: bool = False, rect: int = 0):
        _, self.eg_w, self.op_d, self.eg_d, n = layout(width, full, odd, rect)
        self.bases = window_bases(width, full, odd, rect)[0]
        self.width = width
        self.theta = np.zeros(n, dtype=np.float64)
        if init is not None:
            # The start: weights already fitted (a related variant's, same board).
            if len(init) != n:
                raise ValueError(f"{len(init)} starting weights, not the {n} of a "
                                 f"{width}x{width} board")
            self.theta[:] = np.asarray(init, dtype=np.float64) / SCALE
            for d in FIXED:
                self.theta[self.op_d + d] = self.theta[self.eg_d + d] = 0.0
        else:
            # The start: the hand evaluation (its terms with its weights, empty windows).
            self.theta[self.op_d:self.op_d + NDENSE] = start_weights(goal)
            self.theta[self.eg_d:self.eg_d + NDENSE] = start_weights(goal)
        self.g2 = np.zeros(n, dtype=np.float64)
        self.k, self.lr, self.l2 = float(k), float(lr), float(l2)

    def epoch(self, data, target, order) -> float:
        """One pass over the positions in ``order``; the mean squared error seen."""
        idx_w, idx_b, feats, ph, dd, kf, kv = data
        return float(_epoch(idx_w, idx_b, feats, ph, dd, kf, kv, target, order, self.theta, self.g2,
                            self.bases, self.eg_w, self.op_d, self.eg_d, self.k, self.lr, self.l2))

    def loss(self, data, target) -> float:
        idx_w, idx_b, feats, ph, dd, kf, kv = data
        return float(_loss(idx_w, idx_b, feats, ph, dd, kf, kv, target, self.theta, self.bases,
                           self.eg_w, self.op_d, self.eg_d, self.k))

    def block(self) -> np.ndarray:
        """The weights as the evaluation reads them (int32, 1/SCALE of a hundredth)."""
        return np.clip(np.rint(self.theta * SCALE), -2**31 + 1, 2**31 - 1).astype(np.int32)

    def dense_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """(opening, endgame) dense weights, hundredths of a man."""
        return (self.theta[self.op_d:self.op_d + NDENSE].copy(),
                self.theta[self.eg_d:self.eg_d + NDENSE].copy())


def widen(block: np.ndarray, width: int) -> np.ndarray:
    """A block of the first family of windows alone as a block of both families, the
    second family's weights zero: a fit of the richer model can start from it."""
    _, eg_w, op_d, _, _ = layout(width)
    extra = np.zeros(odd_windows(width) * NCONFIG, dtype=block.dtype)
    return np.concatenate([block[:eg_w], extra, block[eg_w:op_d], extra, block[op_d:]])


def to_rectangles(block: np.ndarray, width: int, odd: bool = False, rect: int = RECT_ALONE,
                  was: int = 0) -> np.ndarray:
    """A block of one model (``odd``; ``was``: its rectangles) as a block of another with
    rectangles (``rect``: alone, or after the first family of windows): the dense and
    kings' weights kept, the first family's where both have it, the rectangles' where
    both have them; the rest zero (a fit can start from it)."""
    _, eg_w, op_d, _, _ = layout(width, odd=odd, rect=was)
    rsize = layout(width, rect=RECT_ALONE)[1]
    first = 0 if rect == RECT_ALONE else windows(width) * NCONFIG
    parts = []
    for f in (block[:eg_w], block[eg_w:op_d]):     # opening, endgame
        part = np.zeros(first + rsize, dtype=block.dtype)
        if first and was != RECT_ALONE:
            part[:first] = f[:first]
        if was:
            part[first:] = f[len(f) - rsize:]
        parts.append(part)
    return np.concatenate([*parts, block[op_d:]])


def expected_result(score, k: float = 200.0):
    """The expected result (0..1) of a score in hundredths of a man."""
    return 1.0 / (1.0 + np.exp(-np.asarray(score, dtype=np.float64) / k))
