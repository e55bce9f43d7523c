"""The board's server on a free port, and a page's WebSocket as a transcript.

``served(engine)`` runs ``protocol.gui.server.create_app`` under uvicorn in a thread of
the test process (the real stack: uvicorn, Starlette, WebSockets); :class:`Page` is one
connection: ``send`` a request, ``expect`` the next message of a type (others skipped),
with a deadline so that a hang fails instead of blocking the suite.
"""
from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn
from websockets.sync.client import connect

from protocol.gui.server import create_app

WAIT = 90.0
FAKE = f"{sys.executable} {Path(__file__).resolve().parent / 'fake_hub.py'}"


@contextlib.contextmanager
def served(engine: str | None = None, state_dir=None, watch=None):
    """The server's base URL (``http://127.0.0.1:PORT``) while the block runs; games are
    saved under ``state_dir`` when given; ``watch``: a live file for ``/watch``."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(engine, state_dir, watch), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


class Page:
    """One WebSocket connection, read as a transcript."""

    def __init__(self, base: str, game: str | None = None):
        self._stack = contextlib.ExitStack()
        url = base.replace("http", "ws") + "/ws" + (f"?game={game}" if game else "")
        self.ws = self._stack.enter_context(connect(url, max_size=None))
        self.seen: list[dict] = []
        self.state = self.expect("state")

    def send(self, kind: str | None = None, raw: str | None = None, **fields) -> None:
        self.ws.send(raw if raw is not None else json.dumps({"type": kind, **fields}))

    def expect(self, kind: str, test=lambda m: True, wait: float = WAIT) -> dict:
        """The next message of ``kind`` that passes ``test`` (others are kept in ``seen``)."""
        deadline = time.monotonic() + wait
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind!r} message in {wait:g} s; last seen: "
                                     f"{[m.get('type') for m in self.seen[-8:]]}")
            try:
                message = json.loads(self.ws.recv(timeout=left))
            except TimeoutError:
                continue
            self.seen.append(message)
            if message["type"] == "state":
                self.state = message
            if message["type"] == kind and test(message):
                return message

    def error(self, **request) -> str:
        """Send a request that must fail; its error text (the state must not change)."""
        before = self.state
        self.send(**request)
        text = self.expect("error")["message"]
        self.send("hello")
        after = self.expect("state")
        assert {k: after[k] for k in ("pieces", "ply", "record", "turn", "variant")} == \
               {k: before[k] for k in ("pieces", "ply", "record", "turn", "variant")}
        return text

    def close(self) -> None:
        self._stack.close()
