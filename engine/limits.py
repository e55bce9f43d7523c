"""What a search is given (:class:`Limits`), what it reports after each depth (:class:`Info`)
and what it answers (:class:`Result`): small frozen records, the search's public vocabulary."""
from __future__ import annotations

from dataclasses import dataclass

from .position import Move


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
    ends: bool = False              # the game ends at that control (DXP's move limit)


@dataclass(frozen=True)
class Info:
    """One completed iteration; ``line``: which of the MultiPV lines (1: the best, the
    search's own; 0: the search reports one line only)."""

    depth: int
    mean_depth: float
    score: int
    nodes: int
    time: float
    pv: tuple[Move, ...]
    line: int = 0


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
