"""The text-mode command table: every command's name, one-line help and what it does.

A line that looks like a move (``32-28``, ``28x``, ``3228``...) is played; otherwise its
first word names a command.  Handlers turn words into calls on the :class:`Session` and
raise :class:`engine.BadInput` with a helpful message for anything they cannot use.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from engine import (BLACK, VARIANTS, WHITE, BadInput, Game, Limits, Outcome, get_variant,
                    parse_float, parse_int, pos_to_fen, read_pdn, write_pdn)

from ..levels import LEVELS, describe_limits, parse_level
from .moves import describe, looks_like_move
from .study import parse_setup, put, read_squares, remove, with_turn
from .session import RAFLE, Session

PIPE_ANALYSIS = 5.0      # seconds of analysis without a limit when nobody can type "stop"


@dataclass(frozen=True)
class Command:
    names: tuple[str, ...]
    usage: str
    help: str
    run: Callable[[Session, list[str], str], None]


def _count(word: str, what: str) -> int:
    n = parse_int(word, 1, 10 ** 9)
    if n is None:
        raise BadInput(f"{what} must be a positive whole number, got {word!r}")
    return n


def _side(word: str) -> int:
    side = {"w": WHITE, "white": WHITE, "b": BLACK, "black": BLACK}.get(word.lower())
    if side is None:
        raise BadInput(f"{word!r} is not a side: say white or black")
    return side


def _no_args(args: list[str], name: str) -> None:
    if args:
        raise BadInput(f"{name} takes no arguments")


# ----- playing ---------------------------------------------------------------------

def _new(s: Session, args: list[str], rest: str) -> None:
    variant = get_variant(args[0]) if args else s.game.variant
    s.new_game(Game(variant=variant))
    s.out(f"New game of {variant.name} draughts: White {s.who(WHITE)}, Black {s.who(BLACK)}.")
    s.show()
    s.engine_turns()


def _play(s: Session, args: list[str], rest: str) -> None:
    s.set_players(args[0].lower() if len(args) == 1 else "")
    s.out(f"White: {s.who(WHITE)}, Black: {s.who(BLACK)}.")
    s.engine_turns()


def _go(s: Session, args: list[str], rest: str) -> None:
    _no_args(args, "go")
    s.go()


def _level(s: Session, args: list[str], rest: str) -> None:
    if not args:
        s.out(f"Level: {s.level_text()}. Levels: "
              + ", ".join(f"{k} ({describe_limits(v)})" for k, v in LEVELS.items())
              + "; or depth N, time SECONDS.")
        return
    s.set_level(*parse_level(args))


def _depth(s: Session, args: list[str], rest: str) -> None:
    s.set_level(*parse_level(["depth", *args]))


def _time(s: Session, args: list[str], rest: str) -> None:
    s.set_level(*parse_level(["time", *args]))


def _moves(s: Session, args: list[str], rest: str) -> None:
    moves = s.game.legal_moves()     # without a Frisian king's barred fourth quiet move
    s.out(f"{len(moves)} legal move{'s' * (len(moves) != 1)}: {describe(s.pos, moves)}")


def _hint(s: Session, args: list[str], rest: str) -> None:
    s.hint()


def _draw(s: Session, args: list[str], rest: str) -> None:
    s.offer_draw()


def _accept(s: Session, args: list[str], rest: str) -> None:
    s.accept_draw()


def _resign(s: Session, args: list[str], rest: str) -> None:
    s.resign()


# ----- moving through the game ----------------------------------------------------------

def _undo(s: Session, args: list[str], rest: str) -> None:
    s.undo(_count(args[0], "the number of moves") if args else None)


def _redo(s: Session, args: list[str], rest: str) -> None:
    s.redo(_count(args[0], "the number of moves") if args else 1)


def _goto(s: Session, args: list[str], rest: str) -> None:
    if len(args) != 1:
        raise BadInput("goto needs a move number (12, or 12... for Black's move), start or end")
    s.goto_ply(s.ply_of(args[0]))


def _replay(s: Session, args: list[str], rest: str) -> None:
    step = s.replay_step   # set by the terminal loop: waits for Enter or a delay
    delay = None
    if args:
        delay = parse_float(args[0])
        if delay is None:
            raise BadInput(f"replay takes a delay in seconds, got {args[0]!r}")
    total = s.total_plies()
    if total == 0:
        raise BadInput("there is no move to replay")
    s.goto_ply(0)
    for _ in range(total):
        if not step(delay):
            s.out("Replay stopped.")
            return
        before = s.pos
        label = s.move_label()
        move = s.game.redo()
        s.out(f"{label} {describe(before, [move])}")
        s.show()
    s.out("End of the game.")


def _history(s: Session, args: list[str], rest: str) -> None:
    words = []
    for ply, (pos, move) in enumerate(zip(s.game.positions, s.game.moves)):
        label = s.move_label(ply)
        if ply == 0 or not label.endswith("..."):
            words.append(label)
        words.append(describe(pos, [move]))
    s.out(" ".join(words) if words else "(no moves yet)")
    o = s.outcome()
    if o is not None:
        s.out(f"Game over: {o.result} ({o.reason})")
    taken = s.total_plies() - len(s.game.moves)
    if taken:
        s.out(f"({_plies(taken)} taken back: redo replays {'it' if taken == 1 else 'them'})")


def _plies(n: int) -> str:
    return f"{n} ply" if n == 1 else f"{n} plies"


# ----- study ---------------------------------------------------------------------------

def _start_from(s: Session, pos, notes: list[str], step: str) -> None:
    """A set-up step: a new record from ``pos`` (undo takes the step back)."""
    if s.game.moves:
        notes = notes + ["the moves played so far are dropped (undo brings them back)"]
    s.edit(Game(pos), step)
    for note in notes:
        s.out(f"Note: {note}.")
    s.show()


def _setup(s: Session, args: list[str], rest: str) -> None:
    if not rest:
        raise BadInput("setup needs a position: a FEN such as W:W31-50:B1-20, or "
                       "W: 3, 32k B: 18k, 19k")
    pos, notes = parse_setup(rest, s.game.variant)
    _start_from(s, pos, notes, "setup")


def _put(s: Session, args: list[str], rest: str) -> None:
    pieces = [a for a in args if not a[0].isdigit()]
    if len(pieces) != 1:
        raise BadInput("put PIECE SQUARES: e.g. put w 28 29, put B 3 (w b men, W B kings)")
    squares = read_squares([a for a in args if a[0].isdigit()])
    _start_from(s, put(s.pos, pieces[0], squares), [], "put " + " ".join(args))


def _remove(s: Session, args: list[str], rest: str) -> None:
    _start_from(s, remove(s.pos, read_squares(args)), [], "remove " + " ".join(args))


def _clear(s: Session, args: list[str], rest: str) -> None:
    _no_args(args, "clear")
    _start_from(s, remove(s.pos, list(range(1, s.pos.variant.nsquares + 1))), [], "clear")


def _turn(s: Session, args: list[str], rest: str) -> None:
    if len(args) != 1:
        raise BadInput("turn white or turn black")
    _start_from(s, with_turn(s.pos, _side(args[0])), [], "turn " + args[0])


def _fen(s: Session, args: list[str], rest: str) -> None:
    if rest:
        _setup(s, args, rest)
    else:
        s.out(pos_to_fen(s.pos))


def _analyse(s: Session, args: list[str], rest: str) -> None:
    if args and args[0].lower() == "depth":
        _, limits = parse_level(args)
        note = f"to depth {limits.depth}"
    elif args:
        _, limits = parse_level(["time", *args])
        note = f"for {limits.movetime:g} s"
    elif s.interactive:
        limits, note = Limits(infinite=True), "until you press Enter or type stop"
    else:
        limits, note = Limits(movetime=PIPE_ANALYSIS), f"for {PIPE_ANALYSIS:g} s"
    if s.interactive and args:
        note += "; Enter or stop ends it sooner"
    s.analyse(limits, note)


def _stop(s: Session, args: list[str], rest: str) -> None:
    s.out("Nothing to stop: Rafle is not thinking.")


# ----- files -------------------------------------------------------------------------------

def _save(s: Session, args: list[str], rest: str) -> None:
    if not rest:
        raise BadInput("save FILE: e.g. save game.pdn")
    extra = s.total_plies() - len(s.game.moves)
    for _ in range(extra):        # save the whole record, also what was taken back
        s.game.redo()
    try:
        o = s.outcome() if extra == 0 else s.game.outcome()
        tags = {"Event": "Rafle text mode", "Site": "?",
                "Date": datetime.date.today().strftime("%Y.%m.%d"),
                "White": _player_name(s, WHITE), "Black": _player_name(s, BLACK),
                "Result": o.result if o else "*"}
        text = write_pdn(s.game, tags, comment=o.reason if o else None)
        plies = len(s.game.moves)
    finally:
        for _ in range(extra):
            s.game.pop()
    try:
        Path(rest).expanduser().write_text(text, encoding="utf-8")
    except (OSError, ValueError) as e:     # ValueError: a NUL in the name
        raise BadInput(f"cannot write {rest!r}: {getattr(e, 'strerror', None) or e}") from None
    s.out(f"Saved {_plies(plies)} to {rest} (result {tags['Result']}).")


MAX_PDN_BYTES = 50 << 20


def _read_file(name: str) -> bytes:
    """A PDN file's bytes: a regular file of at most 50 MB, or BadInput saying why not."""
    path = Path(name).expanduser()
    try:
        regular, exists = path.is_file(), path.exists()   # False for a name with a NUL
    except OSError as e:
        raise BadInput(f"cannot read {name!r}: {e.strerror or e}") from None
    if not regular:
        raise BadInput(f"cannot read {name!r}: {'not a regular file' if exists else 'no such file'}")
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_PDN_BYTES + 1)
    except OSError as e:
        raise BadInput(f"cannot read {name!r}: {e.strerror or e}") from None
    if len(raw) > MAX_PDN_BYTES:
        raise BadInput(f"{name!r} is larger than {MAX_PDN_BYTES >> 20} MB: not a PDN file to load")
    return raw


def _player_name(s: Session, side: int) -> str:
    if s.players[side] != RAFLE:
        return "Human"
    return f"Rafle {s.level_name}" if s.level_name in LEVELS else f"Rafle {s.level_text()}"


def _load(s: Session, args: list[str], rest: str) -> None:
    if not args:
        raise BadInput("load FILE [N]: e.g. load games.pdn 2")
    number = None
    name = rest
    if len(args) >= 2 and args[-1].isdigit():
        number = int(args[-1])
        name = rest[: rest.rstrip().rfind(" ")].strip()
    raw = _read_file(name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")      # old PDN files are often Latin-1
    games = read_pdn(text)
    if not games:
        raise BadInput(f"{name} holds no game")
    if number is None:
        number = 1
        if len(games) > 1:
            s.out(f"{name} holds {len(games)} games:")
            for i, g in enumerate(games, 1):
                s.out(f"  {i:>3}. {g.tags.get('White', '?')} - {g.tags.get('Black', '?')}  "
                      f"{g.result}  {_plies(len(g.moves))}  {g.tags.get('Event', '')}".rstrip())
            s.out(f"Loading game 1; 'load {name} N' loads game N.")
    if not 1 <= number <= len(games):
        raise BadInput(f"{name} has games 1 to {len(games)}, not {number}")
    chosen = games[number - 1]
    game = chosen.game()
    s.new_game(game)
    if chosen.result != "*" and game.outcome() is None:
        winner = {"2-0": WHITE, "0-2": BLACK}.get(chosen.result)
        s.ended = Outcome(chosen.result, winner, "result given in the file")
    s.out(f"Loaded game {number}: {chosen.tags.get('White', '?')} - "
          f"{chosen.tags.get('Black', '?')}, {_plies(len(game.moves))}, result {chosen.result}.")
    s.show()


# ----- display and session ----------------------------------------------------------------

def _board(s: Session, args: list[str], rest: str) -> None:
    s.show()


def _flip(s: Session, args: list[str], rest: str) -> None:
    s.flipped = not s.flipped
    s.show()


def _on_off(args: list[str], current: bool, name: str) -> bool:
    if not args:
        return not current
    word = args[0].lower()
    if word in ("on", "yes", "1"):
        return True
    if word in ("off", "no", "0"):
        return False
    raise BadInput(f"{name} on or {name} off")


def _numbers(s: Session, args: list[str], rest: str) -> None:
    s.numbers = _on_off(args, s.numbers, "numbers")
    s.show()


def _color(s: Session, args: list[str], rest: str) -> None:
    s.color = _on_off(args, s.color, "color")
    s.show()


def _status(s: Session, args: list[str], rest: str) -> None:
    s.out(f"{s.game.variant.name} draughts; White: {s.who(WHITE)}, Black: {s.who(BLACK)}; "
          f"level {s.level_text()}.")
    s.out(s.status())


def _help(s: Session, args: list[str], rest: str) -> None:
    s.out("A move on its own line plays it: 32-28, 28x19, 28x19x10 (landing or captured "
          "squares), 3228, 28x, x19, or 28 when only one move ends there.")
    s.out("Commands:")
    for c in COMMANDS:
        s.out(f"  {c.usage:<28} {c.help}")


def _quit(s: Session, args: list[str], rest: str) -> None:
    s.running = False


COMMANDS: list[Command] = [
    Command(("help", "?"), "help", "this list", _help),
    Command(("new",), "new [VARIANT]",
            "new game (variants: " + ", ".join(VARIANTS) + ")", _new),
    Command(("play",), "play white|black|both|none",
            "you play White or Black against Rafle, both (two people), none (Rafle vs Rafle)",
            _play),
    Command(("go",), "go", "Rafle plays the side to move now", _go),
    Command(("level",), "level [NAME|depth N|time S]",
            "Rafle's strength: " + ", ".join(LEVELS) + "; or a depth or seconds per move", _level),
    Command(("depth",), "depth N", "Rafle searches N plies per move", _depth),
    Command(("time",), "time S", "Rafle thinks S seconds per move", _time),
    Command(("moves", "legal"), "moves", "list the legal moves", _moves),
    Command(("hint",), "hint", "Rafle's choice for the side to move, with its score", _hint),
    Command(("undo", "back"), "undo [N]",
            "take back N plies (default: back to your move), or a set-up step", _undo),
    Command(("redo", "forward"), "redo [N]", "replay N taken-back plies (default 1)", _redo),
    Command(("goto",), "goto N|N...|start|end",
            "go to move N (N... for Black's move N), the start or the end", _goto),
    Command(("replay",), "replay [SECONDS]",
            "replay the game from the start, one move per Enter (or per delay)", _replay),
    Command(("history", "game"), "history", "the moves of the game", _history),
    Command(("draw",), "draw", "offer a draw (Rafle accepts when it stands no better)", _draw),
    Command(("accept",), "accept", "accept the other person's draw offer", _accept),
    Command(("resign",), "resign", "resign the game", _resign),
    Command(("setup",), "setup FEN|W: 3, 32k B: 18k",
            "set up a position from a FEN or the loose form", _setup),
    Command(("put",), "put PIECE SQUARES", "put w, b (men) or W, B (kings) on squares", _put),
    Command(("remove", "empty"), "remove SQUARES", "empty squares (e.g. remove 28 31-35)", _remove),
    Command(("clear",), "clear", "empty the whole board", _clear),
    Command(("turn",), "turn white|black", "choose the side to move", _turn),
    Command(("fen",), "fen [FEN]", "show the position as FEN (or set one up)", _fen),
    Command(("analyse", "analyze"), "analyse [S|depth N]",
            "Rafle's lines as it deepens, until stopped or the limit", _analyse),
    Command(("stop",), "stop", "stop Rafle's analysis or thinking (Enter works too)", _stop),
    Command(("save",), "save FILE", "save the game as PDN (with its FEN when set up)", _save),
    Command(("load",), "load FILE [N]", "load game N (default 1) of a PDN file", _load),
    Command(("board", "show"), "board", "draw the board again", _board),
    Command(("flip",), "flip", "turn the board around", _flip),
    Command(("numbers",), "numbers [on|off]", "show or hide the square numbers", _numbers),
    Command(("color", "colour"), "color [on|off]", "colours on or off", _color),
    Command(("status",), "status", "variant, players and level", _status),
    Command(("quit", "exit", "q"), "quit", "leave Rafle", _quit),
]
_BY_NAME = {name: c for c in COMMANDS for name in c.names}


def execute(s: Session, line: str) -> None:
    """Run one input line: a move or a command.  Raises BadInput for bad input."""
    text = line.strip()
    if not text:
        return
    if looks_like_move(text):
        s.play_typed(text)
        return
    word, _, rest = text.partition(" ")
    command = _BY_NAME.get(word.lower())
    if command is None:
        raise BadInput(f"unknown command {word!r}: type help for the list of commands, "
                       "or a move (moves lists them)")
    command.run(s, rest.split(), rest.strip())

