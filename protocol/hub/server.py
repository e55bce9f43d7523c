"""``rafle hub``: the Hub protocol (version 2, as spoken by Scan 3.1) on stdin/stdout.

This module turns Hub lines into calls on the engine's public API and the results back
into lines; it never thinks.  The behaviour follows ``shared/spec/protocols.md`` §1, the
client checklist §2.8 and the recommendations §7:

* A reader thread queues stdin lines; the main loop executes them one by one.  End of input
  stops any search and exits.  During a search ``ping`` is answered at once, ``ponder-hit``
  is passed on, and any other line stops the search (``done`` is printed) and is then
  executed, as Scan does.  ``stop`` and ``ponder-hit`` while idle are ignored.
* ``error message="..."`` is printed only for genuinely malformed input (a bad ``pos``, an
  illegal move in ``moves``); unknown commands, arguments and parameters are ignored
  silently, because py-draughts raises on ``error`` lines (§6 P10).
* Frisian: the moves of ``pos ... moves=`` are the game history Rafle knows, and its own
  move obeys the rule that a king may not make a fourth quiet move in a row while its side
  has men (``engine.allowed_moves``, which the search applies too and ``done`` is checked
  against).  The GUI's moves are taken as it sends them: the GUI is the referee (pydraughts
  does not know that rule).
* Nothing is ever written to stderr (pydraughts merges it into stdout): fd 2 goes to
  ``os.devnull`` or to the log file named by the environment variable ``RAFLE_LOG``, which
  also records every line in (``>``) and out (``<``).  Every stdout line is flushed.
* Importing numba takes longer than the 0.5 s a client should wait for ``wait``: the engine
  loads in a background thread after the handshake (a ``Future`` of the ``Searcher``) and
  ``init`` waits for it; the ``param`` lines come from the engine face's numba-free names.
  End of input is noticed even while ``init`` compiles.

Non-standard extension, for scripted correctness runs (clients that do not know it never
send it): after ``pos``, ``perft depth=N`` prints one ``info move=<hub move> nodes=<n>`` line
per legal root move (the number of ``N``-ply move sequences starting with that move; a
capture is counted once however many ways it can be played) and a final
``perft nodes=<total> time=<seconds>``.

The pipes (reader thread, flushed writer, silent stderr) are :mod:`.stdio`; the work done in
the background (engine load, warm-up, search, perft, each a ``Future``) is :mod:`.jobs`.
"""
from __future__ import annotations

import queue
import sys
import threading
import time
import traceback
from dataclasses import replace
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

import engine
from engine import parse_float

from ..about import NAME, version
from .jobs import in_background, load_searcher, start_perft, start_search
from .stdio import Output, read_lines, silence_stderr
from .wire import Command, Level, error_line, line, tokenize

AUTHOR = "Rafle authors"
COUNTRY = "International"
QUIT = object()
MAX_PERFT_DEPTH = 64
USAGE = """usage: rafle hub

Speak the Hub protocol (version 2, Scan's) on standard input and output: give this command
to a draughts GUI or client (the Hub GUI, pydraughts HubEngine, lidraughts-bot), or type
'hub', 'init', 'pos start', 'go think' yourself.

Parameters (set-param name=NAME value=VALUE, before init):
  variant             {variants}
{options}

Extension for scripts: 'perft depth=N' after 'pos'; 'stop' ends it.  Nothing is written to
stderr; set RAFLE_LOG=FILE to log every line in and out."""


def usage() -> str:
    """``rafle hub --help``: the parameters read from the engine's option table."""
    variants = " ".join(v.hub_name for v in engine.VARIANTS.values())
    return USAGE.format(variants=variants, options=engine.options_usage())


class InputClosed(Exception):
    """End of input arrived while a command was waiting for the engine."""


def param_lines(variant=None, options=None) -> list[str]:
    """The ``param`` declarations: the variant enum first, then the engine's options, with
    their current values once set (else the defaults).  Read from numba-free names of the
    engine face, so ``wait`` is not delayed."""
    names = " ".join(v.hub_name for v in engine.VARIANTS.values())
    variant = variant or engine.INTERNATIONAL
    # values is always quoted, as the spec's examples show (pydraughts strips the quotes).
    lines = [line("param", ("name", "variant"), ("value", variant.hub_name),
                  ("type", "enum")) + f' values="{names}"']
    for opt in options or engine.OPTIONS:
        pairs = [("name", opt.name), ("value", opt.default), ("type", opt.type)]
        if opt.min is not None:
            pairs.append(("min", opt.min))
        if opt.max is not None:
            pairs.append(("max", opt.max))
        text = line("param", *pairs)
        if opt.values:
            text += ' values="' + " ".join(opt.values) + '"'
        lines.append(text)
    return lines


# ----- the protocol loop ----------------------------------------------------------------

class Hub:
    """State of one Hub conversation: the game, the level, the running job."""

    def __init__(self, out: Output, events: queue.Queue, input_closed: threading.Event,
                 initial: list[tuple[str, str]] = ()):
        self.initial = list(initial)   # parameters from the command line, set when loaded
        self.out = out
        self.events = events
        self.input_closed = input_closed
        self.loading: Future | None = None   # the Searcher, once the engine has loaded
        self.searcher = None
        self.variant = None            # engine Variant; None until the engine is loaded
        self.positions: list = []      # game from the root given by `pos`, current last
        self.level = Level()
        self.job: Future | None = None  # done once the job's last line is written
        self.stop_job = None            # ends the running job early (a search's or a perft's)
        self.pondering = False         # the running search is a ponder search...
        self.hit_pending = False       # ...on which ponder-hit has been received
        self.arrived = time.monotonic()  # when the line being executed was read

    # ---- main loop ----
    def run(self) -> int:
        while True:
            try:
                kind, text, self.arrived = self.events.get(
                    timeout=0.02 if self.hit_pending else None)
            except queue.Empty:
                self.deliver_ponder_hit()
                continue
            if kind == "eof" or self.out.broken.is_set():
                # The running search or perft is stopped; the process leaves at once.
                self.end_job(give_up_after=1.0)
                return 0
            self.out.note("> " + text)
            cmd = tokenize(text)
            if cmd is None:
                continue  # blank line
            if self.busy():
                if cmd.name == "ping":
                    self.out.send("pong")
                    continue
                if cmd.name == "ponder-hit":
                    if self.pondering:
                        self.pondering = False
                        self.hit_pending = True
                        self.deliver_ponder_hit()
                    continue
                # Any other line ends the search, then is executed (Scan).
                self.end_job(give_up_after=1.0 if cmd.name == "quit" else None)
            if self.execute(cmd) is QUIT:
                return 0

    def execute(self, cmd: Command):
        handler = self.HANDLERS.get(cmd.name)
        if handler is None:
            return None  # unknown command: ignored silently (spec; py-draughts raises on error)
        try:
            return handler(self, cmd)
        except InputClosed:
            return QUIT
        except Exception as exc:
            self.out.note(traceback.format_exc())
            self.out.send(error_line(f"{cmd.name}: {exc}"))
            return None

    def deliver_ponder_hit(self) -> None:
        """Pass ``ponder-hit`` on, again every 20 ms while the search runs: sent right after
        ``go ponder`` it may come before the search has begun, when the searcher ignores it
        (once the search is timed, further calls change nothing)."""
        if self.busy():
            self.searcher.ponder_hit()
        else:
            self.hit_pending = False

    def busy(self) -> bool:
        return self.job is not None and not self.job.done()

    def end_job(self, give_up_after: float | None = None) -> None:
        """Stop the running search (its ``done`` is printed) and wait for it."""
        if self.job is None:
            return
        start = time.monotonic()
        while not self.job.done():
            if self.stop_job is not None:
                self.stop_job()  # again each time: the search may not have begun
            try:
                self.job.exception(0.02)
            except FutureTimeout:
                pass
            if give_up_after is not None and time.monotonic() - start > give_up_after:
                break  # leaving anyway; the job's thread is a daemon
        self.job = None
        self.pondering = self.hit_pending = False

    def wait_for(self, future: Future):
        """The result of ``future``, but leave at once (``InputClosed``) if the GUI has gone.

        Lines that arrive meanwhile stay queued and run afterwards, as in Scan (a ``ping``
        sent during ``init`` is answered after ``ready``: pydraughts relies on that order).
        Input that ended with lines still queued is a script, not a dead GUI: it is served.
        """
        while True:
            try:
                return future.result(0.05)
            except FutureTimeout:
                if self.input_closed.is_set() and self.events.qsize() <= 1:
                    raise InputClosed from None

    # ---- game state ----
    def load(self) -> None:
        """Wait for the engine (starting to load it if ``hub`` did not)."""
        if self.loading is None:
            self.loading = load_searcher(self.out)
        if self.searcher is None:
            try:
                self.searcher = self.wait_for(self.loading)
            except InputClosed:
                raise
            except Exception as exc:
                raise RuntimeError(f"engine failed to load: {type(exc).__name__}: {exc}") from None
        if self.variant is None:
            self.variant = engine.INTERNATIONAL
            self.positions = [engine.start_position(self.variant)]
        initial, self.initial = self.initial, []
        for name, value in initial:      # before any set-param, which may override them
            self.set_param(name, value)

    def shown_options(self) -> tuple:
        """The variant and the options the ``param`` lines declare: the searcher's once it has
        loaded; before, the defaults with the command line's values over them."""
        if self.searcher is not None:
            return self.variant, self.searcher.options()
        given = dict(self.initial)
        try:
            variant = engine.get_variant(given["variant"]) if "variant" in given else None
        except engine.BadInput:
            variant = None
        options = []
        for opt in engine.OPTIONS:
            ok, value = opt.parse(given[opt.name]) if opt.name in given else (False, None)
            # an option whose apply action may still refuse the value shows it once loaded
            options.append(replace(opt, default=opt.show(value)) if ok and not opt.apply else opt)
        return variant, options

    # ---- commands ----
    def cmd_hub(self, cmd: Command):
        self.out.send(line("id", ("name", NAME), ("version", version()), ("author", AUTHOR),
                           ("country", COUNTRY)))
        for text in param_lines(*self.shown_options()):
            self.out.send(text)
        self.out.send("wait")
        if self.loading is None:
            self.loading = load_searcher(self.out)

    def cmd_set_param(self, cmd: Command):
        name, value = cmd.get("name"), cmd.get("value")
        if not name or value is None or value.lower() == "none":
            return  # nothing usable to set: ignored, never an exit (spec §6 P11)
        self.load()
        self.set_param(name, value)

    def set_param(self, name: str, value: str) -> None:
        """The variant, or an engine option; unknown names and bad values are ignored."""
        if name == "variant":
            try:
                variant = engine.get_variant(value)
            except engine.BadInput:
                return
            if variant is not self.variant:
                self.variant = variant
                self.positions = [engine.start_position(variant)]
            return
        self.searcher.set_option(name, value)  # False for unknown names or bad values

    def cmd_init(self, cmd: Command):
        self.load()
        searcher = self.searcher

        variant = self.variant

        def warm_up():
            engine.warm_up(counting=False)   # perft's kernels compile on a first perft
            searcher.warm_up()
            return searcher.resources.egdb_for(variant)   # read now, not on the clock

        # Compiling with an empty numba cache takes a while; end of input must not wait for it.
        tables = self.wait_for(in_background(warm_up, "hub-init"))
        evaluation = searcher.resources.evaluation_for(self.variant)
        # which weights play, and the most pieces of the endgame databases found (0: none)
        self.out.send(line("init", ("eval", evaluation.name),
                           ("egdb", str(tables.pieces if tables is not None else 0))))
        for note in searcher.resources.notes:
            self.out.note(note)
        self.out.send("ready")

    def cmd_ping(self, cmd: Command):
        self.out.send("pong")

    def cmd_new_game(self, cmd: Command):
        self.load()
        self.searcher.new_game()

    def cmd_quit(self, cmd: Command):
        return QUIT

    def cmd_ignore(self, cmd: Command):
        return None  # stop / ponder-hit while idle

    def cmd_level(self, cmd: Command):
        self.level.update(cmd)

    def cmd_pos(self, cmd: Command):
        self.load()
        self.level = Level()
        if cmd.error:
            self.out.send(error_line(f"bad position: {cmd.error}"))
            return
        text = cmd.get("pos")
        try:
            root = (engine.start_position(self.variant) if text is None or cmd.has("start")
                    else engine.parse_position(text, self.variant))
        except engine.BadInput as exc:
            self.out.send(error_line(f"bad position: {exc}"))
            return  # the previous game stays, as in Scan
        positions = [root]
        for word in (cmd.get("moves") or "").split():
            try:
                move = engine.move_from_hub(positions[-1], word)
            except engine.BadInput as exc:
                reason = str(exc)
                if reason.startswith(f"illegal move {word}: "):
                    reason = reason[len(f"illegal move {word}: "):]
                self.out.send(error_line(f"illegal move {word} (ply {len(positions)}): {reason}"))
                return  # the whole line is refused and the previous game stays, as for a bad pos
            positions.append(engine.play(positions[-1], move))
        self.positions = positions

    def cmd_go(self, cmd: Command):
        self.load()
        ponder, analyze = cmd.has("ponder"), cmd.has("analyze")
        limits = self.level.limits(engine.Limits, analyze)
        self.level = Level()  # a level serves one search only
        self.pondering = ponder
        self.hit_pending = False
        self.stop_job = self.searcher.stop
        self.job = start_search(self.searcher, self.out, self.positions, limits, ponder, analyze,
                                self.arrived)

    def cmd_perft(self, cmd: Command):
        self.load()
        value = parse_float(cmd.get("depth") or "")
        depth = None if value is None else int(value)
        if depth is None or not 0 <= depth <= MAX_PERFT_DEPTH:
            self.out.send(error_line(f"perft needs depth=N with 0 <= N <= {MAX_PERFT_DEPTH}"))
            return
        pos = self.positions[-1]
        self.hit_pending = False
        flag = engine.new_stop_flag()
        self.stop_job = lambda: engine.set_stop(flag)
        self.job = start_perft(self.out, pos, depth, flag)

    HANDLERS = {
        "hub": cmd_hub, "set-param": cmd_set_param, "init": cmd_init, "ping": cmd_ping,
        "new-game": cmd_new_game, "quit": cmd_quit, "stop": cmd_ignore,
        "ponder-hit": cmd_ignore, "level": cmd_level, "pos": cmd_pos, "go": cmd_go,
        "perft": cmd_perft,
    }


def serve(in_fd: int, out_fd: int, log=None, initial: list[tuple[str, str]] = ()) -> int:
    """Speak Hub on these file descriptors until ``quit`` or end of input; the exit code.
    ``main`` serves stdin/stdout; the tests serve pipes, in-process."""
    out = Output(out_fd, log)
    events: queue.Queue = queue.Queue()
    closed = threading.Event()
    reader = threading.Thread(target=read_lines, args=(in_fd, events, closed),
                              name="hub-reader", daemon=True)
    reader.start()
    return Hub(out, events, closed, initial).run()


def initial_params(argv: list[str]) -> list[tuple[str, str]]:
    """The ``--name=value`` arguments (lidraughts-bot passes its ``engine_options`` so):
    parameters set as ``set-param`` would, before the client's own.  Others are ignored."""
    pairs = []
    for arg in argv:
        name, eq, value = arg.partition("=")
        if arg.startswith("--") and eq and len(name) > 2:
            pairs.append((name[2:], value))
    return pairs


def main(argv: list[str] | None = None) -> int:
    """Run the Hub loop until ``quit`` or end of input.  ``--name=value`` arguments set
    parameters (:func:`initial_params`); other arguments are ignored."""
    if argv and argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    log = silence_stderr()
    try:
        return serve(sys.stdin.fileno(), sys.stdout.fileno(), log, initial_params(argv or []))
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
