"""An in-process Hub for transcript tests: lines in, exact lines out.

python-chess's ``MockTransport`` is the model: the protocol loop runs as in ``rafle hub``
(``protocol.hub.server.serve``: the same reader, writer and command loop), on two pipes
instead of stdin and stdout, in a thread of the test process.  No interpreter start, no
numba import, no kernel load per test.  ``HubProcess`` (tests/test_hub.py) has the same
methods and drives the real executable.
"""
from __future__ import annotations

import os
import queue
import threading

from protocol.hub.server import serve

WAIT = 60.0  # seconds before a missing line counts as a hang


class Lines:
    """Reading a Hub's output lines from ``self.lines`` (a queue; None at end of output)."""

    lines: queue.Queue

    def read(self, timeout: float = WAIT) -> str | None:
        """The next line without its newline (None at end of output)."""
        try:
            text = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("the hub did not answer") from None
        if text is None:
            return None
        assert text.endswith("\n") and not text.endswith("\r\n"), repr(text)
        assert text.strip(), "blank line on stdout"
        return text[:-1]

    def read_until(self, prefix: str, timeout: float = WAIT) -> list[str]:
        """Lines up to and including the first starting with ``prefix``."""
        out = []
        while True:
            text = self.read(timeout)
            assert text is not None, f"end of output before {prefix!r}: {out}"
            out.append(text)
            if text.startswith(prefix):
                return out

    def exchange(self, *lines: str) -> list[str]:
        """Send ``lines`` then ``ping``; return what came before the ``pong``."""
        self.send(*lines, "ping")
        return self.read_until("pong")[:-1]


class HubTranscript(Lines):
    """A Hub conversation in this process: ``send`` lines, ``read`` lines."""

    def __init__(self):
        self._in_read, self._in_write = os.pipe()
        self._out_read, out_write = os.pipe()
        self.lines: queue.Queue = queue.Queue()
        self.code: int | None = None

        def run() -> None:
            try:
                self.code = serve(self._in_read, out_write)
            finally:
                os.close(out_write)      # end of output, as when the process exits

        self._loop = threading.Thread(target=run, name="hub-under-test", daemon=True)
        self._loop.start()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with os.fdopen(self._out_read, "rb") as stream:
            for raw in stream:
                self.lines.put(raw.decode())
        self.lines.put(None)

    def send(self, *lines: str, raw: bytes | None = None) -> None:
        data = raw if raw is not None else "".join(x + "\n" for x in lines).encode()
        while data:
            data = data[os.write(self._in_write, data):]

    def close(self) -> int:
        """End the input (if ``quit`` has not ended the loop) and return the exit code."""
        try:
            os.close(self._in_write)
        except OSError:
            pass
        self._loop.join(WAIT)
        assert not self._loop.is_alive(), "the hub did not stop at end of input"
        # The read end stays open: the hub's reader thread may still be leaving its read,
        # and a closed descriptor's number can be reused by the next file opened.
        return self.code
