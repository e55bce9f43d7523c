"""A client for Hub version 1 engines (Hub-1: Scan 2.0 and Hub 1.0's dialect, a UCI subset).

It differs from version 2 (:class:`~.client.HubClient`, whose process handling, timing and
error handling it keeps) in the lines of a search, of a new game and of the introduction, as
Scan 2.0's ``hub_loop`` (its src/main.cpp) reads and writes them:

* a search is ``pos <position>`` (the side to move in lower case, ``w`` or ``b``, then the 50
  squares as the Hub writes them: Scan 2.0's ``pos_from_hub`` refuses an upper-case side;
  Hub-1 carries no moves, so the engine does not see the game's earlier positions; ``pos``
  also resets the engine's limits, so the limit comes after it), then ``level <moves> <time>
  <increment>`` (moves to the next time control, 0 for the whole game; the time left and the
  increment in whole milliseconds) or ``time <ms>`` (a fixed time for this move), then
  ``go``; the answer is ``move <move> [<ponder move>]``, after any ``info`` lines;
* a new game is ``new`` (version 2's ``new-game``);
* the engine introduces itself with ``name ...`` (and ``author``, ``country``) and ends with
  ``wait``; ``init`` is answered ``ready``, ``ping`` ``pong``, as in version 2;
* an ``info`` line is positional: ``info <depth> <mean depth> <score> <nodes> <time> <speed>
  <pv ...>`` (Scan 2.0's ``disp_best_move``, src/search.cpp: the score in hundredths of a
  man, the time in seconds with two decimals, the speed in millions of nodes a second), written
  when a root move becomes the best one, from depth 12 on (depth 0: a book or forced move); the
  client hands it on with version 2's names (``depth``, ``mean-depth``, ``score`` in men,
  ``nodes``, ``time``, ``nps``, ``pv``);
* there are no declared parameters; Scan 2.0 reads ``set <name> <value>`` into its scan.ini
  variables (``set book false``), which is how the client sends its options (the match runner
  refuses options for such an engine).

Hub-1 has no depth or node limit.  An engine that answers ``error`` (Scan 2.0: ``error bad
position``) has refused the position and would search the board it had before: the search
raises :class:`~.client.EngineRefused`, and the match runner scores the game as that
engine's refusal.
"""
from __future__ import annotations

from engine import move_from_hub, play, pos_from_hub, pos_to_hub

from .client import HubClient, parse_line
from .wire import score_text


def hub1_position(position: str) -> str:
    """The Hub-1 position string: the side to move in lower case (``w``/``b``), then the
    squares as version 2 writes them."""
    return position[:1].lower() + position[1:]


def level_line(level: list[str]) -> str:
    """The Hub-1 limit line (``level ...`` or ``time <ms>``) for the version 2 ``level``
    arguments the runner gives (``moves=.. time=.. inc=..`` or ``move-time=..``, seconds)."""
    args = _level_args(level)
    if "move-time" in args:
        return f"time {_ms(args['move-time'])}"
    if "time" not in args:
        raise ValueError("a Hub version 1 engine needs a clock or a move time")
    return f"level {int(args.get('moves', 0))} {_ms(args['time'])} {_ms(args.get('inc', '0'))}"


def depth_line(level: list[str]) -> str | None:
    """Scan 2.0's ``depth <n>`` for a ``depth=..`` among the ``level`` arguments, or None.
    Scan resets it with each ``pos``, so it goes between the position and ``go``."""
    args = _level_args(level)
    return f"depth {int(args['depth'])}" if "depth" in args else None


def _level_args(level: list[str]) -> dict[str, str]:
    """The version 2 ``level`` arguments the runner gives, as one dict."""
    args: dict[str, str] = {}
    for text in level:
        args.update(parse_line(f"level {text}")[1])
    return args


def _ms(seconds: str) -> int:
    return max(round(float(seconds) * 1000), 0)


INFO_FIELDS = ("depth", "mean-depth", "score", "nodes", "time", "nps")


def info_fields(line: str) -> dict[str, str] | None:
    """Scan 2.0's positional ``info`` line with version 2's names, or None for another form."""
    words = line.split()
    if len(words) < 1 + len(INFO_FIELDS) or not words[1].isdigit():
        return None
    fields = dict(zip(INFO_FIELDS, words[1:]))
    try:
        fields["score"] = score_text(int(fields["score"]))
        int(fields["nodes"]), float(fields["time"]), float(fields["nps"])
    except ValueError:
        return None
    fields["pv"] = " ".join(words[1 + len(INFO_FIELDS):])
    return fields


class Hub1Client(HubClient):
    """One Hub version 1 engine process."""

    ANSWER = "move"
    ERROR_REFUSES = True

    def _intro(self, line: str) -> bool:
        words = line.split()
        if words[:1] == ["name"] and len(words) > 1:              # Scan 2.0: name Scan 2.0
            self.name = " ".join(words[1:])
        elif words[:2] == ["id", "name"] and len(words) > 2:     # as version 2 writes it
            self.name = " ".join(words[2:])
        return words[:1] == ["wait"]

    def new_game(self) -> None:
        self.send("new")

    @staticmethod
    def _option_line(name: str, value: str) -> str:
        return f"set {name} {value}"

    @staticmethod
    def _info_of(line: str, args: dict[str, str]) -> dict[str, str]:
        return info_fields(line) or args

    def _ask(self, position: str, moves: list[str], level: list[str], analyze: bool) -> None:
        pos = pos_from_hub(position)
        for text in moves:
            pos = play(pos, move_from_hub(pos, text))
        self.asked = f"pos {hub1_position(pos_to_hub(pos))}"
        self.send(self.asked)
        self.send(level_line(level))
        depth = depth_line(level)
        if depth is not None:
            self.send(depth)
        self.send("go")

    @staticmethod
    def _move_of(line: str, args: dict[str, str]) -> str | None:
        words = line.split()
        return words[1] if len(words) > 1 else None
