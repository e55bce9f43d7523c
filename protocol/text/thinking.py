"""How Rafle thinks in text mode: a search that the terminal can stop, and scores as text.

The search runs in a background thread (the kernels release the GIL) while the calling
thread keeps polling the person's keyboard, so a typed ``stop`` or Enter ends it through
:meth:`engine.Searcher.stop`.  The levels it is given live in :mod:`protocol.levels`.
"""
from __future__ import annotations

from concurrent.futures import wait
from typing import Callable

from engine import Info, Limits, Position, Result, Searcher
from perft.progress import compiling

WIN = 10000        # a win in n plies scores WIN - n
MATE_ZONE = 9000   # scores beyond this are wins or losses, not material


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
            with compiling("the search"):
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
