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
  depends on the moves played: :func:`engine.position.barred_square` reads it from the
  game's positions, for :meth:`Game.legal_moves` and for the search's root alike.
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
* Turkish (spec/rules.md §4.12, whose draw rules are unverified): threefold repetition;
  one piece against one, drawn after 2 moves each (pydraughts' rule); 75 moves each
  (150 plies) of reversible moves without capture (kish's limit), where a man's sideways
  step counts as reversible, as a king move does elsewhere.

The rules themselves are written once, as variant data and kernels
(:mod:`engine.drawrules`), which the search applies in its tree; this module keeps the
referee's view over them: :class:`Counters` of each position, :func:`root_counters` (the
one function that computes a position's counters from the game's history, used by the
search for its root too) and :func:`draw_reason` in words.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple, Sequence

from . import drawrules
from .errors import BadInput
from .notation import move_to_hub
from .position import (WHITE, Move, Position, allowed_moves, barred_square, legal_moves, play,
                       start_position,
                       winner)
from .variants import (ENDGAME_RUSSIAN, ENDGAME_TURKISH, GOAL_BREAKTHROUGH, GOAL_LOSING,
                       INTERNATIONAL, Variant)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``'2-0'`` White wins, ``'0-2'`` Black wins, ``'1-1'`` draw."""

    result: str
    winner: int | None
    reason: str


class Counters(NamedTuple):
    """The draw-rule counters of a position reached in a game, in plies
    (:mod:`engine.drawrules`): king moves without capture in a row, plies under the
    lone-king rule in force, under Russian 7.2.7, and since the last capture or promotion.
    """

    king_plies: int = 0
    ending_plies: int = 0
    road_plies: int = 0
    stable_plies: int = 0


def advance(counters: Counters, pos: Position, after: Position) -> Counters:
    """Counters after the move from ``pos`` to ``after``."""
    return Counters(*drawrules.advance(*counters, *pos.words, *after.words[:3],
                                       pos.variant.table))


def root_counters(history: Sequence[Position], pos: Position) -> Counters:
    """Counters of ``pos`` reached after ``history`` (the game's positions before it,
    oldest first; nothing is known to precede the first)."""
    seq = list(history) + [pos]
    counters = Counters()
    for before, after in zip(seq, seq[1:]):
        counters = advance(counters, before, after)
    return counters


class RootCounters:
    """:func:`root_counters` for a search that is asked root after root of one game: the
    history of the last root is kept, and where the next history begins with it and then
    that root, only the plies since are advanced (a game of n plies costs O(n), not O(n^2),
    the replay of the whole history each move that self-play at few nodes paid).  Any other
    history (another game, a move taken back) is replayed whole."""

    def __init__(self) -> None:
        self._seq: list[Position] = []      # the last root's history, then that root
        self._counters = Counters()

    def __call__(self, history: Sequence[Position], pos: Position) -> Counters:
        n = len(self._seq)
        if 0 < n <= len(history) and history[n - 1] == self._seq[-1] and \
                list(history[:n]) == self._seq:
            counters, tail = self._counters, list(history[n - 1:]) + [pos]
            for before, after in zip(tail, tail[1:]):
                counters = advance(counters, before, after)
        else:
            counters = root_counters(history, pos)
        self._seq, self._counters = list(history) + [pos], counters
        return counters


def ending_rule(pos: Position) -> int:
    """Moves under the lone-king rule that the material of ``pos`` falls under (16 or 5
    in international draughts, 15 or 5 in Russian, 7 or 2 in Frisian), else 0."""
    return int(drawrules.material_rules(*pos.words[:3], pos.variant.table)[0])


def draw_reason(pos: Position, counters: Counters) -> str | None:
    """The move-count rule that draws ``pos`` with ``counters``, in words, or None."""
    v = pos.variant
    why = drawrules.count_draw(*counters, *pos.words, v.table)
    if why == drawrules.DRAW_NONE:
        return None
    n, _, _, stable = drawrules.material_rules(*pos.words[:3], v.table)
    if why == drawrules.DRAW_ENDING:
        if v.endgame == ENDGAME_RUSSIAN and n == 15:
            return "15-move rule (three kings against one)"
        if v.endgame == ENDGAME_TURKISH:
            return f"{n}-move rule (one piece each)"
        return f"{n}-move rule"
    if why == drawrules.DRAW_ROAD:
        return "5-move rule (lone king on the long diagonal)"
    if why == drawrules.DRAW_STABLE:
        return f"{stable // 2}-move rule (no change of material)"
    return f"{v.reversible_plies // 2}-move rule"


def barred_reason(history: Sequence[Position], pos: Position, move: Move) -> str | None:
    """Why ``move`` (legal on the board) is not allowed after ``history``, else None."""
    if move.captured or move.frm != barred_square(list(history), pos):
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
        self.counters: list[Counters] = [Counters()]
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
        fourth quiet move in a row (:func:`engine.position.barred_square`)."""
        return allowed_moves(self.positions[:-1], self.position)

    def push(self, move: Move) -> None:
        """Play ``move``; raises :class:`BadInput` if it is not allowed here."""
        pos = self.position
        if move not in legal_moves(pos):
            raise BadInput(f"illegal move {move_to_hub(move, pos.variant)} in this position")
        why = barred_reason(self.positions[:-1], pos, move)
        if why:
            raise BadInput(f"illegal move {move_to_hub(move, pos.variant)}: {why}")
        after = play(pos, move)
        self.moves.append(move)
        self.positions.append(after)
        self.counters.append(advance(self.counters[-1], pos, after))
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
    def redo_moves(self) -> list[Move]:
        """The moves taken back that :meth:`redo` would replay, next one first."""
        return list(reversed(self._redo))

    @property
    def total_plies(self) -> int:
        """Plies in the record: played plus taken back (redo-able)."""
        return len(self.moves) + len(self._redo)

    def goto(self, ply: int) -> None:
        """Take back or replay moves of the record until ``ply`` moves are played."""
        if not 0 <= ply <= self.total_plies:
            raise BadInput(f"the game has {self.total_plies} plies; there is no ply {ply}")
        while len(self.moves) > ply:
            self.pop()
        while len(self.moves) < ply:
            self.redo()

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
        reason = draw_reason(pos, self.counters[-1])
        if reason:
            return Outcome("1-1", None, reason)
        return None
