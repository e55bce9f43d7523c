"""The state of a text-mode session and what playing does to it.

A :class:`Session` holds the game record (:class:`engine.Game`), who plays which
side (a person or Rafle), Rafle's level and how the board is shown.  It plays moves,
lets Rafle reply, moves through the record (undo, redo, go to a move, replay), keeps the
set-up steps (setup, put, remove, clear, turn) so that undo takes them back too, and ends
games by the rules, by agreement or by resignation.  An empty board is a set-up in
progress, not a game that one side has lost.  It writes through ``out`` and reads
nothing by itself: the command table (:mod:`protocol.text.commands`) and the terminal
loop (:mod:`protocol.text.cli`) drive it.
"""
from __future__ import annotations

from typing import Callable

from engine import (BLACK, WHITE, BadInput, Game, Info, Limits, Move, Outcome, Position, Variant,
                    legal_moves, move_to_pdn, play)

from ..levels import LEVELS, describe_limits
from .board import render, side_name
from .moves import parse_move
from .thinking import Thinker, format_score

HUMAN, RAFLE = "human", "rafle"
DRAW_ACCEPT = 10        # Rafle agrees to a draw when its own score is at most +0.10
EMPTY_HINT = "put pieces on it (put w 31 32, put B 3), set one up (setup FEN), or undo"
EMPTY = "the board is empty: " + EMPTY_HINT
MODES = {"white": (HUMAN, RAFLE), "black": (RAFLE, HUMAN), "both": (HUMAN, HUMAN),
         "none": (RAFLE, RAFLE)}     # who plays (White, Black)


class Session:
    """One person (or two) at the keyboard, a game and Rafle."""

    def __init__(self, out: Callable[[str], None], variant: Variant, *, color: bool = False,
                 interactive: bool = False, thinker: Thinker | None = None):
        self.out = out
        self.game = Game(variant=variant)
        self.players = {WHITE: HUMAN, BLACK: RAFLE}
        self.level_name = "medium"
        self.limits: Limits = LEVELS["medium"]
        self.flipped = False
        self.numbers = True
        self.color = color
        self.interactive = interactive
        self.thinker = thinker or Thinker()
        self.poll: Callable[[], str | None] | None = None   # keyboard check while thinking
        self.pending: list[str] = []      # lines typed during a search, to run next
        # Replay pacing, set by the terminal loop: wait for Enter or ``delay`` seconds;
        # False to stop the replay.
        self.replay_step: Callable[[float | None], bool] = lambda delay: True
        self.running = True
        self.ended: Outcome | None = None  # agreement or resignation at the current ply
        self.draw_offer: tuple[int, int] | None = None   # (side, ply) of a person's offer
        self._busy = False                 # Rafle is playing its moves (no "go" hint)
        self.edits: list[tuple[Game, str]] = []   # the record before each set-up step, and the step

    # ----- state ---------------------------------------------------------------------
    @property
    def pos(self) -> Position:
        return self.game.position

    def outcome(self) -> Outcome | None:
        if self.empty():
            return None              # a set-up in progress: nobody has lost
        return self.ended or self.game.outcome()

    def empty(self) -> bool:
        """No piece on the board (``clear``, or everything removed)."""
        return not (self.pos.white or self.pos.black)

    def _check_playing(self, after: str = "") -> None:
        """BadInput unless a move can be played now."""
        if self.empty():
            raise BadInput(EMPTY)
        o = self.outcome()
        if o is not None:
            raise BadInput(f"the game is over ({describe_outcome(o)}){after}")

    def _late(self) -> int:
        """1 if the record starts with the second side's move (a set-up position)."""
        first = WHITE if self.game.variant.white_starts else BLACK
        return int(self.game.start.turn != first)

    def move_label(self, ply: int | None = None) -> str:
        """``12.`` or ``12...`` (the second side's move) for the move played at ``ply``."""
        ply = len(self.game.moves) if ply is None else ply
        number = (ply + self._late()) // 2 + 1
        return f"{number}..." if (ply + self._late()) % 2 else f"{number}."

    def who(self, side: int) -> str:
        return "Rafle" if self.players[side] == RAFLE else "you" if self._one_human() else "human"

    def _one_human(self) -> bool:
        return list(self.players.values()).count(HUMAN) == 1

    def set_players(self, mode: str) -> None:
        """``white``/``black``: the person's side against Rafle; ``both``; ``none``."""
        if mode not in MODES:
            raise BadInput("play white | black (you play that side against Rafle), "
                           "both (two people), none (Rafle against itself)")
        self.players[WHITE], self.players[BLACK] = MODES[mode]
        if mode in ("white", "black"):
            self.flipped = mode == "black"     # your own men at the bottom

    def status(self) -> str:
        if self.empty():
            return "Empty board: " + EMPTY_HINT
        o = self.outcome()
        if o is not None:
            return f"Game over: {describe_outcome(o)}"
        side = self.pos.turn
        hint = "; go lets it move" if self.players[side] == RAFLE and not self._busy else ""
        return f"{self.move_label()} {side_name(side)} to move ({self.who(side)}{hint})"

    def show(self) -> None:
        last = self.game.moves[-1] if self.game.moves else None
        self.out(render(self.pos, flipped=self.flipped, numbers=self.numbers, last=last,
                        color=self.color, title=self.status()))

    def _reset(self, game: Game) -> None:
        self.game = game
        self.ended = None
        self.draw_offer = None

    # ----- moves ---------------------------------------------------------------------
    def play_typed(self, text: str) -> None:
        """A move typed by a person, then Rafle's replies."""
        self._check_playing(": type undo, new or setup to go on")
        move = parse_move(self.pos, text)
        self._push(move, by=HUMAN)
        if self.outcome() is None and self.players[self.pos.turn] == RAFLE:
            self.engine_turns()
        else:
            self.show()

    def _push(self, move: Move, by: str, note: str = "") -> None:
        before = self.pos
        label = self.move_label()
        self.game.push(move)
        self.ended = None
        who = "Rafle" if by == RAFLE else side_name(before.turn)
        self.out(f"{label} {move_to_pdn(before, move)}   ({who}{note})")
        o = self.game.outcome()
        if o is not None:
            self.out(f"Game over: {describe_outcome(o)}")

    def engine_turns(self, moved: bool = False) -> None:
        """Rafle moves while it is to move; stops at the game's end or when interrupted.

        The board is shown at the end if a move was played (``moved``: already before).
        """
        self._busy = True
        try:
            while (self.running and self.outcome() is None and not self.empty()
                   and self.players[self.pos.turn] == RAFLE):
                before = len(self.game.moves)
                going_on = self.engine_move()
                moved = moved or len(self.game.moves) > before
                if not going_on:
                    break
                if self.players[WHITE] == self.players[BLACK] == RAFLE and self.outcome() is None:
                    self.show()
        finally:
            self._busy = False
        if moved or self.outcome() is not None:
            self.show()

    def engine_move(self) -> bool:
        """Rafle plays one move for the side to move; False if it was told to pause."""
        pos = self.pos
        if not self.thinker.ready:
            self.out("(Rafle is getting ready: the first search loads its kernels)")
        result, typed = self.thinker.think(pos, self.game.history(), self.limits, poll=self.poll)
        if result is None or result.move is None or result.move not in self.game.legal_moves():
            self.out("Rafle found no move to play")
            return False
        note = (f": {format_score(result.score)} for {side_name(pos.turn)}, "
                f"depth {result.depth}" if result.score is not None else "")
        self._push(result.move, by=RAFLE, note=note)
        if typed is not None:
            self._interrupted(typed)
            return False
        return True

    def _interrupted(self, typed: str) -> None:
        if typed.strip().lower() not in ("", "stop"):
            self.pending.append(typed)
        if self.players[WHITE] == self.players[BLACK] == RAFLE:
            self.out("Paused: type go to let Rafle go on.")

    def go(self) -> None:
        """Rafle plays the side to move now, then keeps replying as the players say."""
        self._check_playing()
        if self.engine_move():
            self.engine_turns(moved=True)
        else:
            self.show()

    # ----- moving through the record --------------------------------------------------
    def undo(self, count: int | None) -> None:
        """Take back ``count`` plies (default: back to the person's move); at the start of
        a set-up position, the set-up step that made it."""
        if not self.game.moves:
            if not self.edits:
                raise BadInput("no move to take back")
            game, step = self.edits.pop()
            self._reset(game)
            self.thinker.new_game()
            self.out(f"Took back {step}.")
            self.show()
            return
        if count is None:
            count = 1
            # Against Rafle, take back its reply too so that it is your move again.
            if (self._one_human() and len(self.game.moves) >= 2
                    and self.players[self.game.positions[-2].turn] == RAFLE):
                count = 2
        count = min(count, len(self.game.moves))
        taken = []
        for _ in range(count):
            before = self.game.positions[-2]
            taken.append(move_to_pdn(before, self.game.pop()))
        self.ended = None
        self.out("Took back " + ", ".join(reversed(taken)) + ".")
        self.show()

    def redo(self, count: int) -> None:
        if not self.game.can_redo:
            raise BadInput("no move to replay (nothing was taken back)")
        done = []
        while count > 0 and self.game.can_redo:
            before = self.pos
            done.append(move_to_pdn(before, self.game.redo()))
            count -= 1
        self.out("Replayed " + ", ".join(done) + ".")
        self.show()

    def total_plies(self) -> int:
        """Plies in the record: played plus taken back (redo-able)."""
        return self.game.total_plies

    def goto_ply(self, ply: int) -> None:
        total = self.total_plies()
        if not 0 <= ply <= total:
            raise BadInput(f"the game has {total} {'ply' if total == 1 else 'plies'}; "
                           "there is no such move")
        self.game.goto(ply)
        self.ended = None
        self.show()

    def ply_of(self, text: str) -> int:
        """Plies before move ``12`` (first side's) or ``12...`` (second's); start, end."""
        t = text.strip().lower()
        if t in ("start", "begin", "0"):
            return 0
        if t in ("end", "last"):
            return self.total_plies()
        second = t.endswith("...")
        number = t.rstrip(".")
        if not number.isdigit() or int(number) < 1 or len(number) > 5:
            raise BadInput(f"goto needs a move number (12, or 12... for the second "
                           f"player's move), start or end; got {text!r}")
        return max(0, 2 * (int(number) - 1) - self._late() + second)

    # ----- ending a game by agreement --------------------------------------------------
    def offer_draw(self) -> None:
        self._check_playing()
        humans = [s for s in (WHITE, BLACK) if self.players[s] == HUMAN]
        if not humans:
            raise BadInput("Rafle plays both sides: there is nobody to offer a draw")
        if len(humans) == 2:
            side = self.pos.turn
            self.draw_offer = (side, len(self.game.moves))
            self.out(f"{side_name(side)} offers a draw. {side_name(1 - side)}: type accept "
                     "to agree, or just play on.")
            return
        rafle = 1 - humans[0]
        self.out("Rafle considers the offer...")
        result, _ = self.thinker.think(self.pos, self.game.history(), self.limits)
        score = result.score if result is not None and result.score is not None else 0
        own = score if self.pos.turn == rafle else -score
        if own <= DRAW_ACCEPT:
            self.out(f"Rafle accepts the draw (its score {format_score(own)}).")
            self.end(Outcome("1-1", None, "draw agreed"))
        else:
            self.out(f"Rafle declines the draw: it thinks it stands better "
                     f"({format_score(own)}).")

    def accept_draw(self) -> None:
        offer = self.draw_offer
        ply = len(self.game.moves)
        if offer is None or ply not in (offer[1], offer[1] + 1) or self.outcome() is not None:
            raise BadInput("there is no draw offer to accept (offer one with draw)")
        self.end(Outcome("1-1", None, "draw agreed"))

    def resign(self) -> None:
        self._check_playing()
        humans = [s for s in (WHITE, BLACK) if self.players[s] == HUMAN]
        loser = humans[0] if len(humans) == 1 else self.pos.turn
        winner = 1 - loser
        self.end(Outcome("2-0" if winner == WHITE else "0-2", winner,
                         f"{side_name(loser)} resigned"))

    def end(self, outcome: Outcome) -> None:
        self.ended = outcome
        self.draw_offer = None
        self.out(f"Game over: {describe_outcome(outcome)}")

    # ----- Rafle's opinion -------------------------------------------------------------
    def hint(self) -> None:
        pos = self.pos
        if not self.game.legal_moves():
            raise BadInput("there is no legal move in this position")
        result, _ = self.thinker.think(pos, self.game.history(), self.limits, poll=self.poll)
        if result is None or result.move is None:
            raise BadInput("Rafle found no move")
        self.out(f"Rafle would play {move_to_pdn(pos, result.move)} "
                 f"(score {format_score(result.score)} for {side_name(pos.turn)}, "
                 f"depth {result.depth}; line {pv_text(pos, result.pv)})")

    def analyse(self, limits: Limits, note: str) -> None:
        pos = self.pos
        if not self.game.legal_moves():
            raise BadInput("there is no legal move to analyse in this position")
        self.out(f"Analysing for {side_name(pos.turn)} ({note}); scores are "
                 f"{side_name(pos.turn)}'s.")

        def on_info(info: Info) -> None:
            self.out(f"  depth {info.depth:>2}  {format_score(info.score):>12}  "
                     f"{pv_text(pos, info.pv)}   ({info.nodes} nodes, {info.time:.1f} s)")

        result, typed = self.thinker.think(pos, self.game.history(), limits, on_info=on_info,
                                           analyze=True, poll=self.poll)
        if typed is not None and typed.strip().lower() not in ("", "stop"):
            self.pending.append(typed)
        if result is not None and result.move is not None:
            self.out(f"Best: {move_to_pdn(pos, result.move)} ({format_score(result.score)}, "
                     f"depth {result.depth}, {result.nodes} nodes, {result.time:.1f} s)")

    def set_level(self, name: str, limits: Limits) -> None:
        self.level_name, self.limits = name, limits
        self.out(f"Level: {self.level_text()}.")

    def level_text(self) -> str:
        """``medium (depth 4)``, or just ``depth 6`` for limits given directly."""
        if self.level_name in LEVELS:
            return f"{self.level_name} ({describe_limits(self.limits)})"
        return describe_limits(self.limits)

    def new_game(self, game: Game) -> None:
        """A new game or a loaded one: the set-up steps before it are forgotten."""
        self._reset(game)
        self.edits.clear()
        self.thinker.new_game()

    def edit(self, game: Game, step: str) -> None:
        """A set-up step (``step``: its command line) gives a new record; undo brings the
        one before back."""
        self.edits.append((self.game, step))
        self._reset(game)
        self.thinker.new_game()


def describe_outcome(o: Outcome) -> str:
    if o.winner is None:
        return f"draw, {o.result} ({o.reason})"
    return f"{side_name(o.winner)} wins, {o.result} ({o.reason})"


def pv_text(pos: Position, pv: tuple[Move, ...]) -> str:
    """A principal variation in PDN notation, cut where a move is not legal."""
    words = []
    for move in pv:
        if move not in legal_moves(pos):
            break
        words.append(move_to_pdn(pos, move))
        pos = play(pos, move)
    return " ".join(words) or "-"
