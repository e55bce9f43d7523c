"""Opening files for matches: one opening a line, a FEN or a move sequence.

Format (``protocol/tools/match/data/openings-10x10.txt`` is an example)::

    # comment
    32-28 19-23 28x19            moves from the initial position (PDN or Hub notation,
    1. 32-28 19-23 2. 28x19      move numbers allowed)
    B:W31-50:B1-20               a FEN
    B:W31-50:B1-20 | 19-23       a FEN followed by moves from it

Every move is checked against the rules; a bad line raises :class:`BadInput` naming
the file line.  A PDN file (``.pdn``, or text that starts with a tag) gives one opening
per game: its start position and every move it holds.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine import (INTERNATIONAL, BadInput, Move, Position, Variant, move_from_pdn, play,
                    pos_from_fen, read_pdn, start_position)

DATA = Path(__file__).resolve().parent / "data"
BUILTIN = DATA / "openings-10x10.txt"


def builtin(variant: Variant) -> Path | None:
    """The shipped balanced openings of ``variant`` (None if it has none)."""
    path = BUILTIN if variant is INTERNATIONAL else DATA / f"openings-{variant.name}.txt"
    return path if path.is_file() else None


@dataclass(frozen=True)
class Opening:
    start: Position
    moves: tuple[Move, ...]
    text: str

    @property
    def position(self) -> Position:
        pos = self.start
        for move in self.moves:
            pos = play(pos, move)
        return pos


def parse_opening(text: str, variant: Variant = INTERNATIONAL) -> Opening:
    """One opening line (without comment)."""
    fen, bar, rest = text.partition("|")
    if ":" in fen:
        start = pos_from_fen(fen, variant)
        moves_text = rest
    else:
        if bar:
            raise BadInput("'|' separates a FEN from moves; no FEN before it")
        start, moves_text = start_position(variant), fen
    pos, moves = start, []
    for token in moves_text.split():
        token = re.sub(r"^\d+\.(\.\.)?", "", token)
        if not token:
            continue
        move = move_from_pdn(pos, token)
        moves.append(move)
        pos = play(pos, move)
    return Opening(start, tuple(moves), text.strip())


def load_openings(path: str | Path, variant: Variant = INTERNATIONAL) -> list[Opening]:
    """Every opening in the file ``path`` (``builtin`` = the variant's shipped set,
    ``startpos`` = just the initial position)."""
    if str(path) == "startpos":
        return [Opening(start_position(variant), (), "startpos")]
    if str(path) == "builtin":
        path = builtin(variant)
        if path is None:
            raise BadInput(f"Rafle has no built-in openings for {variant.name}; give "
                           f"--openings FILE or startpos")
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise BadInput(f"cannot read openings file {str(path)!r}: {e.strerror}") from None
    if path.suffix.lower() in (".pdn", ".pgn") or text.lstrip().startswith("["):
        return _pdn_openings(path, text, variant)
    lines = text.splitlines()
    openings = []
    for number, line in enumerate(lines, start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            openings.append(parse_opening(line, variant))
        except BadInput as e:
            raise BadInput(f"{path.name} line {number}: {e}") from None
    if not openings:
        raise BadInput(f"openings file {str(path)!r} has no opening")
    return openings


def _pdn_openings(path: Path, text: str, variant: Variant) -> list[Opening]:
    """Each game of a PDN file is an opening: its start (FEN tag or the initial position)
    and every move it holds."""
    try:
        games = read_pdn(text)
    except BadInput as e:
        raise BadInput(f"{path.name}: {e}") from None
    openings = []
    for number, g in enumerate(games, start=1):
        if g.start.variant.name != variant.name:
            raise BadInput(f"{path.name} game {number} is {g.start.variant.name}, not {variant.name}")
        openings.append(Opening(g.start, tuple(g.moves), f"{path.name} game {number}"))
    if not openings:
        raise BadInput(f"openings file {str(path)!r} has no game")
    return openings
