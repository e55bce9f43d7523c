"""Opening books: positions, found by their Zobrist key, with their good moves.

A book file (``.npz``) holds ``keys`` (int64, one per entry), ``moves`` (the move in
Hub notation), ``scores`` (int32, hundredths for the side to move, from the search
that built the book), ``variant`` and ``version``.  A position has one entry per
move kept for it.  ``rafle book build`` writes them; Rafle ships
``engine/data/book-<variant>.npz`` for the variants it has one for.

The searcher plays from the book while the game is younger than ``book-ply`` plies:
a move chosen at random among those within ``book-margin`` of the best (so that games
differ), or nothing when the position is not in the book.  A file that cannot be read
raises :class:`BookError` naming it; the searcher then plays without a book.
"""
from __future__ import annotations

import random
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import BadInput
from .notation import move_from_hub
from .position import Move, Position
from .zobrist import ZOBRIST, board_key

DATA = Path(__file__).resolve().parent / "data"


class BookError(BadInput):
    """A book file that is missing pieces, corrupt, or made for another variant."""


def book_key(pos: Position) -> int:
    """The key a book files ``pos`` under (its Zobrist key: board and side to move)."""
    return int(board_key(*pos.words, ZOBRIST))


def shipped_book(variant) -> Path:
    """Where Rafle's own book for ``variant`` lives (it may not exist)."""
    return DATA / f"book-{variant.name}.npz"


@dataclass(frozen=True)
class Book:
    version: str
    variant: str
    entries: dict[int, tuple[tuple[str, int], ...]]   # key -> ((Hub move, score), best first)

    def __len__(self) -> int:
        return len(self.entries)

    def moves(self, pos: Position) -> list[tuple[Move, int]]:
        """The book's moves in ``pos`` with their scores, best first (legal ones only)."""
        out = []
        for text, score in self.entries.get(book_key(pos), ()):
            try:
                out.append((move_from_hub(pos, text), score))
            except BadInput:        # a key collision or a stale file: never an illegal move
                continue
        return out

    def choose(self, pos: Position, margin: int, rng: random.Random) -> Move | None:
        """A move within ``margin`` of the book's best in ``pos``, at random; None if
        ``pos`` is not in the book."""
        found = self.moves(pos)
        if not found:
            return None
        best = max(score for _, score in found)
        return rng.choice([m for m, score in found if score >= best - margin])


def check_book(path: str | Path) -> str:
    """The version of the book file ``path``; BookError if it is not one."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            version = str(data["version"])
            sizes = {len(data[name]) for name in ("keys", "moves", "scores")}
            str(data["variant"])
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        raise BookError(f"cannot read the book {path}: {exc}") from None
    if len(sizes) != 1:
        raise BookError(f"the book {path} is corrupt (its arrays differ in length)")
    return version


def read_book(path: str | Path, variant) -> Book:
    """The book in ``path`` for ``variant``; BookError if it is unreadable or not for it."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            keys = np.asarray(data["keys"], dtype=np.int64)
            moves = [str(m) for m in data["moves"]]
            scores = np.asarray(data["scores"], dtype=np.int64)
            version = str(data["version"])
            made_for = str(data["variant"])
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        raise BookError(f"cannot read the book {path}: {exc}") from None
    if not len(keys) == len(moves) == len(scores):
        raise BookError(f"the book {path} is corrupt (its arrays differ in length)")
    if made_for != variant.name:
        raise BookError(f"the book {path} is for {made_for}, not {variant.name}")
    entries: dict[int, list[tuple[str, int]]] = {}
    for key, move, score in zip(keys.tolist(), moves, scores.tolist()):
        entries.setdefault(key, []).append((move, score))
    return Book(version, made_for,
                {k: tuple(sorted(v, key=lambda e: -e[1])) for k, v in entries.items()})


def book_arrays(entries: dict[int, list[tuple[str, int]]]) -> dict[str, np.ndarray]:
    """The arrays of a book file for ``entries`` (key -> [(Hub move, score)])."""
    rows = [(k, m, s) for k, found in entries.items() for m, s in found]
    return {"keys": np.array([r[0] for r in rows], dtype=np.int64),
            "moves": np.array([r[1] for r in rows], dtype=str),
            "scores": np.array([r[2] for r in rows], dtype=np.int32)}
