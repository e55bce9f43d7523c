"""SPSA for ``rafle tune``: the tuned parameters, the gain schedule, the perturbation and the
update step.  Pure arithmetic: no games, no files (:mod:`.tune` plays and records).

SPSA (simultaneous perturbation stochastic approximation, Spall 1992) as Stockfish's fishtest
runs it.  Every parameter ``i`` has a value ``theta_i`` (a float, even for an integer option),
bounds ``[min_i, max_i]`` (the option's), a final perturbation ``c_end_i`` and a final
learning rate ``r_end_i``.  With ``K`` the planned iterations and ``k = 0, 1, ...`` the
iteration, the gains follow fishtest's schedule::

    alpha = 0.602, gamma = 0.101, A = K / 10
    c_k = c / (k + 1)^gamma           with c = c_end * K^gamma           (so c_(K-1) = c_end)
    a_k = a / (A + k + 1)^alpha       with a = 2 r_end c_end^2 (A + K)^alpha

Iteration ``k`` draws ``delta_i = +-1`` (a coin per parameter, from the run's seed and ``k``
alone, so a resumed run draws what an unbroken one would), plays a mini-match of ``theta+ =
theta + c_k delta`` against ``theta- = theta - c_k delta`` (each value clipped to the bounds,
integers rounded), and with ``s+`` and ``s-`` the two sides' shares of the points (``s+ - s-
= (wins - losses) / games`` of theta+) steps::

    theta_i += a_k (s+ - s-) / (2 c_k) * delta_i      then clipped to [min_i, max_i]

the standard SPSA step along the gradient estimate ``(s+ - s-) / (2 c_k delta_i)``.  The
factor in ``a`` makes ``r_end`` read simply: the last iteration's step is ``r_end * c_end *
(s+ - s-)``, at most ``r_end * c_end`` for a clean sweep.  (Fishtest's ``R_k = a_k / c_k^2``
is the same schedule; its result is counted per game pair, ours per mini-match.)  The
schedule is fixed when a run starts: a run taken further than its planned ``K`` goes on with
the same ``a``, ``c`` and ``A``, its gains still falling.

Defaults, from the option: ``start`` its default; ``c_end`` a twentieth of its range, but no
more than half the start (when that is not 0) and at least 1 for an integer option (a smaller
perturbation would round to no change); ``r_end`` 0.2.  With it, over 150 iterations of 8
games, the games' noise alone moves theta by about ``c_end`` (the steps' root sum of squares is
about 19 ``r_end c_end``, times the spread of ``s+ - s-``, about 0.3), while a steady
``s+ - s- = 0.1`` (some 35 Elo between theta+ and theta-) pulls it some 4 ``c_end`` (the steps
add up to about 220 ``r_end c_end``).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from engine import OPTIONS

ALPHA, GAMMA = 0.602, 0.101
R_END = 0.2
PARAM_FORM = "NAME[:START[:C_END[:R_END]]]"


class TuneError(ValueError):
    """A parameter or a run that cannot be tuned (the message says why)."""


@dataclass(frozen=True)
class Param:
    """One tuned option: its bounds, whether the engine takes whole numbers, and its SPSA
    settings."""

    name: str
    lo: float
    hi: float
    integer: bool
    start: float
    c_end: float
    r_end: float

    def clip(self, x: float) -> float:
        return min(max(x, self.lo), self.hi)

    def value(self, x: float) -> int | float:
        """What the engine is given for ``x``: clipped, rounded for an integer option."""
        x = self.clip(x)
        return int(round(x)) if self.integer else x

    def text(self) -> str:
        """The ``--param`` that gives this parameter back (``NAME:START:C_END:R_END``)."""
        return f"{self.name}:{self.start:g}:{self.c_end:g}:{self.r_end:g}"


def tunable_names() -> list[str]:
    return [o.name for o in OPTIONS if o.type in ("int", "float") and o.min and o.max]


def _number(text: str, what: str, name: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        raise TuneError(f"--param {name}: {what} {text!r} is not a number")
    return value


def parse_param(text: str) -> Param:
    """``NAME[:START[:C_END[:R_END]]]``, empty fields taking the defaults (``NAME::5``)."""
    name, *fields = text.strip().split(":")
    if len(fields) > 3:
        raise TuneError(f"--param {text!r}: the form is {PARAM_FORM}")
    option = next((o for o in OPTIONS if o.name == name), None)
    if option is None:
        raise TuneError(f"--param {name!r}: no such option; the tunable ones are "
                        f"{', '.join(tunable_names())}")
    if name not in tunable_names():
        raise TuneError(f"--param {name}: only numeric options with bounds can be tuned, and "
                        f"{name} is a {option.type} option; the tunable ones are "
                        f"{', '.join(tunable_names())}")
    lo, hi, integer = float(option.min), float(option.max), option.type == "int"
    fields += [""] * (3 - len(fields))
    start = _number(fields[0], "START", name) if fields[0] else float(option.default)
    if not lo <= start <= hi:
        raise TuneError(f"--param {name}: START {start:g} is outside its bounds {lo:g}..{hi:g}")
    c_end = (_number(fields[1], "C_END", name) if fields[1] else
             default_c_end(lo, hi, start, integer))
    r_end = _number(fields[2], "R_END", name) if fields[2] else R_END
    if c_end <= 0 or r_end <= 0:
        raise TuneError(f"--param {name}: C_END and R_END must be more than 0")
    if integer and c_end < 0.5:
        raise TuneError(f"--param {name}: C_END {c_end:g} is under 0.5, so theta+ and theta- "
                        f"would round to the same whole number")
    return Param(name, lo, hi, integer, start, c_end, r_end)


def default_c_end(lo: float, hi: float, start: float, integer: bool) -> float:
    c = (hi - lo) / 20
    if start:
        c = min(c, abs(start) / 2)
    return max(c, 1.0) if integer else c


@dataclass(frozen=True)
class Schedule:
    """Fishtest's gains for a run planned at ``iterations`` (K) iterations."""

    iterations: int
    alpha: float = ALPHA
    gamma: float = GAMMA

    @property
    def big_a(self) -> float:
        return self.iterations / 10

    def c_k(self, p: Param, k: int) -> float:
        return p.c_end * self.iterations ** self.gamma / (k + 1) ** self.gamma

    def a_k(self, p: Param, k: int) -> float:
        a = 2 * p.r_end * p.c_end ** 2 * (self.big_a + self.iterations) ** self.alpha
        return a / (self.big_a + k + 1) ** self.alpha


@dataclass(frozen=True)
class Perturbation:
    """Iteration ``k``'s draw: the signs, the perturbations, and the two sides' values."""

    k: int
    delta: tuple[int, ...]
    c: tuple[float, ...]
    plus: tuple[int | float, ...]
    minus: tuple[int | float, ...]


def signs(seed: int, k: int, n: int) -> tuple[int, ...]:
    """Iteration ``k``'s ``delta``: ``n`` coins from the seed and ``k`` alone."""
    rng = random.Random(f"rafle-tune/{seed}/{k}")
    return tuple(rng.choice((-1, 1)) for _ in range(n))


def perturb(params: list[Param], theta: list[float], k: int, seed: int,
            schedule: Schedule) -> Perturbation:
    delta = signs(seed, k, len(params))
    c = tuple(schedule.c_k(p, k) for p in params)
    plus = tuple(p.value(t + ck * d) for p, t, ck, d in zip(params, theta, c, delta))
    minus = tuple(p.value(t - ck * d) for p, t, ck, d in zip(params, theta, c, delta))
    return Perturbation(k, delta, c, plus, minus)


def update(params: list[Param], theta: list[float], draw: Perturbation, diff: float,
           schedule: Schedule) -> list[float]:
    """theta after iteration ``draw.k``, where theta+ scored ``diff = s+ - s-`` (from -1 to 1)."""
    return [p.clip(t + schedule.a_k(p, draw.k) * diff / (2 * ck) * d)
            for p, t, ck, d in zip(params, theta, draw.c, draw.delta)]
