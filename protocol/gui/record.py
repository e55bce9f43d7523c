"""The game's record as PDN: a file loaded (its comments and variations kept,
:mod:`protocol.gui.annotations`), the record saved, a variation's position looked at.

The page's requests ``load``, ``save``, ``peek`` and ``promote`` (a variation becomes the
main line: :meth:`protocol.gui.annotations.Notes.promote`), as functions of the
:class:`~protocol.gui.session.BoardSession` they change or read.
"""
from __future__ import annotations

import copy
import time

from engine import BLACK, WHITE, BadInput, Game, read_pdn, write_pdn

from . import annotations
from .driver import HUMAN, Player

MAX_TEXT = 1_000_000      # characters of a PDN upload, at most


def load_pdn(session, msg: dict) -> None:
    """A PDN file's game (``game``: which one, from 0): the board shows its start, the
    record stays whole, its notes are kept."""
    text = session._text(msg.get("text"), "text", MAX_TEXT)
    try:
        games = read_pdn(text)
    except (BadInput, KeyError, ValueError, IndexError) as e:
        raise BadInput(f"not a PDN game: {e}") from None
    games = [g for g in games if g.moves or g.tags]
    if not games:
        raise BadInput("no game found in that file (is it PDN?)")
    index = msg.get("game", 0)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(games):
        raise BadInput(f"the file has {len(games)} games: pick one from 0 to {len(games) - 1}")
    record = games[index]
    try:
        game = record.game()
    except BadInput as e:
        raise BadInput(f"game {index + 1} of the file: {e}") from None
    session._halt()
    while game.moves:          # the record stays whole; the board shows its start
        game.pop()
    session.game = game
    session.notes.load(record)
    session.players = {WHITE: Player(HUMAN), BLACK: Player(HUMAN)}
    session.evals.clear()
    session.running = False
    session.message = (f"loaded {record.tags.get('White', '?')} - {record.tags.get('Black', '?')}"
                       f" ({len(record.moves)} plies, game {index + 1} of {len(games)})")
    session._changed()


def save(session, _msg: dict) -> None:
    """The record as a PDN file for the page to download (``pdn`` answers)."""
    session.emit({"type": "pdn", "text": record_pdn(session),
                  "filename": f"rafle-{time.strftime('%Y%m%d-%H%M%S')}.pdn"})


def whole_record(session) -> Game:
    """The record with the moves taken back replayed too."""
    game = Game(session.game.start, session.game.variant)
    for move in session.game.moves + session.game.redo_moves:
        game.push(move)
    return game


def record_pdn(session, whole: Game | None = None) -> str:
    """The whole record (the moves taken back too) as PDN."""
    game = whole or whole_record(session)
    tags = {"Event": "Rafle board", "Date": time.strftime("%Y.%m.%d")}
    more, comment = session.table.pdn_tags(game)
    return write_pdn(game, {**tags, **more}, comment, notes=session.notes.of(game))


def peek_variation(session, msg: dict) -> None:
    """Show the position of a variation's moves from a ply of the record; the game
    itself does not change (``peek`` answers)."""
    session.emit(annotations.peek(whole_record(session).positions, msg.get("ply"), msg.get("moves")))


def promote(session, msg: dict) -> None:
    """A variation (``moves`` from ``ply``, as ``peek`` takes them) becomes the main line,
    the old line a variation; the board shows its position, the moves after it ahead."""
    whole = whole_record(session)
    ply = msg.get("ply")
    path = annotations.read_path(whole.positions, ply, msg.get("moves"), "promote")
    notes = copy.deepcopy(session.notes)
    moves = notes.promote(whole, ply, path)
    game = Game(whole.start, whole.variant)
    try:
        for move in moves:
            game.push(move)
    except BadInput as e:
        raise BadInput(f"that variation cannot be played as the game: {e}") from None
    game.goto(ply + len(path))
    session._halt()
    session.game, session.notes = game, notes
    session.evals = {p: score for p, score in session.evals.items() if p <= ply}
    session.running, session.message = False, "the variation is now the main line"
    session._changed()
