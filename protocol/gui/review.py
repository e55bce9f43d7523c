"""The game on the board analysed in the background, and "learn from your mistakes".

:class:`Reviewer` owns one :class:`engine.Searcher` of its own (not the engine the page
plays against) and a single worker thread that runs every search it asks for, so that a
review and a judgement never overlap.  Its requests:

* ``review`` (``on``: true starts, false cancels): the whole record is analysed by
  :func:`protocol.analysis.game.analyse_game` at :data:`REVIEW_NODES` nodes a position,
  missed shots included; ``review`` messages say ``running`` (``done``/``total``),
  ``done`` (the moves' records), ``cancelled`` or ``failed``.  When done, the evaluation
  graph gets each position's evaluation and ``state``'s ``review`` each move's mark, best
  move, better line and its arrows, for as long as the record still begins with the
  moves analysed.
* ``learn`` (``on``): the board goes to the position before each mistake or blunder of
  the person's side (both sides in a game between people), in turn; a move there is
  judged instead of played (:meth:`Reviewer.takes`): the analysis' best move, or one
  that loses less than the inaccuracy threshold by a search at the same limit, is
  accepted ("Good move") and the next mistake follows; another is refused ("Try again").
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from engine import (BLACK, WHITE, BadInput, Limits, Searcher, capture_paths, move_from_pdn,
                    move_to_pdn, play, pos_to_fen)
from protocol.analysis.game import MARKS, GameAnalysis, analyse_game
from protocol.analysis.winprob import win_probability

from .driver import HUMAN
from .record import whole_record

REVIEW_NODES = 30_000
"""Nodes searched in each position of a review, and for each move judged in learn mode."""
HOLDS = MARKS[-1][0]
"""A move that loses less win probability than this (the inaccuracy mark's) holds."""
LEARN_MARKS = ("?", "??")
"""The marks that learn mode goes back to: mistakes and blunders."""
ARROW_PLIES = 3
"""Plies of the better line drawn as arrows."""
TABLE_LOG2 = 18
"""The review searcher's transposition table: 2^18 entries, plenty for its node limit."""


class _Cancelled(Exception):
    pass


def _flag(msg: dict, request: str) -> bool:
    on = msg.get("on", True)
    if not isinstance(on, bool):
        raise BadInput(f"{request} needs \"on\": true or false")
    return on


def _arrows(pos, words: list[str]) -> list[dict]:
    """The squares of the first moves of a PDN line, for the page's arrows."""
    out = []
    for word in words[:ARROW_PLIES]:
        try:
            move = move_from_pdn(pos, word)
        except BadInput:
            break
        paths = capture_paths(pos, move, limit=1)
        out.append({"from": move.frm, "to": move.to, "path": paths[0] if paths else [move.to]})
        pos = play(pos, move)
    return out


@dataclass
class Reviewed:
    """A finished review: the record analysed (an :class:`engine.Game`), its analysis and
    each move's record for the page."""

    record: object
    analysis: GameAnalysis
    moves: list[dict]

    def fits(self, whole) -> bool:
        """Whether the board's record still begins with the moves analysed."""
        return (whole.start == self.record.start and
                list(whole.moves[:len(self.record.moves)]) == list(self.record.moves))


@dataclass
class Learning:
    """Learn mode: the plies of the mistakes to go back to, and where it stands."""

    plies: list[int]
    index: int = 0
    fen: str = ""          # the position a move is judged in
    judging: bool = False


class Reviewer:
    """A session's game review and learn mode (see the module's docstring)."""

    def __init__(self, session):
        self.session = session
        self._pool: ThreadPoolExecutor | None = None
        self._searcher: Searcher | None = None
        self._cancel = threading.Event()
        self.running = False
        self.progress = (0, 0)
        self.result: Reviewed | None = None
        self.learning: Learning | None = None
        self._job = 0                 # which review the worker's answers belong to
        self._closed = False

    # ----- the worker ------------------------------------------------------------------
    def _submit(self, work, done) -> None:
        """Run ``work(searcher)`` on the worker thread; ``done(future)`` under the lock."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rafle-review")

        def run():
            if self._searcher is None:
                self._searcher = Searcher(TABLE_LOG2)
                self._searcher.set_option("book", "false")      # every position searched
                self._searcher.set_option("threads", "1")       # the played engine keeps its cores
            return work(self._searcher)

        def finish(future: Future) -> None:
            with self.session.lock:
                if not self._closed:
                    done(future)

        self._pool.submit(run).add_done_callback(finish)

    def close(self) -> None:
        self._closed = True
        self._cancel.set()
        if self._searcher is not None:
            self._searcher.stop()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    # ----- review ----------------------------------------------------------------------
    def review(self, msg: dict) -> None:
        if not _flag(msg, "review"):
            if not self.running:
                raise BadInput("no analysis of the game is running")
            self._cancel.set()
            if self._searcher is not None:
                self._searcher.stop()
            return
        if self.running:
            raise BadInput("the game is being analysed already: cancel it first")
        record = whole_record(self.session)
        if not record.moves:
            raise BadInput("there is no move to analyse: play or load a game first")
        self._cancel.clear()
        self._job += 1
        self.running, self.progress, self.learning = True, (0, len(record.moves) + 1), None
        job, emit = self._job, self.session.emit

        def progress(done: int, total: int) -> None:
            if self._cancel.is_set():
                raise _Cancelled
            self.progress = (done, total)
            emit({"type": "review", "state": "running", "done": done, "total": total})

        def work(searcher: Searcher) -> GameAnalysis:
            return analyse_game(record, Limits(nodes=REVIEW_NODES), searcher, progress,
                                find_shots=True)

        self._submit(work, lambda future: self._finished(job, record, future))
        emit({"type": "review", "state": "running", "done": 0, "total": self.progress[1]})

    def _finished(self, job: int, record, future: Future) -> None:
        if job != self._job:
            return
        self.running = False
        session = self.session
        if self._cancel.is_set() or future.cancelled():
            session.emit({"type": "review", "state": "cancelled"})
            session._send_state()
            return
        error = future.exception()
        if error is not None:
            session.emit({"type": "review", "state": "failed", "message": str(error)})
            session._send_state()
            return
        analysis = future.result()
        moves = [self._move_record(record, m) for m in analysis.moves]
        self.result = Reviewed(record, analysis, moves)
        if self.result.fits(whole_record(session)):
            if analysis.start_eval is not None:
                session.evals[0] = analysis.start_eval / 100
            for m in analysis.moves:
                if m.eval is not None:
                    session.evals[m.ply + 1] = m.eval / 100
        session.emit({"type": "review", "state": "done", "moves": moves})
        session._send_state()

    @staticmethod
    def _move_record(record, m) -> dict:
        pos = record.positions[m.ply]
        return {"ply": m.ply, "side": m.side, "move": m.move, "mark": m.mark, "loss": m.loss,
                "eval": None if m.eval is None else m.eval / 100, "best": m.best,
                "line": m.line, "arrows": _arrows(pos, m.line if m.mark else []),
                "shot": m.shot}

    def view(self, whole) -> dict:
        """``state``'s ``review``: progress, and the moves' records while they still fit."""
        fits = self.result is not None and self.result.fits(whole)
        learning = self.learning
        return {"running": self.running, "done": self.progress[0], "total": self.progress[1],
                "moves": self.result.moves if fits else [],
                "learn": None if learning is None else
                {"index": learning.index, "count": len(learning.plies),
                 "ply": learning.plies[learning.index], "judging": learning.judging}}

    def analysed(self):
        """The finished review that fits the board's record (BadInput if none)."""
        if self.running:
            raise BadInput("the game is still being analysed: wait for it, or cancel it")
        if self.result is None or not self.result.fits(whole_record(self.session)):
            raise BadInput("analyse the game first (Analyse game)")
        return self.result

    # ----- learn from your mistakes ----------------------------------------------------
    def learn(self, msg: dict) -> None:
        session = self.session
        if not _flag(msg, "learn"):
            if self.learning is None:
                raise BadInput("learn mode is not on")
            self.learning, session.message = None, ""
            session._changed()
            return
        result = self.analysed()
        humans = {side for side in (WHITE, BLACK) if session.players[side].kind == HUMAN}
        sides = {"white" if s == WHITE else "black" for s in (humans or {WHITE, BLACK})}
        plies = [m["ply"] for m in result.moves
                 if m["mark"] in LEARN_MARKS and m["side"] in sides]
        if not plies:
            raise BadInput("the analysis found no mistake to learn from")
        self.learning = Learning(plies)
        self._go_to_mistake("")

    def _go_to_mistake(self, said: str) -> None:
        session, learning = self.session, self.learning
        ply = learning.plies[learning.index]
        record = self.result.moves[ply]
        session._halt()
        session.game.goto(ply)
        session.running = False
        learning.fen = pos_to_fen(session.game.position)
        who = "White" if record["side"] == "white" else "Black"
        session.message = (f"{said}Learn ({learning.index + 1} of {len(learning.plies)}): "
                           f"{record['move']}{record['mark']} was played here. "
                           f"Find a better move for {who}.")
        session._changed()

    def takes(self, move) -> bool:
        """In learn mode, at a mistake's position: judge ``move`` instead of playing it
        (True: it is taken care of)."""
        learning, session = self.learning, self.session
        if learning is None or pos_to_fen(session.game.position) != learning.fen:
            return False
        if learning.judging:
            raise BadInput("your last move is still being judged")
        pos = session.game.position
        record = self.result.moves[learning.plies[learning.index]]
        text = move_to_pdn(pos, move)
        if text == record["best"]:
            self._judged(text, record, 0.0)
            return True
        if text == record["move"]:
            self._judged(text, record, record["loss"])
            return True
        analysis = self.result.analysis.moves[record["ply"]]
        before = 0.5 if analysis.before is None else win_probability(analysis.before,
                                                                     self.result.analysis.k)
        history = list(self.result.record.positions[:record["ply"] + 1])
        after = play(pos, move)
        k, job = self.result.analysis.k, self._job
        learning.judging = True

        def work(searcher: Searcher) -> float:
            score = searcher.search(after, history, Limits(nodes=REVIEW_NODES), analyze=True).score
            reply = 0.5 if score is None else win_probability(score, k)
            return 100 * max(0.0, before - (1 - reply))

        def done(future: Future) -> None:
            if self.learning is not learning or job != self._job:
                return
            learning.judging = False
            if future.cancelled() or future.exception() is not None:
                session.message = "the move could not be judged: try again"
                session._send_state()
                return
            self._judged(text, record, future.result())

        self._submit(work, done)
        session.message = f"{text}: thinking..."
        session._send_state()
        return True

    def _judged(self, text: str, record: dict, loss: float) -> None:
        learning, session = self.learning, self.session
        if loss >= HOLDS:
            session.message = (f"Try again: {text} loses {loss:.0f} points of winning chances"
                               + (" (the move of the game)" if text == record["move"] else ""))
            session._send_state()
            return
        said = f"Good move: {text} holds (the game's {record['move']} lost {record['loss']:.0f}). "
        learning.index += 1
        if learning.index < len(learning.plies):
            self._go_to_mistake(said)
            return
        self.learning = None
        session.message = said + "No mistake left: done."
        session._send_state()


def review(session, msg: dict) -> None:
    session.review.review(msg)


def learn(session, msg: dict) -> None:
    session.review.learn(msg)
