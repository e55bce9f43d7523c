"""Shots: a sacrifice, or a series of them, that wins material by force.

A *shot* (a "coup" or combination) for the side to move is found by a small exact search
over forcing moves only, written in plain Python over ``engine.legal_moves`` and
``engine.play``:

* the first move GIVES material: after it the opponent must capture (a quiet move
  that leaves a piece to be taken), or it is itself a capture that takes less than
  every one of the opponent's compulsory replies takes back;
* in the line, every reply of the opponent is a capture (forced: ``legal_moves`` gives
  only captures when one exists, so the majority rule is the engine's); where the
  opponent has no capture to make, the line ends and its material is counted;
* the mover's later moves are sacrifices (quiet moves after which the opponent must
  capture) or captures; with no capture to make, the mover may also stop the line
  (its material counts as it stands);
* the line must settle within ``max_plies`` plies (no capture still pending at its
  end), and the mover must end ahead by at least one man compared with the start,
  whatever the opponent chooses: the minimum over the opponent's captures, the maximum
  over the mover's choices (ties: the shorter line);
* the material must be won by a capture of the mover's: a line in which it never
  captures counts at most 0 (crowning a man while a man is lost is not a shot).

Material counts a man as 1 and a king as :data:`KING_MEN` (3) men, so a line that ends
by crowning wins 2 more.  A plain capture that wins material with no sacrifice is not a
shot.  The opponent's threats after the line (a counter-shot) are not looked at; a
searcher, when given, confirms the shot.

The search is an alpha-beta over these rules; lines that transpose are searched once,
and a sacrifice is not tried where no capture could follow it within the horizon.
Over the 1,490 positions of eleven games against Scan it takes 4 ms a position on
average (median under 1 ms, the slowest about 0.2 s).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from engine import Limits, Move, Position, Searcher, legal_moves, move_to_pdn, play

KING_MEN = 3
"""What a king is worth in the material count, in men."""
MAX_PLIES = 9
"""How long a forcing line may be, by default."""
CONFIRM_NODES = 100_000
"""The searcher's node budget for confirming a shot, when no limits are given."""
CONFIRM_MARGIN = 50
"""How far below the material the line wins (in hundredths of a man) the searcher's
score may fall and still confirm it: the evaluation's positional terms move it a little."""


@dataclass(frozen=True)
class Shot:
    """A forcing line: ``line`` in PDN from the shot's first move through its last capture
    (e.g. ``["27-22", "17x28", "32x14"]``; the opponent's, when the mover may stop after
    it); ``gain``: material won at its end, in men (a king counts :data:`KING_MEN`);
    ``depth``: its plies; ``sacrifices``: the mover's men (kings as :data:`KING_MEN`) that
    the opponent takes along it."""

    line: list[str]
    gain: int
    depth: int
    sacrifices: int


class _Line(NamedTuple):
    gain: int                  # material at the end minus at the start, for the mover
    moves: tuple[Move, ...]
    given: int                 # material the opponent took along it

    def after(self, move: Move, given: int = 0) -> "_Line":
        return _Line(self.gain, (move, *self.moves), self.given + given)


class _Root(NamedTuple):
    side: int                  # the mover
    start: int                 # its material balance at the start of the line
    plies: int                 # the horizon
    known: dict                # position key -> its legal moves (exchanges transpose)
    seen: dict                 # (position key, ply, took) -> (value, line, bound)

    def moves(self, pos: Position) -> list[Move]:
        moves = self.known.get(pos.key)
        if moves is None:
            moves = self.known[pos.key] = legal_moves(pos)
        return moves

    def captures(self, pos: Position) -> list[Move]:
        moves = self.moves(pos)
        return moves if moves and moves[0].captured else []


def _root(pos: Position, plies: int) -> _Root:
    return _Root(pos.turn, balance(pos, pos.turn), plies, {}, {})


# A line is ranked by its gain, then by its shortness: gain * 100 - plies (plies < 100).
_NONE = -10 ** 9               # no line the mover can claim (it does not settle, or it loses)
_ALL = 10 ** 9


def _key(gain: int, ply: int) -> int:
    return gain * 100 - ply


def material(pos: Position, side: int) -> int:
    """``side``'s material in men (a king counts :data:`KING_MEN`)."""
    men, kings = pos.count(side)
    return men + KING_MEN * kings


def balance(pos: Position, side: int) -> int:
    """``side``'s material minus the other side's."""
    return material(pos, side) - material(pos, 1 - side)


def taken(pos: Position, move: Move) -> int:
    """The material ``move`` captures in ``pos``."""
    return sum(KING_MEN if pos.piece_at(s).isupper() else 1 for s in move.captured)


# The search is an alpha-beta over keys, fail-soft: a value above alpha and below beta is
# exact, with its line; outside the window only its side of the bound is known.
_EXACT, _LOWER, _UPPER = 0, 1, 2


def _mover(pos: Position, root: _Root, ply: int, took: bool, alpha: int,
           beta: int) -> tuple[int, _Line | None]:
    """The best forcing line for the mover, to move in ``pos`` at ``ply``; ``took``: it
    has captured in the line already (a line wins only by a capture of its own).  Lines
    that transpose (exchanges in another order) are searched once."""
    at = (pos.key, ply, took)
    if at in root.seen:
        value, line, bound = root.seen[at]
        if bound == _EXACT or (bound == _LOWER and value >= beta) or \
                (bound == _UPPER and value <= alpha):
            return value, line
    value, line = _mover_search(pos, root, ply, took, alpha, beta)
    root.seen[at] = (value, line, _LOWER if value >= beta else _UPPER if value <= alpha
                     else _EXACT)
    return value, line


def _mover_search(pos: Position, root: _Root, ply: int, took: bool, alpha: int,
                  beta: int) -> tuple[int, _Line | None]:
    moves = root.moves(pos)
    if not moves:
        return _NONE, None                                       # the mover has lost
    best, line = _NONE, None
    if not moves[0].captured:                                    # it may stop here
        gain = balance(pos, root.side) - root.start
        gain = gain if took else min(gain, 0)
        best, line = _key(gain, ply), _Line(gain, (), 0)
        alpha = max(alpha, best)
        if ply + 2 >= root.plies or alpha >= beta:
            return best, line    # no time left for a sacrifice to be repaid by a capture
    elif ply == root.plies:
        return best, line        # a capture still pending: unsettled
    for move in moves:
        child = play(pos, move)
        replies = root.captures(child)
        if replies:
            value, sub = _opponent(child, replies, root, ply + 1, took or bool(move.captured),
                                   alpha, beta)
        elif move.captured:
            value, sub = _end(child, root, ply + 1)
        else:
            continue                                 # a quiet move that gives nothing
        if value > best:
            best, line = value, None if sub is None else sub.after(move)
            alpha = max(alpha, best)
            if alpha >= beta:
                break
    return best, line


def _opponent(pos: Position, replies: list[Move], root: _Root, ply: int, took: bool,
              alpha: int, beta: int) -> tuple[int, _Line | None]:
    """The opponent's captures ``replies`` in ``pos``: the worst line for the mover."""
    if ply == root.plies:
        return _NONE, None                           # a capture still pending: unsettled
    worst, line = _ALL, None
    for reply in replies:
        value, sub = _mover(play(pos, reply), root, ply + 1, took, alpha, beta)
        if value < worst:
            worst, line = value, None if sub is None else sub.after(reply, taken(pos, reply))
            beta = min(beta, worst)
            if alpha >= beta:
                break
    return worst, line


def _end(pos: Position, root: _Root, ply: int) -> tuple[int, _Line]:
    """The line ends after the mover's capture: the opponent is to move, nothing to take."""
    gain = balance(pos, root.side) - root.start
    if not root.moves(pos):
        gain = max(gain, 1)      # the opponent cannot move: the game is won
    return _key(gain, ply), _Line(gain, (), 0)


def _shot(pos: Position, line: _Line) -> Shot:
    words, here = [], pos
    for move in line.moves:
        words.append(move_to_pdn(here, move))
        here = play(here, move)
    return Shot(words, line.gain, len(line.moves), line.given)


def _first_moves(pos: Position, root: _Root):
    """(move, position after it, the opponent's captures) for each move that gives material."""
    for move in root.moves(pos):
        child = play(pos, move)
        replies = root.captures(child)
        if replies and (not move.captured
                        or min(taken(child, r) for r in replies) > taken(pos, move)):
            yield move, child, replies


def _floor(min_gain: int | None) -> int:
    """The alpha under which lines with less than ``min_gain`` fall."""
    return _NONE if min_gain is None else _key(min_gain - 1, 0)


def shot_moves(pos: Position, max_plies: int = MAX_PLIES,
               min_gain: int | None = None) -> list[tuple[Move, Shot]]:
    """Every first move of the side to move that gives material, with the forcing line it
    starts (its ``gain`` may be below 1: the sacrifice does not pay), in legal-move order;
    moves whose line does not settle within ``max_plies``, or wins less than ``min_gain``
    when it is given, are left out."""
    root, floor, out = _root(pos, max_plies), _floor(min_gain), []
    for move, child, replies in _first_moves(pos, root):
        value, line = _opponent(child, replies, root, 1, bool(move.captured), floor, _ALL)
        if value > floor:
            out.append((move, _shot(pos, line.after(move))))
    return out


def best_line(pos: Position, max_plies: int = MAX_PLIES, min_gain: int | None = None,
              captured: bool = False) -> Shot | None:
    """The best forcing line for the side to move from ``pos`` (sacrifices and captures,
    or stopping when it has no capture to make), its gain measured from ``pos``; None when
    none settles within ``max_plies`` or, with ``min_gain``, none wins that much.  A line
    wins only with a capture of the mover's own: ``captured`` says it made one before
    ``pos``.  Its ``gain`` may be 0 or less."""
    root, floor = _root(pos, max_plies), _floor(min_gain)
    value, line = _mover(pos, root, 0, captured, floor, _ALL)
    return _shot(pos, line) if value > floor and line is not None else None


def _confirmed(pos: Position, shot: Shot, searcher: Searcher, limits: Limits | None) -> bool:
    result = searcher.search(pos, [], limits or Limits(nodes=CONFIRM_NODES))
    if result.move is not None and move_to_pdn(pos, result.move) == shot.line[0]:
        return True
    target = 100 * (balance(pos, pos.turn) + shot.gain) - CONFIRM_MARGIN
    return result.score is not None and result.score >= target


def shot_at(pos: Position, searcher: Searcher | None = None, limits: Limits | None = None,
            max_plies: int = MAX_PLIES) -> Shot | None:
    """The best shot of the side to move in ``pos`` (the largest gain, then the shortest
    line), or None.  With a ``searcher``, a shot is kept only if a search (``limits``;
    default :data:`CONFIRM_NODES` nodes) agrees: it plays the shot's first move, or its
    score reaches the material the shot wins."""
    root, alpha, best = _root(pos, max_plies), _floor(1), None
    for move, child, replies in _first_moves(pos, root):
        value, line = _opponent(child, replies, root, 1, bool(move.captured), alpha, _ALL)
        if value > alpha:
            alpha, best = value, _shot(pos, line.after(move))
    if best is None:
        return None
    if searcher is not None and not _confirmed(pos, best, searcher, limits):
        return None
    return best


def allows_shot(pos_before: Position, move: Move, searcher: Searcher | None = None,
                limits: Limits | None = None, max_plies: int = MAX_PLIES) -> Shot | None:
    """The shot that ``move``, played in ``pos_before``, gives the opponent, or None."""
    return shot_at(play(pos_before, move), searcher, limits, max_plies)

