"""A line on stderr while the kernels compile, so a first run is never silent.

numba compiles the kernels on their first use and keeps them in a cache: a first run of a
fresh install spends about a minute there, later runs load them in a second or two.
:func:`compiling` wraps that step: when it takes longer than ``after`` seconds it says so
on stderr, once, and says when it ended.  A warm cache prints nothing.  It lives in ``perft/``
because perft and the front ends in ``protocol/`` both use it (``perft/`` imports nothing of
``protocol/``); the Hub never uses it (nothing goes to stderr in Hub mode).
"""
from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator, TextIO


@contextmanager
def compiling(what: str, stream: TextIO | None = None, after: float = 1.0) -> Iterator[None]:
    """Say on ``stream`` (stderr) that ``what`` is compiling, if it takes over ``after`` s."""
    stream = stream if stream is not None else sys.stderr
    done = threading.Event()
    said = threading.Event()
    start = time.monotonic()

    def announce() -> None:
        if not done.wait(after):
            said.set()
            _say(stream, f"rafle: compiling {what} (first run only; later runs load it "
                         "from the cache)...")

    thread = threading.Thread(target=announce, name="rafle-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if said.is_set():
            _say(stream, f"rafle: compiled {what} in {time.monotonic() - start:.0f} s")


def _say(stream: TextIO, text: str) -> None:
    try:
        print(text, file=stream, flush=True)
    except (OSError, ValueError):
        pass                    # a closed stderr must not stop the work
