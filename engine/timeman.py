"""Time management: turn a search's limits into a depth cap, a node cap and two clocks.

``soft``: no new iteration starts after this many seconds; ``hard``: the running
iteration is aborted (a timer thread sets the kernel's stop flag) and the best
move found so far is played.  Both count from the moment the clock starts: the
start of the search, or ``ponder_hit`` for a ponder search.

:class:`Clock` follows one running search: the stop request and the ponder state, which
other threads change, and a timer thread that ends the search at the hard limit.

Hub clock semantics: ``Limits.time`` is what is left on the clock for this move
(the increment for this move already added), ``inc`` what the next moves will add.
The engine never plans to use all of it: a reserve covers Python's own overhead,
the timer thread's wake-up and the pipe to the GUI.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Callable

MAX_DEPTH = 100
MAX_NODES = 1 << 62       # the kernel counts nodes in an int64
MAX_SECONDS = 1e6         # about 11 days: any longer clock is taken as this much
DEFAULT_MOVETIME = 1.0    # seconds, when a normal search is given no limit at all
DEFAULT_MOVES_TO_GO = 30  # moves the remaining clock must last without a moves= field
OVERHEAD = 0.05           # seconds lost between the GUI sending `go` and reading `done` (pipes, scheduling)
MIN_THINK = 0.005
LATENCY = 0.01            # seconds each move costs beyond the search's own clock (reading the game, replying)
SOFT = 0.6                # no new iteration after this share of a move's target time
HARD = 4.0                # the running iteration is cut at this many targets
STRETCH_MAX = 2.5         # the soft limit stretched at most this much (an unsettled best move)
CONTROL_SLACK = 4         # moves planned beyond a time control: about 9% of its clock is left at it


@dataclass(frozen=True)
class Plan:
    """What one search may use: iterations up to ``depth``, at most ``nodes`` nodes,
    and the soft and hard time budgets in seconds (None: no time limit)."""

    depth: int = MAX_DEPTH
    nodes: int | None = None
    soft: float | None = None
    hard: float | None = None


def reserve(clock: float) -> float:
    """Seconds kept back from a remaining clock of ``clock`` seconds."""
    return OVERHEAD + min(0.02 * clock, 1.0)


def plan(limits, analyze: bool = False, horizon: int = 0, pieces: int = 0,
         game_ends: bool = False) -> Plan:
    """The plan for ``limits`` (an ``engine.search.Limits``); ``horizon``: the option
    ``time-horizon``; ``pieces``: the option ``time-pieces`` plus the pieces on the board,
    or 0; ``game_ends``: the option ``time-game-ends``, or the limits' ``ends`` (DXP's move
    limit ends the game) (:func:`clock_budget`)."""
    depth = MAX_DEPTH
    if limits.depth is not None:
        depth = max(1, min(int(limits.depth), MAX_DEPTH))
    nodes = None
    if limits.nodes is not None:
        nodes = max(1, min(int(limits.nodes), MAX_NODES))
    if limits.infinite:
        return Plan(depth, nodes)
    if limits.movetime is not None:
        t = seconds(limits.movetime)
        hard = max(MIN_THINK, t - reserve(t))
        return Plan(depth, nodes, hard, hard)
    if limits.time is not None:
        soft, hard = clock_budget(seconds(limits.time), seconds(limits.inc or 0.0), limits.moves,
                                  horizon, pieces, game_ends or limits.ends)
        return Plan(depth, nodes, soft, hard)
    if limits.depth is None and limits.nodes is None and not analyze:
        hard = DEFAULT_MOVETIME - reserve(DEFAULT_MOVETIME)
        return Plan(depth, nodes, hard, hard)
    return Plan(depth, nodes)


def seconds(value) -> float:
    """A time limit clamped to what a clock can wait for: 0 to ``MAX_SECONDS`` (nan: 0)."""
    t = float(value)
    if math.isnan(t):
        return 0.0
    return min(max(t, 0.0), MAX_SECONDS)


def clock_budget(clock: float, inc: float, moves: int | None,
                 horizon: int = 0, pieces: int = 0,
                 game_ends: bool = False) -> tuple[float, float]:
    """(soft, hard) seconds for a move with ``clock`` seconds left, ``inc`` per move
    to come and ``moves`` moves to the next time control (None: sudden death); a control
    of moves is planned over at most ``horizon`` moves when it is not 0 (a game is often
    decided before the control: Scan plans over 30 moves in the middle game, 10 in the
    endgame).  In sudden death the clock is planned over ``DEFAULT_MOVES_TO_GO`` moves, or,
    with no increment (as measured), over ``pieces`` when it is not 0 (the option
    ``time-pieces`` plus the pieces on the board: fewer moves as the game goes on, so that
    the late middle game gets more than a geometric share).  With ``game_ends`` the game
    ends at the control of moves (as a match at "75 moves in 60 s" ends at move 75): no
    slack is planned beyond it, so the clock is spent by the last move instead of about a
    tenth of it carrying over to a period that never comes.

    The target is an even share of the usable clock (less a reserve) over the moves to
    go, plus the increment less ``LATENCY`` (it comes back after every move).  No iteration
    starts after ``SOFT`` of the target (the search then finishes the one it is in: on
    average the move takes about the target); the search may stretch the soft limit when
    the best move is unsettled (:meth:`Clock.time_is_up`), and the running iteration is cut
    at ``hard``."""
    inc = max(inc, 0.0)
    usable = clock - reserve(max(clock, 0.0))
    if usable <= MIN_THINK:
        return MIN_THINK, MIN_THINK
    to_go = pieces if pieces > 0 and inc == 0 else DEFAULT_MOVES_TO_GO
    if moves is not None and 0 < moves < math.inf:
        # Plan as if the control were a few moves further away: the last moves before it
        # do not each take a big share of what is left (the last one all of it), and the
        # time left at the control carries over to the next period.
        to_go = min(int(moves), 100) + (0 if game_ends else CONTROL_SLACK)
        if horizon > 0:
            to_go = min(to_go, horizon)
    # This move's increment is already in ``clock``; later ones will come back, less what
    # each move costs outside the search.  The reserve is never planned away: a clock run
    # down to it thinks less than the increment and grows again.
    target = max(usable - inc, 0.0) / to_go + max(inc - LATENCY, 0.0)
    hard = min(usable, HARD * target)
    soft = min(SOFT * target, hard)
    return max(soft, MIN_THINK), max(hard, MIN_THINK)


class Clock:
    """When the running search must end: a ``stop`` request, or its time budget.

    The search thread calls :meth:`begin`, asks :meth:`time_is_up` between iterations and
    calls :meth:`end`; any thread may call :meth:`stop` and :meth:`ponder_hit`.  At the hard
    limit (and on ``stop``) ``halt`` is called: it sets the kernel's stop flag.  A ponder
    search has no clock until ``ponder_hit`` starts it.
    """

    def __init__(self, halt: Callable[[], None]):
        self._halt = halt
        self._cond = threading.Condition()
        self._timer: threading.Thread | None = None
        self.running = False
        self._stopped = False
        self._pondering = False
        self._start = 0.0

    def begin(self, ponder: bool, started: float | None, now: float) -> None:
        """A search begins at ``now``; its clock at ``started`` if that was earlier."""
        with self._cond:
            self.running = True
            self._stopped = False
            self._pondering = ponder
            self._start = min(now, started) if started is not None else now

    def arm(self, hard: float | None) -> None:
        """Halt the search ``hard`` seconds after its clock started (None: never)."""
        if hard is not None:
            self._timer = threading.Thread(target=self._run_timer, args=(hard,), daemon=True)
            self._timer.start()

    def end(self) -> None:
        with self._cond:
            self.running = False
            self._cond.notify_all()
        if self._timer is not None:
            self._timer.join()
            self._timer = None

    def stop(self) -> None:
        """End the running search soon; no-op when idle."""
        with self._cond:
            if self.running:
                self._stopped = True
                self._halt()
                self._cond.notify_all()

    def ponder_hit(self) -> None:
        """The ponder search becomes a timed search; its clock starts now."""
        with self._cond:
            if self.running and self._pondering:
                self._pondering = False
                self._start = time.monotonic()
                self._cond.notify_all()

    def time_is_up(self, plan: Plan, stretch: float = 1.0) -> bool | None:
        """Between iterations: True if stopped or past the soft limit (times
        ``stretch``, never past the hard one); None while pondering (a ponder search
        ends only on ``stop`` or its hard limit after a hit)."""
        with self._cond:
            if self._stopped:
                return True
            if self._pondering:
                return None
            used = time.monotonic() - self._start
        if plan.soft is None:
            return False
        soft = plan.soft * min(max(stretch, 0.0), STRETCH_MAX)
        return used >= (min(soft, plan.hard) if plan.hard is not None else soft)

    def _run_timer(self, hard: float) -> None:
        with self._cond:
            while self.running:
                if self._pondering:
                    self._cond.wait()
                    continue
                left = self._start + hard - time.monotonic()
                if left <= 0:
                    self._halt()
                    return
                self._cond.wait(left)
