"""Puzzles cut from games: a position with a shot to find, its checks and its files.

A puzzle is the position before a shot (:mod:`protocol.analysis.shots`), the shot's line
as its solution, where it came from (the source game's tags and ply) and its rating: the
line's plies (``depth``) and the material it wins (``gain``).  :func:`verify_puzzle`
says why a puzzle is not a good one, or None.  Files are PDN (one game per puzzle, from
its ``FEN`` tag, so that other draughts programs open them) or, for a ``.json`` name,
JSON; :func:`puzzles_to_pdn` and :func:`puzzles_from_pdn` are the pure codecs.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from engine import (INTERNATIONAL, BadInput, Game, Limits, Position, Searcher, egdb_dirs,
                    egdb_load, egdb_value_name, get_variant, legal_moves, move_from_pdn,
                    move_to_pdn, play, pos_from_fen, pos_to_fen, read_pdn, write_pdn)

from .shots import MAX_PLIES, Shot, balance, best_line, shot_moves

GAME_TAGS = ("Event", "Round", "White", "Black", "Date")
"""The source game's tags a puzzle keeps."""
UNKNOWN_TAG = {"?", "????.??.??", ""}     # what write_pdn writes for a tag it was not given
VERIFY_NODES = 200_000
"""The deeper search's node budget in :func:`verify_puzzle`, when no limits are given."""
VERIFY_MARGIN = 50
"""How far below the material the line wins (hundredths of a man) the deeper search's score
may be and still agree: its positional terms move it a little."""
EGDB_PIECES = 4
"""An end position with at most this many pieces is judged by the endgame databases."""
_RATING = re.compile(r"depth\s+(\d+)\s+gain\s+(-?\d+)")


@dataclass
class Puzzle:
    """A position (``fen``, the side to move has the shot), its ``solution`` in PDN, the
    source game's tags (``game``: Event, Round, White, Black, Date), the ``ply`` of the
    game at which it arose (0: before the first move), the solution's plies (``depth``)
    and the material it wins in men (``gain``, a king counting 3)."""

    fen: str
    solution: list[str]
    game: dict[str, str] = field(default_factory=dict)
    ply: int = 0
    depth: int = 0
    gain: int = 0
    variant: str = INTERNATIONAL.name


def puzzle_from_shot(pos: Position, shot: Shot, game: dict[str, str] | None = None,
                     ply: int = 0) -> Puzzle:
    """The puzzle of ``shot``, found in ``pos`` at ``ply`` of the game tagged ``game``."""
    tags = {k: v for k, v in (game or {}).items() if k in GAME_TAGS}
    return Puzzle(pos_to_fen(pos), list(shot.line), tags, ply, shot.depth, shot.gain,
                  pos.variant.name)


# ----- checks -----------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _tables(variant_name: str):
    try:
        return egdb_load(egdb_dirs(), get_variant(variant_name), EGDB_PIECES)
    except (OSError, ValueError):
        return None


def _replay(p: Puzzle) -> tuple[list[Position], list] | str:
    """The positions and moves of the solution, or why it cannot be played."""
    try:
        pos = pos_from_fen(p.fen, get_variant(p.variant))
    except BadInput as exc:
        return f"bad position: {exc}"
    positions, moves = [pos], []
    for i, word in enumerate(p.solution):
        try:
            move = move_from_pdn(positions[-1], word)
        except BadInput as exc:
            return f"ply {i + 1} of the solution, {word}: {exc}"
        moves.append(move)
        positions.append(play(positions[-1], move))
    return positions, moves


def _line_fault(p: Puzzle, positions: list[Position], moves: list) -> str | None:
    """Whether the solution is a forcing line that settles and wins what ``p`` says."""
    side, start = positions[0].turn, balance(positions[0], positions[0].turn)
    if p.depth != len(moves):
        return f"depth {p.depth}, but the solution has {len(moves)} plies"
    if not any(move.captured for move in moves[::2]):
        return "the solution has no capture by the side to move"
    for i in range(1, len(moves), 2):
        if not moves[i].captured:
            return f"ply {i + 1}, {p.solution[i]}, is not a capture: the line is not forcing"
    after = legal_moves(positions[-1])
    if after and after[0].captured:
        return "a capture is still to be made at the end of the solution"
    gain = balance(positions[-1], side) - start
    if gain != p.gain:
        return f"the solution wins {gain}, the puzzle says {p.gain}"
    if gain < 1:
        return "the solution does not win material"
    return None


def _escape(p: Puzzle, positions: list[Position], moves: list, plies: int) -> str | None:
    """An opponent's move in the line that loses less than the solution says, if any."""
    side, start = positions[0].turn, balance(positions[0], positions[0].turn)
    for i in range(1, len(moves), 2):
        here = positions[i]
        for reply in legal_moves(here):
            if reply == moves[i]:
                continue
            after = play(here, reply)
            offset = balance(after, side) - start
            took = any(move.captured for move in moves[:i:2])
            if best_line(after, plies - i - 1, p.gain - offset, took) is None:
                return (f"ply {i + 1} is not forced: {move_to_pdn(here, reply)} instead of "
                        f"{p.solution[i]} wins less than {p.gain}")
    return None


def _deeper_fault(p: Puzzle, positions: list[Position], moves: list, searcher: Searcher | None,
                  limits: Limits | None) -> str | None:
    pos, end = positions[0], positions[-1]
    target = 100 * (balance(pos, pos.turn) + p.gain) - VERIFY_MARGIN
    if searcher is not None:
        result = searcher.search(pos, [], limits or Limits(nodes=VERIFY_NODES))
        if result.move != moves[0] and (result.score is None or result.score < target):
            best = "no move" if result.move is None else move_to_pdn(pos, result.move)
            return f"a deeper search prefers {best} (score {result.score}, wanted {target})"
    if (end.white | end.black).bit_count() <= EGDB_PIECES:
        tables = _tables(p.variant)
        if tables is not None:
            value = egdb_value_name(tables.probe(end))      # the opponent is to move there
            if value in ("win", "draw"):
                return f"the endgame databases say the end of the solution is a {value} " \
                       f"for the opponent"
    return None


def verify_puzzle(p: Puzzle, searcher: Searcher | None = None,
                  limits: Limits | None = None) -> str | None:
    """None if ``p`` is a good puzzle, else why not.

    Step 1. The solution is legal move by move from the FEN.
    Step 2. It is a forcing line (every opponent move a capture) with a capture of the
            mover's, that ends with nothing left to capture, winning ``gain`` (>= 1) in
            ``depth`` plies.
    Step 3. Every opponent move in it is forced: its only legal move, or every other
            leaves the mover at least ``gain`` (by :func:`shots.best_line`).
    Step 4. The first move is a shot, and the only one: no other first move gives a
            shot with at least the same gain (:func:`shots.shot_moves`).
    Step 5. A deeper check: with a ``searcher`` (``limits``, default
            :data:`VERIFY_NODES` nodes), its best move is the first move or its score
            reaches the material won; and where the end position has at most
            :data:`EGDB_PIECES` pieces, the endgame databases (when installed) call it
            a win for the mover.
    """
    replayed = _replay(p)
    if isinstance(replayed, str):
        return replayed
    positions, moves = replayed
    if not moves:
        return "the solution is empty"
    plies = max(MAX_PLIES, len(moves))
    why = _line_fault(p, positions, moves) or _escape(p, positions, moves, plies)
    if why:
        return why
    shots = shot_moves(positions[0], plies, p.gain)
    mine = next((shot for move, shot in shots if move == moves[0]), None)
    if mine is None:
        return f"the first move, {p.solution[0]}, is not a shot that wins {p.gain}"
    for move, shot in shots:
        if move != moves[0] and shot.gain >= p.gain:
            return f"not unique: {' '.join(shot.line)} wins {shot.gain} too"
    return _deeper_fault(p, positions, moves, searcher, limits)


# ----- files ------------------------------------------------------------------------------
def puzzles_to_pdn(puzzles: list[Puzzle]) -> str:
    """PDN text: one game per puzzle from its ``FEN`` tag (written in its canonical form),
    the source game's tags, ``[Puzzle "depth N gain M"]``, ``[SourcePly "N"]``, and the
    solution as the moves.  Raises BadInput for a solution that is not legal."""
    out = []
    for p in puzzles:
        game = Game(pos_from_fen(p.fen, get_variant(p.variant)))
        for word in p.solution:
            game.push(move_from_pdn(game.position, word))
        tags = {k: v for k, v in p.game.items() if k in GAME_TAGS}
        tags.update({"Result": "*", "Puzzle": f"depth {p.depth} gain {p.gain}",
                     "SourcePly": str(p.ply)})
        out.append(write_pdn(game, tags))
    return "".join(out)


def puzzles_from_pdn(text: str) -> list[Puzzle]:
    """The puzzles of PDN ``text`` (as :func:`puzzles_to_pdn` writes them; a game without a
    ``Puzzle`` tag is rated by its moves, with gain 0)."""
    out = []
    for g in read_pdn(text):
        words, pos = [], g.start
        for move in g.moves:
            words.append(move_to_pdn(pos, move))
            pos = play(pos, move)
        rating = _RATING.search(g.tags.get("Puzzle", ""))
        depth, gain = (int(rating[1]), int(rating[2])) if rating else (len(words), 0)
        ply = g.tags.get("SourcePly", "0")
        out.append(Puzzle(g.tags.get("FEN") or pos_to_fen(g.start), words,
                          {k: g.tags[k] for k in GAME_TAGS if g.tags.get(k, "") not in UNKNOWN_TAG},
                          int(ply) if ply.isdigit() else 0, depth, gain, g.start.variant.name))
    return out


def write_puzzles(puzzles: list[Puzzle], path: str | Path) -> None:
    """Write ``puzzles`` to ``path``: JSON for a ``.json`` name, else PDN."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        path.write_text(json.dumps([asdict(p) for p in puzzles], indent=1) + "\n",
                        encoding="utf-8")
    else:
        path.write_text(puzzles_to_pdn(puzzles), encoding="utf-8")


def read_puzzles(path: str | Path) -> list[Puzzle]:
    """The puzzles of a file written by :func:`write_puzzles` (or any PDN file)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        try:
            return [Puzzle(**record) for record in json.loads(text)]
        except (ValueError, TypeError) as exc:
            raise BadInput(f"{path}: not a puzzle file: {exc}") from None
    return puzzles_from_pdn(text)
