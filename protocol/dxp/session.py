"""The DXP dialogue of one connection: the message state machine over a :class:`.link.Link`.

:class:`Session` is the state machine of ``spec/protocols.md`` §3.2 (states in
:class:`State`), for the follower and the initiator: it turns messages into moves, take-backs
and results of the game on the connection (:class:`.game.DxpGame`: the rules' record, our
clock, the result), and moves from a player (Rafle's search, or a scripted one in tests)
into messages.  The behaviour choices are listed in ``protocol.dxp.cli``.
"""
from __future__ import annotations

import enum
import time
from concurrent.futures import Future, wait
from dataclasses import dataclass, field, replace

import engine

from .game import DxpGame, GameRecord, colour_name
from .link import Link, PeerGone, PeerSilent
from .wire import (BackAcc, BackReq, Chat, DxpError, DxpVersionError, GameAcc, GameEnd, GameReq,
                   MoveMsg, decode, format_minutes, parse_minutes)

CONFIRM_TIMEOUT = 10.0      # wait for the peer's GAMEEND confirmation
CLAIM_GRACE = 1.0           # a follower lets the peer end a decided game first for this long
HANDSHAKE_TIMEOUT = 10.0    # a new connection's first message must come within this
NAME = "Rafle"


class State(enum.Enum):
    IDLE = "no game"                       # follower: waiting for GAMEREQ
    WAIT_ACC = "waiting for GAMEACC"       # initiator: GAMEREQ sent
    OUR_TURN = "our move"
    THEIR_TURN = "their move"
    DECIDED = "the rules ended the game"   # we claim it unless the peer does first
    GAME_OVER = "game over, not claimed"   # no legal move for us; the peer ends the game
    WAIT_END_CONFIRM = "waiting for the GAMEEND confirmation"
    CLOSED = "closed"


IN_GAME = (State.OUR_TURN, State.THEIR_TURN, State.DECIDED, State.GAME_OVER)


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


@dataclass
class Config:
    name: str = NAME
    initiator: bool = False
    games: int = 1
    minutes: float = 0.0
    moves: int = 0
    starts: list[engine.Position] = field(default_factory=lambda: [engine.start_position()])
    claim_end: bool = False                 # follower: claim at once, without the grace
    movetime: float | None = None
    peer_timeout: float = 300.0
    confirm_timeout: float = CONFIRM_TIMEOUT
    claim_grace: float = CLAIM_GRACE
    handshake_timeout: float = HANDSHAKE_TIMEOUT


# ----- the dialogue --------------------------------------------------------------------

class Session:
    """One connection's dialogue.  ``run()`` returns when the connection is over."""

    def __init__(self, link: Link, player, config: Config, log=print):
        self.link, self.player, self.config, self.log = link, player, config, log
        self.state = State.IDLE
        self.records: list[GameRecord] = []
        self.current: DxpGame | None = None   # the game on the connection (the last one)
        self.stop_after_confirm = False
        self.games_requested = 0
        self.claim_at = 0.0                   # DECIDED: when we claim if the peer has not

    @property
    def game(self) -> engine.Game | None:
        """The rules' record of the current game."""
        return None if self.current is None else self.current.game

    # ----- main loop -------------------------------------------------------------
    def run(self) -> list[GameRecord]:
        try:
            if self.config.initiator:
                self._request_game()
            while self.state is not State.CLOSED:
                if self.state is State.OUR_TURN:
                    self._our_turn()
                    continue
                try:
                    text = self.link.receive(self._patience())
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

    def _patience(self) -> float:
        """Seconds to wait for the next message in the current state."""
        if self.state is State.WAIT_END_CONFIRM:
            return self.config.confirm_timeout
        if self.state is State.DECIDED:
            return max(0.0, self.claim_at - time.monotonic())
        if self.state is State.IDLE and self.current is None and not self.config.initiator:
            return self.config.handshake_timeout      # a silent new client is dropped soon
        return self.config.peer_timeout

    def _silence(self, why: str) -> None:
        if self.state is State.DECIDED:
            self._claim()
        elif self.state is State.WAIT_END_CONFIRM:
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
        self.link.send(Chat(f"error: {problem}"), spaced=False)
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
            self.current.charge_interrupted_turn()
        self.link.send(GameEnd(0, end.stop))
        self._finish(*self.current.peer_result(end.reason))   # the rules' decision comes first
        self.stop_after_confirm = end.stop == 1
        self._after_end()

    def _on_backreq(self, req: BackReq) -> None:
        if self.state not in IN_GAME:
            self.log(f"refused BACKREQ ({self.state.value})")
            self.link.send(BackAcc(1 if self.state is State.IDLE else 2))
            return
        ply = self.current.ply_of(req.move, req.white_to_move)
        wanted = engine.WHITE if req.white_to_move else engine.BLACK
        if ply is None:
            self.log(f"refused BACKREQ to move {req.move} {colour_name(wanted)}: not in this game")
            self.link.send(BackAcc(2))
            return
        if self.state is State.OUR_TURN:
            self.current.charge_interrupted_turn()
        self.current.take_back(ply)
        self.log(f"took back to move {req.move}, {colour_name(wanted)} to move")
        self.link.send(BackAcc(0))
        self._set_turn()

    # ----- our side of the game --------------------------------------------------
    def _begin(self, start: engine.Position, ours: int, opponent: str, minutes: float, moves: int) -> None:
        self.current = DxpGame(len(self.records) + 1, start, ours, opponent, minutes, moves,
                               self.config.movetime)
        self.records.append(self.current.record)
        names = ((self.config.name, opponent or "?") if ours == engine.WHITE
                 else (opponent or "?", self.config.name))
        self.log(f"game {self.current.record.number}: {names[0]} (white) - {names[1]} (black), "
                 f"{f'{minutes:g} min' if minutes else 'time 000'}, {moves or 'no'} move limit, "
                 f"start {'normal' if start == engine.start_position() else engine.pos_to_fen(start)}")
        self.player.new_game()
        self._set_turn()

    def _set_turn(self) -> None:
        """The state after a ply or a take-back: claim, move, or wait."""
        g = self.current
        decided = g.judge()
        claiming = self.config.initiator or self.config.claim_end
        # GAMEEND replaces a MOVE, so it is sent on our turn; when the peer has no move
        # at all it cannot answer, so it is sent then too.  A follower first gives the
        # peer a moment to end the game itself (pydraughts judges games itself and hangs
        # on a GAMEEND it did not expect, P2); an initiator or --claim-end claims at once.
        if decided and (g.our_move or "no legal move" in decided.reason):
            if claiming:
                self._claim()
            else:
                self.state = State.DECIDED
                self.claim_at = time.monotonic() + self.config.claim_grace
        elif claiming and g.our_move and g.move_limit_reached():
            reason, result, why = g.move_limit_claim()
            self._send_end(reason, self._stop_code(), result, why)
        elif not g.our_move:
            self.state = State.THEIR_TURN
        elif engine.legal_moves(g.game.position):
            self.state = State.OUR_TURN
            g.start_turn()
        else:
            self.log(f"no legal move for {self.config.name}; waiting for the peer to end the game")
            self.state = State.GAME_OVER

    def _our_turn(self) -> None:
        g = self.current
        limits = g.limits()
        result = self._think(limits)
        if result is None:
            return   # a message interrupted the search and has been handled
        move = result.move or engine.legal_moves(g.game.position)[0]
        g.last_score = result.score
        elapsed = g.elapsed()
        g.game.push(move)
        self.link.send(MoveMsg(round(elapsed), move.frm, move.to, move.captured))
        g.clock.charge(g.elapsed(), limits)
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

    # ----- ending games ----------------------------------------------------------
    def _claim(self) -> None:
        """End the game the rules have decided, with its result."""
        decided = self.current.judge()
        self.log(f"the rules ended the game ({decided.reason}): claiming {decided.result}")
        self._send_end(self.current.claim(decided), self._stop_code(), decided.result,
                       decided.reason)

    def _stop_code(self) -> int:
        return 1 if self.config.initiator and self.games_requested >= self.config.games else 0

    def _send_end(self, reason: int, stop: int, result: str, why: str) -> None:
        self.link.send(GameEnd(reason, stop))
        self._finish(result, why)
        self.stop_after_confirm = stop == 1
        self.state = State.WAIT_END_CONFIRM

    def _finish(self, result: str, reason: str) -> None:
        text = None if self.current is None else self.current.finish(result, reason,
                                                                      self.config.name)
        if text is not None:
            self.log(text)

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
