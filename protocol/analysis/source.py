"""PDN files cut into games, each read on its own, so that a bad game is refused alone with
its file and line and the others are analysed.

A game begins at a tag line (``[...``) that follows movetext, or at the file's start; the
text of each game is read by :func:`engine.read_pdn` with its line numbers kept (the lines
before it given as blank lines).  A game is known by the hash of its text (:func:`game_key`),
which is what a resumed run looks up.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from engine import BadInput, read_pdn

_MOVETEXT = re.compile(r"^\s*[^\s\[%;]")


@dataclass
class Source:
    """One game's text: where it is (file, first line) and its key."""

    path: str
    line: int
    text: str

    @property
    def key(self) -> str:
        return game_key(self.text)


@dataclass
class Refusal:
    """A game that could not be read: where, and why."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


def game_key(text: str) -> str:
    """The hash of a game's text (spaces at the ends of lines and around it ignored)."""
    canonical = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def split_games(path: str, text: str) -> list[Source]:
    """The games of a file's text, each with its first line (1-based)."""
    text = text.lstrip("\ufeff")
    games: list[Source] = []
    current: list[str] = []
    start, moved, in_comment = 1, False, False
    for number, line in enumerate(text.splitlines(), 1):
        opens_game = line.lstrip().startswith("[") and moved and not in_comment
        if opens_game:
            games.append(Source(path, start, "\n".join(current) + "\n"))
            current, start, moved = [], number, False
        if not current and not line.strip():
            start = number + 1
            continue
        current.append(line)
        if not in_comment and _MOVETEXT.match(line):
            moved = True
        in_comment = (line.count("{") - line.count("}") + (1 if in_comment else 0)) > 0
    if any(line.strip() for line in current):
        games.append(Source(path, start, "\n".join(current) + "\n"))
    return games


def read_source(source: Source):
    """The game of ``source`` (an ``engine.read_pdn`` game); BadInput naming its file and line."""
    try:
        games = read_pdn("\n" * (source.line - 1) + source.text)
    except BadInput as exc:
        reason = re.sub(r"^game \d+, ", "", str(exc))
        raise BadInput(reason) from None
    if len(games) != 1:
        raise BadInput(f"{len(games)} games where one was expected")
    if not games[0].moves:
        raise BadInput("a game with no moves")
    return games[0]


def read_files(paths: list[str]) -> tuple[list[tuple[Source, object]], list[Refusal]]:
    """Every game of ``paths`` that reads (its source and game), and the refusals."""
    good, refused = [], []
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as exc:
            refused.append(Refusal(path, 0, f"cannot read: {exc.strerror or exc}"))
            continue
        for source in split_games(path, text):
            try:
                good.append((source, read_source(source)))
            except BadInput as exc:
                refused.append(Refusal(path, source.line, str(exc)))
    return good, refused
