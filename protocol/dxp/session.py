"""The DXP dialogue of one connection: the game state machine over a :class:`.link.Link`.

:class:`Session` is the state machine of ``spec/protocols.md`` §3.2 (states in
:class:`State`), for the follower and the initiator; :class:`Clock` keeps
our own time, since the GAMEREQ minutes are the whole game's.  Rules come from
the engine's ``Game``, moves from a player (Rafle's search, or a scripted one in tests).
The behaviour choices are listed in ``protocol.dxp.cli``.
"""
from __future__ import annotations

import enum
import time
from concurrent.futures import Future, wait
from dataclasses import dataclass, field, replace

import engine

from .link import Link, PeerGone, PeerSilent
from .wire import (BackAcc, BackReq, Chat, DxpError, DxpVersionError, GameAcc, GameEnd, GameReq,
                   MoveMsg, decode, format_minutes, parse_minutes)

ZERO_TIME_MOVETIME = 0.15   # per-move budget when the GAMEREQ time is 000 (P3)
CONFIRM_TIMEOUT = 10.0      # wait for the peer's GAMEEND confirmation
NAME = "Rafle"


class State(enum.Enum):
    IDLE = "no game"                       # follower: waiting for GAMEREQ
    WAIT_ACC = "waiting for GAMEACC"       # initiator: GAMEREQ sent
    OUR_TURN = "our move"
    THEIR_TURN = "their move"
    GAME_OVER = "game over, not claimed"   # no legal move for us; the peer ends the game
    WAIT_END_CONFIRM = "waiting for the GAMEEND confirmation"
    CLOSED = "closed"


IN_GAME = (State.OUR_TURN, State.THEIR_TURN, State.GAME_OVER)


# ----- players and clocks --------------------------------------------------------------

class SearchPlayer:
    """Rafle's search behind the small interface a session needs (tests plug in others)."""

    def __init__(self, searcher: engine.Searcher, depth: int | None = None):
        self.searcher = searcher
        self.depth = depth

    def new_game(self) -> None:
        self.searcher.new_game()

    def start(self, pos: engine.Position, history: list[engine.Position],
              limits: engine.Limits) -> Future:
        """Start a search; the future holds its ``Result``."""
        if self.depth is not None:
            limits = replace(limits, depth=self.depth)
        return self.searcher.start(pos, history, limits)

    def stop(self) -> None:
        self.searcher.stop()


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
        return engine.Limits(time=usable, moves=moves_left)

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


@dataclass
class Config:
    name: str = NAME
    initiator: bool = False
    games: int = 1
    minutes: float = 0.0
    moves: int = 0
    starts: list[engine.Position] = field(default_factory=lambda: [engine.start_position()])
    claim_end: bool = False
    movetime: float | None = None
    peer_timeout: float = 300.0
    confirm_timeout: float = CONFIRM_TIMEOUT


def colour_name(side: int) -> str:
    return "white" if side == engine.WHITE else "black"


# ----- the dialogue --------------------------------------------------------------------

class Session:
    """One connection's dialogue.  ``run()`` returns when the connection is over."""

    def __init__(self, link: Link, player, config: Config, log=print):
        self.link, self.player, self.config, self.log = link, player, config, log
        self.state = State.IDLE
        self.records: list[GameRecord] = []
        self.game: engine.Game | None = None
        self.record: GameRecord | None = None
        self.clock: Clock | None = None
        self.move_limit = 0
        self.turn_started = 0.0
        self.last_score: int | None = None
        self.decided: tuple[int, engine.Outcome] | None = None   # (ply, outcome): the rules ended the game
        self.stop_after_confirm = False
        self.games_requested = 0

    # ----- main loop -------------------------------------------------------------
    def run(self) -> list[GameRecord]:
        try:
            if self.config.initiator:
                self._request_game()
            while self.state is not State.CLOSED:
                if self.state is State.OUR_TURN:
                    self._our_turn()
                    continue
                wait = (self.config.confirm_timeout if self.state is State.WAIT_END_CONFIRM
                        else self.config.peer_timeout)
                try:
                    text = self.link.receive(wait)
                except PeerSilent as exc:
                    self._silence(str(exc))
                    continue
                self._on_message(text)
        except PeerGone as exc:
            self.log(f"connection ended: {exc}")
            if self.state in IN_GAME or self.state is State.WAIT_END_CONFIRM:
                self._finish("*", "connection closed")
            self.state = State.CLOSED
        finally:
            self.link.close()
        return self.records

    def _silence(self, why: str) -> None:
        if self.state is State.WAIT_END_CONFIRM:
            self.log(f"no GAMEEND confirmation ({why}); game over anyway")
            self._after_end()
        elif self.state in IN_GAME:
            self._protocol_error(f"{why}, ending the game", stop=1)
        else:
            self.log(f"{why} ({self.state.value}); closing the connection")
            self.state = State.CLOSED

    # ----- messages --------------------------------------------------------------
    def _on_message(self, text: str) -> None:
        try:
            msg = decode(text)
        except DxpVersionError as exc:
            self.log(str(exc))
            self.link.send(GameAcc(self.config.name, 1))
            return
        except DxpError as exc:
            shown = text if len(text) <= 60 else text[:57] + "..."
            self._protocol_error(f"bad message {shown!r}: {exc}", refuse_request=text[:1] == "R")
            return
        kind = type(msg)
        if kind is Chat:
            self.log(f"chat: {msg.text}")
        elif kind is GameReq:
            self._on_gamereq(msg)
        elif kind is GameAcc:
            self._on_gameacc(msg)
        elif kind is MoveMsg:
            self._on_move(msg, text)
        elif kind is GameEnd:
            self._on_gameend(msg)
        elif kind is BackReq:
            self._on_backreq(msg)
        else:   # BackAcc: we never ask, so there is nothing to do
            self.log(f"ignored BACKACC {msg.code}")

    def _protocol_error(self, problem: str, refuse_request: bool = False, stop: int = 0) -> None:
        self.log(f"error: {problem}")
        self.link.send(Chat(f"error: {problem}"))
        if self.state in IN_GAME:
            self._send_end(0, stop, "*", f"protocol error: {problem}")
        elif refuse_request and not self.config.initiator and self.state is State.IDLE:
            self.link.send(GameAcc(self.config.name, 2))

    def _on_gamereq(self, req: GameReq) -> None:
        if self.config.initiator:
            self._protocol_error("GAMEREQ sent to the initiator")
            return
        if self.state is not State.IDLE:
            self.log(f"refused a GAMEREQ: {self.state.value}")
            self.link.send(GameAcc(self.config.name, 2))
            return
        try:
            start = (engine.start_position() if req.board is None else
                     engine.pos_from_dxp(("W" if req.white_to_move else "Z") + req.board))
        except engine.BadInput as exc:
            self._protocol_error(f"GAMEREQ position: {exc}", refuse_request=True)
            return
        if not engine.legal_moves(start):
            self.log("refused a GAMEREQ: no legal move in the start position")
            self.link.send(GameAcc(self.config.name, 2))
            return
        self.link.send(GameAcc(self.config.name, 0))
        ours = engine.WHITE if req.follower_white else engine.BLACK
        self._begin(start, ours, req.name, req.minutes, req.moves)

    def _on_gameacc(self, acc: GameAcc) -> None:
        if self.state is not State.WAIT_ACC:
            self._protocol_error(f"unexpected GAMEACC ({self.state.value})")
            return
        if acc.code == 0:
            number = self.games_requested - 1
            start, ours = self._game_plan(number)
            self._begin(start, ours, acc.name, self._wire_minutes(), self.config.moves)
            return
        self.log(f"{acc.name or 'the follower'} refused game {self.games_requested} (code {acc.code})")
        if acc.code == 2 and self.games_requested < self.config.games:
            self._request_game()
        else:
            self.state = State.CLOSED

    def _on_move(self, msg: MoveMsg, text: str) -> None:
        if self.state is State.WAIT_END_CONFIRM:
            self.log(f"ignored MOVE {text} after GAMEEND")
            return
        if self.state is not State.THEIR_TURN:
            where = "outside a game" if self.state not in IN_GAME else "out of turn"
            self._protocol_error(f"MOVE {text} {where} ({self.state.value})")
            return
        move = engine.find_move(self.game.position, msg.frm, msg.to, msg.captured)
        if move is None:
            self._protocol_error(f"illegal move {text} in {engine.pos_to_fen(self.game.position)}")
            return
        self.game.push(move)
        self._set_turn()

    def _on_gameend(self, end: GameEnd) -> None:
        if self.state is State.WAIT_END_CONFIRM:
            self.stop_after_confirm |= end.stop == 1
            self._after_end()
            return
        if self.state not in IN_GAME:
            self.log(f"ignored GAMEEND {end.reason}{end.stop} ({self.state.value})")
            if end.stop == 1:
                self.state = State.CLOSED
            return
        if self.state is State.OUR_TURN:
            self._charge_interrupted_turn()
        self.link.send(GameEnd(0, end.stop))
        ours = self.record.our_colour
        if self.decided is not None:   # the rules decide, whatever the peer says
            result, reason = self.decided[1].result, self.decided[1].reason
        elif end.reason == 2:
            result, reason = "1-1", "the peer claimed a draw"
        elif end.reason in (1, 3):
            winner = ours if end.reason == 1 else 1 - ours
            result = "2-0" if winner == engine.WHITE else "0-2"
            reason = "the peer conceded" if end.reason == 1 else "the peer claimed the win"
        else:
            result, reason = "*", "ended by the peer"
        self._finish(result, reason)
        self.stop_after_confirm = end.stop == 1
        self._after_end()

    def _on_backreq(self, req: BackReq) -> None:
        if self.state not in IN_GAME:
            self.log(f"refused BACKREQ ({self.state.value})")
            self.link.send(BackAcc(1 if self.state is State.IDLE else 2))
            return
        # ply of the requested move (spec §3.6): move 1 white = ply 0; black starts one lower
        late = 1 if self.game.start.turn == engine.BLACK else 0
        ply = (req.move - 1) * 2 + (0 if req.white_to_move else 1) - late
        wanted = engine.WHITE if req.white_to_move else engine.BLACK
        if not 0 <= ply <= len(self.game.moves) or self.game.positions[ply].turn != wanted:
            self.log(f"refused BACKREQ to move {req.move} {colour_name(wanted)}: not in this game")
            self.link.send(BackAcc(2))
            return
        if self.state is State.OUR_TURN:
            self._charge_interrupted_turn()
        while len(self.game.moves) > ply:
            self.game.pop()
        self.log(f"took back to move {req.move}, {colour_name(wanted)} to move")
        self.link.send(BackAcc(0))
        self._set_turn()

    # ----- our side of the game --------------------------------------------------
    def _begin(self, start: engine.Position, ours: int, opponent: str, minutes: float, moves: int) -> None:
        self.game = engine.Game(start)
        self.clock = Clock(minutes, self.config.movetime)
        self.move_limit = moves
        self.last_score = None
        self.decided = None
        self.record = GameRecord(len(self.records) + 1, ours, opponent or "?", start, clock=self.clock)
        self.records.append(self.record)
        names = ((self.config.name, opponent or "?") if ours == engine.WHITE
                 else (opponent or "?", self.config.name))
        self.log(f"game {self.record.number}: {names[0]} (white) - {names[1]} (black), "
                 f"{f'{minutes:g} min' if minutes else 'time 000'}, {moves or 'no'} move limit, "
                 f"start {'normal' if start == engine.start_position() else engine.pos_to_fen(start)}")
        self.player.new_game()
        self._set_turn()

    def _set_turn(self) -> None:
        """The state after a ply or a take-back: claim, move, or wait."""
        plies = len(self.game.moves)
        if self.decided is not None and plies < self.decided[0]:
            self.decided = None   # taken back
        if self.decided is None:
            outcome = self.game.outcome()
            if outcome is not None:
                self.decided = (plies, outcome)
        claiming = self.config.initiator or self.config.claim_end
        our_move = self.game.position.turn == self.record.our_colour
        # GAMEEND replaces a MOVE, so it is sent on our turn; when the peer has no move
        # at all it cannot answer, so it is sent at once.
        if claiming and self.decided and (our_move or self.decided[1].reason == "no legal move"):
            self._claim(self.decided[1])
        elif claiming and our_move and self.move_limit and plies >= 2 * self.move_limit:
            self._claim_move_limit()
        elif not our_move:
            self.state = State.THEIR_TURN
        elif engine.legal_moves(self.game.position):
            self.state = State.OUR_TURN
            self.turn_started = time.monotonic()
        else:
            self.log(f"no legal move for {self.config.name}; waiting for the peer to end the game")
            self.state = State.GAME_OVER

    def _our_turn(self) -> None:
        moves_left = None
        if self.move_limit:
            played = sum(1 for p in self.game.history() if p.turn == self.record.our_colour)
            moves_left = max(self.move_limit - played, 1)
        limits = self.clock.limits(moves_left)
        result = self._think(limits)
        if result is None:
            return   # a message interrupted the search and has been handled
        move = result.move or engine.legal_moves(self.game.position)[0]
        self.last_score = result.score
        elapsed = time.monotonic() - self.turn_started
        self.game.push(move)
        self.link.send(MoveMsg(round(elapsed), move.frm, move.to, move.captured))
        self.clock.charge(time.monotonic() - self.turn_started, limits)
        self._set_turn()

    def _think(self, limits: engine.Limits) -> engine.Result | None:
        """Search in the background while watching the socket; a message other than
        CHAT stops the search, is handled, and None is returned."""
        pos, history = self.game.position, self.game.history()
        search = self.player.start(pos, history, limits)
        try:
            while not search.done():
                if not self.link.poll(0.02):
                    continue
                if self.link.inbox[0][:1] == "C":
                    self._on_message(self.link.receive(0))
                    continue
                self.player.stop()
                wait([search])
                self._on_message(self.link.receive(0))
                return None
        except PeerGone:
            self.player.stop()
            wait([search])
            raise
        try:
            return search.result()
        except Exception as exc:   # a search bug must not lose the game on the wire
            self.log(f"search failed ({exc!r}); playing the first legal move")
            return engine.Result(engine.legal_moves(pos)[0], None, None, 0, 0, 0.0, ())

    def _charge_interrupted_turn(self) -> None:
        self.clock.used += time.monotonic() - self.turn_started

    # ----- ending games ----------------------------------------------------------
    def _claim(self, outcome: engine.Outcome) -> None:
        ours = self.record.our_colour
        reason = 2 if outcome.winner is None else (3 if outcome.winner == ours else 1)
        self._send_end(reason, self._stop_code(), outcome.result, outcome.reason)

    def _claim_move_limit(self) -> None:
        # like Scan: a clear evaluation decides, otherwise the result is left open
        score = self.last_score if self.last_score is not None else 0
        ours = self.record.our_colour
        if abs(score) >= 300:
            winner = ours if score > 0 else 1 - ours
            self._send_end(3 if score > 0 else 1, self._stop_code(),
                           "2-0" if winner == engine.WHITE else "0-2", f"move limit, score {score}")
        else:
            self._send_end(0, self._stop_code(), "*", f"move limit, score {score}")

    def _stop_code(self) -> int:
        return 1 if self.config.initiator and self.games_requested >= self.config.games else 0

    def _send_end(self, reason: int, stop: int, result: str, why: str) -> None:
        self.link.send(GameEnd(reason, stop))
        self._finish(result, why)
        self.stop_after_confirm = stop == 1
        self.state = State.WAIT_END_CONFIRM

    def _finish(self, result: str, reason: str) -> None:
        rec = self.record
        if rec is None or rec.reason:
            return
        rec.result, rec.reason = result, reason
        rec.plies = self.decided[0] if self.decided else len(self.game.moves)
        c = rec.clock
        clock = f"{c.used:.1f} s of {c.budget:g} s" if c.budget is not None else f"{c.used:.1f} s"
        self.log(f"game {rec.number} result {result} ({reason}), {rec.plies} plies; "
                 f"{self.config.name} played {colour_name(rec.our_colour)}, used {clock}, "
                 f"slowest move {c.slowest:.3f} s, worst overshoot {max(c.overshoot, 0.0):.3f} s")

    def _after_end(self) -> None:
        """The GAMEEND handshake is complete."""
        if self.stop_after_confirm:
            self.state = State.CLOSED
        elif self.config.initiator:
            self._request_game()
        else:
            self.state = State.IDLE

    # ----- initiator ---------------------------------------------------------------
    def _wire_minutes(self) -> float:
        return parse_minutes(format_minutes(self.config.minutes))

    def _game_plan(self, number: int) -> tuple[engine.Position, int]:
        """Start position and our colour of game ``number`` (0-based): each position is
        played twice, colours swapped."""
        starts = self.config.starts
        return starts[(number // 2) % len(starts)], engine.WHITE if number % 2 == 0 else engine.BLACK

    def _request_game(self) -> None:
        if self.games_requested >= self.config.games:
            self.log("all games played")
            self.state = State.CLOSED
            return
        start, ours = self._game_plan(self.games_requested)
        self.games_requested += 1
        normal = start == engine.start_position()
        self.link.send(GameReq(self.config.name, ours == engine.BLACK, self.config.minutes, self.config.moves,
                               None if normal else engine.pos_to_dxp(start)[1:], start.turn == engine.WHITE))
        self.state = State.WAIT_ACC
