"""A loaded PDN's comments, variations and move annotations on the board (the tree of ``read_pdn``'s
``PdnGame.notes``).

The notes belong to the moves they were read with: while the record keeps those moves they
are shown in the move list and written back on save; the note of a ply whose moves have
changed (a different move played there, or earlier) is dropped.  A variation's moves can be
looked at (:func:`peek`) without touching the game: the page shows that position until a
move of the game is chosen again.
"""
from __future__ import annotations

from engine import WHITE, BadInput, Move, capture_paths, move_from_pdn, move_to_pdn, play, pos_to_fen

MAX_PEEK = 200          # moves of a variation, at most


class Notes:
    """The notes of the PDN game loaded last, with the start and the moves they were read
    with; empty once another game is set up."""

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self.notes: dict = {}
        self.moves: list[Move] = []
        self.start = None

    def load(self, record) -> None:
        """Keep the notes of ``record`` (a ``PdnGame``)."""
        self.notes, self.moves, self.start = record.notes, list(record.moves), record.start

    def of(self, game) -> dict:
        """The notes still true of the record ``game`` (a ``Game``: its start and moves)."""
        if self.start is None or game.start != self.start:
            return {}
        return kept(self.notes, self.moves, game.moves)


def kept(notes: dict, read_moves: list[Move], moves: list[Move]) -> dict:
    """The notes still true of the record ``moves`` (those read with ``read_moves``)."""
    same = 0
    while same < min(len(read_moves), len(moves)) and read_moves[same] == moves[same]:
        same += 1
    return {ply: note for ply, note in notes.items() if ply <= same}


def as_json(notes: dict, positions: list) -> dict[str, dict]:
    """The notes for the page: ``{ply: {comment, nags, variations: [[{text, comment, nags,
    variations}]], unread: [text]}}``, move texts in PDN (``positions[p]``: before move
    p + 1); ``nags``: the move's annotations as written (``!?``, ``$14``)."""
    return {str(ply): _note(note, positions[max(ply - 1, 0)]) for ply, note in notes.items()}


def _note(note, before) -> dict:
    return {"comment": note.comment, "nags": list(note.nags), "unread": list(note.unread),
            "variations": [_line(line, before) for line in note.variations]}


def _line(line, pos) -> list[dict]:
    out = []
    for step in line:
        out.append({"text": move_to_pdn(pos, step.move), "comment": step.note.comment,
                    "nags": list(step.note.nags), "unread": list(step.note.unread),
                    "variations": [_line(v, pos) for v in step.note.variations]})
        pos = play(pos, step.move)
    return out


def peek(positions: list, ply, texts) -> dict:
    """The ``peek`` message: the position after the moves ``texts`` played from ply ``ply``
    of the record (``positions``), with its last move marked as ``state``'s ``last`` is."""
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply < len(positions):
        raise BadInput(f"peek needs a ply from 0 to {len(positions) - 1}")
    if (not isinstance(texts, list) or not texts or len(texts) > MAX_PEEK
            or not all(isinstance(t, str) and len(t) < 100 for t in texts)):
        raise BadInput("peek needs \"moves\": a list of moves in PDN (\"32-28\")")
    pos = positions[ply]
    for text in texts:
        move = move_from_pdn(pos, text)
        before, pos = pos, play(pos, move)
    paths = capture_paths(before, move, limit=1)
    squares = range(1, pos.variant.nsquares + 1)
    return {"type": "peek", "ply": ply, "moves": texts, "fen": pos_to_fen(pos),
            "pieces": "".join(pos.piece_at(s) for s in squares),
            "turn": "white" if pos.turn == WHITE else "black",
            "last": {"from": move.frm, "to": move.to, "captured": list(move.captured),
                     "path": paths[0] if paths else [move.to],
                     "pieces": {str(s): before.piece_at(s) for s in move.captured}}}
