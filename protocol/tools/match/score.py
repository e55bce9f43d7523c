"""The tally of a match: each game's result, each engine's figures, the SPRT verdict, and the
lines that report them (the progress line after each game, the closing report, the
machine-readable ``match ...`` summary)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine import Game

from ...hub.wire import quote
from .elo import Sprt, elo_estimate, format_elo, sprt_bounds

BAR = 24


@dataclass
class EngineStats:
    name: str
    time_losses: int = 0
    crashes: int = 0
    illegal: int = 0
    moves: int = 0
    think_time: float = 0.0
    max_move_time: float = 0.0
    max_overshoot: float | None = None   # largest (time used - budget) of one move
    min_clock: float | None = None       # least time left after a move
    period_shares: list[float] = field(default_factory=list)   # clock used / given per move-limit period
    game_shares: list[tuple[int, float]] = field(default_factory=list)  # (own moves, share) per game

    def record(self, elapsed: float, budget: float | None, left: float | None) -> None:
        self.moves += 1
        self.think_time += elapsed
        self.max_move_time = max(self.max_move_time, elapsed)
        if budget is not None:
            over = elapsed - budget
            self.max_overshoot = over if self.max_overshoot is None else max(self.max_overshoot, over)
        if left is not None:
            self.min_clock = left if self.min_clock is None else min(self.min_clock, left)

    def merge(self, other: "EngineStats") -> None:
        """Add the figures of ``other`` (the same engine's, from games played elsewhere)."""
        self.time_losses += other.time_losses
        self.crashes += other.crashes
        self.illegal += other.illegal
        self.moves += other.moves
        self.think_time += other.think_time
        self.max_move_time = max(self.max_move_time, other.max_move_time)
        for name, pick in (("max_overshoot", max), ("min_clock", min)):
            mine, theirs = getattr(self, name), getattr(other, name)
            if theirs is not None:
                setattr(self, name, theirs if mine is None else pick(mine, theirs))
        self.period_shares += other.period_shares
        self.game_shares += other.game_shares

    def clock_share(self) -> str:
        """How much of the time it was given the engine used: per period at a move limit
        (``moves/base``), or at the end of games on an increment clock; '' without a clock."""
        if self.period_shares:
            s = self.period_shares
            return (f", clock used at the move limit {100 * _mean(s):.1f}% "
                    f"(mean of {len(s)} periods, {100 * min(s):.1f}-{100 * max(s):.1f}%)")
        if not self.game_shares:
            return ""
        text = f", clock used by the game's end {100 * _mean([x for _, x in self.game_shares]):.1f}%"
        long = [share for moves, share in self.game_shares if moves >= LONG_GAME]
        if long:
            text += f" ({100 * _mean(long):.1f}% in the {len(long)} games of {LONG_GAME}+ moves)"
        return text


def _figure(value: float, defined) -> str:
    """A figure of the summary line: one decimal, never -0.0; none where undefined."""
    return f"{round(value, 1) + 0.0:.1f}" if defined and math.isfinite(value) else "none"


def overshoot_text(over: float | None) -> str:
    """The largest (time used - budget) of a move: ``0.120s`` past it, or ``none`` with how
    close the closest move came when every move kept within its budget."""
    if over is None:
        return "- (no move had a budget)"
    if over <= 0:
        return f"none (the closest move {-over:.3f}s within its budget)"
    return f"{over:.3f}s"


LONG_GAME = 60          # own moves: a game long enough for its clock share to be judged


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


@dataclass
class GameResult:
    number: int
    white: int                          # engine index (0 or 1) playing White
    game: Game
    result: str                         # '2-0', '1-1', '0-2'
    reason: str
    opening: int
    notes: dict = field(default_factory=dict)   # ply -> engine.Note: what each move's engine said

    def points(self, engine: int) -> float:
        white_points = {"2-0": 1.0, "1-1": 0.5, "0-2": 0.0}[self.result]
        return white_points if engine == self.white else 1.0 - white_points


@dataclass
class Score:
    """What the match has found so far (not thread-safe: the match holds its lock)."""

    names: list[str]
    games: int                           # games planned
    sprt: Sprt | None = None
    stats: list[EngineStats] = field(
        default_factory=lambda: [EngineStats("engine1"), EngineStats("engine2")])
    results: list[GameResult] = field(default_factory=list)
    verdict: str | None = None           # 'H0' or 'H1' once the SPRT has decided

    def add(self, r: GameResult) -> None:
        self.results.append(r)
        if self.sprt:
            self.verdict = self.sprt.status(*self.wdl())[1]

    def wdl(self) -> tuple[int, int, int]:
        w = sum(1 for r in self.results if r.points(0) == 1.0)
        d = sum(1 for r in self.results if r.points(0) == 0.5)
        return w, d, len(self.results) - w - d

    def table_line(self) -> str:
        w, d, l = self.wdl()
        n, total = len(self.results), self.games
        est = elo_estimate(w, d, l)
        filled = BAR * n // total
        text = (f"[{'#' * filled}{'-' * (BAR - filled)}] {n:>{len(str(total))}}/{total}  "
                f"{self.names[0]} vs {self.names[1]}: +{w} ={d} -{l}  {100 * est.score:.1f}%  "
                + format_elo(w, d, l))
        if self.sprt:
            llr, verdict = self.sprt.status(w, d, l)
            lo, hi = sprt_bounds(self.sprt.alpha, self.sprt.beta)
            text += f"  LLR {llr:+.2f} [{lo:.2f}, {hi:.2f}]" + (f" {verdict}" if verdict else "")
        return text

    def summary(self) -> str:
        w, d, l = self.wdl()
        est = elo_estimate(w, d, l)
        fields = {"engine1": self.names[0], "engine2": self.names[1],
                  "games": len(self.results), "wins": w, "draws": d, "losses": l,
                  "score": f"{est.score:.4f}", "elo": _figure(est.elo, len(self.results)),
                  "error": _figure(est.error, est.error > 0)}
        if self.sprt:
            llr, verdict = self.sprt.status(w, d, l)
            fields.update(llr=f"{llr:.3f}", sprt=verdict or "none")
        for i, s in enumerate(self.stats, start=1):
            fields[f"time_losses{i}"] = s.time_losses
            fields[f"crashes{i}"] = s.crashes
            fields[f"illegal{i}"] = s.illegal
            fields[f"overshoot{i}"] = "none" if s.max_overshoot is None else f"{s.max_overshoot:.3f}"
        return "match " + " ".join(f"{k}={quote(str(v))}" for k, v in fields.items())

    def report(self, aborted: bool) -> list[str]:
        """The closing lines."""
        lines = [self.table_line()] if aborted else []
        if self.verdict:
            lines.append(f"SPRT: {'H1 accepted' if self.verdict == 'H1' else 'H0 accepted'} "
                         f"(elo0={self.sprt.elo0:g}, elo1={self.sprt.elo1:g})")
        for i, s in enumerate(self.stats):
            over = overshoot_text(s.max_overshoot)
            clock = "" if s.min_clock is None else f", least clock left {s.min_clock:.3f}s"
            avg = s.think_time / s.moves if s.moves else 0.0
            lines.append(f"{self.names[i] or f'engine {i + 1}'}: {s.moves} moves, "
                         f"{avg:.3f}s/move avg, {s.max_move_time:.3f}s max, largest overshoot "
                         f"{over}{clock}{s.clock_share()}, time losses {s.time_losses}, crashes/hangs {s.crashes}, "
                         f"illegal moves {s.illegal}")
        lines.append(self.summary())
        return lines
