"""How a game that an engine ends itself is scored: a DXP engine's GAMEEND in place of a move.

DXP gives the other side no say (it must confirm), so the game ends there; what is left is
the score, read from the GAMEEND's result code (the sender's view) and the move limit of
its GAMEREQ:

* 1, "I lose": the engine loses; a resignation is final.
* 2, "draw", and 3, "I win": the claim, as the DXP spec reads, unless the endgame
  databases hold the position and say otherwise (they are exact; a claim is not).
* 0, no result, at or past the move limit: the DXP convention (Scan, Moby Dam and Flits end
  a game so at the limit, leaving the result to the other side): adjudicated by the
  endgame databases where the position is in them, otherwise a draw.
* 0 before the move limit, or with none: the engine stopped a game that was not over,
  and forfeits it.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from engine import WHITE, egdb_dirs, egdb_load, egdb_value_name

from .dxp_client import DxpGameEnd

RESIGNS, DRAW, WINS = 1, 2, 3      # GAMEEND result codes, the sender's view


@dataclass(frozen=True)
class Verdict:
    """The score of an ended game and why."""

    result: str                    # '2-0', '1-1', '0-2'
    reason: str


class Databases:
    """A variant's endgame databases (the user's, then those shipped with Rafle, where the
    search finds them), loaded at the first probe and shared by the match's threads."""

    def __init__(self, variant):
        self.variant = variant
        self._lock = threading.Lock()
        self._loaded = False
        self._tables = None

    def result(self, pos) -> str | None:
        """The game's result with best play from ``pos``, or None where the databases do not
        hold it."""
        with self._lock:
            if not self._loaded:
                self._tables = egdb_load(egdb_dirs(), self.variant)
                self._loaded = True
        if self._tables is None:
            return None
        value = egdb_value_name(self._tables.probe(pos))
        if value == "draw":
            return "1-1"
        if value not in ("win", "loss"):
            return None
        white_wins = (value == "win") == (pos.turn == WHITE)
        return "2-0" if white_wins else "0-2"


def judge_game_end(end: DxpGameEnd, pos, name: str, databases: Databases) -> Verdict:
    """The score of the game that ``name``, the engine to move in ``pos``, ended with ``end``."""
    head = f"{name} sent {end.said} after {end.moves} move{'' if end.moves == 1 else 's'}"
    own = "2-0" if pos.turn == WHITE else "0-2"          # the engine wins
    other = "0-2" if pos.turn == WHITE else "2-0"
    if end.reason == RESIGNS:
        return Verdict(other, f"{head}: it resigns")
    known = databases.result(pos)
    said = {"1-1": "a draw", own: "its win", other: "its loss"}
    if end.reason in (DRAW, WINS):
        claim = "1-1" if end.reason == DRAW else own
        if known is None:
            return Verdict(claim, f"{head}: it claims {said[claim]}")
        if known == claim:
            return Verdict(claim, f"{head}: it claims {said[claim]}, as the endgame databases say")
        return Verdict(known, f"{head}: it claims {said[claim]}, the endgame databases say "
                              f"{said[known]}")
    if end.at_limit:
        if known is None:
            return Verdict("1-1", f"{head}: the move limit ({end.limit}), adjudicated a draw "
                                  "(the position is not in the endgame databases)")
        return Verdict(known, f"{head}: the move limit ({end.limit}), adjudicated by the "
                              f"endgame databases: {said[known]}")
    limit = f"before the move limit ({end.limit})" if end.limit else "with no move limit"
    return Verdict(other, f"{head}: it ended the game {limit} without a result, a forfeit")
