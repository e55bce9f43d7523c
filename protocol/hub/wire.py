"""Hub protocol text: the line tokenizer and the formatting of outgoing lines.

Tokenizing follows Scan's reference scanner (shared spec, protocols.md §1.2): a line is
``<command> <name>[=<value>] ...``; blanks are ``str.isspace`` characters and may surround
``=``; a name or unquoted value is a run of printable characters other than blanks, ``=``
and ``"``; a quoted value runs to the next ``"`` (there is no escape).  An argument without
``=`` is a flag whose value is the empty string.

Outgoing values are quoted exactly when Scan quotes them (empty, or holding a character that
is not a name character), except ``pv``, which is always quoted because lidraughts-bot strips
its first and last characters (protocols.md §6 P13).

``Level`` accumulates ``level`` lines into search limits.  This module knows nothing about the
engine but its value parser: it turns text into tuples and numbers, and numbers into text.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine import BadInput, parse_float


@dataclass(frozen=True)
class Command:
    """One input line: the command word, its arguments in order, and a syntax complaint.

    ``error`` is None for a well-formed line.  When it is set, ``args`` holds the arguments
    read before the fault, so each command can decide how much to trust them.
    """

    name: str
    args: tuple[tuple[str, str], ...] = ()
    error: str | None = None

    def get(self, key: str, default: str | None = None) -> str | None:
        """Value of the last argument called ``key`` (flags have the value ``""``)."""
        for name, value in reversed(self.args):
            if name == key:
                return value
        return default

    def has(self, key: str) -> bool:
        return any(name == key for name, _ in self.args)


def is_name_char(ch: str) -> bool:
    return ch.isprintable() and not ch.isspace() and ch not in '="'


def is_name(text: str) -> bool:
    return bool(text) and all(is_name_char(ch) for ch in text)


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def skip_blanks(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def at_end(self) -> bool:
        self.skip_blanks()
        return self.i >= len(self.text)

    def name(self) -> str:
        self.skip_blanks()
        start = self.i
        while self.i < len(self.text) and is_name_char(self.text[self.i]):
            self.i += 1
        if self.i == start:
            found = self.peek()
            raise BadInput(f"expected a name at column {self.i + 1}, found {found!r}")
        return self.text[start:self.i]

    def value(self) -> str:
        self.skip_blanks()
        if self.peek() != '"':
            return self.name()
        end = self.text.find('"', self.i + 1)
        if end < 0:
            raise BadInput(f"missing closing quote after column {self.i + 1}")
        value = self.text[self.i + 1:end]
        self.i = end + 1
        return value


def tokenize(line: str) -> Command | None:
    """The command on ``line``, or None for a blank line (or one with no command word)."""
    scanner = _Scanner(line)
    if scanner.at_end():
        return None
    try:
        command = scanner.name()
    except BadInput:
        return None
    args: list[tuple[str, str]] = []
    try:
        while not scanner.at_end():
            key = scanner.name()
            scanner.skip_blanks()
            value = ""
            if scanner.peek() == "=":
                scanner.i += 1
                value = scanner.value()
            args.append((key, value))
    except BadInput as exc:
        return Command(command, tuple(args), str(exc))
    return Command(command, tuple(args))


def quote(value: str) -> str:
    """A value as Scan writes it: bare when it is a name, double-quoted otherwise."""
    # A '"' cannot be carried by the protocol at all; a quote-free message is still readable.
    value = value.replace('"', "'")
    return value if is_name(value) else f'"{value}"'


def line(command: str, *pairs: tuple[str, str]) -> str:
    """``command name=value ...`` with values quoted where needed."""
    return " ".join([command] + [f"{name}={quote(value)}" for name, value in pairs])


def error_line(message: str) -> str:
    return line("error", ("message", " ".join(message.split())))


# ----- level ----------------------------------------------------------------------------

class Level:
    """``level`` lines accumulated since the last ``pos`` or search."""

    INTEGERS = ("depth", "nodes", "moves")
    REALS = ("move-time", "time", "inc")

    def __init__(self):
        self.fields: dict[str, float | int | bool] = {}

    def update(self, cmd: Command) -> None:
        for key, value in cmd.args:
            if key == "infinite":
                self.fields["infinite"] = True
            elif key in self.INTEGERS or key in self.REALS:
                number = parse_float(value)   # lenient: 4.8, 1e3, 5.0 for an integer
                if number is not None:
                    self.fields[key] = int(number) if key in self.INTEGERS else number
            # anything else (handicap, ply, ponder, ...) is ignored, as the spec asks

    def limits(self, limits_type, analyze: bool):
        """The search limits; a negative clock or budget means "move now"."""
        f = self.fields
        if not f and analyze:
            return limits_type(infinite=True)  # analysis without a level runs until stop
        time_left, inc = f.get("time"), max(0.0, f.get("inc", 0.0))
        if time_left is not None and time_left < 0:
            # The Hub increment is added before the move, so time + inc is what is left.
            time_left, inc = 0.0, max(0.0, time_left + inc)
        moves = f.get("moves")
        return limits_type(
            depth=max(1, f["depth"]) if "depth" in f else None,
            nodes=max(1, f["nodes"]) if "nodes" in f else None,
            movetime=max(0.0, f["move-time"]) if "move-time" in f else None,
            time=time_left, inc=inc,
            moves=moves if moves is not None and moves > 0 else None,
            infinite=bool(f.get("infinite", False)))


# ----- numbers --------------------------------------------------------------------

def score_text(score: int) -> str:
    """Hundredths of a man as men with two decimals, exactly (no float rounding)."""
    sign = "-" if score < 0 else ""
    whole, cents = divmod(abs(int(score)), 100)
    return f"{sign}{whole}.{cents:02d}"


def info_line(depth: int, mean_depth: float, score: int | None, nodes: int, seconds: float,
              pv: list[str], line: int = 0) -> str:
    """An ``info`` line in Scan's key order; keys are left out where Scan leaves them out.
    ``line``: the MultiPV line (0: none, the key is left out), written first."""
    parts = ["info"]
    if line > 0:
        parts.append(f"multipv={line}")
    if depth > 0:
        parts.append(f"depth={depth}")
    if mean_depth > 0:
        parts.append(f"mean-depth={mean_depth:.1f}")
    if score is not None:
        parts.append(f"score={score_text(score)}")
    if nodes > 0:
        parts.append(f"nodes={nodes}")
    if seconds >= 0.001:
        parts.append(f"time={seconds:.3f}")
    if seconds >= 0.01 and nodes > 0:
        parts.append(f"nps={nodes / seconds / 1e6:.1f}")
    if pv:
        parts.append('pv="' + " ".join(pv) + '"')
    return " ".join(parts)
