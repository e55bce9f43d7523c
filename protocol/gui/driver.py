"""Who plays each side of the board, and the engine driven for them.

:class:`Player` is a side's player (a person, or the engine at a level).  :class:`EngineDriver`
is the part of :class:`~protocol.gui.session.BoardSession` that decides what the engine
does for the position shown (:meth:`~EngineDriver._changed`: play a turn, wait between two
engines' moves, analyse) and reads its answers: ``info`` lines for the page and the
evaluation graph, and a move that Rafle's rules must accept before it is played.  Every
answer is tied to the ``epoch`` it was asked in; one that arrives after the position or
the task changed is dropped.
"""
from __future__ import annotations

import threading

from engine import WHITE, BadInput, move_from_hub, move_to_hub, move_to_pdn, play, pos_to_hub
from protocol.levels import parse_level

from .analysis import first_move, line_of
from .engine import Job

HUMAN, ENGINE = "human", "engine"


def _number(text: str | None) -> float | None:
    """A number the engine sent (a Hub score is in men, for the side to move), or None."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if abs(value) < 1e15 else None       # not NaN, not infinite


class Player:
    """A side: a person, or the engine at a level (``easy``, ``depth 6``, ``time 2``)."""

    def __init__(self, kind: str = HUMAN, level: str = "medium"):
        if kind not in (HUMAN, ENGINE):
            raise BadInput(f"a player is 'human' or 'engine', not {str(kind)[:20]!r}")
        self.kind = kind
        self.level, limits = parse_level(str(level).split())
        self.lines = []                  # Hub ``level`` lines
        self.movetime = limits.movetime
        if limits.depth is not None:
            self.lines.append(f"depth={limits.depth}")
        if limits.movetime is not None:
            self.lines.append(f"move-time={limits.movetime:g}")
        if limits.nodes is not None:
            self.lines.append(f"nodes={limits.nodes}")

    @classmethod
    def from_message(cls, data) -> "Player":
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise BadInput("a player is an object like {\"kind\": \"engine\", \"level\": \"easy\"}")
        return cls(data.get("kind", HUMAN), data.get("level", "medium"))

    def as_dict(self) -> dict:
        return {"kind": self.kind, "level": self.level}


class EngineDriver:
    """The engine's side of a :class:`~protocol.gui.session.BoardSession` (a mixin: it
    works on the session's game, players, seat, table and lock)."""

    def _halt(self) -> None:
        """End whatever the engine does for the old position; its answers are dropped."""
        self.epoch += 1
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.task is not None:
            self.seat.cancel()
            self.task = None
        self.last_info = None

    def _changed(self) -> None:
        """After a change: start what the engine should do now, then show the page."""
        self.table.sync()
        self._schedule()
        self._send_state()

    def _schedule(self, waited: bool = False) -> None:
        if self.task is not None or self._timer is not None:
            return
        if self.outcome() is None and self.running:
            side = self.game.position.turn
            if self.players[side].kind == ENGINE:
                both = all(p.kind == ENGINE for p in self.players.values())
                if both and self.delay > 0 and self.game.moves and not waited:
                    epoch = self.epoch
                    self._timer = threading.Timer(self.delay, self._after_delay, args=(epoch,))
                    self._timer.daemon = True
                    self._timer.start()
                    return
                self._think(self.players[side])
                return
        if self.analysing:
            self._start(Player(ENGINE, "time 86400"), analyze=True)

    def _after_delay(self, epoch: int) -> None:
        with self.lock:
            if epoch != self.epoch:
                return
            self._timer = None
            self._schedule(waited=True)
            self._send_state()

    def _think(self, player: Player) -> None:
        self._start(player, analyze=False)

    def _start(self, player: Player, analyze: bool) -> None:
        game = self.game
        epoch, ply, side = self.epoch, len(game.moves), game.position.turn
        variant = game.variant
        moves = [move_to_hub(move, variant) for move in game.moves]
        self.task = {"mode": "analyze" if analyze else "think", "side": side, "ply": ply,
                     "level": player.level}

        def on_info(args: dict[str, str]) -> None:
            self._info(epoch, ply, side, args)

        def on_done(move: str | None, error: str | None) -> None:
            self._done(epoch, move, error)

        lines, movetime = player.lines, player.movetime
        timed = None if analyze else self.table.engine_turn(side, ply)
        if timed is not None:        # its clock, and its level's depth or nodes
            lines = timed[0] + [x for x in player.lines if not x.startswith("move-time")]
            movetime = timed[1]

        def on_start() -> None:
            with self.lock:
                if epoch == self.epoch and not analyze:
                    self.table.engine_started(side, ply)

        self.seat.submit(Job(variant.hub_name, pos_to_hub(game.start), moves,
                             [] if analyze else lines, analyze, on_info, on_done,
                             movetime=None if analyze else movetime, on_start=on_start,
                             params={"multipv": str(self.multipv if analyze else 1)}))

    def _info(self, epoch: int, ply: int, side: int, args: dict[str, str]) -> None:
        with self.lock:
            if epoch != self.epoch:
                return
            score = _number(args.get("score"))
            white = None if score is None else (score if side == WHITE else -score)
            line = line_of(args)
            if white is not None and line == 1:
                self.evals[ply] = white
            pv = self._pv_text(args.get("pv", ""))
            nodes, seconds = _number(args.get("nodes")), _number(args.get("time"))
            nps = _number(args.get("nps"))          # millions of nodes/s in Hub
            nps = None if nps is None else nps * 1e6
            if nps is None and nodes is not None and seconds:
                nps = nodes / seconds
            self.last_info = {"type": "info", "ply": ply, "mode": self.task["mode"] if self.task else "",
                              "depth": args.get("depth", ""), "score": args.get("score", ""),
                              "white": white, "nodes": nodes, "nps": nps, "pv": pv,
                              "line": line, "first": first_move(self.game.position, args.get("pv", ""))}
            self.emit(self.last_info)

    def _pv_text(self, pv: str) -> str:
        """The engine's variation in PDN; what cannot be read stays as the engine sent it."""
        pos, words = self.game.position, []
        for i, token in enumerate(pv.split()[:40]):
            try:
                move = move_from_hub(pos, token)
            except BadInput:
                words.extend(pv.split()[i:])
                break
            words.append(move_to_pdn(pos, move))
            pos = play(pos, move)
        return " ".join(words)

    def _done(self, epoch: int, text: str | None, error: str | None) -> None:
        with self.lock:
            if epoch != self.epoch:
                return
            task, self.task = self.task, None
            if error is not None:
                self.running = False
                self.message = f"the engine failed: {error}"
                self.table.sync()                  # its clock stops
                self._send_state()
                return
            if task is None or task["mode"] == "analyze":
                self._send_state()
                return
            pos = self.game.position
            if text is None:
                self.running = False
                self.message = "the engine gave no move"
                self.table.sync()
                self._send_state()
                return
            try:
                move = move_from_hub(pos, text)
                if move not in self.game.legal_moves():
                    raise BadInput(f"{text} is not allowed here")
            except BadInput as e:
                self.running = False
                self.message = f"the engine's move {text[:40]!r} was refused: {e}"
                self.table.sync()
                self._send_state()
                return
            if self.table.engine_moved():      # its flag fell first: the move comes too late
                self._changed()
                return
            self.epoch += 1
            self.last_info = None
            self.game.push(move)
            self.message = ""
            self._changed()

    def _engine_status(self, message: dict) -> None:
        self.engine_state = {k: message.get(k, "") for k in ("state", "name", "message")}
        self.emit(message)
