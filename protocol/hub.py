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
  has men (``engine.barred_square``, which the search applies too).  The GUI's moves are taken as it sends them:
  the GUI is the referee (pydraughts does not know that rule).
* Nothing is ever written to stderr (pydraughts merges it into stdout): fd 2 goes to
  ``os.devnull`` or to the log file named by the environment variable ``RAFLE_LOG``, which
  also records every line in (``>``) and out (``<``).  Every stdout line is flushed.
* Importing numba takes longer than the 0.5 s a client should wait for ``wait``: the engine
  loads in a background thread after the handshake and ``init`` waits for it; the ``param``
  lines come from modules that load without numba (see ``hubstart``).  End of input is noticed even while ``init``
  compiles.

Non-standard extension, for scripted correctness runs (clients that do not know it never
send it): after ``pos``, ``perft depth=N`` prints one ``info move=<hub move> nodes=<n>`` line
per legal root move (the number of ``N``-ply move sequences starting with that move; a
capture is counted once however many ways it can be played) and a final
``perft nodes=<total> time=<seconds>``.
"""
from __future__ import annotations

import os
import queue
import sys
import threading
import time
import traceback
import warnings

from .hubstart import EngineLoader, param_lines
from .hubwire import Command, Level, error_line, info_line, line, parse_number, tokenize

NAME = "Rafle"
AUTHOR = "Rafle authors"
COUNTRY = "International"
QUIT = object()


class InputClosed(Exception):
    """End of input arrived while a command was waiting for the engine."""


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("rafle")
    except Exception:  # not installed as a distribution (e.g. run from a bare checkout)
        return "0"


# ----- output -----------------------------------------------------------------------

class Output:
    """Writes whole lines to stdout, flushed, one writer at a time; optionally logs them.

    Lines go straight to the file descriptor: a buffered stream's lock held by a job thread
    would abort the interpreter at exit ("could not acquire lock ... at shutdown").
    """

    def __init__(self, fd: int, log=None):
        self.fd = fd
        self.log = log
        self.lock = threading.Lock()
        self.broken = threading.Event()

    def send(self, text: str) -> None:
        if not text:
            return  # a blank line aborts GWD's match driver
        data = (text + "\n").encode("utf-8", "replace")
        with self.lock:
            self.note("< " + text)
            while data and not self.broken.is_set():
                try:
                    data = data[os.write(self.fd, data):]
                except OSError:  # the GUI has gone: behave as on end of input
                    self.broken.set()

    def note(self, text: str) -> None:
        if self.log is not None:
            try:
                self.log.write(f"{time.strftime('%H:%M:%S')} {text}\n")
                self.log.flush()
            except (OSError, ValueError):
                pass


def _silence_stderr():
    """Send fd 2 and Python's warnings to the log file (``RAFLE_LOG``) or to nowhere."""
    log = None
    path = os.environ.get("RAFLE_LOG")
    if path:
        try:
            log = open(path, "a", encoding="utf-8", buffering=1)
        except OSError:
            log = None
    sink = log if log is not None else open(os.devnull, "w")
    os.dup2(sink.fileno(), 2)  # also catches writes from C code (LLVM, numba)
    sys.stderr = sink
    warnings.simplefilter("ignore")
    warnings.showwarning = lambda *args, **kwargs: None
    return log


# ----- the protocol loop ----------------------------------------------------------------

class Hub:
    """State of one Hub conversation: the game, the level, the running job."""

    def __init__(self, out: Output, events: queue.Queue, input_closed: threading.Event):
        self.out = out
        self.events = events
        self.input_closed = input_closed
        self.loader = EngineLoader(out)
        self.variant = None            # engine Variant; None until the engine is loaded
        self.positions: list = []      # game from the root given by `pos`, current last
        self.moves: list = []          # the moves between them (Frisian's king rule needs them)
        self.level = Level()
        self.job: threading.Thread | None = None
        self.job_is_perft = False
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
                # A search is stopped; a perft (bounded, run by scripts) is let finish.
                self.end_job(give_up_after=None if self.job_is_perft else 1.0)
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
            self.loader.searcher.ponder_hit()
        else:
            self.hit_pending = False

    def busy(self) -> bool:
        return self.job is not None and self.job.is_alive()

    def end_job(self, give_up_after: float | None = None) -> None:
        """Stop the running search (its ``done`` is printed) and wait for it."""
        if self.job is None:
            return
        start = time.monotonic()
        while self.job.is_alive():
            if self.loader.searcher is not None:
                self.loader.searcher.stop()  # again each time: the search may not have begun
            self.job.join(0.02)
            if give_up_after is not None and time.monotonic() - start > give_up_after:
                break  # leaving anyway (perft cannot be stopped); the thread is a daemon
        self.job = None
        self.pondering = self.hit_pending = False

    def start_job(self, target, *args) -> None:
        self.job = threading.Thread(target=target, args=args, name="hub-job", daemon=True)
        self.job_is_perft = target == self.perft_job
        self.hit_pending = False
        self.job.start()

    def wait_for(self, thread: threading.Thread) -> None:
        """Join ``thread``, but leave at once (``InputClosed``) if the GUI has gone.

        Lines that arrive meanwhile stay queued and run afterwards, as in Scan (a ``ping``
        sent during ``init`` is answered after ``ready``: pydraughts relies on that order).
        Input that ended with lines still queued is a script, not a dead GUI: it is served.
        """
        while thread.is_alive():
            thread.join(0.05)
            if self.input_closed.is_set() and self.events.qsize() <= 1:
                raise InputClosed

    # ---- game state ----
    def engine(self):
        self.loader.start()
        self.wait_for(self.loader.thread)
        loaded = self.loader.get()
        if self.variant is None:
            self.variant = loaded.engine.INTERNATIONAL
            self.positions = [loaded.engine.start_position(self.variant)]
            self.moves = []
        return loaded.engine

    # ---- commands ----
    def cmd_hub(self, cmd: Command):
        version = _version()
        self.out.send(line("id", ("name", NAME), ("version", version), ("author", AUTHOR),
                           ("country", COUNTRY)))
        for text in param_lines():
            self.out.send(text)
        self.out.send("wait")
        self.loader.start()  # numba loads while the GUI sends set-param and init

    def cmd_set_param(self, cmd: Command):
        name, value = cmd.get("name"), cmd.get("value")
        if not name or value is None or value.lower() == "none":
            return  # nothing usable to set: ignored, never an exit (spec §6 P11)
        engine = self.engine()
        if name == "variant":
            try:
                variant = engine.get_variant(value)
            except engine.BadInput:
                return
            if variant is not self.variant:
                self.variant = variant
                self.positions = [engine.start_position(variant)]
                self.moves = []
            return
        self.loader.searcher.set_option(name, value)  # False for unknown names or bad values

    def cmd_init(self, cmd: Command):
        engine = self.engine()
        failure = []

        def warm_up() -> None:
            try:
                engine.warm_up()
                self.loader.searcher.warm_up()
            except Exception as exc:  # reported below, from the main thread
                failure.append(exc)

        # Compiling with an empty numba cache takes a while; end of input must not wait for it.
        thread = threading.Thread(target=warm_up, name="hub-init", daemon=True)
        thread.start()
        self.wait_for(thread)
        if failure:
            raise failure[0]
        self.out.send("ready")

    def cmd_ping(self, cmd: Command):
        self.out.send("pong")

    def cmd_new_game(self, cmd: Command):
        self.engine()
        self.loader.searcher.new_game()

    def cmd_quit(self, cmd: Command):
        return QUIT

    def cmd_ignore(self, cmd: Command):
        return None  # stop / ponder-hit while idle

    def cmd_level(self, cmd: Command):
        self.level.update(cmd)

    def cmd_pos(self, cmd: Command):
        engine = self.engine()
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
        positions, moves = [root], []
        for word in (cmd.get("moves") or "").split():
            try:
                move = engine.move_from_hub(positions[-1], word)
            except engine.BadInput as exc:
                reason = str(exc)
                if reason.startswith(f"illegal move {word}: "):
                    reason = reason[len(f"illegal move {word}: "):]
                self.out.send(error_line(f"illegal move {word} (ply {len(positions)}): {reason}"))
                break  # keep the position reached before the bad move, as Scan does
            positions.append(engine.play(positions[-1], move))
            moves.append(move)
        self.positions, self.moves = positions, moves

    def cmd_go(self, cmd: Command):
        self.engine()
        loaded = self.loader
        ponder, analyze = cmd.has("ponder"), cmd.has("analyze")
        limits = self.level.limits(loaded.search.Limits, analyze)
        self.level = Level()  # a level serves one search only
        self.pondering = ponder
        self.start_job(self.search_job, self.positions[-1], list(self.positions[:-1]), limits,
                       ponder, analyze, self.arrived, list(self.moves))

    def cmd_perft(self, cmd: Command):
        self.engine()
        depth = parse_number(cmd.get("depth"), integer=True)
        if depth is None or depth < 0:
            self.out.send(error_line("perft needs depth=N with N >= 0"))
            return
        self.start_job(self.perft_job, self.positions[-1], depth)

    HANDLERS = {
        "hub": cmd_hub, "set-param": cmd_set_param, "init": cmd_init, "ping": cmd_ping,
        "new-game": cmd_new_game, "quit": cmd_quit, "stop": cmd_ignore,
        "ponder-hit": cmd_ignore, "level": cmd_level, "pos": cmd_pos, "go": cmd_go,
        "perft": cmd_perft,
    }

    # ---- jobs (run in the job thread) ----
    def search_job(self, pos, history, limits, ponder: bool, analyze: bool,
                   arrived: float, moves: list) -> None:
        engine, searcher = self.loader.engine, self.loader.searcher
        # Frisian: a king that has made three quiet moves in a row may not make a fourth
        # (the moves of `pos ... moves=` are the history known); other variants: all legal.
        def allowed_after(played: list) -> list:
            seen, at = list(history), pos
            for m in played:
                seen.append(at)
                at = engine.play(at, m)
            barred = engine.barred_square(seen, at)
            return [m for m in engine.legal_moves(at) if m.captured or m.frm != barred]

        def on_info(info) -> None:
            try:
                pv = [engine.move_to_hub(m, pos.variant) for m in info.pv]
                self.out.send(info_line(info.depth, info.mean_depth, info.score, info.nodes,
                                        info.time, pv))
            except Exception:  # a report must never abort the search that makes the move
                self.out.note(traceback.format_exc())

        move = reply = None
        try:
            result = searcher.search(pos, history, limits, on_info=on_info, ponder=ponder,
                                     analyze=analyze, started=arrived)
            move, reply = result.move, result.ponder
        except Exception:
            self.out.note(traceback.format_exc())
        self.out.send(self.done_line(engine, pos, move, reply, allowed_after))

    def done_line(self, engine, pos, move, reply, allowed_after) -> str:
        """``done move=X [ponder=Y]``; a bare ``done`` only when there is no legal move.
        ``allowed_after(moves)``: the moves the game allows after ``moves`` from ``pos``."""
        legal = allowed_after([])
        if move not in legal:
            if move is not None:
                self.out.note(f"search returned an illegal move {move}")
            # Never lose a game to a fault: any legal move beats none.
            move = legal[0] if legal else None
        if move is None:
            return "done"
        text = f"done move={engine.move_to_hub(move, pos.variant)}"
        if reply is not None and reply in allowed_after([move]):
            text += f" ponder={engine.move_to_hub(reply, pos.variant)}"
        return text

    def perft_job(self, pos, depth: int) -> None:
        engine = self.loader.engine
        start = time.perf_counter()
        total = 1
        if depth > 0:
            total = 0
            for move in engine.legal_moves(pos):  # one line per move as soon as it is counted
                nodes = engine.perft(engine.play(pos, move), depth - 1)
                total += nodes
                self.out.send(line("info", ("move", engine.move_to_hub(move, pos.variant)),
                                   ("nodes", str(nodes))))
        elapsed = time.perf_counter() - start
        self.out.send(line("perft", ("nodes", str(total)), ("time", f"{elapsed:.3f}")))


def _read_lines(fd: int, events: queue.Queue, closed: threading.Event) -> None:
    """Queue each input line; raw reads, so that no stream lock is held at exit."""
    pending = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        pending += chunk
        *complete, pending = pending.split(b"\n")
        arrived = time.monotonic()  # the clock of a `go` runs from here
        for raw in complete:
            events.put(("line", raw.decode("utf-8", "replace").strip(), arrived))
    if pending.strip():
        events.put(("line", pending.decode("utf-8", "replace").strip(), time.monotonic()))
    closed.set()
    events.put(("eof", "", time.monotonic()))


def main(argv: list[str] | None = None) -> int:
    """Run the Hub loop until ``quit`` or end of input.  Arguments are ignored (clients pass
    ``hub`` and ``--key=value`` options)."""
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    log = _silence_stderr()
    out = Output(sys.stdout.fileno(), log)
    events: queue.Queue = queue.Queue()
    closed = threading.Event()
    reader = threading.Thread(target=_read_lines, args=(sys.stdin.fileno(), events, closed),
                              name="hub-reader", daemon=True)
    reader.start()
    hub = Hub(out, events, closed)
    try:
        return hub.run()
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
