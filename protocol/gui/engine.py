"""The board's engine: one Hub engine process (Rafle's own ``rafle hub`` or any other),
driven from one worker thread so that the web server never waits on it.

A search is a :class:`Job`: a position, the moves since it, ``level`` lines and
``go think`` or ``go analyze``, run by the Hub client's search loop
(:meth:`protocol.hub.client.HubClient.search`, the match runner's too).  Every ``info`` line
goes to the job's ``on_info`` as it arrives, ``done`` to ``on_done``.
:meth:`EngineSeat.stop` asks the engine to stop (it then plays its best move so far);
:meth:`EngineSeat.cancel` stops it too but drops the answer (the position changed).  The
engine is started on the first job, restarted when the variant changes, and after a crash
or silence it is reported and left stopped until the next job or :meth:`EngineSeat.restart`;
a seat closed while its engine starts quits it and reports nothing (the page is gone).  What
the engine answers is never trusted: the session checks every move against Rafle's rules.
"""
from __future__ import annotations

import math
import queue
import shlex
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from protocol.hub.client import EngineError, HubClient
from protocol.hub.wire import quote

RAFLE_COMMAND = [sys.executable, "-m", "protocol.cli", "hub"]
STOP_GRACE = 10.0       # seconds an engine has to answer ``stop`` with ``done``
TIME_GRACE = 2.0        # past a timed search's budget, ``stop`` is sent
PARAM_DEFAULTS = {"multipv": "1"}      # a Job's params an engine starts with


@dataclass
class Job:
    """One search.  ``movetime`` (seconds) lets a silent engine be told apart."""

    variant: str
    position: str
    moves: list[str]
    level: list[str]
    analyze: bool
    on_info: Callable[[dict[str, str]], None]
    on_done: Callable[[str | None, str | None], None]     # (move, error)
    movetime: float | None = None
    params: dict[str, str] = field(default_factory=dict)    # set-param before the search
    on_start: Callable[[], None] | None = None            # the engine starts to think
    stop: threading.Event = field(default_factory=threading.Event)
    cancelled: bool = False


_CLOSE, _RESTART = object(), object()


class EngineSeat:
    """One engine process and its worker thread; ``emit`` gets status messages."""

    def __init__(self, command: str | list[str] | None, emit: Callable[[dict], None],
                 start_timeout: float = 120.0):
        self.argv = shlex.split(command) if isinstance(command, str) else list(command or RAFLE_COMMAND)
        self.emit = emit
        self.start_timeout = start_timeout
        self.name = "Rafle" if command is None else self.argv[0]
        self.client: HubClient | None = None
        self.variant: str | None = None
        self.params: dict[str, str] = {}      # what set-param has changed in this process
        self._jobs: queue.Queue = queue.Queue()
        self._current: Job | None = None
        self._starting: HubClient | None = None     # an engine in its handshake
        self._closed = False                        # no engine starts any more
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True, name="gui-engine")
        self._thread.start()

    # ----- requests (any thread) ------------------------------------------------------
    def submit(self, job: Job) -> None:
        """Run ``job`` after cancelling whatever runs or waits."""
        self.cancel()
        self._jobs.put(job)

    def stop(self) -> None:
        """The running search ends now and its answer is kept."""
        with self._lock:
            if self._current is not None:
                self._current.stop.set()

    def cancel(self) -> None:
        """The running search ends now and its answer is dropped; waiting ones too."""
        while True:
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, Job):
                item.cancelled = True
            elif item is _RESTART or item is _CLOSE:
                self._jobs.put(item)
                break
        with self._lock:
            if self._current is not None:
                self._current.cancelled = True
                self._current.stop.set()

    def restart(self) -> None:
        self.cancel()
        self._jobs.put(_RESTART)

    def close(self) -> None:
        self.cancel()
        self._jobs.put(_CLOSE)
        with self._lock:
            self._closed = True
            starting = self._starting
        if starting is not None:      # a closed page does not wait for its engine to start
            starting.quit(grace=0.5)
        self._thread.join(5)

    @property
    def busy(self) -> bool:
        with self._lock:
            return self._current is not None

    # ----- the worker -----------------------------------------------------------------
    def _run(self) -> None:
        while True:
            item = self._jobs.get()
            if item is _CLOSE:
                self._quit()
                return
            if item is _RESTART:
                self._quit()
                try:
                    self._ensure(self.variant or "international")
                except EngineError as e:
                    self._failed(str(e))
                continue
            job: Job = item
            if job.cancelled:
                continue
            with self._lock:
                self._current = job
            error = None
            try:
                self._ensure(job.variant)
                self._search(job)
            except EngineError as e:
                error = str(e)
                self._failed(error)
            except Exception as e:          # a bug of ours must not kill the worker
                error = f"{type(e).__name__}: {e}"
                self._failed(error)
            finally:
                with self._lock:
                    self._current = None
            if error is not None and not job.cancelled:
                job.on_done(None, error)

    def _quit(self) -> None:
        if self.client is not None:
            self.client.quit()
            self.client = None

    def _failed(self, message: str) -> None:
        if self.client is not None:
            self.client.quit(grace=0.5)
            self.client = None
        with self._lock:
            closed = self._closed
        if not closed:      # closed: the failure is the close's doing, and the page is gone
            self.emit({"type": "engine", "state": "failed", "name": self.name, "message": message})

    def _ensure(self, variant: str) -> None:
        if self.client is not None and self.client.alive() and self.variant == variant:
            return
        self._quit()
        self.variant = variant
        self.emit({"type": "engine", "state": "starting", "name": self.name})
        options = {} if variant == "international" else {"variant": variant}
        client = HubClient(self.argv, options, label="gui")
        with self._lock:
            if self._closed:
                raise EngineError("the board was closed")
            self._starting = client
        try:
            client.start(self.start_timeout)
        except EngineError:
            client.quit(grace=0.5)
            raise
        finally:
            with self._lock:
                self._starting = None
        self.client = client
        self.params = {}
        self.name = client.name
        self.emit({"type": "engine", "state": "ready", "name": self.name})

    def _search(self, job: Job) -> None:
        def on_info(args: dict[str, str]) -> None:
            if not job.cancelled:
                job.on_info(args)

        for name, value in job.params.items():
            # Only a change from what the engine has is sent: an engine that does not know
            # the parameter never hears of it while it keeps the default.
            if self.params.get(name, PARAM_DEFAULTS.get(name)) != value:
                self.client.send(f"set-param name={quote(name)} value={quote(value)}")
                self.params[name] = value
        if job.on_start is not None:
            job.on_start()
        stop_at = math.inf if job.movetime is None else time.monotonic() + job.movetime + TIME_GRACE
        reply = self.client.search(job.position, job.moves, job.level, stop_at=stop_at,
                                   analyze=job.analyze, stop=job.stop, stop_grace=STOP_GRACE,
                                   on_info=on_info)
        if not job.cancelled:
            job.on_done(reply.move, None)
