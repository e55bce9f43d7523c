"""The board's clocks: the four kinds of Hub time control, kept by the server.

A :class:`TimeControl` is what the players agreed:

* ``none``: no clock;
* ``fischer``: a base time for the game plus an increment for every move (``5m+3s``);
* ``sudden``: a base time for the whole game (sudden death);
* ``moves``: N moves in a base time, repeating (``75 moves in 1 minute``): each side's Nth,
  2Nth, ... move gives it the base time again (an increment may come on top);
* ``movetime``: a fixed time for every move, not carried over.

:class:`Clocks` holds both sides' time left; at most one of them runs.  Server time
(``time.monotonic``) is the truth: the page gets the times left and which clock runs and
counts down itself between messages.  As in the Hub protocol and ``rafle match``, the
increment is added before every move: a turn starts with ``left + inc``, and the engine is
told ``time=<left> inc=<inc>``.  A side whose time runs out during its turn has lost on time.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

from engine import BLACK, WHITE, BadInput

KINDS = ("none", "fischer", "sudden", "moves", "movetime")
MOST_SECONDS = 24 * 3600.0
SIDE_NAMES = {WHITE: "white", BLACK: "black"}


def _seconds(data: dict, key: str, low: float, name: str) -> float:
    value = data.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= MOST_SECONDS:
        raise BadInput(f"the clock's {name} (\"{key}\") is a number of seconds from {low:g} "
                       f"to {MOST_SECONDS:g}")
    return float(value)


@dataclass(frozen=True)
class TimeControl:
    """A time control: its ``kind`` (see :data:`KINDS`) and the seconds and moves it names."""

    kind: str = "none"
    base: float = 0.0         # the game's time (fischer, sudden) or one period's (moves)
    inc: float = 0.0          # added before every move (fischer, moves)
    moves: int = 0            # moves per period (moves)
    movetime: float = 0.0     # seconds per move (movetime)

    @classmethod
    def from_message(cls, data) -> "TimeControl":
        """From the page: ``{"kind": "fischer", "base": 300, "inc": 3}``, ``{"kind":
        "moves", "moves": 75, "base": 60}``, ``{"kind": "movetime", "movetime": 5}``..."""
        if data is None:
            return cls()
        if not isinstance(data, dict) or data.get("kind", "none") not in KINDS:
            raise BadInput(f"a clock is an object with a \"kind\": one of {', '.join(KINDS)}")
        kind = data.get("kind", "none")
        if kind == "none":
            return cls()
        if kind == "movetime":
            return cls(kind, movetime=_seconds(data, "movetime", 0.1, "time per move"))
        base = _seconds(data, "base", 0.1, "base time")
        inc = _seconds(data, "inc", 0.0, "increment") if kind in ("fischer", "moves") else 0.0
        moves = 0
        if kind == "moves":
            moves = data.get("moves")
            if isinstance(moves, bool) or not isinstance(moves, int) or not 1 <= moves <= 1000:
                raise BadInput("the clock's \"moves\" (moves per period) is a whole number "
                               "from 1 to 1000")
        return cls(kind, base, inc, moves)

    @property
    def timed(self) -> bool:
        return self.kind != "none"

    def describe(self) -> str:
        """As a PDN ``TimeControl`` tag and ``rafle match`` say it: ``300+3``, ``75/60``..."""
        if self.kind == "movetime":
            return f"{self.movetime:g}s per move"
        if self.kind == "moves":
            return f"{self.moves}/{self.base:g}" + (f"+{self.inc:g}" if self.inc else "")
        if self.kind in ("fischer", "sudden"):
            return f"{self.base:g}+{self.inc:g}" if self.inc else f"{self.base:g}"
        return ""

    def as_dict(self) -> dict:
        return asdict(self)


class Clocks:
    """Both sides' clocks under one time control; at most one runs (``ticking``)."""

    def __init__(self, control: TimeControl | None = None):
        self.control = control or TimeControl()
        start = self.control.movetime if self.control.kind == "movetime" else self.control.base
        self.left = {WHITE: start, BLACK: start}     # seconds, the running clock's at ``since``
        self.made = {WHITE: 0, BLACK: 0}             # moves made on the clock
        self.ticking: int | None = None
        self.since = 0.0
        self.turn_ply: int | None = None             # the turn whose increment was given
        self.flagged: int | None = None

    # ----- running ---------------------------------------------------------------------
    def credit(self, side: int, ply: int) -> None:
        """A new turn for ``side`` at ``ply``: its increment (or its move's time) comes now,
        once, however often the clock is stopped and started again in that turn."""
        c = self.control
        if not c.timed or self.turn_ply == ply:
            return
        self.turn_ply = ply
        if c.kind == "movetime":
            self.left[side] = c.movetime
        else:
            self.left[side] += c.inc

    def start(self, side: int, ply: int, now: float | None = None) -> None:
        """``side``'s clock runs for its turn at ``ply`` (the other one stops)."""
        if not self.control.timed or self.flagged is not None or self.ticking == side:
            return
        now = time.monotonic() if now is None else now
        self.stop(now)
        self.credit(side, ply)
        self.ticking, self.since = side, now

    def stop(self, now: float | None = None, moved: bool = False) -> None:
        """The running clock stops and is charged; ``moved``: its side has just played (a
        period of ``moves`` may end).  A clock that ran out falls (``flagged``)."""
        if self.ticking is None:
            return
        now = time.monotonic() if now is None else now
        side, self.ticking = self.ticking, None
        self.left[side] -= now - self.since
        if self.left[side] <= 0:
            self.left[side] = 0.0
            self.flagged = side
            return
        if moved:
            self.made[side] += 1
            c = self.control
            if c.kind == "moves" and self.made[side] % c.moves == 0:
                self.left[side] += c.base
            self.turn_ply = None

    def time_left(self, side: int, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        left = self.left[side] - (now - self.since if self.ticking == side else 0.0)
        return max(left, 0.0)

    def expires_in(self, now: float | None = None) -> float | None:
        """Seconds until the running clock falls, or None when none runs."""
        return None if self.ticking is None else self.time_left(self.ticking, now)

    # ----- the engine's limits -----------------------------------------------------------
    def level_lines(self, side: int) -> list[str]:
        """Hub ``level`` lines for ``side``'s turn (credited already): its clock as it is."""
        c = self.control
        if c.kind == "movetime":
            return [f"move-time={c.movetime:g}"]
        time_part = f"time={max(self.left[side] - c.inc, 0.0):.3f}"
        inc = f" inc={c.inc:g}" if c.inc else ""
        if c.kind == "moves":
            to_go = c.moves - self.made[side] % c.moves
            return [f"moves={to_go} {time_part}{inc}"]
        return [time_part + inc]

    # ----- the page and the saved game ---------------------------------------------------
    def view(self, now: float | None = None) -> dict:
        now = time.monotonic() if now is None else now
        c = self.control
        return {"control": c.as_dict(), "describe": c.describe(),
                "white": round(self.time_left(WHITE, now), 3),
                "black": round(self.time_left(BLACK, now), 3),
                "ticking": None if self.ticking is None else SIDE_NAMES[self.ticking],
                "flagged": None if self.flagged is None else SIDE_NAMES[self.flagged],
                "to_go": {SIDE_NAMES[s]: (c.moves - self.made[s] % c.moves) if c.kind == "moves"
                          else None for s in (WHITE, BLACK)}}

    def snapshot(self, now: float | None = None) -> dict:
        """What is saved: the times left now (a saved clock does not run)."""
        return {"control": self.control.as_dict(),
                "left": [self.time_left(WHITE, now), self.time_left(BLACK, now)],
                "made": [self.made[WHITE], self.made[BLACK]], "turn_ply": self.turn_ply,
                "flagged": None if self.flagged is None else SIDE_NAMES[self.flagged]}

    @classmethod
    def restore(cls, data) -> "Clocks":
        """A saved clock; :class:`BadInput` when it cannot be one."""
        if not isinstance(data, dict):
            raise BadInput("the clock is not an object")
        clocks = cls(TimeControl.from_message(data.get("control")))
        left, made, ply = data.get("left"), data.get("made"), data.get("turn_ply")
        numbers = isinstance(left, list) and len(left) == 2 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 2 * MOST_SECONDS
            for x in left)
        counts = isinstance(made, list) and len(made) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 100_000 for x in made)
        if not numbers or not counts or not (ply is None or (isinstance(ply, int)
                                                             and not isinstance(ply, bool))):
            raise BadInput("the clock's times or move counts are not valid")
        clocks.left = {WHITE: float(left[0]), BLACK: float(left[1])}
        clocks.made = {WHITE: made[0], BLACK: made[1]}
        clocks.turn_ply = ply
        flagged = data.get("flagged")
        if flagged not in (None, "white", "black"):
            raise BadInput("the clock's fallen flag is not a side")
        clocks.flagged = {"white": WHITE, "black": BLACK}.get(flagged)
        return clocks
