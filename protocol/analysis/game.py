"""The analysis of one game: every position searched, every move judged.

Each position of the game (before each move, and the last) is searched once, with the same
:class:`engine.Limits`; its score is the side to move's.  A move's value for its player is
the next position's score negated; what it loses is the fall in win probability
(:mod:`.winprob`) from the position before it (best play) to after it, in percent points
of the expected result.  A move that is the search's own best loses nothing (the two
searches see different depths; the move the engine would play is not a mistake by its own
judgement).  Where the endgame databases hold a position, their verdict replaces its
searched win probability (a won position 1, a draw one half) and goes in the comment.

A move is marked by what it loses, lichess's thresholds (0.1, 0.2, 0.3 of its winning
chances on -1..1) halved for the 0..1 scale used here: an inaccuracy ``?!`` from 5 points,
a mistake ``?`` from 10, a blunder ``??`` from 15.  A forced move (the only one the rules
allow) is never marked, and counts in no average.

Shots: with ``find_shots``, each position where the mover had a choice is asked of
:func:`protocol.analysis.shots.shot_at` for a forced winning combination; one the player did not
start (the move played begins no line that wins as much) is a missed shot.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Callable

from engine import (Limits, Position, Searcher, egdb_dirs, egdb_load, egdb_value_name,
                    legal_moves, move_to_pdn, play, pos_to_fen)

from .winprob import K, win_probability

WIN = 10000            # the search scores a win in n plies WIN - n (as protocol.text.thinking)
WIN_BOUND = WIN - 200  # beyond: a win or loss at a known distance
CP_CLIP = 1000         # centi-men losses are counted between scores clipped to +-10 men
LINE_PLIES = 10        # plies of the better line kept as a variation
MARKS = ((15.0, "??"), (10.0, "?"), (5.0, "?!"))     # loss in percent points -> mark
NAGS = {"?!": "$6", "?": "$2", "??": "$4"}
WORDS = {"?!": "Inaccuracy", "?": "Mistake", "??": "Blunder"}


@dataclass
class MoveAnalysis:
    """One move of the game: ``ply`` from 0; scores in hundredths of a man from the mover's
    side (``before``: the position before it, best play; ``after``: after it); ``eval``: the
    position after it from White's side; ``egdb``: the databases' verdict on the position
    after it, White's side (``"win"`` White wins, ``"draw"``, ``"loss"``; ``""`` not held);
    ``loss``: win probability lost, percent points; ``shot``: the missed shot's line;
    ``allowed``: the line of the shot this move gave the opponent (another move gave none)."""

    ply: int
    side: str              # "white" or "black": who played it
    move: str
    best: str
    line: list[str]
    before: int | None
    after: int | None
    eval: int | None
    loss: float = 0.0
    cp_loss: int = 0
    mark: str = ""
    forced: bool = False
    egdb: str = ""
    shot: list[str] = field(default_factory=list)
    shot_gain: int = 0
    shot_depth: int = 0
    allowed: list[str] = field(default_factory=list)
    allowed_gain: int = 0
    allowed_depth: int = 0


@dataclass
class GameAnalysis:
    """A game's analysis: its tags (Event, Round, White, Black, Result, ...), the start
    position's evaluation (White's side), each move's, and the limits it was searched with."""

    tags: dict[str, str]
    start_eval: int | None
    moves: list[MoveAnalysis]
    limits: str
    k: float = K

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "GameAnalysis":
        moves = [MoveAnalysis(**m) for m in data["moves"]]
        return cls(data["tags"], data["start_eval"], moves, data["limits"], data.get("k", K))

    def by(self, side: str) -> list[MoveAnalysis]:
        """The moves of one side (``"white"`` or ``"black"``)."""
        return [m for m in self.moves if m.side == side]


def describe(limits: Limits) -> str:
    """The limits as text (kept with an analysis: a resumed run with others redoes it)."""
    parts = [f"{name} {value}" for name, value in
             (("movetime", limits.movetime), ("depth", limits.depth), ("nodes", limits.nodes))
             if value is not None]
    return ", ".join(parts) or "default"


_tables: dict[str, object] = {}


def _databases(variant):
    """The endgame databases of ``variant`` (None: none found), loaded once per process."""
    if variant.name not in _tables:
        try:
            _tables[variant.name] = egdb_load(egdb_dirs(), variant)
        except (OSError, ValueError):
            _tables[variant.name] = None
    return _tables[variant.name]


def db_verdict(pos: Position) -> str:
    """The databases' ``win``/``draw``/``loss`` for the side to move of ``pos``, or ``""``."""
    tables = _databases(pos.variant)
    if tables is None or (pos.white | pos.black).bit_count() > tables.pieces:
        return ""
    value = egdb_value_name(tables.probe(pos))
    return "" if value == "unknown" else value


def _chance(score: int | None, verdict: str, k: float) -> float:
    """The side to move's expected result: the databases' verdict, else the score's."""
    if verdict:
        return {"win": 1.0, "draw": 0.5, "loss": 0.0}[verdict]
    return 0.5 if score is None else win_probability(score, k)


def _line(pos: Position, pv) -> list[str]:
    words = []
    for move in pv[:LINE_PLIES]:
        if move not in legal_moves(pos):
            break
        words.append(move_to_pdn(pos, move))
        pos = play(pos, move)
    return words


def _mark(loss: float) -> str:
    return next((mark for bound, mark in MARKS if loss >= bound), "")


def analyse_game(game, limits: Limits, searcher: Searcher,
                 on_progress: Callable[[int, int], None] | None = None, *,
                 k: float = K, find_shots: bool = False, tags: dict[str, str] | None = None
                 ) -> GameAnalysis:
    """Analyse ``game`` (an :class:`engine.Game`, or a PDN game with ``.game()`` and ``.tags``)
    with ``searcher`` at ``limits``; ``on_progress(done, total)`` after each position searched
    (an exception it raises stops the analysis)."""
    if hasattr(game, "tags") and tags is None:
        tags = game.tags
    record = game.game() if hasattr(game, "game") and callable(game.game) else game
    positions = list(record.positions)
    moves = list(record.moves)
    searcher.new_game()
    scores: list[int | None] = []
    lines: list[tuple] = []
    total = len(positions)
    for i, pos in enumerate(positions):
        score, pv = _search(pos, positions[:i], record, i == total - 1, limits, searcher)
        scores.append(score)
        lines.append(pv)
        if on_progress is not None:
            on_progress(i + 1, total)
    analysed = _judge(positions, moves, scores, lines, k)
    if find_shots:
        _shots(positions, analysed, limits, searcher)
    white_first = positions[0].turn == 0
    start_eval = scores[0] if white_first or scores[0] is None else -scores[0]
    return GameAnalysis(dict(tags or {}), start_eval, analysed, describe(limits), k)


def _search(pos: Position, history: list[Position], record, last: bool, limits: Limits,
            searcher: Searcher) -> tuple[int | None, tuple]:
    """The score of ``pos`` for its side to move and its best line; at the game's end, the
    rules' verdict (a win in 0 plies, or a draw) where they end it."""
    if last:
        outcome = record.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return 0, ()
            return (WIN if outcome.winner == pos.turn else -WIN), ()
    result = searcher.search(pos, history, limits, analyze=True)
    return result.score, tuple(result.pv)


def _judge(positions, moves, scores, lines, k: float) -> list[MoveAnalysis]:
    """Each move's values, loss and mark, from the scores of the positions around it."""
    out = []
    for ply, move in enumerate(moves):
        pos, after_pos = positions[ply], positions[ply + 1]
        pv = lines[ply]
        forced = len(legal_moves(pos)) == 1
        before = scores[ply]
        after = None if scores[ply + 1] is None else -scores[ply + 1]
        if before is None and after is not None and forced:
            before = after
        verdict_before, verdict_after = db_verdict(pos), db_verdict(after_pos)
        best = pv[0] if pv else move
        loss, cp_loss = 0.0, 0
        if not forced and best != move:
            loss = 100 * max(0.0, _chance(before, verdict_before, k)
                             - (1 - _chance(scores[ply + 1], verdict_after, k)))
            if before is not None and after is not None:
                cp_loss = max(0, max(-CP_CLIP, min(CP_CLIP, before))
                              - max(-CP_CLIP, min(CP_CLIP, after)))
        white = after_pos.turn == 0
        eval_white = scores[ply + 1] if white or scores[ply + 1] is None else -scores[ply + 1]
        verdict_white = verdict_after if white else {"win": "loss", "loss": "win"}.get(
            verdict_after, verdict_after)
        out.append(MoveAnalysis(ply, "white" if pos.turn == 0 else "black", move_to_pdn(pos, move), move_to_pdn(pos, best) if
                                best in legal_moves(pos) else move_to_pdn(pos, move),
                                _line(pos, pv), before, after, eval_white, round(loss, 2),
                                cp_loss, "" if forced else _mark(loss), forced, verdict_white))
    return out


def _shots(positions, analysed: list[MoveAnalysis], limits: Limits, searcher: Searcher) -> None:
    """Mark the shots the players missed, and the moves that allowed one.

    Each position where the side to move has a choice is asked for a shot (confirmed by a
    search at ``limits``).  A shot is missed when the move played starts no line that wins as
    much; a move allowed the shot of the position after it when some other move of its player
    would have left the opponent no shot winning as much (read by the forcing search alone)."""
    from .shots import shot_at, shot_moves
    found = {}
    for ply, pos in enumerate(positions):
        if len(legal_moves(pos)) > 1:
            found[ply] = shot_at(pos, searcher, limits)
    for m in analysed:
        pos, shot, next_shot = positions[m.ply], found.get(m.ply), found.get(m.ply + 1)
        if shot is not None and shot.line and not m.forced:
            starts = {move_to_pdn(pos, move) for move, _ in shot_moves(pos, min_gain=shot.gain)}
            if m.move not in starts:           # the move played begins no line as good
                m.shot = list(shot.line)
                m.shot_gain, m.shot_depth = int(shot.gain), int(shot.depth)
        if next_shot is not None and next_shot.line and not m.forced \
                and _avoidable(pos, m.move, next_shot.gain, shot_at):
            m.allowed = list(next_shot.line)
            m.allowed_gain, m.allowed_depth = int(next_shot.gain), int(next_shot.depth)


def _avoidable(pos: Position, played: str, gain: int, shot_at) -> bool:
    """Whether some move of ``pos`` other than ``played`` leaves the opponent no shot that
    wins ``gain`` or more."""
    for move in legal_moves(pos):
        if move_to_pdn(pos, move) == played:
            continue
        other = shot_at(play(pos, move))
        if other is None or other.gain < gain:
            return True
    return False


def puzzles(record, analysis: GameAnalysis) -> list[dict]:
    """A puzzle for each missed shot of ``analysis`` (of ``record``, an ``engine.Game``):
    ``{fen, solution (PDN moves), game (Event, Round, White, Black), ply, depth, gain,
    variant}`` (the fields of :class:`protocol.analysis.puzzles.Puzzle`)."""
    game = {k: analysis.tags[k] for k in ("Event", "Round", "White", "Black")
            if k in analysis.tags}
    found, seen = [], set()
    for m in analysis.moves:
        for ply, line, depth, gain in ((m.ply, m.shot, m.shot_depth, m.shot_gain),
                                       (m.ply + 1, m.allowed, m.allowed_depth, m.allowed_gain)):
            fen = pos_to_fen(record.positions[ply])
            if line and fen not in seen:
                seen.add(fen)
                found.append({"fen": fen, "solution": list(line), "game": dict(game),
                              "ply": ply, "depth": depth, "gain": gain,
                              "variant": record.variant.name})
    return found
