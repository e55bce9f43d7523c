"""The draw rules written plainly from the rules text: the slow twin of engine.drawrules.

Counts are kept per side and by name, one small function per rule, with no bit tricks:
``tests/test_draw_rules.py`` plays random games of every variant and checks, at every
position, that the referee (:class:`engine.game.Game`, which reads the kernels) and the
search kernel's own verdict agree with this module.  (This was Rafle's referee before
the rules became variant data shared with the search.)

International draughts (FMJD, spec/rules.md 4.1): 25-move rule (50 plies of king moves
without capture), 16-move rule (a lone king against three pieces with a king, 16 moves
each) and 5-move rule (against one or two pieces with a king, 5 moves each), counted
after the move that brings the balance about.  Frisian: two kings against one, 7 moves
each; king against king, 2 moves each.  Russian and Brazilian: fmjd64 7.2.4-7.2.8, each
counted on its own (see ``_russian``).  Turkish: one piece against one, 2 moves each; a
man's sideways step is reversible like a king move (75 moves each of them draw).
"""
from __future__ import annotations

from dataclasses import dataclass

from engine import BLACK, INTERNATIONAL, WHITE, Move, Position, Variant
from engine.variants import ENDGAME_FMJD, ENDGAME_FRISIAN, ENDGAME_RUSSIAN, ENDGAME_TURKISH


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
    elif kind == ENDGAME_TURKISH and wm + wk == 1 and bm + bk == 1:
        return 2
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
    if pos.variant.endgame == ENDGAME_TURKISH and not move.captured and not move.promotes:
        # A man stepping along its row can step back: reversible, as a king move is.
        king_move = king_move or pos.variant.coords(move.frm)[0] == pos.variant.coords(move.to)[0]
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
        if variant.endgame == ENDGAME_TURKISH:
            return f"{counters.ending}-move rule (one piece each)"
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

