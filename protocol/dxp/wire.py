"""DXP (DamExchange) messages as values, their exact text layout, and NUL framing.

Pure code: no sockets, no engine.  ``decode(text)`` turns one message (without its
terminating NUL) into one of the seven message values; ``encode(msg)`` is its inverse.
Field widths follow ``spec/protocols.md`` §3.3 exactly and a decoder that sees anything
else raises :class:`DxpError` naming the field, because a peer such as Scan dies on a
single stray byte and we must never be the one to send it.

:class:`Framer` cuts a byte stream into messages at NUL bytes, whatever the TCP
segmentation: one ``recv()`` may carry half a message or several of them.

Positions travel as 50 characters ``e w z W Z`` (empty, white man, black man, white
king, black king) for squares 1..50; this module keeps them as text, the caller maps
them to a board.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from engine import BadInput

MAX_LEN = 127            # longest message, NUL excluded
NAME_LEN = 32
SQUARES = 50
PIECES = "ewzWZ"
START_BOARD = "z" * 20 + "e" * 10 + "w" * 20
VERSION = "01"


class DxpError(BadInput):
    """A message that does not follow the DXP layout; the text names the field (the
    project's one bad-input error)."""


class DxpVersionError(DxpError):
    """A GAMEREQ of a protocol version other than 01 (answered with GAMEACC code 1)."""

    def __init__(self, version: str):
        super().__init__(f"GAMEREQ version {version!r} is not supported (only 01)")
        self.version = version


@dataclass(frozen=True)
class GameReq:
    """R: the initiator proposes a game.

    ``minutes`` is the thinking time of each side for the whole game (0 = unspecified,
    fractions allowed); ``moves`` the number of moves per side, 0 = no limit.
    ``board`` is None for the normal start (``A``), else 50 characters of ``PIECES``
    with ``white_to_move`` saying who moves (``B``).
    """

    name: str
    follower_white: bool
    minutes: float
    moves: int
    board: str | None = None
    white_to_move: bool = True


@dataclass(frozen=True)
class GameAcc:
    """A: the follower answers a GAMEREQ; code 0 accepts, 1 wrong version,
    2 refuses this game, 3 refuses any game."""

    name: str
    code: int


@dataclass(frozen=True)
class MoveMsg:
    """M: a move as from, to and the set of captured squares; ``seconds`` used (informational)."""

    seconds: int
    frm: int
    to: int
    captured: tuple[int, ...] = ()


@dataclass(frozen=True)
class GameEnd:
    """E: reason from the sender's view (0 none, 1 I lose, 2 draw, 3 I win); stop 0 = another
    game is welcome, 1 = stop completely."""

    reason: int
    stop: int


@dataclass(frozen=True)
class Chat:
    """C: free text."""

    text: str


@dataclass(frozen=True)
class BackReq:
    """B: take back to move ``move`` (1 = first move of the game) with that colour to move."""

    move: int
    white_to_move: bool


@dataclass(frozen=True)
class BackAcc:
    """K: answer to a BACKREQ: 0 accepted, 1 not supported, 2 refused (game goes on)."""

    code: int


Message = GameReq | GameAcc | MoveMsg | GameEnd | Chat | BackReq | BackAcc
NAMES = {"R": "GAMEREQ", "A": "GAMEACC", "M": "MOVE", "E": "GAMEEND", "C": "CHAT",
         "B": "BACKREQ", "K": "BACKACC"}


# ----- fields ------------------------------------------------------------------------

def _digits(text: str, start: int, width: int, field: str, lo: int = 0, hi: int | None = None) -> int:
    chunk = text[start:start + width]
    if len(chunk) != width or any(c not in "0123456789" for c in chunk):
        raise DxpError(f"{field} must be {width} digits, got {chunk!r}")
    value = int(chunk)
    if value < lo or (hi is not None and value > hi):
        raise DxpError(f"{field} {chunk} out of range {lo:0{width}d}-{hi:0{width}d}")
    return value


def _colour(ch: str, field: str) -> bool:
    """True for white (``W``), False for black (``Z``)."""
    if ch not in ("W", "Z"):
        raise DxpError(f"{field} must be W or Z, got {ch!r}")
    return ch == "W"


def _length(text: str, expected: int, what: str) -> None:
    if len(text) != expected:
        raise DxpError(f"{what} must be {expected} characters long, got {len(text)}")


def _name(name: str) -> str:
    """A name field: printable ASCII, no leading space, padded to 32."""
    clean = "".join(c if " " <= c <= "~" else "?" for c in name).strip()[:NAME_LEN]
    return clean.ljust(NAME_LEN)


def parse_minutes(field: str) -> float:
    """The 3-character time field: ``005``, and the fractional forms ``0.5`` and ``.05``."""
    if (len(field) != 3 or any(c not in "0123456789." for c in field) or field.count(".") > 1
            or not any(c != "." for c in field)):
        raise DxpError(f"time must be 3 characters of minutes such as 005, 0.5 or .25, got {field!r}")
    return float(field)


def format_minutes(minutes: float) -> str:
    """The nearest 3-character time field; fractions use ``d.d`` or ``.dd``."""
    if not (math.isfinite(minutes) and 0 <= minutes <= 999):
        raise DxpError(f"time {minutes} minutes does not fit the 3-character field (0-999)")
    if minutes == round(minutes) or minutes >= 9.95:
        return f"{round(minutes):03d}"
    if minutes >= 1:
        return f"{minutes:.1f}"
    hundredths = round(minutes * 100)
    if hundredths % 10 == 0 and hundredths not in (0, 100):
        return f"0.{hundredths // 10}"
    if hundredths in (0, 100):
        return f"{hundredths // 100:03d}"
    return f".{hundredths:02d}"


def board_from_text(board: str) -> str:
    """Check a 50-character DXP board (``ewzWZ``); returns it unchanged."""
    if len(board) != SQUARES:
        raise DxpError(f"position must be {SQUARES} characters, got {len(board)}")
    for square, ch in enumerate(board, start=1):
        if ch not in PIECES:
            raise DxpError(f"position square {square}: {ch!r} is not one of {PIECES}")
    return board


# ----- decode ------------------------------------------------------------------------

def decode(text: str) -> Message:
    """One message (without its NUL) to a value; raises :class:`DxpError` naming the field."""
    if not text:
        raise DxpError("empty message")
    if len(text) > MAX_LEN:
        raise DxpError(f"message longer than {MAX_LEN} characters ({len(text)})")
    bad = next((c for c in text if not "\x01" <= c <= "\x7f"), None)
    if bad is not None:
        raise DxpError(f"character {bad!r} is not ASCII 1..127")
    kind = text[0]
    if kind == "R":
        return _decode_gamereq(text)
    if kind == "A":
        _length(text, 1 + NAME_LEN + 1, "GAMEACC")
        return GameAcc(text[1:1 + NAME_LEN].rstrip(), _digits(text, 33, 1, "GAMEACC code", 0, 3))
    if kind == "M":
        return _decode_move(text)
    if kind == "E":
        _length(text, 3, "GAMEEND")
        return GameEnd(_digits(text, 1, 1, "GAMEEND reason", 0, 3),
                       _digits(text, 2, 1, "GAMEEND stop code", 0, 1))
    if kind == "C":
        return Chat(text[1:])
    if kind == "B":
        _length(text, 5, "BACKREQ")
        return BackReq(_digits(text, 1, 3, "BACKREQ move number", 1, 999),
                       _colour(text[4], "BACKREQ colour to move"))
    if kind == "K":
        _length(text, 2, "BACKACC")
        return BackAcc(_digits(text, 1, 1, "BACKACC code", 0, 2))
    raise DxpError(f"unknown message type {kind!r} (expected one of {''.join(NAMES)})")


def _decode_gamereq(text: str) -> GameReq:
    version = text[1:3]
    if len(version) != 2 or any(c not in "0123456789" for c in version):
        raise DxpError(f"GAMEREQ version must be 2 digits, got {version!r}")
    if version != VERSION:
        raise DxpVersionError(version)
    if len(text) < 43:
        raise DxpError(f"GAMEREQ must be 43 or 94 characters long, got {len(text)}")
    name = text[3:35].rstrip()
    follower_white = _colour(text[35], "GAMEREQ follower colour")
    minutes = parse_minutes(text[36:39])
    moves = _digits(text, 39, 3, "GAMEREQ number of moves")
    start = text[42]
    if start == "A":
        _length(text, 43, "GAMEREQ with start position A")
        return GameReq(name, follower_white, minutes, moves)
    if start == "B":
        _length(text, 94, "GAMEREQ with start position B")
        return GameReq(name, follower_white, minutes, moves, board_from_text(text[44:94]),
                       _colour(text[43], "GAMEREQ colour to move"))
    raise DxpError(f"GAMEREQ starting position must be A or B, got {start!r}")


def _decode_move(text: str) -> MoveMsg:
    if len(text) < 11:
        raise DxpError(f"MOVE must be at least 11 characters long, got {len(text)}")
    seconds = _digits(text, 1, 4, "MOVE time")
    frm = _digits(text, 5, 2, "MOVE from square", 1, SQUARES)
    to = _digits(text, 7, 2, "MOVE to square", 1, SQUARES)
    n = _digits(text, 9, 2, "MOVE number of captured pieces", 0, 20)
    _length(text, 11 + 2 * n, f"MOVE with {n} captured pieces")
    captured = tuple(_digits(text, 11 + 2 * i, 2, f"MOVE captured square {i + 1}", 1, SQUARES)
                     for i in range(n))
    if len(set(captured)) != n:
        raise DxpError(f"MOVE lists a captured square twice: {text[11:]!r}")
    return MoveMsg(seconds, frm, to, captured)


# ----- encode ------------------------------------------------------------------------

def encode(msg: Message) -> str:
    """The exact text of ``msg`` (no NUL); raises :class:`DxpError` if a field cannot fit."""
    if isinstance(msg, GameReq):
        head = (f"R{VERSION}{_name(msg.name)}{'W' if msg.follower_white else 'Z'}"
                f"{format_minutes(msg.minutes)}{_field(msg.moves, 3, 'number of moves')}")
        if msg.board is None:
            return head + "A"
        return head + "B" + ("W" if msg.white_to_move else "Z") + board_from_text(msg.board)
    if isinstance(msg, GameAcc):
        return f"A{_name(msg.name)}{_field(msg.code, 1, 'GAMEACC code', 3)}"
    if isinstance(msg, MoveMsg):
        if len(msg.captured) > 20:
            raise DxpError(f"MOVE cannot carry {len(msg.captured)} captured pieces (max 20)")
        squares = [_field(s, 2, "square", SQUARES, 1) for s in (msg.frm, msg.to, *msg.captured)]
        return (f"M{_field(min(max(msg.seconds, 0), 9999), 4, 'time')}{squares[0]}{squares[1]}"
                f"{len(msg.captured):02d}{''.join(squares[2:])}")
    if isinstance(msg, GameEnd):
        return f"E{_field(msg.reason, 1, 'GAMEEND reason', 3)}{_field(msg.stop, 1, 'stop code', 1)}"
    if isinstance(msg, Chat):
        text = "".join(c if " " <= c <= "~" else "?" for c in msg.text)[:MAX_LEN - 1]
        return "C" + (text or " ")
    if isinstance(msg, BackReq):
        return f"B{_field(msg.move, 3, 'BACKREQ move number', 999, 1)}{'W' if msg.white_to_move else 'Z'}"
    if isinstance(msg, BackAcc):
        return f"K{_field(msg.code, 1, 'BACKACC code', 2)}"
    raise DxpError(f"not a DXP message: {msg!r}")


def _field(value: int, width: int, field: str, hi: int | None = None, lo: int = 0) -> str:
    hi = 10 ** width - 1 if hi is None else hi
    if not lo <= value <= hi:
        raise DxpError(f"{field} {value} out of range {lo}-{hi}")
    return f"{value:0{width}d}"


# ----- framing -----------------------------------------------------------------------

class Framer:
    """Cuts a byte stream into NUL-terminated messages.

    ``feed(data)`` returns the messages completed by ``data``, decoded as Latin-1 so
    that a stray byte reaches :func:`decode` and gets a clear error instead of a crash.
    Empty frames (two NULs in a row) are skipped.  A frame that runs past
    ``MAX_LEN`` without a NUL is cut short: its first ``MAX_LEN + 1`` characters are kept
    (so ``decode`` reports it as too long) and the rest is dropped up to the next NUL,
    which bounds the memory a peer can make us hold.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[str]:
        out: list[str] = []
        start = 0
        while True:
            nul = data.find(b"\0", start)
            piece = data[start:] if nul < 0 else data[start:nul]
            if not self._overflow:
                self._buf += piece
                if len(self._buf) > MAX_LEN:
                    del self._buf[MAX_LEN + 1:]
                    self._overflow = True
            if nul < 0:
                return out
            frame = self._buf.decode("latin-1").strip("\r\n")
            if frame:
                out.append(frame)
            self._buf.clear()
            self._overflow = False
            start = nul + 1

    @property
    def pending(self) -> int:
        """Bytes held of an unfinished message."""
        return len(self._buf)


def frame(msg: Message | str) -> bytes:
    """The bytes to send for ``msg``: its exact text and one NUL."""
    text = msg if isinstance(msg, str) else encode(msg)
    return text.encode("ascii") + b"\0"
