"""``rafle play`` (and ``rafle`` alone): play, study and replay games in the terminal.

This module owns the terminal: the options, the prompt, reading lines (with line editing
when stdin is a terminal), the keyboard check while Rafle thinks, and the rule that a bad
line is answered with a message and never ends the session or shows a traceback.

When stdin is not a terminal (a pipe or a file) there is no prompt, every line read is
echoed as ``> line`` so the output reads as a transcript, and a search is never cut
short by the lines that follow it (they were all written in advance): ``analyse`` then
runs to its limit.
"""
from __future__ import annotations

import argparse
import os
import select
import sys
import time
from typing import TextIO

from engine import BLACK, VARIANTS, WHITE, BadInput, get_variant, warm_up
from perft.progress import compiling

from ..levels import LEVELS, parse_level
from .board import wants_color
from .commands import execute
from .session import RAFLE, Session


class Terminal:
    """Line input and output for a person (a tty) or for a script (a pipe)."""

    def __init__(self, stdin: TextIO, stdout: TextIO):
        self.stdin, self.stdout = stdin, stdout
        self.interactive = _isatty(stdin)
        if self.interactive and stdin is sys.stdin:
            try:
                import readline  # noqa: F401  (line editing and history for input())
            except ImportError:
                pass

    def write(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def read(self, prompt: str) -> str | None:
        """The next line, or None at end of input."""
        if self.interactive and self.stdin is sys.stdin:
            try:
                return input(prompt)
            except EOFError:
                self.write("")
                return None
        if self.interactive:
            self.stdout.write(prompt)
            self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            return None
        line = line.rstrip("\r\n")
        if not self.interactive:
            self.write(f"> {line}")
        return line

    def poll(self) -> str | None:
        """A line typed while Rafle thinks (terminal only), or None."""
        try:
            ready, _, _ = select.select([self.stdin], [], [], 0)
        except (OSError, ValueError):
            return None
        if not ready:
            return None
        line = self.stdin.readline()
        return line.rstrip("\r\n") if line else "quit"

    def replay_step(self, delay: float | None) -> bool:
        """Pace a replay: sleep ``delay`` seconds, or wait for Enter on a terminal."""
        if delay is not None:
            time.sleep(min(max(0.0, delay), 10.0))
            return True
        if not self.interactive:
            return True
        line = self.read("Enter: next move, q: stop > ")
        return line is not None and line.strip().lower() not in ("q", "quit", "stop")


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rafle play",
        description="Play, study and replay draughts games in the terminal. "
                    "Type help at the prompt for the commands.")
    p.add_argument("--variant", default="international",
                   help="variant to play: " + ", ".join(VARIANTS))
    p.add_argument("--play", choices=("white", "black", "both", "none"), default="white",
                   help="your side against Rafle, both (two people) or none (Rafle vs Rafle)")
    p.add_argument("--level", default="medium",
                   help="Rafle's strength: " + ", ".join(LEVELS))
    p.add_argument("--depth", type=int, help="Rafle searches this many plies per move")
    p.add_argument("--time", type=float, help="Rafle thinks this many seconds per move")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colours (auto: on a terminal, unless NO_COLOR is set)")
    p.add_argument("--no-numbers", action="store_true", help="hide the square numbers")
    p.add_argument("--flip", action="store_true", help="show the board from Black's side")
    p.add_argument("--setup", metavar="POSITION", help="start from a FEN or the loose form")
    p.add_argument("--load", metavar="FILE", help="start with the first game of a PDN file")
    return p


def _prompt(s: Session) -> str:
    if s.outcome() is not None:
        return "rafle (game over)> "
    return f"rafle {s.move_label()} {'White' if s.pos.turn == WHITE else 'Black'}> "


def _run(s: Session, term: Terminal, line: str) -> None:
    """One line through the command table; every failure becomes a message."""
    try:
        execute(s, line)
    except BadInput as e:
        term.write(f"Error: {e}")
    except KeyboardInterrupt:
        term.write("Interrupted.")
    except Exception as e:   # a bug must not cost the person the game: report and go on
        term.write(f"Internal error ({type(e).__name__}: {e}); the session goes on.")


def main(argv: list[str], stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    for stream in (stdin is None and sys.stdin, stdout is None and sys.stdout):
        if stream and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")   # odd bytes are bad input, not a crash
    term = Terminal(stdin or sys.stdin, stdout or sys.stdout)
    try:
        variant = get_variant(args.variant)
        if args.depth is not None:
            level = parse_level(["depth", str(args.depth)])
        elif args.time is not None:
            level = parse_level(["time", str(args.time)])
        else:
            level = parse_level(args.level.replace(":", " ").split())
    except BadInput as e:
        term.write(f"rafle play: {e}")
        return 2
    color = {"always": True, "never": False}.get(args.color)
    if color is None:
        color = wants_color(term.stdout, os.environ)
    s = Session(term.write, variant, color=color, interactive=term.interactive)
    s.level_name, s.limits = level
    s.numbers = not args.no_numbers
    s.set_players(args.play)
    s.flipped = s.flipped or args.flip
    if term.interactive:
        s.poll = term.poll
    s.replay_step = term.replay_step

    term.write(f"Rafle: {variant.name} draughts. White: {s.who(WHITE)}, Black: "
               f"{s.who(BLACK)}; level {s.level_text()}. "
               "Type help for the commands.")
    with compiling("the move generator"):
        warm_up(counting=False)    # the rules' kernels, before the board needs them
    if args.load:
        _run(s, term, f"load {args.load}")
    elif args.setup:
        _run(s, term, f"setup {args.setup}")
    elif s.players[s.pos.turn] == RAFLE:
        _run(s, term, "go")        # Rafle has the first move of a new game
    else:
        _run(s, term, "board")
    while s.running:
        if s.pending:
            line = s.pending.pop(0)
        else:
            try:
                line = term.read(_prompt(s))
            except KeyboardInterrupt:
                term.write("\n(type quit to leave)")
                continue
        if line is None:
            break
        _run(s, term, line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
