"""One DXP game as our side keeps it: the rules' record (the engine's ``Game``), our clock and
the move limit, what the rules have decided, and the game's record for the log.  It knows
nothing of messages: :class:`protocol.dxp.session.Session` turns them into calls here."""
from __future__ import annotations

import time
from dataclasses import dataclass

import engine

ZERO_TIME_MOVETIME = 0.15   # per-move budget when the GAMEREQ time is 000 (P3)


class Clock:
    """Our time for one game: the GAMEREQ minutes for the whole game, or a fixed
    per-move budget when the minutes are 0."""

    def __init__(self, minutes: float, movetime: float | None):
        self.budget = minutes * 60 if minutes > 0 else None
        self.movetime = movetime
        self.used = 0.0
        self.slowest = 0.0
        self.overshoot = 0.0   # worst time beyond what a move was given

    @property
    def remaining(self) -> float | None:
        return None if self.budget is None else self.budget - self.used

    def limits(self, moves_left: int | None) -> engine.Limits:
        if self.budget is None:
            return engine.Limits(movetime=self.movetime or ZERO_TIME_MOVETIME)
        # keep a reserve for the network and the pause before sending, never hand out <= 0
        left = self.remaining
        reserve = min(2.0, 0.1 + 0.02 * max(left, 0.0))
        usable = max(left - reserve, 0.02)
        if self.movetime is not None:   # a fixed move time, but never more than the clock holds
            return engine.Limits(movetime=min(self.movetime, usable))
        # DXP's move limit ends the game: the clock is planned to be spent by then
        return engine.Limits(time=usable, moves=moves_left, ends=moves_left is not None)

    def charge(self, elapsed: float, limits: engine.Limits) -> None:
        allowed = [x for x in (limits.movetime, self.remaining) if x is not None]
        self.used += elapsed
        self.slowest = max(self.slowest, elapsed)
        if allowed:
            self.overshoot = max(self.overshoot, elapsed - min(allowed))


@dataclass
class GameRecord:
    number: int
    our_colour: int
    opponent: str
    start: engine.Position
    result: str = "*"
    reason: str = ""
    plies: int = 0
    clock: Clock | None = None


def colour_name(side: int) -> str:
    return "white" if side == engine.WHITE else "black"


class DxpGame:
    """The game being played on the connection."""

    def __init__(self, number: int, start: engine.Position, ours: int, opponent: str,
                 minutes: float, moves: int, movetime: float | None):
        self.game = engine.Game(start)
        self.clock = Clock(minutes, movetime)
        self.move_limit = moves
        self.record = GameRecord(number, ours, opponent or "?", start, clock=self.clock)
        self.last_score: int | None = None
        self.decided: tuple[int, engine.Outcome] | None = None   # (ply, outcome): the rules ended it
        self.turn_started = 0.0

    @property
    def our_move(self) -> bool:
        return self.game.position.turn == self.record.our_colour

    def judge(self) -> engine.Outcome | None:
        """What the rules say now, after a ply or a take-back (a decision stays with its ply)."""
        plies = len(self.game.moves)
        if self.decided is not None and plies < self.decided[0]:
            self.decided = None   # taken back
        if self.decided is None:
            outcome = self.game.outcome()
            if outcome is not None:
                self.decided = (plies, outcome)
        return self.decided[1] if self.decided else None

    def move_limit_reached(self) -> bool:
        return bool(self.move_limit) and len(self.game.moves) >= 2 * self.move_limit

    # ----- our clock ---------------------------------------------------------------
    def start_turn(self) -> None:
        self.turn_started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.turn_started

    def limits(self) -> engine.Limits:
        """Our search limits for this move."""
        moves_left = None
        if self.move_limit:
            played = sum(1 for p in self.game.history() if p.turn == self.record.our_colour)
            moves_left = max(self.move_limit - played, 1)
        return self.clock.limits(moves_left)

    def charge_interrupted_turn(self) -> None:
        self.clock.used += self.elapsed()

    # ----- take-backs ----------------------------------------------------------------
    def ply_of(self, move: int, white_to_move: bool) -> int | None:
        """The ply of move ``move`` of that side (spec §3.6: move 1 white is ply 0, and a game
        that starts with Black is one lower), or None if this game has no such ply."""
        late = 1 if self.game.start.turn == engine.BLACK else 0
        ply = (move - 1) * 2 + (0 if white_to_move else 1) - late
        wanted = engine.WHITE if white_to_move else engine.BLACK
        if not 0 <= ply <= len(self.game.moves) or self.game.positions[ply].turn != wanted:
            return None
        return ply

    def take_back(self, ply: int) -> None:
        while len(self.game.moves) > ply:
            self.game.pop()

    # ----- results -------------------------------------------------------------------
    def claim(self, outcome: engine.Outcome) -> int:
        """The GAMEEND reason that claims ``outcome``: 2 draw, 3 we win, 1 we lose."""
        return 2 if outcome.winner is None else (3 if outcome.winner == self.record.our_colour else 1)

    def move_limit_claim(self) -> tuple[int, str, str]:
        """(GAMEEND reason, result, why) at the move limit: like Scan, a clear evaluation
        decides, otherwise the result is left open."""
        score = self.last_score if self.last_score is not None else 0
        if abs(score) < 300:
            return 0, "*", f"move limit, score {score}"
        winner = self.record.our_colour if score > 0 else 1 - self.record.our_colour
        return (3 if score > 0 else 1, "2-0" if winner == engine.WHITE else "0-2",
                f"move limit, score {score}")

    def peer_result(self, reason: int) -> tuple[str, str]:
        """(result, why) when the peer ends the game with GAMEEND ``reason``; the rules'
        decision, if any, comes first."""
        if self.decided is not None:
            return self.decided[1].result, self.decided[1].reason
        if reason == 2:
            return "1-1", "the peer claimed a draw"
        if reason in (1, 3):
            ours = self.record.our_colour
            winner = ours if reason == 1 else 1 - ours
            return ("2-0" if winner == engine.WHITE else "0-2",
                    "the peer conceded" if reason == 1 else "the peer claimed the win")
        return "*", "ended by the peer"

    def finish(self, result: str, reason: str, name: str) -> str | None:
        """Record the result (once); the line for the log, or None if already recorded."""
        rec = self.record
        if rec.reason:
            return None
        rec.result, rec.reason = result, reason
        rec.plies = self.decided[0] if self.decided else len(self.game.moves)
        c = rec.clock
        clock = f"{c.used:.1f} s of {c.budget:g} s" if c.budget is not None else f"{c.used:.1f} s"
        return (f"game {rec.number} result {result} ({reason}), {rec.plies} plies; "
                f"{name} played {colour_name(rec.our_colour)}, used {clock}, "
                f"slowest move {c.slowest:.3f} s, worst overshoot {max(c.overshoot, 0.0):.3f} s")
