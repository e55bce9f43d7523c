"""The live state of a match or tournament (``--live FILE``), for ``rafle gui --watch FILE``.

A small JSON file, rewritten atomically (a temporary file, then a rename) as games start,
move and end, at most every :data:`EVERY` seconds (a last write always follows the last
change), so that a reader never sees half a file:

* ``event``, ``kind`` (match or tournament), ``variant``, ``planned`` games, ``over``;
* ``games``: the games in progress (and the last few finished), each with its players,
  start position (FEN), moves (PDN), the position now (FEN), the clocks (seconds left after
  the last move, or null without a clock), ``moved_at`` (the wall time of the last move, or
  of the start: the side to move's clock runs from there), and ``result`` and ``reason``
  once over;
* ``results``: every finished game (white, black, result, reason, plies);
* ``standings`` (points, wins, draws, losses, Sonneborn-Berger; best first) and the
  ``crosstable`` (``names`` in that order, ``rows`` of "points/games" cells), from the results.
"""
from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from pathlib import Path

from engine import Game, move_to_pdn, pos_to_fen

FORMAT = "rafle-live"
EVERY = 0.25            # seconds between writes, at least
KEEP_FINISHED = 6       # finished games still shown with their board


class Live:
    """The live file of one event; every method may be called from any thread."""

    def __init__(self, path: str | os.PathLike, kind: str, event: str, variant: str,
                 planned: int):
        self.path = Path(path)
        self.data = {"format": FORMAT, "version": 1, "kind": kind, "event": event,
                     "variant": variant, "planned": planned, "over": False, "updated": 0.0,
                     "games": [], "results": [], "standings": [],
                     "crosstable": {"names": [], "rows": []}}
        self.lock = threading.Lock()
        self.dirty = False
        self.written = 0.0
        self._timer: threading.Timer | None = None
        self._write()

    # ----- events ------------------------------------------------------------------------
    def begin(self, key: str, white: str, black: str, game: Game) -> None:
        """A game starts (its opening already played in ``game``)."""
        texts = [move_to_pdn(before, move) for before, move in zip(game.positions, game.moves)]
        entry = {"key": key, "white": white, "black": black, "start": pos_to_fen(game.start),
                 "moves": texts, "fen": pos_to_fen(game.position), "clock": None,
                 "result": None, "reason": None, "started": time.time()}
        entry["moved_at"] = entry["started"]
        with self.lock:
            self.data["games"] = [g for g in self.data["games"] if g["key"] != key] + [entry]
            self._changed()

    def moved(self, key: str, game: Game, clock: dict | None = None) -> None:
        """A move of game ``key`` was played (the last of ``game``)."""
        text = move_to_pdn(game.positions[-2], game.moves[-1])
        with self.lock:
            entry = self._entry(key)
            if entry is None:
                return
            entry["moves"].append(text)
            entry["fen"] = pos_to_fen(game.position)
            entry["clock"] = None if clock is None else {k: round(v, 2) for k, v in clock.items()}
            entry["moved_at"] = time.time()
            self._changed()

    def end(self, key: str, white: str, black: str, result: str, reason: str, plies: int) -> None:
        with self.lock:
            entry = self._entry(key)
            if entry is not None:
                entry["result"], entry["reason"] = result, reason
            self._result(white, black, result, reason, plies)
            finished = [g for g in self.data["games"] if g["result"] is not None]
            drop = {id(g) for g in finished[:-KEEP_FINISHED]}
            self.data["games"] = [g for g in self.data["games"] if id(g) not in drop]
            self._changed()

    def add_result(self, white: str, black: str, result: str, reason: str, plies: int) -> None:
        """A game finished before this run (a resumed tournament)."""
        with self.lock:
            self._result(white, black, result, reason, plies)
            self._changed()

    def close(self) -> None:
        """The event is over (or stopped): games not finished are dropped."""
        with self.lock:
            self.data["over"] = True
            self.data["games"] = [g for g in self.data["games"] if g["result"] is not None]
            if self._timer is not None:
                self._timer.cancel()
            self._write()

    # ----- writing -----------------------------------------------------------------------
    def _result(self, white: str, black: str, result: str, reason: str, plies: int) -> None:
        self.data["results"].append({"white": white, "black": black, "result": result,
                                     "reason": reason, "plies": plies})
        self.data["standings"], self.data["crosstable"] = standings(self.data["results"])

    def _entry(self, key: str) -> dict | None:
        return next((g for g in self.data["games"] if g["key"] == key), None)

    def _changed(self) -> None:
        """Under the lock: write now, or soon if the last write was too recent."""
        wait = self.written + EVERY - time.monotonic()
        if wait <= 0:
            self._write()
        elif not self.dirty:
            self.dirty = True
            self._timer = threading.Timer(wait, self._flush)
            self._timer.daemon = True
            self._timer.start()

    def _flush(self) -> None:
        with self.lock:
            if self.dirty:
                self._write()

    def _write(self) -> None:
        self.dirty = False
        self.written = time.monotonic()
        self.data["updated"] = time.time()
        folder = self.path.parent
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.data, f, separators=(",", ":"))
            os.replace(tmp, self.path)
        except OSError:
            pass            # a live view is a convenience: the event goes on without it


def standings(results: list[dict]) -> tuple[list[dict], dict]:
    """Points per player (best first, then Sonneborn-Berger) and the crosstable
    (``{"names": [...], "rows": [[cell, ...], ...]}``, a cell "points/games" or "")."""
    names: list[str] = []
    for r in results:
        for who in (r["white"], r["black"]):
            if who not in names:
                names.append(who)
    n = len(names)
    index = {name: i for i, name in enumerate(names)}
    pts, games = [0.0] * n, [0] * n
    wdl = [[0, 0, 0] for _ in range(n)]
    cross = [[0.0] * n for _ in range(n)]
    met = [[0] * n for _ in range(n)]
    for r in results:
        w, b = index[r["white"]], index[r["black"]]
        white_score = {"2-0": 1.0, "0-2": 0.0}.get(r["result"], 0.5)
        for me, other, score in ((w, b, white_score), (b, w, 1.0 - white_score)):
            pts[me] += score
            games[me] += 1
            cross[me][other] += score
            met[me][other] += 1
            wdl[me][0 if score == 1 else 1 if score == 0.5 else 2] += 1
    sb = [sum(cross[i][j] * pts[j] for j in range(n)) for i in range(n)]
    order = sorted(range(n), key=lambda i: (-pts[i], -sb[i], names[i]))
    table = [{"name": names[i], "points": pts[i], "games": games[i], "wins": wdl[i][0],
              "draws": wdl[i][1], "losses": wdl[i][2], "sb": round(sb[i], 2)} for i in order]
    rows = [["-" if i == j else (f"{cross[i][j]:g}/{met[i][j]}" if met[i][j] else "")
             for j in order] for i in order]
    return table, {"names": [names[i] for i in order], "rows": rows}
