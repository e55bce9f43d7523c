"""Win probability of a score, its fit to self-play results, and accuracy from the loss of it.

A score (hundredths of a man, the side to move's view) is turned into the side's expected
result, 0 (lost) .. 1 (won), by the logistic curve ``1 / (1 + exp(-score / K))`` that
:func:`engine.expected_result` computes; a draw counts one half, so this is the expected
score, with draws in it, not the chance of a win alone.

``K`` is fitted to Rafle's own self-play (:func:`fit_scale`): the ``K`` of maximum
likelihood for the games' results given the searched scores of their quiet positions,
each position's result a draw (0.5) or a win or loss (1 or 0) read as the soft label of a
Bernoulli trial (the cross-entropy of ``result/2`` against the curve; its minimum is
where the curve's mean matches the mean result at every score, draws included).
Refit with ``rafle analyse --fit-winprob DATA.npz`` (``rafle selfplay --out DATA.npz``).

Accuracy is lichess's: from a player's average loss of win probability per move, in
percent, ``103.1668 * exp(-0.04354 * loss) - 3.1669``, clipped to 0..100 (lichess,
``modules/analyse/.../AccuracyPercent.scala``): no loss is 100, a loss of 10 points a move is
about 65, of 30 points about 25.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine import expected_result

# Fitted on 1000 self-play games at 2000 nodes a move, learned evaluation, international
# (`rafle selfplay --games 1000 --nodes 2000 --seed 2 --jobs 1 --out wp.npz`, then
# `rafle analyse --fit-winprob wp.npz`): k = 186.9 from 96567 quiet positions, 40% of them from
# drawn games; mean log loss 0.47700 against 0.47736 at k = 200.  Another 300 games (seed 1)
# gave 176.7, both sets together 184.6: the curve is flat near its minimum, so K is known to
# about 5%.  A man ahead is then worth 0.63 of the game, two men 0.74.
K = 187.0
FIT_LIMIT = 3000        # scores beyond (wins found, databases) say nothing about the curve's slope


def win_probability(score: float, k: float = K) -> float:
    """The expected result (0..1) of ``score`` (hundredths of a man) for its side."""
    return float(expected_result(score, k))


def accuracy(average_loss: float) -> float:
    """lichess's accuracy (0..100) of an average win-probability loss in percent points."""
    value = 103.1668 * math.exp(-0.04354 * average_loss) - 3.1669
    return min(100.0, max(0.0, value))


@dataclass(frozen=True)
class WinprobFit:
    """A fitted scale: ``k``, the positions used, the mean log loss at ``k`` and at the
    default 200 (to compare), and the share of draws in the data."""

    k: float
    positions: int
    log_loss: float
    log_loss_default: float
    draws: float


def log_loss(scores: np.ndarray, targets: np.ndarray, k: float) -> float:
    """The mean cross-entropy of ``targets`` (0, 0.5, 1) against the curve of scale ``k``."""
    p = np.clip(expected_result(scores, k), 1e-12, 1 - 1e-12)
    return float(-np.mean(targets * np.log(p) + (1 - targets) * np.log(1 - p)))


def fit_scale(scores, results, low: float = 20.0, high: float = 5000.0) -> WinprobFit:
    """The ``k`` of maximum likelihood for ``results`` (2 White won, 1 draw, 0 Black won) given
    ``scores`` (White's view, hundredths of a man): a golden-section search on log k (the
    loss is convex enough there: one minimum)."""
    scores = np.asarray(scores, dtype=np.float64)
    targets = np.asarray(results, dtype=np.float64) / 2.0
    keep = np.abs(scores) < FIT_LIMIT
    scores, targets = scores[keep], targets[keep]
    if len(scores) == 0:
        raise ValueError("no positions to fit (every score beyond the fit's limit)")
    a, b = math.log(low), math.log(high)
    ratio = (math.sqrt(5) - 1) / 2
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = log_loss(scores, targets, math.exp(c)), log_loss(scores, targets, math.exp(d))
    while b - a > 1e-5:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = log_loss(scores, targets, math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = log_loss(scores, targets, math.exp(d))
    k = math.exp((a + b) / 2)
    return WinprobFit(k, len(scores), log_loss(scores, targets, k),
                      log_loss(scores, targets, 200.0), float(np.mean(targets == 0.5)))


def fit_file(path: str) -> WinprobFit:
    """:func:`fit_scale` on a ``rafle selfplay --out`` file (arrays ``score``, ``result``)."""
    with np.load(path, allow_pickle=False) as data:
        return fit_scale(data["score"], data["result"])
