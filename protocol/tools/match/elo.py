"""Match statistics: Elo difference with a 95% error bar, and a GSPRT on trinomial results.

Results are counted from the first engine's side: wins, draws, losses, a draw
scoring one half.  The error bar uses the observed per-game variance of the score
(normal approximation), as cutechess and fishtest do.

The SPRT is the generalised SPRT of fishtest (M. Van den Bergh): for each hypothesis
the trinomial distribution nearest to the observed frequencies whose expected score
is the logistic score of ``elo0`` (resp. ``elo1``) is found by maximum likelihood,
and the log-likelihood ratio of the results under the two is compared with Wald's
bounds ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054   # two-sided 95% normal quantile
SCORES = (1.0, 0.5, 0.0)  # win, draw, loss


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score in (0, 1); +-inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0   # + 0.0: no "-0.0" in reports


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    score: float      # mean score per game, 0..1
    elo: float
    error: float      # half-width of the 95% interval, in Elo (inf when unknown)
    low: float
    high: float


def elo_estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo difference and its 95% interval from the first engine's results."""
    n = wins + draws + losses
    if n == 0:
        return EloEstimate(0.5, 0.0, math.inf, -math.inf, math.inf)
    score = (wins + 0.5 * draws) / n
    var = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score ** 2) / n
    margin = Z95 * math.sqrt(var / n)
    low, high = elo_from_score(score - margin), elo_from_score(score + margin)
    error = (high - low) / 2 if math.isfinite(high - low) else math.inf
    return EloEstimate(score, elo_from_score(score), error, low, high)


def signed(value: float, digits: int = 1) -> str:
    """``+12.3``, ``-4.0``, ``+0.0``: never ``-0.0`` for a value that rounds to zero."""
    return f"{round(value, digits) + 0.0:+.{digits}f}"


def format_elo(wins: int, draws: int, losses: int) -> str:
    """``Elo +35.2 +- 20.1`` from the first engine's results; ``n/a`` for what the games do
    not define: the difference before any game or after all won or all lost, the error
    bar when every game ended alike or its interval reaches a perfect score."""
    if wins + draws + losses == 0:
        return "Elo n/a (no games)"
    est = elo_estimate(wins, draws, losses)
    if not math.isfinite(est.elo):
        return f"Elo n/a (every game {'won' if est.elo > 0 else 'lost'})"
    error = f"{est.error:.1f}" if math.isfinite(est.error) and est.error > 0 else "n/a"
    return f"Elo {signed(est.elo)} +- {error}"


def _mle(freqs: list[float], target: float) -> list[float]:
    """The distribution on SCORES nearest (max. likelihood) to ``freqs`` with mean ``target``.

    It has the form p_i = f_i / (1 + x (a_i - target)); x solves sum p_i (a_i - target) = 0
    on the interval where every 1 + x (a_i - target) stays positive (the function is
    decreasing there), found by bisection.
    """
    d = [a - target for a in SCORES]
    lo = max((-1.0 / di for di in d if di > 0), default=-1e9)
    hi = min((-1.0 / di for di in d if di < 0), default=1e9)
    eps = 1e-12 * (hi - lo)
    lo, hi = lo + eps, hi - eps

    def g(x: float) -> float:
        return sum(f * di / (1 + x * di) for f, di in zip(freqs, d))

    for _ in range(200):
        mid = (lo + hi) / 2
        if g(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    p = [f / (1 + x * di) for f, di in zip(freqs, d)]
    total = sum(p)
    return [pi / total for pi in p]


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio of H1 (elo = elo1) against H0 (elo = elo0)."""
    n = wins + draws + losses
    if n == 0:
        return 0.0
    # A category never seen gets a tiny weight so that the MLE exists (fishtest does the same).
    counts = [c if c > 0 else 1e-3 for c in (wins, draws, losses)]
    total = sum(counts)
    freqs = [c / total for c in counts]
    p0 = _mle(freqs, score_from_elo(elo0))
    p1 = _mle(freqs, score_from_elo(elo1))
    return sum(c * math.log(a / b) for c, a, b in zip((wins, draws, losses), p1, p0) if c)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: below accepts H0, above accepts H1."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> "Sprt":
        """``elo0,elo1[,alpha,beta]``."""
        parts = [p for p in text.replace(" ", "").split(",") if p]
        if len(parts) not in (2, 4):
            raise ValueError("--sprt wants elo0,elo1 or elo0,elo1,alpha,beta")
        vals = [float(p) for p in parts]
        s = cls(*vals)
        if not s.elo0 < s.elo1 or not (0 < s.alpha < 0.5 and 0 < s.beta < 0.5):
            raise ValueError("--sprt needs elo0 < elo1 and 0 < alpha, beta < 0.5")
        return s

    def status(self, wins: int, draws: int, losses: int) -> tuple[float, str | None]:
        """(LLR, verdict) with verdict 'H1' (elo >= elo1), 'H0' (elo <= elo0) or None."""
        llr = sprt_llr(wins, draws, losses, self.elo0, self.elo1)
        lower, upper = sprt_bounds(self.alpha, self.beta)
        if llr >= upper:
            return llr, "H1"
        if llr <= lower:
            return llr, "H0"
        return llr, None
