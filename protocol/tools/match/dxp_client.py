"""A DXP engine seen as a Hub engine: the runner's games drive it as a DXP initiator.

An engine that only speaks DXP (DamExchange) listens on a TCP port as follower.  This
client starts its command (``{port}`` in the command is replaced by a free port), connects,
and plays the runner's games through DXP messages: the first time the engine must move in
a game, a GAMEREQ sets up the position reached (and the engine's colour, clock and move
limit); after that each of the opponent's moves is sent as a MOVE and the engine's MOVE is
its answer.  When the runner ends a game, a GAMEEND (reason 0, another game welcome) tells
the engine.  It offers the calls the match runner makes of :class:`HubClient` (``start``,
``ping``, ``new_game``, ``search``, ``alive``, ``quit``, ``rss``, ``name``).

An engine on another host is given by its address, ``dxp://HOST:PORT``
(:func:`parse_address`): its operator starts and stops it, the client only connects (one
attempt per :meth:`DxpClient.start`) and closes the connection on ``quit``.  A refused
connection, or a peer that sends no GAMEACC within ``accept_timeout``, is an
:class:`EngineError` whose message says so; the runner names the address.

DXP carries 10x10 boards only (international draughts) and knows no increment: the
engine is told its whole clock in minutes (:func:`gamereq_minutes`: what the 3-character
field can carry) and the move limit, and the runner keeps that clock for it.

A GAMEEND from the engine in place of a move is confirmed at once (the spec leaves the
other side no choice) and raised as :class:`DxpGameEnd`, with the result code, the moves
the engine has played since its GAMEREQ, the move limit and the CHAT that came with it:
the runner scores it (:mod:`.adjudicate`).  Anything else the engine sends in place of a
move is named in the error, so it is never taken for silence.
"""
from __future__ import annotations

import atexit
import shlex
import socket
import subprocess
import time

from engine import BadInput, move_from_hub, move_to_hub, play, pos_from_hub, pos_to_dxp

from ...dxp.link import Link, PeerGone, PeerSilent
from ...dxp.wire import (Chat, DxpError, GameAcc, GameEnd, GameReq, MoveMsg, decode,
                        format_minutes)
from ...hub.client import EngineError, EngineProtocolError, EngineTimeout, SearchReply

# Engine processes started and not yet waited for.  A DXP engine has no stdin to lose and,
# in a session of its own, no group signal ends it: whatever is still running when the
# manager exits (a game stopped by Ctrl-C that outlived the stop's wait) is killed here.
_LIVE: set = set()


@atexit.register
def _kill_live() -> None:
    for proc in list(_LIVE):
        if proc.poll() is None:
            proc.kill()

NAME = "Rafle tournament"
ADDRESS = "dxp://"      # the prefix of an engine on another host: dxp://HOST:PORT
CHAT_WAIT = 0.2         # seconds to wait for the CHAT an engine sends after its GAMEEND (Scan)


class DxpGameEnd(EngineError):
    """The engine sent GAMEEND instead of a move: ``reason`` from its view (0 unknown,
    1 it loses, 2 draw, 3 it wins), ``moves`` it has played since its GAMEREQ, the GAMEREQ's
    move ``limit`` (0: none), and the ``chat`` that came with it."""

    def __init__(self, name: str, text: str, end: GameEnd, moves: int, limit: int, chat: str):
        said = f"GAMEEND {text!r}" + (f" and CHAT {chat!r}" if chat else "")
        super().__init__(f"{name} sent {said}")
        self.said, self.reason, self.chat = said, end.reason, chat
        self.moves, self.limit = moves, limit

    @property
    def at_limit(self) -> bool:
        return self.limit > 0 and self.moves >= self.limit


def gamereq_minutes(seconds: float) -> float:
    """The minutes a GAMEREQ's time field carries for a clock of ``seconds`` (0.01 to 999,
    rounded as the field writes them): the engine's whole clock for the game."""
    return float(format_minutes(min(max(seconds / 60.0, 0.01), 999)))


def parse_address(text: str) -> tuple[str, int] | None:
    """``dxp://HOST:PORT`` (an engine on another host) as (host, port); None for a command.
    A ValueError names what is wrong with a malformed address."""
    text = text.strip()
    if not text.startswith(ADDRESS):
        return None
    host, colon, port = text[len(ADDRESS):].rpartition(":")
    host = host.strip("[]")            # [::1]:27531
    if not colon or not host:
        raise ValueError(f"{text!r}: an address is dxp://HOST:PORT")
    return host, check_port(port, text)


def check_port(port, where: str) -> int:
    """``port`` as a TCP port number (1 to 65535), or a ValueError naming ``where``."""
    try:
        number = int(port)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: the port must be a number, not {port!r}") from None
    if not 1 <= number <= 65535:
        raise ValueError(f"{where}: the port must be from 1 to 65535, not {number}")
    return number


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DxpClient:
    """One DXP engine, driven over one connection for many games: a process this client
    starts, or (``command`` ``dxp://HOST:PORT``) an engine on another host it only connects to."""

    def __init__(self, command: str, minutes: float = 1.0, moves: int = 0, host: str = "127.0.0.1",
                 cwd: str | None = None, log=None, label: str = "engine",
                 accept_timeout: float = 30.0):
        address = parse_address(command)
        self.remote = address is not None
        if self.remote:
            (self.host, self.port), self.argv = address, []
            self.name = f"{self.host}:{self.port}"
        else:
            self.port = free_port()
            self.argv = [a.replace("{port}", str(self.port)) for a in shlex.split(command)]
            if not self.argv:
                raise EngineError("empty engine command")
            self.host = host
            self.name = self.argv[0].rsplit("/", 1)[-1]
        self.cwd = cwd
        self.minutes, self.moves = minutes, moves
        self.accept_timeout = accept_timeout
        self.label = label
        self._log = log or (lambda text: None)
        self.proc: subprocess.Popen | None = None
        self.link: Link | None = None
        self._game: list[str] | None = None       # Hub moves of the game as the engine knows it
        self._start: str | None = None            # the game's start (Hub position string)
        self._pos = None                          # the position after ``_game``
        self._requested_at = 0                    # the ply of the game where the GAMEREQ stands

    # ----- process and connection ------------------------------------------------
    def start(self, timeout: float = 120.0) -> None:
        if self.remote:
            return self._connect(timeout)
        try:   # its own session, as a Hub engine's (HubClient.start)
            self.proc = subprocess.Popen(self.argv, cwd=self.cwd, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         start_new_session=True)
            _LIVE.add(self.proc)
        except OSError as e:
            raise EngineError(f"cannot start {' '.join(self.argv)!r}: {e}") from None
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise EngineError(f"{self.argv[0]} exited with code {self.proc.returncode} "
                                  "before accepting a DXP connection")
            try:
                sock = socket.create_connection((self.host, self.port), timeout=1.0)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise EngineError(f"no DXP server on {self.host}:{self.port} after "
                                      f"{timeout:g} s") from None
                time.sleep(0.1)
        self.link = Link(sock, trace=lambda text: self._log(f"{self.label} {text}"))

    def _connect(self, timeout: float) -> None:
        """One attempt to reach an engine on another host; its operator runs it."""
        try:
            sock = socket.create_connection((self.host, self.port), timeout=timeout)
        except ConnectionRefusedError:
            raise EngineError("connection refused") from None
        except (TimeoutError, socket.timeout):
            raise EngineError(f"no answer to the connection within {timeout:g} s") from None
        except OSError as exc:
            raise EngineError(f"cannot connect: {exc.strerror or exc}") from None
        self.link = Link(sock, trace=lambda text: self._log(f"{self.label} {text}"))

    def alive(self) -> bool:
        if self.remote:       # the peer may have closed the connection between games
            try:
                return self.link is not None and (self.link.poll(0.001) or True)
            except PeerGone:
                self.link.close()
                self.link = None
                return False
        return self.proc is not None and self.proc.poll() is None and self.link is not None

    def rss(self) -> int | None:
        return None

    def quit(self, grace: float = 2.0) -> None:
        if self.link is not None:
            try:
                if self._game is not None:
                    self.link.send(GameEnd(0, 1), spaced=False)
            except PeerGone:
                pass
            self.link.close()
            self.link = None
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            _LIVE.discard(proc)

    def ping(self, timeout: float = 10.0) -> None:
        if not self.alive():
            raise EngineError(f"{self.name} is not running")

    def new_game(self) -> None:
        """End the game the engine is in, if any (the runner has judged it)."""
        if self._game is not None and self.link is not None:
            try:
                self.link.send(GameEnd(0, 0))
                self._expect(GameEnd, time.monotonic() + 5.0)
            except (PeerGone, PeerSilent, EngineError):
                pass          # an engine that does not answer GAMEEND can still play the next
        self._game = None

    # ----- one move ----------------------------------------------------------------
    def search(self, position: str, moves: list[str], level: list[str],
               deadline: float, stop_at: float | None = None) -> SearchReply:
        if not self.alive():
            raise EngineError(f"{self.name} is not running")
        sent = time.perf_counter()
        try:
            known = self._game or []
            if self._game is None or self._start != position or moves[:len(known)] != known:
                if self._game is not None:
                    self.new_game()
                pos = pos_from_hub(position)
                for text in moves:
                    pos = play(pos, move_from_hub(pos, text))
                self._request(pos)
                self._start, self._pos, self._requested_at = position, pos, len(moves)
            else:
                for text in moves[len(known):]:          # the opponent's reply
                    move = move_from_hub(self._pos, text)
                    self.link.send(MoveMsg(0, move.frm, move.to, tuple(sorted(move.captured))))
                    self._pos = play(self._pos, move)
            self._game = list(moves)
            reply = self._expect(MoveMsg, deadline)
        except DxpError as exc:
            raise EngineProtocolError(f"{self.name} sent a message that is not DXP: "
                                      f"{exc}") from None
        except (PeerGone, BadInput) as exc:
            raise EngineError(f"{self.name}: {exc}") from None
        text = _hub_move(self._pos, reply)
        self._game.append(text)
        try:
            self._pos = play(self._pos, move_from_hub(self._pos, text))
        except BadInput:
            self._game = None         # an illegal move: the runner ends this game
        return SearchReply(text, time.perf_counter() - sent, {})

    def _request(self, pos) -> None:
        board = pos_to_dxp(pos)
        self.link.send(GameReq(NAME, follower_white=board[0] == "W", minutes=self.minutes,
                               moves=self.moves, board=board[1:], white_to_move=board[0] == "W"))
        acc = self._expect(GameAcc, time.monotonic() + self.accept_timeout)
        if acc.code != 0:
            raise EngineProtocolError(f"{self.name} refused the game (GAMEACC code {acc.code})")
        if acc.name.strip():
            self.name = acc.name.strip()

    def _expect(self, kind, deadline: float):
        """The next message of ``kind``; chat and stray game ends are skipped, anything
        else the engine sends is kept to name it if no ``kind`` comes."""
        chats, others = [], []
        while True:
            text = self._receive(deadline)
            if text is None and others:
                raise EngineProtocolError(f"{self.name} sent {', '.join(others)} instead of a "
                                          f"{kind.__name__}")
            if text is None and kind is MoveMsg:
                said = ", ".join(f"CHAT {c!r}" for c in chats)
                raise EngineTimeout(f"{self.name}: no {kind.__name__} in time", said)
            if text is None and kind is GameAcc:
                raise EngineError(f"no GAMEACC within {self.accept_timeout:g} s of the GAMEREQ")
            if text is None:
                raise EngineError(f"{self.name}: no {kind.__name__} in time")
            msg = decode(text)
            if isinstance(msg, kind):
                return msg
            if isinstance(msg, Chat):
                chats.append(msg.text)
            elif isinstance(msg, GameEnd) and kind is MoveMsg:
                self._ended(text, msg, chats)
            elif not isinstance(msg, GameEnd):
                others.append(repr(text))

    def _receive(self, deadline: float) -> str | None:
        """The next message's text, or None if none comes by the monotonic ``deadline``."""
        left = deadline - time.monotonic()
        try:
            return self.link.receive(left) if left > 0 else None
        except PeerSilent:
            return None

    def _ended(self, text: str, end: GameEnd, chats: list[str]) -> None:
        """The engine ended the game: confirm, read the CHAT that may follow, raise."""
        moves = (len(self._game) - self._requested_at) // 2
        self._game = None
        self.link.send(GameEnd(0, end.stop), spaced=False)
        try:
            while self.link.poll(CHAT_WAIT) and self.link.inbox[0][:1] == "C":
                chats.append(self.link.receive(0)[1:])
        except PeerGone:
            pass
        if end.stop:                  # it wants no other game: let it go
            self.quit()
        raise DxpGameEnd(self.name, text, end, moves, self.moves, " / ".join(chats))


def _hub_move(pos, msg: MoveMsg) -> str:
    """The Hub text of the engine's DXP move: from, to and the captured squares."""
    head = f"{msg.frm}{'x' if msg.captured else '-'}{msg.to}"
    text = head + "".join(f"x{c}" for c in msg.captured)
    try:
        return move_to_hub(move_from_hub(pos, text))
    except BadInput:
        return text           # illegal: the runner judges it and the engine loses
