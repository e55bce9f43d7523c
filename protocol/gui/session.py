"""What one page of the board does: the game, who plays each side, the engine, analysis.

A :class:`BoardSession` is driven by messages from the page (:meth:`handle`, one JSON
object each, see :data:`HANDLERS`) and by the engine's answers; it sends messages back
through ``emit``.  It knows nothing of HTTP: the server (:mod:`protocol.gui.server`)
carries the messages.  Rafle's rules decide every move, the engine's too: an engine's
move that is not legal here is refused and reported, and the game stops for a person
to decide.  Every bad input gets an ``error`` message; nothing in the game is lost.

Messages to the page:

* ``setup``: variants, named levels, the engine's name (once, at the start);
* ``state``: the whole picture (board, moves allowed, record, players, outcome, ...; the
  clocks, names and draw offer of :mod:`.table`; the game's id and saved form, :mod:`.store`);
* ``info``: a line of the engine's thinking (depth, score, nodes/s, principal variation);
* ``engine``: the engine starts, is ready, or failed (crashed or silent) and why;
* ``pdn``: the record as PDN text (answer to ``save``);
* ``peek``: a variation's position (answer to ``peek``; the game does not change);
* ``review``: the game's analysis runs (``done``/``total``), is ``done`` (each move's
  record), ``cancelled`` or ``failed`` (:mod:`protocol.gui.review`);
* ``error``: what was wrong with a request.

The session itself keeps the game and dispatches the requests (:data:`HANDLERS`); the rest
lives beside it: the engine driven for the players (:mod:`protocol.gui.driver`), the record
as PDN (:mod:`protocol.gui.record`: the ``load``, ``save``, ``peek`` and ``promote``
requests), a loaded PDN's comments, variations and annotations
(:mod:`protocol.gui.annotations`: ``state``'s ``notes``), several analysis lines and
database marks (:mod:`protocol.gui.analysis`: the ``lines`` request, ``info``'s ``line``,
``state``'s ``db``), the editor's position (:mod:`protocol.gui.editor`: the ``edit``
request), the game reviewed in the background and learn mode (:mod:`protocol.gui.review`:
the ``review`` and ``learn`` requests, ``state``'s ``review``), puzzle mode
(:mod:`protocol.gui.puzzles`: ``puzzles`` and ``puzzle``, ``state``'s ``puzzle``), clocks
and endings (:mod:`protocol.gui.table`) and the saved game (:mod:`protocol.gui.store`).
"""
from __future__ import annotations

import threading
from typing import Callable

from engine import (BLACK, VARIANTS, WHITE, BadInput, Game, Move, Position, Variant, capture_paths,
                    get_variant, move_from_pdn, move_to_pdn, parse_position, pos_to_fen)
from protocol.levels import LEVELS

from . import analysis, annotations, editor, puzzles, record, review
from .analysis import Databases
from .driver import ENGINE, HUMAN, EngineDriver, Player
from .engine import EngineSeat
from .store import game_snapshot, read_game
from .table import Table

MAX_DELAY = 10.0          # seconds between engine moves, at most
SIDES = {"white": WHITE, "black": BLACK}


def _flag(msg: dict, request: str) -> bool:
    on = msg.get("on", True)
    if not isinstance(on, bool):
        raise BadInput(f"{request} needs \"on\": true or false")
    return on


class BoardSession(EngineDriver):
    """One game on one page, with its engine."""

    def __init__(self, emit: Callable[[dict], None], engine_command: str | None = None,
                 variant: Variant | None = None, seat: EngineSeat | None = None):
        self.emit = emit
        self.lock = threading.RLock()
        self.seat = seat or EngineSeat(engine_command, self._engine_status)
        self.engine_state = {"state": "idle", "name": self.seat.name, "message": ""}
        self.game = Game(variant=variant or get_variant("international"))
        self.players = {WHITE: Player(HUMAN), BLACK: Player(ENGINE, "medium")}
        self.running = True          # engines play their turns (False: paused)
        self.analysing = False
        self.delay = 0.5             # seconds between engine moves when both are engines
        self.epoch = 0               # changes whenever the position or the task changes
        self.task: dict | None = None    # what the engine does now: think/analyze, side, ply
        self.last_info: dict | None = None
        self.evals: dict[int, float] = {}    # ply -> score for White (men)
        self.message = ""            # the last announcement (engine move refused, ...)
        self._timer: threading.Timer | None = None
        # Analysis beyond one line (protocol.gui.analysis): MultiPV and database marks.
        self.multipv = 1
        self.databases = Databases()
        # A loaded PDN's comments and variations (protocol.gui.annotations), and its moves.
        self.notes = annotations.Notes()
        # The game reviewed in the background, learn mode (review.py) and puzzles (puzzles.py).
        self.review = review.Reviewer(self)
        self.puzzles: puzzles.PuzzleRun | None = None
        # Clocks, endings, names (table.py); the saved game (store.py, set by the server).
        self.table = Table(self)
        self.game_id: str | None = None
        self.store = None
        self.known = False           # the game came from the store
        self._save_failed = False

    # ----- the page's requests ---------------------------------------------------------
    def handle(self, message) -> None:
        """Run one request; a bad one is answered with an ``error`` and changes nothing."""
        with self.lock:
            try:
                if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                    raise BadInput("a request is a JSON object with a \"type\"")
                handler = HANDLERS.get(message["type"])
                if handler is None:
                    raise BadInput(f"unknown request type {message['type'][:30]!r}; known: "
                                   + ", ".join(sorted(HANDLERS)))
                handler(self, message)
            except BadInput as e:
                self.emit({"type": "error", "message": str(e)})

    def hello(self, _=None) -> None:
        self.emit({"type": "setup",
                   "variants": [{"name": v.name, "hub": v.hub_name, "width": v.width}
                                for v in VARIANTS.values()],
                   "levels": list(LEVELS), "engine": self.seat.name,
                   "game": self.game_id, "known": self.known})
        self.emit({"type": "engine", **self.engine_state})
        self._send_state()

    def new_game(self, msg: dict) -> None:
        variant = self._variant(msg.get("variant", self.game.variant.name))
        fen = msg.get("fen")
        start = None
        if fen not in (None, ""):
            start = parse_position(self._text(fen, "fen", 2000), variant)
        players = {WHITE: Player.from_message(msg.get("white")),
                   BLACK: Player.from_message(msg.get("black"))}
        self.table.reset(msg)
        self._halt()
        self.game = Game(start, variant)
        self.players = players
        self.evals.clear()
        self.notes.clear()
        self.running, self.message = True, ""
        self._changed()

    def set_players(self, msg: dict) -> None:
        players = dict(self.players)
        for name, side in SIDES.items():
            if name in msg:
                players[side] = Player.from_message(msg[name])
        self._halt()
        self.players = players
        self._changed()

    def move(self, msg: dict) -> None:
        pos = self.game.position
        if self.outcome() is not None:
            raise BadInput(f"the game is over ({self._outcome_text()}): undo or start a new game")
        if self.task and self.task["mode"] == "think":
            raise BadInput("the engine is thinking: stop it first, or wait for its move")
        move = self._read_move(pos, msg)
        if self.review.takes(move) or puzzles.takes(self, move):   # judged, not played
            return
        self._halt()
        self.game.push(move)
        self.running, self.message = True, ""
        self._changed()

    def undo(self, msg: dict) -> None:
        if not self.game.moves:
            raise BadInput("there is no move to take back")
        self._halt()
        self.game.pop()
        # Against the engine, take its reply back too: the person is to move again.
        humans = [s for s in (WHITE, BLACK) if self.players[s].kind == HUMAN]
        if (len(humans) == 1 and self.game.moves and msg.get("single") is not True
                and self.players[self.game.position.turn].kind == ENGINE):
            self.game.pop()
        self.running = False
        self._changed()

    def redo(self, _msg: dict) -> None:
        if not self.game.can_redo:
            raise BadInput("there is no move to replay")
        self._halt()
        self.game.redo()
        self.running = False
        self._changed()

    def goto(self, msg: dict) -> None:
        ply = msg.get("ply")
        total = self.game.total_plies
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= total:
            raise BadInput(f"goto needs a ply from 0 to {total}")
        self._halt()
        self.game.goto(ply)
        self.running = False
        self._changed()

    def play(self, msg: dict) -> None:
        """Let the engines play their turns again (``on``: false pauses them)."""
        on = _flag(msg, "play")
        self._halt()
        self.running = on
        self._changed()

    def go(self, _msg: dict) -> None:
        """The engine plays the side to move now, whoever that side's player is."""
        if self.outcome() is not None:
            raise BadInput(f"the game is over ({self._outcome_text()})")
        self._halt()
        side = self.game.position.turn
        player = self.players[side]
        self._think(player if player.kind == ENGINE else Player(ENGINE, "medium"))

    def stop(self, _msg: dict) -> None:
        """Thinking: the engine plays its best move so far.  Analysis: it ends."""
        if self.task is None:
            raise BadInput("the engine is not thinking")
        if self.task["mode"] == "analyze":
            self.analysing = False
            self._halt()
            self._changed()
        else:
            self.running = False      # it plays this move, then the game waits
            self.seat.stop()

    def analyze(self, msg: dict) -> None:
        on = _flag(msg, "analyze")
        self.analysing = on
        if not on and self.task and self.task["mode"] == "analyze":
            self._halt()
        self._changed()

    def speed(self, msg: dict) -> None:
        delay = msg.get("delay")
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= MAX_DELAY:
            raise BadInput(f"speed needs a \"delay\" in seconds from 0 to {MAX_DELAY:g}")
        self.delay = float(delay)
        self._send_state()

    def set_fen(self, msg: dict) -> None:
        self.start_at(parse_position(self._text(msg.get("fen"), "fen", 2000), self.game.variant))

    def start_at(self, start) -> None:
        """A new game from the position ``start`` (set up by FEN or in the editor)."""
        self._halt()
        self.game = Game(start, self.game.variant)
        self.evals.clear()
        self.notes.clear()
        self.running, self.message = False, ""
        self._changed()

    def restart_engine(self, _msg: dict) -> None:
        self._halt()
        self.seat.restart()
        self.message = ""
        self._changed()

    # ----- helpers for requests --------------------------------------------------------
    @staticmethod
    def _text(value, name: str, most: int) -> str:
        if not isinstance(value, str) or not value.strip():
            raise BadInput(f"\"{name}\" must be a non-empty string")
        if len(value) > most:
            raise BadInput(f"\"{name}\" is too long ({len(value)} characters; at most {most})")
        return value

    @staticmethod
    def _variant(name) -> Variant:
        if not isinstance(name, str):
            raise BadInput("\"variant\" must be a variant's name")
        try:
            return get_variant(name)
        except (KeyError, ValueError, BadInput):
            raise BadInput(f"unknown variant {name[:30]!r}; known: {', '.join(VARIANTS)}") from None

    def _read_move(self, pos: Position, msg: dict) -> Move:
        allowed = self.game.legal_moves()
        if "text" in msg:
            move = move_from_pdn(pos, self._text(msg["text"], "text", 200))
        else:
            frm, to, path = msg.get("from"), msg.get("to"), msg.get("path")
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in (frm, to)):
                raise BadInput("a move needs \"text\" (\"32-28\") or \"from\" and \"to\" squares")
            fits = [m for m in allowed if (m.frm, m.to) == (frm, to)]
            if path is not None:
                if not isinstance(path, list) or not all(isinstance(x, int) for x in path):
                    raise BadInput("\"path\" is the list of landing squares")
                fits = [m for m in fits if path in capture_paths(pos, m)]
            if not fits:
                raise BadInput(f"no legal move from {frm} to {to}"
                               + (" along that path" if path is not None else "")
                               + f"; legal: {', '.join(move_to_pdn(pos, m) for m in allowed)}")
            if len(fits) > 1:
                raise BadInput(f"several captures go from {frm} to {to}: give the squares "
                               "they pass through")
            move = fits[0]
        if move not in allowed:
            raise BadInput(f"{move_to_pdn(pos, move)} is not allowed here")
        return move

    def _outcome_text(self) -> str:
        o = self.outcome()
        if o is None:
            return ""
        who = {WHITE: "White wins", BLACK: "Black wins", None: "Draw"}[o.winner]
        return f"{who} ({o.result}): {o.reason}"

    def _player_name(self, side: int) -> str:
        p = self.players[side]
        return self.table.name(side) if p.kind == HUMAN else f"{self.seat.name} ({p.level})"

    # ----- the picture ------------------------------------------------------------------
    def state(self) -> dict:
        game, pos = self.game, self.game.position
        v = game.variant
        squares = range(1, v.nsquares + 1)
        allowed = game.legal_moves() if self.outcome() is None else []
        whole = record.whole_record(self)
        moves = [{"text": move_to_pdn(before, move), "side": before.turn,
                  "played": i < len(game.moves)}
                 for i, (before, move) in enumerate(zip(whole.positions, whole.moves))]
        last = None
        if game.moves:
            before, move = game.positions[-2], game.moves[-1]
            paths = capture_paths(before, move, limit=1)
            last = {"from": move.frm, "to": move.to, "captured": list(move.captured),
                    "path": paths[0] if paths else [move.to],
                    "pieces": {str(s): before.piece_at(s) for s in move.captured}}
        o = self.outcome()
        return {
            "type": "state",
            "variant": v.name, "width": v.width,
            "coords": {str(s): list(v.coords(s)) for s in squares},
            "names": {str(s): _square_label(v, s) for s in squares},
            "pieces": "".join(pos.piece_at(s) for s in squares),
            "turn": "white" if pos.turn == WHITE else "black",
            "moves": [{"from": m.frm, "to": m.to, "captured": list(m.captured),
                       "paths": capture_paths(pos, m), "text": move_to_pdn(pos, m)} for m in allowed],
            "record": moves, "ply": len(game.moves), "first_ply_side": game.start.turn,
            "last": last, "fen": pos_to_fen(pos),
            "outcome": None if o is None else {"result": o.result, "text": self._outcome_text()},
            "players": {name: self.players[side].as_dict() for name, side in SIDES.items()},
            "running": self.running, "analysing": self.analysing, "delay": self.delay,
            "task": self.task, "evals": {str(k): v for k, v in sorted(self.evals.items())},
            "engine": self.engine_state, "message": self.message, "pdn": record.record_pdn(self, whole),
            "multipv": self.multipv, "db": self.databases.marks(pos, allowed),
            "first_mover": "white" if v.white_starts else "black",
            "notes": annotations.as_json(self.notes.of(whole), whole.positions),
            "review": self.review.view(whole),
            "puzzle": None if self.puzzles is None else self.puzzles.view(),
            **self.table.view(), "game": self.game_id, "saved": self.snapshot(),
        }

    def _send_state(self) -> None:
        state = self.state()
        self._save(state["saved"])
        self.emit(state)

    def close(self) -> None:
        with self.lock:
            self.table.pause()
            self._save(self.snapshot())
            self.table.close()
            self._halt()
        self.review.close()
        self.seat.close()

    # ----- the outcome, saved games (store.py) and the table's requests (table.py) ---------
    def outcome(self):
        """How the game ended (by the rules, time, resignation or agreement), or None."""
        return self.table.outcome()

    def snapshot(self) -> dict:
        return game_snapshot(self)

    def restore(self, data) -> None:
        """Put back a saved game (:mod:`.store`); a bad one changes nothing."""
        saved = read_game(data)
        players = {WHITE: Player.from_message(saved.players.get("white")),
                   BLACK: Player.from_message(saved.players.get("black"))}
        self.table.restore(saved.table, saved.game, saved.whole)
        self._halt()
        self.game, self.players, self.evals = saved.game, players, saved.evals
        self.running, self.analysing, self.delay = saved.running, saved.analysing, saved.delay
        self.message = ""

    def resume(self) -> None:
        """A restored game goes on: its engine and clocks start where they should."""
        with self.lock:
            self._changed()

    def restore_request(self, msg: dict) -> None:
        """The page's own copy of its game, for a server that does not know it."""
        try:
            self.restore(msg.get("saved"))
        except BadInput as e:
            raise BadInput(f"the page's saved game was refused: {e}") from None
        self.known = True
        self._changed()

    def _save(self, snapshot: dict) -> None:
        if self.store is None or self.game_id is None:
            return
        try:
            self.store.save(self.game_id, snapshot)
            self._save_failed = False
        except OSError as e:
            if not self._save_failed:      # said once, not on every move
                self.emit({"type": "error", "message": f"the game cannot be saved: {e}"})
            self._save_failed = True


def _square_label(v: Variant, square: int) -> str:
    if v.algebraic:
        row, col = v.coords(square)
        return "abcdefgh"[col] + str(v.width - row)
    return str(square)


HANDLERS: dict[str, Callable[[BoardSession, dict], None]] = {
    "hello": BoardSession.hello, "new": BoardSession.new_game, "players": BoardSession.set_players,
    "move": BoardSession.move, "undo": BoardSession.undo, "redo": BoardSession.redo,
    "goto": BoardSession.goto, "play": BoardSession.play, "go": BoardSession.go,
    "stop": BoardSession.stop, "analyze": BoardSession.analyze, "speed": BoardSession.speed,
    "fen": BoardSession.set_fen, "restart": BoardSession.restart_engine,
    # The record as PDN (record.py), analysis lines (analysis.py), the editor (editor.py).
    "load": record.load_pdn, "save": record.save, "peek": record.peek_variation,
    "promote": record.promote,
    "lines": analysis.set_lines, "edit": editor.set_edited,
    # The game reviewed, learn from your mistakes (review.py), puzzles (puzzles.py).
    "review": review.review, "learn": review.learn,
    "puzzles": puzzles.load, "puzzle": puzzles.choose,
}
# Timed games, endings, names (table.py) and the page's copy of its game (store.py).
HANDLERS.update({
    "resign": lambda session, msg: session.table.resign(msg),
    "draw": lambda session, msg: session.table.draw(msg),
    "names": lambda session, msg: session.table.set_names(msg),
    "restore": BoardSession.restore_request,
})