"""How Rafle thinks in text mode: strength levels and a search that the terminal can stop.

A level is a name ("easy" ... "brutal") for search limits, or limits given directly
(``depth 6``, ``time 2.5``).  The search runs in a background thread (the kernels release
the GIL) while the calling thread keeps polling the person's keyboard, so a typed
``stop`` or Enter ends it through :meth:`engine.Searcher.stop`.
"""
from __future__ import annotations

from concurrent.futures import wait
from typing import Callable

from engine import BadInput, Info, Limits, Position, Result, Searcher, parse_float, parse_int

# Named strengths, weakest first.  The low levels are fixed depths (quick, and always the
# same reply); the high ones are thinking times per move.
LEVELS: dict[str, Limits] = {
    "easy": Limits(depth=2),
    "medium": Limits(depth=4),
    "hard": Limits(movetime=1.0),
    "expert": Limits(movetime=3.0),
    "brutal": Limits(movetime=10.0),
}

WIN = 10000        # a win in n plies scores WIN - n
MATE_ZONE = 9000   # scores beyond this are wins or losses, not material


def describe_limits(limits: Limits) -> str:
    parts = []
    if limits.depth is not None:
        parts.append(f"depth {limits.depth}")
    if limits.movetime is not None:
        parts.append(f"{limits.movetime:g} s per move")
    if limits.nodes is not None:
        parts.append(f"{limits.nodes} nodes")
    return ", ".join(parts) or "engine default"


def parse_level(words: list[str]) -> tuple[str, Limits]:
    """``easy``..``brutal``, ``depth N``, ``time SECONDS`` or ``nodes N``: (name, limits)."""
    if not words:
        raise BadInput(f"level needs a name ({', '.join(LEVELS)}) or depth N / time S")
    key = words[0].lower()
    if key in LEVELS and len(words) == 1:
        return key, LEVELS[key]
    if key in ("depth", "time", "nodes") and len(words) == 1:
        example = {"depth": "depth 6", "time": "time 2.5", "nodes": "nodes 100000"}[key]
        raise BadInput(f"{key} needs a number, e.g. {example}")
    if key in ("depth", "time", "nodes") and len(words) == 2:
        value = parse_float(words[1]) if key == "time" else parse_int(words[1], -10 ** 18, 10 ** 18)
        if value is None:
            raise BadInput(f"{key} needs a number, got {words[1]!r}")
        most = {"depth": 60, "time": 24 * 3600, "nodes": 10 ** 12}[key]
        if not 0 < value <= most:
            raise BadInput(f"{key} must be more than 0 and at most {most}")
        limits = {"depth": Limits(depth=value), "time": Limits(movetime=value),
                  "nodes": Limits(nodes=value)}[key]
        return f"{key} {words[1]}", limits
    raise BadInput(f"unknown level {' '.join(words)!r}: use one of {', '.join(LEVELS)}, "
                   "or depth N, or time SECONDS")


def format_score(score: int | None) -> str:
    """Hundredths of a man as ``+0.25``; wins and losses as ``win in 7``."""
    if score is None:
        return "?"
    if score >= MATE_ZONE:
        return f"win in {WIN - score}"
    if score <= -MATE_ZONE:
        return f"loss in {WIN + score}"
    return f"{score / 100:+.2f}"


class Thinker:
    """Owns the :class:`Searcher` (made on first use) and runs its searches in a thread."""

    def __init__(self, make_searcher: Callable[[], Searcher] = Searcher):
        self._make = make_searcher
        self._searcher: Searcher | None = None

    @property
    def ready(self) -> bool:
        return self._searcher is not None

    @property
    def searcher(self) -> Searcher:
        if self._searcher is None:
            searcher = self._make()
            searcher.warm_up()
            self._searcher = searcher
        return self._searcher

    def new_game(self) -> None:
        if self._searcher is not None:
            self._searcher.new_game()

    def think(self, pos: Position, history: list[Position], limits: Limits, *,
              on_info: Callable[[Info], None] | None = None, analyze: bool = False,
              poll: Callable[[], str | None] | None = None) -> tuple[Result | None, str | None]:
        """Search ``pos``; returns the result and the line typed to stop it, if any.

        ``poll`` is called about every 50 ms while the search runs; a line it returns
        stops the search.  Ctrl-C stops it too (reported as an empty line).
        """
        searcher = self.searcher
        search = searcher.start(pos, history, limits, on_info, analyze=analyze)
        typed = None
        try:
            while not wait([search], 0.05).done:
                if poll is not None and typed is None:
                    typed = poll()
                    if typed is not None:
                        searcher.stop()
        except KeyboardInterrupt:
            searcher.stop()
            typed = ""
            while True:
                try:
                    wait([search])
                    break
                except KeyboardInterrupt:   # a second Ctrl-C: the search is stopping
                    continue
        return search.result(), typed
