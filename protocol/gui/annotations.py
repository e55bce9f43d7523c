"""A loaded PDN's comments, variations and move annotations on the board (the tree of ``read_pdn``'s
``PdnGame.notes``).

The notes belong to the moves they were read with: while the record keeps those moves they
are shown in the move list and written back on save; the note of a ply whose moves have
changed (a different move played there, or earlier) is dropped.  A variation's moves can be
looked at (:func:`peek`) without touching the game: the page shows that position until a
move of the game is chosen again.  A variation can become the main line
(:meth:`Notes.promote`, the page's "Play from here"): the old line is kept as a variation
where they part, and play goes on from the position shown.
"""
from __future__ import annotations

from engine import (WHITE, BadInput, Move, Note, Step, capture_paths, move_from_pdn, move_to_pdn, play,
                    pos_to_fen)

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


    def promote(self, whole, ply: int, path: list[Move]) -> list[Move]:
        """``path`` (moves from ply ``ply`` of the record ``whole``, a ``Game``) becomes the
        main line; the new record's moves are returned.  A path along a variation of the
        notes takes the whole variation, its notes becoming the main line's; the old moves
        from ``ply`` on become a variation there, first of its variations."""
        notes = self.of(whole)
        old = whole.moves
        here = notes.get(ply + 1, Note())
        line = _variation_along(here.variations, path)
        moves = [step.move for step in line] if line else list(path)
        kept_notes = {p: note for p, note in notes.items() if p <= ply}
        first = line[0].note if line else Note()
        siblings = [v for v in here.variations if v is not line]
        if old[ply:]:       # the old line, its notes with it (move ply + 1's alternatives stay out)
            head = Note(here.comment, [], [], list(here.nags))
            old_line = [Step(old[ply], head)] + [Step(m, notes.get(ply + 1 + i, Note()))
                                                  for i, m in enumerate(old[ply + 1:], start=1)]
            siblings = [old_line] + siblings
        kept_notes[ply + 1] = Note(first.comment, first.variations + siblings,
                                   first.unread + here.unread, list(first.nags))
        for i, step in enumerate(line[1:] if line else [], start=ply + 2):
            kept_notes[i] = step.note
        self.start, self.moves = whole.start, old[:ply] + moves
        self.notes = {p: note for p, note in kept_notes.items() if note}
        return self.moves


def _variation_along(variations: list, path: list[Move]):
    """The variation whose moves begin with ``path`` or that ``path`` begins with, or None."""
    for line in variations:
        moves = [step.move for step in line]
        n = min(len(moves), len(path))
        if moves[:n] == path[:n] and len(moves) >= len(path):
            return line
    return None


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


def read_path(positions: list, ply, texts, request: str = "peek") -> list[Move]:
    """The moves ``texts`` (PDN) played from ply ``ply`` of the record (``positions``), as
    the ``peek`` and ``promote`` requests give them."""
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply < len(positions):
        raise BadInput(f"{request} needs a ply from 0 to {len(positions) - 1}")
    if (not isinstance(texts, list) or not texts or len(texts) > MAX_PEEK
            or not all(isinstance(t, str) and len(t) < 100 for t in texts)):
        raise BadInput(f"{request} needs \"moves\": a list of moves in PDN (\"32-28\")")
    before, pos, moves = None, positions[ply], []
    for text in texts:
        moves.append(move_from_pdn(pos, text))
        before, pos = pos, play(pos, moves[-1])
    return moves


def peek(positions: list, ply, texts) -> dict:
    """The ``peek`` message: the position after the moves ``texts`` played from ply ``ply``
    of the record (``positions``), with its last move marked as ``state``'s ``last`` is."""
    moves = read_path(positions, ply, texts)
    before = positions[ply]
    for move in moves[:-1]:
        before = play(before, move)
    move, pos = moves[-1], play(before, moves[-1])
    paths = capture_paths(before, move, limit=1)
    squares = range(1, pos.variant.nsquares + 1)
    return {"type": "peek", "ply": ply, "moves": texts, "fen": pos_to_fen(pos),
            "pieces": "".join(pos.piece_at(s) for s in squares),
            "turn": "white" if pos.turn == WHITE else "black",
            "last": {"from": move.frm, "to": move.to, "captured": list(move.captured),
                     "path": paths[0] if paths else [move.to],
                     "pieces": {str(s): before.piece_at(s) for s in move.captured}}}
