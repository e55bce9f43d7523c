"""A Hub client: drives one Hub engine process for the match runner and the board, trusting
nothing.

The engine runs as a child process.  A reader thread timestamps every stdout line and
queues it, another keeps the last lines of stderr (for the log when the engine dies),
so the caller never blocks on a pipe: every wait has a deadline.  Anything that goes
wrong (no ``wait``/``ready``, end of output, no ``done`` in time) raises
:class:`EngineError`; the match runner then scores the game and restarts the engine.
"""
from __future__ import annotations

import collections
import math
import os
import queue
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from .wire import quote, tokenize

POLL = 0.05             # seconds between looks at a ``stop`` event during a search
IDLE_WAKE = 60.0        # the longest single wait for a line (a queue cannot wait forever)


class EngineError(Exception):
    """The engine crashed, hung or broke the protocol; the message says how."""


class EngineTimeout(EngineError):
    """The engine said nothing by the deadline (on a clock: a loss on time), and had sent
    nothing else in its place; ``said`` quotes what it sent that may come at any time (a
    DXP CHAT)."""

    def __init__(self, message: str, said: str = ""):
        super().__init__(message)
        self.said = said


class EngineRefused(EngineError):
    """The engine answered ``error`` to the position it was given: it refused the game (a
    Hub version 1 engine then searches the board it had before, so its move means nothing)."""


class EngineProtocolError(EngineError):
    """The engine sent something else where its answer was due (an error, a message the
    protocol does not allow there); the message quotes it."""


def parse_line(line: str) -> tuple[str, dict[str, str]]:
    """Command and arguments of a Hub line (the Hub front end's tokenizer; a malformed
    tail is dropped, a blank line gives ``("", {})``)."""
    command = tokenize(line)
    return ("", {}) if command is None else (command.name, dict(command.args))


@dataclass
class SearchReply:
    """What the engine answered to one ``go``: the move text (None for a bare ``done``),
    the wall time from sending the search (position, level, ``go``) to reading ``done``, and
    its last ``info``."""

    move: str | None
    elapsed: float
    info: dict[str, str] = field(default_factory=dict)


class HubClient:
    """One Hub engine process."""

    def __init__(self, command: str | list[str], options: dict[str, str] | None = None,
                 log: Callable[[str], None] | None = None, label: str = "engine",
                 cwd: str | None = None):
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise EngineError("empty engine command")
        self.options = dict(options or {})
        self.label = label
        self.cwd = cwd                  # the engine's working directory (None: ours)
        self._log = log or (lambda text: None)
        self.name = os.path.basename(self.argv[0])
        self.params: dict[str, dict[str, str]] = {}
        self.proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._stderr: collections.deque = collections.deque(maxlen=20)

    # ----- process -------------------------------------------------------------
    def start(self, timeout: float = 120.0) -> None:
        """Launch the engine and run the handshake (``hub`` ... ``wait``, ``init`` ... ``ready``)."""
        # The engine gets a session of its own: a Ctrl-C at the terminal (or `timeout`, which
        # signals the whole group) reaches the manager, which stops its games in order, and
        # not the engine in the middle of a game, which would score as a crash.
        try:
            proc = subprocess.Popen(
                self.argv, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, bufsize=1, encoding="utf-8",
                errors="replace", start_new_session=True)
        except OSError as e:
            raise EngineError(f"cannot start {' '.join(self.argv)!r}: {e}") from None
        # The readers get the process itself: quit() from another thread (a page closed
        # while its engine starts) may already have set self.proc back to None.
        self._lines = queue.Queue()
        self.proc = proc
        threading.Thread(target=self._read_stdout, args=(proc, self._lines), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(proc,), daemon=True).start()
        deadline = time.monotonic() + timeout
        self.send("hub")
        while not self._intro(self._next(deadline, "wait")[1]):
            pass
        for name, value in self.options.items():
            self.send(self._option_line(name, value))
        self.send("init")
        while parse_line(self._next(deadline, "ready")[1])[0] != "ready":
            pass

    def _read_stdout(self, proc: subprocess.Popen, lines: queue.Queue) -> None:
        try:
            for line in proc.stdout:
                lines.put((time.perf_counter(), line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        lines.put((time.perf_counter(), None))

    def _read_stderr(self, proc: subprocess.Popen) -> None:
        try:
            for line in proc.stderr:
                self._stderr.append(line.rstrip())
        except (OSError, ValueError):
            pass

    def rss(self) -> int | None:
        """The engine process's resident memory in bytes (Linux), or None."""
        if self.proc is None:
            return None
        try:
            with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as f:
                for text in f:
                    if text.startswith("VmRSS:"):
                        return int(text.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            return None
        return None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stderr_tail(self) -> str:
        return " | ".join(self._stderr)

    def quit(self, grace: float = 2.0) -> None:
        """Ask the engine to quit; kill it if it does not within ``grace`` seconds."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
        except (OSError, ValueError):
            pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass

    # ----- lines ---------------------------------------------------------------
    def send(self, line: str) -> None:
        self._log(f"{self.label} < {line}")
        if not self.alive():
            raise EngineError(f"{self.name} is not running{self._exit_note()}")
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise EngineError(f"{self.name} closed its input{self._exit_note()}") from None

    def _exit_note(self) -> str:
        code = self.proc.poll() if self.proc else None
        note = f" (exit code {code})" if code is not None else ""
        tail = self.stderr_tail()
        return note + (f"; stderr: {tail}" if tail else "")

    def _next(self, deadline: float, waiting_for: str) -> tuple[float, str]:
        got = self._take(deadline)
        if got is None:
            raise EngineError(f"{self.name} gave no {waiting_for!r} in time")
        return got

    def _take(self, until: float) -> tuple[float, str] | None:
        """The next line and its time stamp, or None if none comes by the monotonic time
        ``until``; :class:`EngineError` once the engine's output has ended."""
        try:
            stamp, line = self._lines.get(timeout=max(until - time.monotonic(), 0.0))
        except queue.Empty:
            return None
        if line is None:
            self._lines.put((stamp, None))        # stay at end of output
            time.sleep(0.05)                      # let the exit code and stderr arrive
            raise EngineError(f"{self.name} ended its output{self._exit_note()}")
        self._log(f"{self.label} > {line}")
        return stamp, line

    def _drain(self) -> None:
        while True:
            try:
                stamp, line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self._lines.put((stamp, None))
                return
            self._log(f"{self.label} > {line}  (stale)")

    # ----- commands ------------------------------------------------------------
    def ping(self, timeout: float = 10.0) -> None:
        self._drain()
        self.send("ping")
        deadline = time.monotonic() + timeout
        while parse_line(self._next(deadline, "pong")[1])[0] != "pong":
            pass

    def new_game(self) -> None:
        self.send("new-game")

    def search(self, position: str, moves: list[str], level: list[str],
               deadline: float = math.inf, stop_at: float = math.inf, *, analyze: bool = False,
               stop: threading.Event | None = None, stop_grace: float = math.inf,
               on_info: Callable[[dict[str, str]], None] | None = None) -> SearchReply:
        """Set up ``position`` + ``moves`` (Hub strings), send ``level`` lines and ``go think``
        (``go analyze``), and wait for ``done`` until the monotonic ``deadline``.  ``stop`` is
        sent once, at ``stop_at`` or as soon as the event ``stop`` is set, so an engine that has
        used up its budget can still answer; from then it has ``stop_grace`` seconds.  Every
        ``info`` goes to ``on_info`` as it arrives.  The match runner and the board both
        search through here."""
        self._drain()
        sent = time.perf_counter()          # before the lines: an answer is always after it
        self._ask(position, moves, level, analyze)
        info: dict[str, str] = {}
        errors: list[str] = []              # ``error`` lines: the engine refused the search
        stopped, grace_end = False, math.inf
        while True:
            now = time.monotonic()
            if not stopped and (now >= stop_at or (stop is not None and stop.is_set())):
                self.send("stop")
                stopped, grace_end = True, now + stop_grace
            if now >= grace_end:
                raise EngineTimeout(f"{self.name} did not answer 'stop' within {stop_grace:g} s")
            wake = min(deadline, grace_end)
            if not stopped:             # look at the stop conditions again in time
                wake = min(wake, stop_at, now + POLL if stop is not None else math.inf)
            got = self._take(min(wake, now + IDLE_WAKE))
            if got is None:
                if time.monotonic() >= deadline:
                    if errors:
                        raise EngineProtocolError(f"{self.name} answered {' | '.join(errors)!r} "
                                                  f"and no {self.ANSWER!r}")
                    raise EngineTimeout(f"{self.name} gave no {self.ANSWER!r} in time")
                continue
            stamp, line = got
            command, args = parse_line(line)
            if command == "info":
                info = args = self._info_of(line, args)
                if on_info is not None:
                    on_info(args)
            elif command == self.ANSWER:
                return SearchReply(self._move_of(line, args), stamp - sent, info)
            elif command == "error":
                if self.ERROR_REFUSES:
                    raise EngineRefused(f"it answered {line!r} to {self.asked!r}")
                errors.append(line)

    # ----- the dialect: the introduction, what a search sends, how its answer reads -----
    ANSWER = "done"
    ERROR_REFUSES = False       # version 2: an ``error`` may answer a line the engine can skip
    asked = ""                  # the position line of the last search

    @staticmethod
    def _option_line(name: str, value: str) -> str:
        """The line that sets an engine parameter before ``init``."""
        return f"set-param name={quote(name)} value={quote(value)}"

    @staticmethod
    def _info_of(line: str, args: dict[str, str]) -> dict[str, str]:
        """The named fields of an ``info`` line (version 2 names them itself)."""
        return args

    def _intro(self, line: str) -> bool:
        """Take one line of the engine's introduction (``id``, ``param``); True at its end."""
        command, args = parse_line(line)
        if command == "id" and args.get("name"):
            self.name = args["name"]
        elif command == "param" and args.get("name"):
            self.params[args["name"]] = args
        return command == "wait"

    def _ask(self, position: str, moves: list[str], level: list[str], analyze: bool) -> None:
        self.asked = f'pos pos={position} moves="{" ".join(moves)}"'
        self.send(self.asked)
        for line in level:
            self.send(f"level {line}")
        self.send("go analyze" if analyze else "go think")

    @staticmethod
    def _move_of(line: str, args: dict[str, str]) -> str | None:
        """The move of the answer line (None for a bare answer)."""
        return args.get("move") or None
