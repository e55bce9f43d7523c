"""Iterative deepening search driven from Python, one jitted call per iteration.

Public face of the search: the value types ``Limits``, ``Info``, ``Result``,
``Option`` and the ``Searcher`` that owns the transposition table and the
ordering tables.  (Body in progress: the kernel lands in a following commit.)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .position import Move, Position, legal_moves


@dataclass(frozen=True)
class Limits:
    """What the next search may use; all None means the engine's default."""

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None   # seconds for this move
    time: float | None = None       # remaining clock in seconds (Hub: increment already included)
    inc: float = 0.0
    moves: int | None = None        # moves left to the time control
    infinite: bool = False


@dataclass(frozen=True)
class Info:
    """One completed iteration."""

    depth: int
    mean_depth: float
    score: int
    nodes: int
    time: float
    pv: tuple[Move, ...]


@dataclass(frozen=True)
class Result:
    """The answer of a search: ``move`` is None only when there is no legal move."""

    move: Move | None
    ponder: Move | None
    score: int | None
    depth: int
    nodes: int
    time: float
    pv: tuple[Move, ...]


@dataclass(frozen=True)
class Option:
    """A tunable, declared to GUIs as a Hub ``param``."""

    name: str
    type: str
    default: str
    min: str | None = None
    max: str | None = None
    values: tuple[str, ...] = ()


class Searcher:
    """Owns the search tables; one search at a time."""

    def __init__(self, tt_log2: int = 22):
        self.tt_log2 = tt_log2

    def options(self) -> list[Option]:
        return []

    def set_option(self, name: str, value: str) -> bool:
        return False

    def new_game(self) -> None:
        pass

    def warm_up(self) -> None:
        pass

    def search(self, pos: Position, history: list[Position], limits: Limits,
               on_info: Callable[[Info], None] | None = None, ponder: bool = False,
               analyze: bool = False) -> Result:
        moves = legal_moves(pos)
        move = moves[0] if moves else None
        return Result(move, None, None, 0, 0, 0.0, (move,) if move else ())

    def stop(self) -> None:
        pass

    def ponder_hit(self) -> None:
        pass
