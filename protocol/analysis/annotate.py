"""The annotated PDN of an analysed game, in lidraughts' export form.

After each move, a comment ``{[%eval 0.35]}``: the position after it from White's side, in
men (a man is 1.00; a win in n moves ``#n``, a loss ``#-n``), then for a marked move its
word and the better move (``Blunder. 32-28 was best.``), the endgame databases' verdict
(``egdb: White wins``) and a missed shot (``Missed shot: 27-22 18x27 31x2``).  A marked move
gets its NAG (``$6`` ?!, ``$2`` ?, ``$4`` ??) and the better line as a variation.  The
record's own comments, annotations and variations are kept, ours after theirs (an old
``[%eval]`` of theirs is dropped).  Written with :func:`engine.write_pdn`, so
:func:`engine.read_pdn` reads it back, moves and notes.
"""
from __future__ import annotations

import re

from engine import BadInput, Note, Step, move_from_pdn, play, write_pdn

from .game import NAGS, WIN, WIN_BOUND, WORDS, GameAnalysis, MoveAnalysis

VERDICTS = {"win": "White wins", "draw": "draw", "loss": "Black wins"}
_OLD_EVAL = re.compile(r"\[%eval [^\]]*\]\s*")


def format_eval(score: int | None) -> str:
    """A White's-side score as lidraughts writes it: ``0.35``, ``-1.20``, ``#7``, ``#-3``;
    ``""`` for none, or for a game the rules have ended (a win in 0 moves)."""
    if score is None:
        return ""
    if abs(score) >= WIN_BOUND:
        moves = (WIN - abs(score) + 1) // 2
        if moves == 0:
            return ""
        return f"#{moves}" if score > 0 else f"#-{moves}"
    return f"{score / 100:.2f}"


def move_comment(m: MoveAnalysis) -> str:
    """Our comment after one move."""
    words = []
    if format_eval(m.eval):
        words.append(f"[%eval {format_eval(m.eval)}]")
    if m.mark:
        words.append(f"{WORDS[m.mark]}. {m.best} was best.")
    if m.egdb:
        words.append(f"egdb: {VERDICTS[m.egdb]}.")
    if m.shot:
        words.append("Missed shot: " + " ".join(m.shot) + ".")
    if m.allowed:
        words.append("Allowed a shot: " + " ".join(m.allowed) + ".")
    return " ".join(words)


def steps(pos, line: list[str]) -> list[Step]:
    """The moves of ``line`` (PDN) from ``pos`` as a variation (up to the first unreadable)."""
    out = []
    for text in line:
        try:
            move = move_from_pdn(pos, text)
        except BadInput:
            break
        out.append(Step(move))
        pos = play(pos, move)
    return out


def annotated_notes(record, analysis: GameAnalysis, notes: dict[int, Note] | None = None
                    ) -> dict[int, Note]:
    """The notes (``engine.write_pdn``'s) of ``record`` (an ``engine.Game``) with the analysis
    added to ``notes`` (the record's own, kept)."""
    out: dict[int, Note] = {}
    for ply, old in (notes or {}).items():
        out[ply] = Note(_OLD_EVAL.sub("", old.comment).strip(), list(old.variations),
                        list(old.unread), list(old.nags))
    for m in analysis.moves:
        note = out.setdefault(m.ply + 1, Note())
        ours = move_comment(m)
        note.comment = f"{note.comment} {ours}".strip()
        if m.mark:
            note.nags = [NAGS[m.mark]]
            better = steps(record.positions[m.ply], m.line or [m.best])
            if better:
                note.variations.insert(0, better)
    return {ply: note for ply, note in out.items() if note}


def annotated_pdn(pdn_game, analysis: GameAnalysis, annotator: str = "Rafle") -> str:
    """The PDN text of ``pdn_game`` (as :func:`engine.read_pdn` gives) with the analysis."""
    record = pdn_game.game()
    tags = {k: v for k, v in pdn_game.tags.items()}
    tags["Result"] = pdn_game.result
    tags["Annotator"] = f"{annotator} ({analysis.limits})"
    return write_pdn(record, tags, notes=annotated_notes(record, analysis, pdn_game.notes))
