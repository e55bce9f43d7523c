"""The Hub's two pipes: input lines queued by a reader thread, output lines written whole and
flushed, and stderr silenced (pydraughts merges it into stdout), optionally into a log."""
from __future__ import annotations

import os
import queue
import sys
import threading
import time
import warnings


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


def silence_stderr():
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



def read_lines(fd: int, events: queue.Queue, closed: threading.Event) -> None:
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
