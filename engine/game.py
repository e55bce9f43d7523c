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
king-move count (0 = none) and the endgame rule:

* Frisian (two kings against one: 7 moves each; king against king: 2 moves each).
  This is lidraughts' documented reading; its code differs in two details we do not
  copy: a 2-against-1 balance reached by a promotion counts the move before it, and the
  king-against-king count goes on from the 2-against-1 count instead of allowing two
  more moves.  Frisian's limit on one king's quiet moves (``max_same_king_moves``)
  depends on the moves played, so it is applied here, by :func:`allowed_moves`.
* Russian and Brazilian (fmjd64 7.2.3-7.2.8, spec/rules.md §4.6; lidraughts gives
  Brazilian the Russian rules), each counted on its own, the first one reached draws:

  - 7.2.4, three or more kings against a lone king: drawn when the stronger side has
    made its 15th move (the game is won if that move takes the king: the winner is
    judged first);
  - 7.2.5, 15 moves each of kings only, without capture (``reversible_plies`` 30);
  - 7.2.6, both sides with kings and no capture or promotion for 30 moves each in a
    4-5 piece ending, 60 in a 6-7 piece ending;
  - 7.2.7, three pieces with a king against a lone king that stands on the long
    diagonal (a1-h8): drawn at the stronger side's 5th move.  The count lasts while
    the lone king stays on that diagonal; leaving it ends the count, coming back
    starts a new one;
  - 7.2.8, one or two pieces with a king against a lone king: drawn at the stronger
    side's 5th move (with king against king, either side's).

  The lone-king counts (7.2.4, 7.2.7, 7.2.8) begin after the move that brings the
  balance about, as above; a count goes on while the same rule applies (a promotion or
  a capture inside it does not restart it) and restarts when another rule takes over.
  The 7.2.6 count begins after the last capture or promotion.

:class:`Counters` and :func:`advance` are pure, so a search can carry the counters of
its root without a :class:`Game`.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from .errors import BadInput
from .notation import move_to_hub
from .position import (BLACK, WHITE, Move, Position, barred_king, barred_square, legal_moves, play,
                       start_position, winner)
from .variants import (ENDGAME_FMJD, ENDGAME_FRISIAN, ENDGAME_RUSSIAN, GOAL_BREAKTHROUGH,
                       GOAL_LOSING, INTERNATIONAL, Variant)


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
    ``ending``: the lone-king rule whose material balance is on the board, as the moves
    it allows (16 or 5 in international draughts, 15 or 5 in Russian), else 0.
    ``ending_plies``: plies played since that balance was created.

    Russian and Brazilian only (left at their defaults elsewhere):
    ``ending_moves``: moves by (White, Black) since the lone-king count began, and
    ``ending_count`` the moves of the side(s) playing against the lone king;
    ``road_moves``/``road_count`` the same for 7.2.7 (None: not in force);
    ``stable_plies``: plies since the last capture or promotion, and ``stable_limit``
    the plies 7.2.6 allows in the current balance (0: it does not apply).
    """

    king_plies: int = 0
    ending: int = 0
    ending_plies: int = 0
    ending_moves: tuple[int, int] = (0, 0)
    ending_count: int = 0
    road_moves: tuple[int, int] | None = None
    road_count: int = 0
    stable_plies: int = 0
    stable_limit: int = 0


@dataclass(frozen=True, slots=True)
class _Russian:
    """Which Russian endgame rules the material of a position brings into force."""

    ending: int              # 15 (7.2.4), 5 (7.2.8) or 0
    road: bool               # 7.2.7
    strong: tuple[int, ...]  # the side(s) playing against the lone king
    stable_limit: int        # 7.2.6 plies: 60, 120 or 0


def _on_long_diagonal(pos: Position, square: int) -> bool:
    row, col = pos.variant.coords(square)
    return row + col == pos.variant.width - 1          # a1-h8


def _russian(pos: Position) -> _Russian:
    counts = {WHITE: pos.count(WHITE), BLACK: pos.count(BLACK)}
    ending, road, strong = 0, False, []
    for lone in (WHITE, BLACK):
        other = 1 - lone
        (lone_m, lone_k), (men, kings) = counts[lone], counts[other]
        if lone_m or lone_k != 1 or not kings:
            continue
        pieces = men + kings
        if pieces <= 2:
            ending = 5                                     # 7.2.8
        elif kings >= 3:
            ending = 15                                    # 7.2.4
        if pieces == 3 and _on_long_diagonal(pos, pos.squares(lone)[0]):
            road = True                                    # 7.2.7
        if ending or road:
            strong.append(other)
    total = sum(m + k for m, k in counts.values())
    both_kings = counts[WHITE][1] and counts[BLACK][1]
    stable = (60 if total in (4, 5) else 120 if total in (6, 7) else 0) if both_kings else 0
    return _Russian(ending, road, tuple(strong), stable)


def ending_rule(pos: Position) -> int:
    """Moves under the lone-king rule that the material of ``pos`` falls under (16 or 5
    in international draughts, 15 or 5 in Russian, 7 or 2 in Frisian), else 0."""
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
    elif kind == ENDGAME_RUSSIAN:
        return _russian(pos).ending
    return 0


def start_counters(pos: Position) -> Counters:
    """Counters of a game's first position (nothing played yet)."""
    if pos.variant.endgame == ENDGAME_RUSSIAN:
        rules = _russian(pos)
        return Counters(0, rules.ending, 0, road_moves=(0, 0) if rules.road else None,
                        stable_limit=rules.stable_limit)
    return Counters(0, ending_rule(pos), 0)


def _count_on(moves: tuple[int, int], mover: int) -> tuple[int, int]:
    return (moves[0] + 1, moves[1]) if mover == WHITE else (moves[0], moves[1] + 1)


def advance(counters: Counters, pos: Position, move: Move, after: Position) -> Counters:
    """Counters after ``move`` is played in ``pos`` (giving ``after``)."""
    king_move = pos.piece_at(move.frm) in "WB" and not move.captured
    king_plies = counters.king_plies + 1 if king_move else 0
    if pos.variant.endgame == ENDGAME_RUSSIAN:
        return _advance_russian(counters, pos.turn, move, after, king_plies)
    ending = ending_rule(after)
    if ending == 0:
        return Counters(king_plies, 0, 0)
    if ending != counters.ending:
        return Counters(king_plies, ending, 0)   # this move created the balance
    return Counters(king_plies, ending, counters.ending_plies + 1)


def _advance_russian(c: Counters, mover: int, move: Move, after: Position,
                     king_plies: int) -> Counters:
    rules = _russian(after)
    if rules.ending == 0:
        ending_plies, ending_moves = 0, (0, 0)
    elif rules.ending != c.ending:
        ending_plies, ending_moves = 0, (0, 0)          # this move brought the balance about
    else:
        ending_plies, ending_moves = c.ending_plies + 1, _count_on(c.ending_moves, mover)
    road_moves = None
    if rules.road:
        road_moves = (0, 0) if c.road_moves is None else _count_on(c.road_moves, mover)
    changed = bool(move.captured) or move.promotes
    return Counters(
        king_plies, rules.ending, ending_plies,
        ending_moves=ending_moves,
        ending_count=max((ending_moves[s] for s in rules.strong), default=0),
        road_moves=road_moves,
        road_count=max((road_moves[s] for s in rules.strong), default=0) if road_moves else 0,
        stable_plies=0 if changed else c.stable_plies + 1,
        stable_limit=rules.stable_limit)


def draw_reason(counters: Counters, variant: Variant = INTERNATIONAL) -> str | None:
    """The move-count draw rule that ``counters`` has reached, if any."""
    if variant.endgame == ENDGAME_RUSSIAN:
        reason = _russian_reason(counters)
        if reason:
            return reason
    elif counters.ending and counters.ending_plies >= 2 * counters.ending:
        return f"{counters.ending}-move rule"
    limit = variant.reversible_plies
    if limit and counters.king_plies >= limit:
        return f"{limit // 2}-move rule"
    return None


def _russian_reason(c: Counters) -> str | None:
    if c.ending == 15 and c.ending_count >= 15:
        return "15-move rule (three kings against one)"
    if c.road_moves is not None and c.road_count >= 5:
        return "5-move rule (lone king on the long diagonal)"
    if c.ending == 5 and c.ending_count >= 5:
        return "5-move rule"
    if c.stable_limit and c.stable_plies >= c.stable_limit:
        return f"{c.stable_limit // 2}-move rule (no change of material)"
    return None


def allowed_moves(pos: Position, moves: Sequence[Move]) -> list[Move]:
    """The moves a game allows in ``pos``, reached by ``moves`` (the game's moves so far,
    oldest first; both sides').

    These are the legal moves, except in Frisian: there a side that still has men may
    not make a fourth quiet move in a row with the same king (:func:`barred_king`).
    With a record that starts later than the game, only the moves known count.
    """
    legal = legal_moves(pos)
    if not pos.variant.max_same_king_moves:
        return legal
    barred = barred_king(pos, list(moves[-2::-2])[::-1])
    if barred is None:
        return legal
    return [m for m in legal if m.captured or m.frm != barred]


def barred_reason(pos: Position, moves: Sequence[Move], move: Move) -> str | None:
    """Why ``move`` (legal on the board) is not allowed after ``moves``, else None."""
    if move in allowed_moves(pos, moves):
        return None
    limit = pos.variant.max_same_king_moves
    return (f"the king on {move.frm} has made {limit} quiet moves in a row; while its side "
            f"has men it must capture or another piece must move")


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

    def legal_moves(self) -> list[Move]:
        """The moves allowed now: the board's legal moves, less a Frisian king's barred
        fourth quiet move in a row (:func:`allowed_moves`)."""
        pos = self.position
        barred = barred_square(self.positions[:-1], pos)
        return [m for m in legal_moves(pos) if m.captured or m.frm != barred]

    def push(self, move: Move) -> None:
        """Play ``move``; raises :class:`BadInput` if it is not allowed here."""
        pos = self.position
        if move not in legal_moves(pos):
            raise BadInput(f"illegal move {move_to_hub(move, pos.variant)} in this position")
        why = barred_reason(pos, self.moves, move)
        if why:
            raise BadInput(f"illegal move {move_to_hub(move, pos.variant)}: {why}")
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
        if not self.legal_moves():
            # Frisian: the only piece that could move is a king barred from moving again.
            won = pos.turn if self.variant.goal == GOAL_LOSING else 1 - pos.turn
            return Outcome("2-0" if won == WHITE else "0-2", won,
                           "no legal move (the king may not move a fourth time)")
        if self.repetitions() >= self.variant.repetitions:
            return Outcome("1-1", None, "threefold repetition" if self.variant.repetitions == 3
                           else f"{self.variant.repetitions}-fold repetition")
        reason = draw_reason(self.counters[-1], self.variant)
        if reason:
            return Outcome("1-1", None, reason)
        return None
