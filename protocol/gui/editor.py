"""The board editor's position: the page sends the pieces it placed and the side to move;
this checks them (a clear message for each fault) before the game starts from them.

Refused: a board with no piece, a side with no piece, more pieces on a side than the
variant starts with, a man on its own promotion row (the position codec's own check), a
side to move that is neither ``white`` nor ``black``.  A position whose side to move has
no legal move is accepted: it is a finished game, and the page says so.

:func:`set_edited` is the ``edit`` request of a :class:`~protocol.gui.session.BoardSession`.
"""
from __future__ import annotations

from engine import BLACK, WHITE, BadInput, Position, Variant, pos_from_pieces, start_position

SIDES = {"white": WHITE, "black": BLACK}


def edited_position(msg: dict, variant: Variant) -> Position:
    """The position of an ``edit`` request: ``pieces`` (one of ``wbWBe`` per square, as the
    ``state`` message writes them) and ``turn``."""
    pieces, turn = msg.get("pieces"), msg.get("turn")
    n = variant.nsquares
    if not isinstance(pieces, str) or len(pieces) != n or set(pieces) - set("wbWBe"):
        raise BadInput(f"\"pieces\" must be {n} characters, each w, b, W, B or e (empty)")
    if turn not in SIDES:
        raise BadInput("\"turn\" must be \"white\" or \"black\"")
    white = sum(p in "wW" for p in pieces)
    black = sum(p in "bB" for p in pieces)
    if white + black == 0:
        raise BadInput("the board is empty: put pieces on it")
    for name, count in (("White", white), ("Black", black)):
        if count == 0:
            raise BadInput(f"{name} has no piece: each side needs at least one")
    start = start_position(variant)
    most = bin(start.white).count("1")
    for name, count in (("White", white), ("Black", black)):
        if count > most:
            raise BadInput(f"{name} has {count} pieces: at most {most} in {variant.name}")
    placed = {sq: p for sq, p in enumerate(pieces, start=1) if p != "e"}
    try:
        return pos_from_pieces(placed, SIDES[turn], variant)
    except BadInput as e:
        raise BadInput(f"{e}: a man there must be a king") from None


def set_edited(session, msg: dict) -> None:
    """The board editor's position (checked by :func:`edited_position`): a game starts there."""
    session.start_at(edited_position(msg, session.game.variant))
