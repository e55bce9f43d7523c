"""Puzzle mode: a set of puzzles played on the board, one after another.

A set comes from a file the page sends (``puzzles`` with ``text`` and the file's ``name``:
JSON for a ``.json`` name, else PDN, read by :mod:`protocol.analysis.puzzles`) or from
the missed shots of the game just reviewed (``puzzles`` with ``"from": "review"``).  Each
puzzle is checked when the set is read (its FEN and every move of its solution legal);
a bad one refuses the set.  ``puzzle`` with ``index`` sets that puzzle up (the same one
again: a retry), with ``"on": false`` leaves puzzle mode.

On the puzzle's board a move is judged instead of played (:meth:`PuzzleRun.takes`): the
solution's move is played, with the opponent's forced reply after it; another is refused
("Not the move") and the position stays; the solution's last move solves it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from engine import (BLACK, WHITE, BadInput, Game, get_variant, move_from_pdn, play,
                    pos_from_fen, pos_to_fen)
from protocol.analysis.game import puzzles as missed_shots
from protocol.analysis.puzzles import Puzzle, puzzles_from_pdn

from .driver import HUMAN, Player

MAX_TEXT = 2_000_000      # characters of a puzzle file, at most
MAX_PUZZLES = 5_000


def _checked(p: Puzzle, number: int) -> Puzzle:
    """``p`` if its position and solution can be played, else BadInput naming it."""
    try:
        if not isinstance(p.fen, str) or not isinstance(p.solution, list) or not p.solution:
            raise BadInput("it needs a \"fen\" and a non-empty \"solution\"")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (p.gain, p.depth, p.ply)):
            raise BadInput("its \"gain\", \"depth\" and \"ply\" are whole numbers")
        if not isinstance(p.variant, str) or not isinstance(p.game, dict):
            raise BadInput("its \"variant\" is a name and its \"game\" an object of tags")
        pos = pos_from_fen(p.fen, get_variant(p.variant))
        for word in p.solution:
            if not isinstance(word, str):
                raise BadInput("its solution is a list of moves as text")
            pos = play(pos, move_from_pdn(pos, word))
    except (BadInput, KeyError, ValueError, TypeError) as e:
        raise BadInput(f"puzzle {number}: {e}") from None
    return p


def read_set(text: str, name: str) -> list[Puzzle]:
    """The puzzles of a file's ``text`` (``name``: its file name, which says JSON or PDN)."""
    if name.lower().endswith(".json"):
        try:
            records = json.loads(text)
            if not isinstance(records, list):
                raise ValueError("a JSON puzzle file is a list of puzzles")
            found = [Puzzle(**r) if isinstance(r, dict) else None for r in records]
        except (ValueError, TypeError) as e:
            raise BadInput(f"not a puzzle file: {e}") from None
        if None in found:
            raise BadInput("not a puzzle file: each puzzle is a JSON object")
    else:
        try:
            found = puzzles_from_pdn(text)
        except (BadInput, KeyError, ValueError, IndexError) as e:
            raise BadInput(f"not a PDN puzzle file: {e}") from None
    if not found:
        raise BadInput("no puzzle found in that file")
    if len(found) > MAX_PUZZLES:
        raise BadInput(f"{len(found)} puzzles: at most {MAX_PUZZLES} at a time")
    return [_checked(p, i + 1) for i, p in enumerate(found)]


@dataclass
class PuzzleRun:
    """A set being played: the puzzle shown (``index``), the solution's moves played
    (``step``) and the position a move is judged in (``fen``; "" once solved)."""

    puzzles: list[Puzzle]
    index: int = 0
    step: int = 0
    fen: str = ""
    solved: list[bool] = field(default_factory=list)

    def view(self) -> dict:
        p = self.puzzles[self.index]
        return {"index": self.index, "count": len(self.puzzles), "step": self.step,
                "plies": len(p.solution), "solved": self.fen == "",
                "gain": p.gain, "depth": p.depth,
                "game": p.game, "solutions": sum(self.solved)}


def load(session, msg: dict) -> None:
    """``puzzles``: a set from a file's text, or from the review's missed shots."""
    if msg.get("from") == "review":
        result = session.review.analysed()
        found = [Puzzle(**d) for d in missed_shots(result.record, result.analysis)]
        if not found:
            raise BadInput("the analysis found no missed shot to make a puzzle of")
    elif "from" in msg:
        raise BadInput("puzzles come from a file (\"text\" and \"name\") or \"from\": \"review\"")
    else:
        text = session._text(msg.get("text"), "text", MAX_TEXT)
        name = msg.get("name", "")
        if not isinstance(name, str):
            raise BadInput("\"name\" is the file's name")
        found = read_set(text, name)
    session.puzzles = PuzzleRun(found, solved=[False] * len(found))
    _set_up(session, 0)


def choose(session, msg: dict) -> None:
    """``puzzle``: ``index`` sets that puzzle up; ``"on": false`` ends puzzle mode."""
    run = session.puzzles
    if run is None:
        raise BadInput("no puzzle set: load one first (Load puzzles)")
    on = msg.get("on", True)
    if not isinstance(on, bool):
        raise BadInput("puzzle needs \"on\": true or false")
    if not on:
        session.puzzles, session.message = None, ""
        session._changed()
        return
    index = msg.get("index", run.index)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(run.puzzles):
        raise BadInput(f"puzzle needs an \"index\" from 0 to {len(run.puzzles) - 1}")
    _set_up(session, index)


def _set_up(session, index: int) -> None:
    run = session.puzzles
    p = run.puzzles[index]
    variant = get_variant(p.variant)
    start = pos_from_fen(p.fen, variant)
    session._halt()
    session.game = Game(start, variant)
    session.players = {WHITE: Player(HUMAN), BLACK: Player(HUMAN)}
    session.evals.clear()
    session.notes.clear()
    session.running = False
    run.index, run.step, run.fen = index, 0, pos_to_fen(start)
    who = "White" if start.turn == WHITE else "Black"
    wins = f" and win {p.gain}" if p.gain > 0 else ""
    session.message = f"Puzzle {index + 1} of {len(run.puzzles)}: {who} to play{wins}."
    session._changed()


def takes(session, move) -> bool:
    """On a puzzle's position, judge ``move`` (True: it is taken care of)."""
    run = session.puzzles
    if run is None or not run.fen or pos_to_fen(session.game.position) != run.fen:
        return False
    p = run.puzzles[run.index]
    game = session.game
    if move != move_from_pdn(game.position, p.solution[run.step]):
        session.message = f"Not the move: try again (puzzle {run.index + 1} of {len(run.puzzles)})"
        session._send_state()
        return True
    session._halt()
    game.push(move)
    run.step += 1
    if run.step < len(p.solution):          # the opponent's forced reply
        game.push(move_from_pdn(game.position, p.solution[run.step]))
        run.step += 1
    if run.step >= len(p.solution):
        run.fen = ""
        run.solved[run.index] = True
        more = " Next puzzle?" if run.index + 1 < len(run.puzzles) else " That was the last one."
        session.message = f"Solved! ({' '.join(p.solution)}).{more}"
    else:
        run.fen = pos_to_fen(game.position)
        session.message = "Right: go on."
    session._changed()
    return True
