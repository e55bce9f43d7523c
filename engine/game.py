"""A game record and the rules that end a game: the variant's goal, and the draw rules.

International draughts (FMJD, ``spec/rules.md`` §4.1):

* the side to move with no legal move has lost;
* threefold repetition: the same position, same side to move, for the third time;
* 25-move rule: 25 moves by each side (50 plies) that are all king moves without capture;
* 16-move rule: a lone king against three pieces including at least one king: draw
  after 16 moves by each side (32 plies);
* 5-move rule: a lone king against one or two pieces including at least one king:
  draw after 5 moves by each side (10 plies).

The 16- and 5-move counts start *after* the capture or promotion that creates the
material balance (as lidraughts does): that move is not counted.  A change from the
16-move balance to the 5-move one starts a new count; a capture inside the 5-move
balance (king against king and man, the man is taken) does not.

Other variants use their :class:`Variant` record: the goal (antidraughts,
breakthrough, via :func:`engine.position.winner`), the number of repetitions, the
king-move count (0 = none) and the endgame rule.  Of the endgame rules, FMJD's and
Frisian's (two kings against one: 7 moves each; king against king: 2 moves each,
lidraughts' reading) are implemented; the Russian ones (fmjd64 7.2.4-7.2.8) are not yet.

:class:`Counters` and :func:`advance` are pure, so a search can carry the counters of
its root without a :class:`Game`.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .errors import BadInput
from .notation import move_to_hub
from .position import (BLACK, WHITE, Move, Position, legal_moves, play, start_position,
                       winner)
from .variants import (ENDGAME_FMJD, ENDGAME_FRISIAN, GOAL_BREAKTHROUGH, GOAL_LOSING,
                       INTERNATIONAL, Variant)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``'2-0'`` White wins, ``'0-2'`` Black wins, ``'1-1'`` draw."""

    result: str
    winner: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Counters:
    """Rule counters of a position reached in a game.

    ``king_plies``: consecutive plies that were king moves without capture.
    ``ending``: 16 or 5 when that rule's material balance is on the board, else 0.
    ``ending_plies``: plies played since that balance was created.
    """

    king_plies: int = 0
    ending: int = 0
    ending_plies: int = 0


def ending_rule(pos: Position) -> int:
    """Moves each side may still make under the endgame rule that the material of
    ``pos`` falls under (16 or 5 in international draughts), else 0."""
    (wm, wk), (bm, bk) = pos.count(WHITE), pos.count(BLACK)
    kind = pos.variant.endgame
    if kind == ENDGAME_FMJD:
        for (lone_m, lone_k), (men, kings) in (((wm, wk), (bm, bk)), ((bm, bk), (wm, wk))):
            if lone_m == 0 and lone_k == 1 and kings >= 1:
                if men + kings == 3:
                    return 16
                if men + kings <= 2:
                    return 5
    elif kind == ENDGAME_FRISIAN and wm == bm == 0 and wk and bk:
        return {3: 7, 2: 2}.get(wk + bk, 0)
    return 0


def start_counters(pos: Position) -> Counters:
    """Counters of a game's first position (nothing played yet)."""
    return Counters(0, ending_rule(pos), 0)


def advance(counters: Counters, pos: Position, move: Move, after: Position) -> Counters:
    """Counters after ``move`` is played in ``pos`` (giving ``after``)."""
    king_move = pos.piece_at(move.frm) in "WB" and not move.captured
    king_plies = counters.king_plies + 1 if king_move else 0
    ending = ending_rule(after)
    if ending == 0:
        return Counters(king_plies, 0, 0)
    if ending != counters.ending:
        return Counters(king_plies, ending, 0)   # this move created the balance
    return Counters(king_plies, ending, counters.ending_plies + 1)


def draw_reason(counters: Counters, variant: Variant = INTERNATIONAL) -> str | None:
    """The move-count draw rule that ``counters`` has reached, if any."""
    if counters.ending and counters.ending_plies >= 2 * counters.ending:
        return f"{counters.ending}-move rule"
    limit = variant.reversible_plies
    if limit and counters.king_plies >= limit:
        return f"{limit // 2}-move rule"
    return None


class Game:
    """A game: start position and moves, with undo/redo and adjudication by the rules."""

    def __init__(self, start: Position | None = None, variant: Variant = INTERNATIONAL):
        self.start: Position = start_position(variant) if start is None else start
        self.variant: Variant = self.start.variant
        self.moves: list[Move] = []
        self.positions: list[Position] = [self.start]
        self.counters: list[Counters] = [start_counters(self.start)]
        self._keys: Counter = Counter([self.start.key])
        self._redo: list[Move] = []   # undone moves, most recent last

    @property
    def position(self) -> Position:
        return self.positions[-1]

    def history(self) -> list[Position]:
        """Positions before the current one, oldest first (for the search's draw rules)."""
        return self.positions[:-1]

    def push(self, move: Move) -> None:
        """Play ``move``; raises :class:`BadInput` if it is not legal here."""
        pos = self.position
        if move not in legal_moves(pos):
            raise BadInput(f"illegal move {move_to_hub(move, pos.variant)} in this position")
        after = play(pos, move)
        self.moves.append(move)
        self.positions.append(after)
        self.counters.append(advance(self.counters[-1], pos, move, after))
        self._keys[after.key] += 1
        if self._redo and self._redo[-1] == move:
            self._redo.pop()
        else:
            self._redo.clear()

    def pop(self) -> Move:
        """Take back the last move; it can be replayed with :meth:`redo`."""
        if not self.moves:
            raise BadInput("no move to take back")
        move = self.moves.pop()
        gone = self.positions.pop()
        self.counters.pop()
        self._keys[gone.key] -= 1
        self._redo.append(move)
        return move

    def redo(self) -> Move:
        """Replay the last move taken back."""
        if not self._redo:
            raise BadInput("no move to replay")
        move = self._redo[-1]
        self.push(move)
        return move

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def repetitions(self) -> int:
        """How many times the current position has occurred in this game."""
        return self._keys[self.position.key]

    def outcome(self) -> Outcome | None:
        """The result if the rules end the game in the current position, else None."""
        pos = self.position
        won = winner(pos)
        if won is not None:
            goal = self.variant.goal
            reason = ("crowned first" if goal == GOAL_BREAKTHROUGH and pos.kings else
                      "no legal move (wins at antidraughts)" if goal == GOAL_LOSING else
                      "no legal move")
            return Outcome("2-0" if won == WHITE else "0-2", won, reason)
        if self.repetitions() >= self.variant.repetitions:
            return Outcome("1-1", None, "threefold repetition" if self.variant.repetitions == 3
                           else f"{self.variant.repetitions}-fold repetition")
        reason = draw_reason(self.counters[-1], self.variant)
        if reason:
            return Outcome("1-1", None, reason)
        return None
