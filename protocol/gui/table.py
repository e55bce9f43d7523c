"""What a game at the board adds to the rules: clocks, resignation, draw offers, names.

A :class:`Table` belongs to one :class:`~protocol.gui.session.BoardSession` and works
under its lock.  It keeps the clocks (:mod:`.clock`) running by the turn, ends the game when
a flag falls ("Black lost on time"), a side resigns ("White resigned") or a draw is agreed,
and names the players (a person's name as typed, the engine's from its Hub ``id`` line).

Which clock runs: the side to move's, while the game runs (not paused, not over).  A
person's clock runs from the moment it is their turn; the engine's from the moment its
search starts (the engine's start-up and first compilation are not charged) to its answer.
Nobody's clock runs while no page holds the game: a saved game keeps its times.  After a
flag fall the clocks stay stopped; a position set up or a game loaded is played untimed.

An ending other than the rules' belongs to the record as it was: taking moves back reopens
the game, going forward to the same move shows the ending again.

**Draw offers.**  Offered to the engine, it accepts when at least :data:`DRAW_PLIES` plies
have been played and its latest score, from its own side, is at most :data:`DRAW_SCORE` men
(level, or worse for it); otherwise it declines, and says so.  Between two people on one
page, the other side accepts or declines; an offer lapses after the next two plies.
"""
from __future__ import annotations

import threading

from engine import BLACK, WHITE, BadInput, Outcome

from .clock import SIDE_NAMES, Clocks, TimeControl

HUMAN = "human"
DRAW_PLIES = 40
DRAW_SCORE = 0.25
NAME_MOST = 40
SIDES = {"white": WHITE, "black": BLACK}
TITLES = {WHITE: "White", BLACK: "Black"}


def _side(msg: dict, default: int) -> int:
    name = msg.get("side")
    if name is None:
        return default
    if not isinstance(name, str) or name not in SIDES:
        raise BadInput("\"side\" is \"white\" or \"black\"")
    return SIDES[name]


def clean_name(value) -> str:
    """A person's name as the page typed it: printable, at most :data:`NAME_MOST` characters."""
    if not isinstance(value, str):
        raise BadInput("a player's name is a string")
    text = " ".join("".join(ch for ch in value if ch.isprintable()).split())
    if len(text) > NAME_MOST:
        raise BadInput(f"a player's name has at most {NAME_MOST} characters")
    return text.replace('"', "'")


class Table:
    """The clocks, the endings and the names of one session's game."""

    def __init__(self, session):
        self.s = session
        self.clocks = Clocks()
        self.names = {WHITE: "", BLACK: ""}          # people's names; "" reads "Human"
        self.ending: tuple | None = None            # (game, moves then, Outcome)
        self.offer: tuple[int, int] | None = None   # (side, ply) of a standing draw offer
        self._timer: threading.Timer | None = None
        self._game = None          # the game the clocks belong to (None: the next one)

    # ----- what the game is now ----------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """The ending by resignation, time or agreement if it holds for the record as it is
        now; else the rules' outcome."""
        if self.ending is not None:
            game, moves, outcome = self.ending
            if game is self.s.game and tuple(game.moves) == moves:
                return outcome
        return self.s.game.outcome()

    def end(self, outcome: Outcome) -> None:
        self.ending = (self.s.game, tuple(self.s.game.moves), outcome)
        self.clocks.stop()
        self.offer = None

    def name(self, side: int) -> str:
        player = self.s.players[side]
        return (self.names[side] or "Human") if player.kind == HUMAN else self.s.seat.name

    def _humans(self) -> list[int]:
        return [s for s in (WHITE, BLACK) if self.s.players[s].kind == HUMAN]

    # ----- the page's requests -------------------------------------------------------------
    def reset(self, msg: dict) -> None:
        """A new game: the clock of ``msg["clock"]`` and the names of ``msg["names"]``."""
        control = TimeControl.from_message(msg.get("clock"))
        names = dict(self.names)
        given = msg.get("names")
        if given is not None:
            if not isinstance(given, dict):
                raise BadInput("\"names\" is an object like {\"white\": \"Ann\"}")
            for key, side in SIDES.items():
                if key in given:
                    names[side] = clean_name(given[key])
        self._disarm()
        self.clocks = Clocks(control)
        self.names = names
        self.ending = self.offer = None
        self._game = None

    def set_names(self, msg: dict) -> None:
        for key, side in SIDES.items():
            if key in msg:
                self.names[side] = clean_name(msg[key])
        self.s._send_state()

    def resign(self, msg: dict) -> None:
        humans = self._humans()
        side = _side(msg, humans[0] if len(humans) == 1 else self.s.game.position.turn)
        self._must_be_open()
        self.end(Outcome("0-2" if side == WHITE else "2-0", 1 - side, f"{TITLES[side]} resigned"))
        self.s._halt()
        self.s._changed()

    def draw(self, msg: dict) -> None:
        """``action``: ``offer`` (the default), ``accept`` or ``decline``."""
        action = msg.get("action", "offer")
        if action not in ("offer", "accept", "decline"):
            raise BadInput("a draw \"action\" is \"offer\", \"accept\" or \"decline\"")
        self._must_be_open()
        ply = len(self.s.game.moves)
        standing = self.offer if self.offer and ply - self.offer[1] <= 1 else None
        if action == "offer":
            humans = self._humans()
            side = _side(msg, humans[0] if len(humans) == 1 else self.s.game.position.turn)
            if self.s.players[1 - side].kind == HUMAN:
                self.offer = (side, ply)
                self.s.message = f"{TITLES[side]} offers a draw"
            elif self._engine_accepts(1 - side):
                self.end(Outcome("1-1", None, "draw agreed"))
                self.s._halt()
            else:
                self.s.message = (f"{self.s.seat.name} declines the draw (it accepts after "
                                  f"{DRAW_PLIES} plies when its score is at most {DRAW_SCORE:g})")
        elif standing is None:
            raise BadInput("there is no draw offer to answer")
        elif action == "accept":
            self.end(Outcome("1-1", None, "draw agreed"))
            self.s._halt()
        else:
            self.offer = None
            self.s.message = "the draw offer was declined"
        self.s._changed()

    def _must_be_open(self) -> None:
        if self.outcome() is not None:
            raise BadInput("the game is over")

    def _engine_accepts(self, side: int) -> bool:
        ply = len(self.s.game.moves)
        known = [p for p in self.s.evals if p <= ply]
        if ply < DRAW_PLIES or not known:
            return False
        latest = self.s.evals[max(known)]          # White's view, in men
        return (latest if side == WHITE else -latest) <= DRAW_SCORE

    # ----- the clocks, by the turn ---------------------------------------------------------
    def sync(self) -> None:
        """After any change: stop, charge and start the clocks for the game as it is now."""
        if self._game is None:
            self._game = self.s.game
        elif self._game is not self.s.game:      # a position set up or a game loaded: untimed
            self._disarm()
            self.clocks, self._game = Clocks(), self.s.game
        c = self.clocks
        if not c.control.timed:
            return
        game = self.s.game
        ply, side = len(game.moves), game.position.turn
        live = self.s.running and self.outcome() is None
        if c.ticking is not None and not (live and c.ticking == side and c.turn_ply == ply):
            c.stop(moved=c.ticking != side and c.turn_ply is not None and ply == c.turn_ply + 1)
        if c.flagged is not None and self.ending is None:
            self._flag_fell()
            return
        if live and self.s.players[side].kind == HUMAN:
            c.start(side, ply)
        self._arm()

    def engine_turn(self, side: int, ply: int) -> tuple[list[str], float] | None:
        """The engine's Hub clock lines and its budget (seconds) for its turn, or None."""
        c = self.clocks
        if not c.control.timed or c.flagged is not None:
            return None
        c.credit(side, ply)
        return c.level_lines(side), c.left[side]

    def engine_started(self, side: int, ply: int) -> None:
        """The engine's search has begun (under the session's lock, for the current task)."""
        if self.clocks.control.timed and len(self.s.game.moves) == ply:
            self.clocks.start(side, ply)
            self._arm()
            self.s._send_state()             # the page shows the engine's clock running

    def engine_moved(self) -> bool:
        """The engine answered: its clock stops; True when its flag fell first."""
        if self.clocks.ticking is None:
            return False
        self.clocks.stop(moved=True)
        if self.clocks.flagged is not None:
            self._flag_fell()
            return True
        return False

    def _flag_fell(self) -> None:
        side = self.clocks.flagged
        self.end(Outcome("0-2" if side == WHITE else "2-0", 1 - side,
                         f"{TITLES[side]} lost on time"))

    def _arm(self) -> None:
        """A timer for the running clock's fall (the page may never send anything)."""
        self._disarm()
        left = self.clocks.expires_in()
        if left is None:
            return
        self._timer = threading.Timer(left + 0.02, self._check_flag)
        self._timer.daemon = True
        self._timer.start()

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check_flag(self) -> None:
        with self.s.lock:
            c = self.clocks
            if c.ticking is None or c.time_left(c.ticking) > 0:
                self._arm()
                return
            c.stop()
            self._flag_fell()
            self.s._halt()
            self.s._changed()

    def pause(self) -> None:
        """No page holds the game: the running clock stops (and may fall)."""
        self.clocks.stop()
        if self.clocks.flagged is not None and self.ending is None:
            self._flag_fell()

    def close(self) -> None:
        self._disarm()

    # ----- the page, the record, the saved game ---------------------------------------------
    def view(self) -> dict:
        ply = len(self.s.game.moves)
        offer = self.offer if self.offer and ply - self.offer[1] <= 1 else None
        return {"clock": self.clocks.view(),
                "player_names": {key: self.name(side) for key, side in SIDES.items()},
                "draw_offer": None if offer is None else SIDE_NAMES[offer[0]]}

    def pdn_tags(self, whole) -> tuple[dict, str | None]:
        """Tags for the whole record ``whole`` (Result, Termination, TimeControl) and the
        comment that says how it ended."""
        tags = {"White": self.s._player_name(WHITE), "Black": self.s._player_name(BLACK)}
        outcome = whole.outcome()
        if self.ending is not None:
            game, moves, ended = self.ending
            if game is self.s.game and tuple(whole.moves) == moves:
                outcome = ended
        if self.clocks.control.timed:
            tags["TimeControl"] = self.clocks.control.describe()
        if outcome is None:
            return tags, None
        tags["Result"] = outcome.result
        tags["Termination"] = outcome.reason
        return tags, outcome.reason

    def snapshot(self) -> dict:
        ending = None
        if self.ending is not None and self.ending[0] is self.s.game:
            _, moves, o = self.ending
            ending = {"plies": len(moves), "result": o.result, "reason": o.reason,
                      "winner": None if o.winner is None else SIDE_NAMES[o.winner]}
        return {"clock": self.clocks.snapshot(), "ending": ending,
                "names": {key: self.names[side] for key, side in SIDES.items()}}

    def restore(self, data: dict, game, whole_moves: list) -> None:
        """From :meth:`snapshot` (checked here; :class:`BadInput` if it cannot be one), for
        ``game``, whose whole record is ``whole_moves``, which the session then puts back."""
        if not isinstance(data, dict):
            raise BadInput("the table is not an object")
        clocks = Clocks.restore(data.get("clock"))
        names = data.get("names") or {}
        if not isinstance(names, dict):
            raise BadInput("the names are not an object")
        names = {side: clean_name(names.get(key, "")) for key, side in SIDES.items()}
        ending = data.get("ending")
        if ending is not None:
            if not isinstance(ending, dict) or ending.get("result") not in ("2-0", "0-2", "1-1") \
                    or ending.get("winner") not in (None, "white", "black") \
                    or not isinstance(ending.get("reason"), str) or len(ending["reason"]) > 200:
                raise BadInput("the saved ending is not valid")
            plies = ending.get("plies")
            if isinstance(plies, bool) or not isinstance(plies, int) or \
                    not 0 <= plies <= len(whole_moves):
                raise BadInput("the saved ending's ply is not in the record")
            winner = SIDES.get(ending["winner"])
            ending = (game, tuple(whole_moves[:plies]),
                      Outcome(ending["result"], winner, ending["reason"]))
        self._disarm()
        self.clocks, self.names, self.ending, self.offer = clocks, names, ending, None
        self._game = game

