"""Ratings of many engines from all their games, by maximum likelihood.

The model is Bradley-Terry on the Elo scale: engine i scores ``1 / (1 + 10^((r_j - r_i) / 400))``
on average against engine j, a draw counting as half a win and half a loss (as Ordo and
BayesElo without a draw parameter do).  The ratings that make the games most likely are
found by Newton's method on the log-likelihood, with the mean rating held at 0; the error
bars are 95% intervals from the curvature of the likelihood at its peak (the inverse of
the Fisher information).  Engines with only wins or only losses have no finite maximum: a
weak prior (one draw against a virtual engine rated 0) keeps every rating finite, and
matters only for them.
"""
from __future__ import annotations

import math

import numpy as np

SCALE = 400.0 / math.log(10.0)       # Elo points per unit of the logistic's argument
Z95 = 1.959964
PRIOR_DRAWS = 1.0


def fit_ratings(n: int, games: list[tuple[int, int, float]],
                prior: float = PRIOR_DRAWS) -> tuple[np.ndarray, np.ndarray]:
    """(ratings, 95% error bars), both arrays of ``n`` Elo values, from ``games``: each
    ``(i, j, score of i)`` with the score 1, 0.5 or 0."""
    wins = np.zeros((n, n))              # wins[i, j]: points i took from j
    for i, j, s in games:
        wins[i, j] += s
        wins[j, i] += 1.0 - s
    played = wins + wins.T
    x = np.zeros(n)                       # ratings / SCALE
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(x[None, :] - x[:, None]))        # p[i, j]: i's expected score
        q = 1.0 / (1.0 + np.exp(x))                              # against the virtual engine
        grad = (wins - played * p).sum(axis=1) + prior * (0.5 - (1.0 - q))
        info = played * p * (1.0 - p)
        hess = -np.diag(info.sum(axis=1) + prior * q * (1.0 - q)) + info
        step = np.linalg.solve(hess, -grad)
        x += step
        if np.max(np.abs(step)) < 1e-10:
            break
    x -= x.mean()
    p = 1.0 / (1.0 + np.exp(x[None, :] - x[:, None]))
    q = 1.0 / (1.0 + np.exp(x))
    info = played * p * (1.0 - p)
    fisher = np.diag(info.sum(axis=1) + prior * q * (1.0 - q)) - info
    cov = np.linalg.pinv(fisher)
    centre = np.eye(n) - 1.0 / n             # the error of each rating relative to the mean
    cov = centre @ cov @ centre.T
    return x * SCALE, Z95 * np.sqrt(np.clip(np.diag(cov), 0.0, None)) * SCALE
