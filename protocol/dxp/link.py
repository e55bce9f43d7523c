"""A DXP connection: NUL-framed reads with timeouts, spaced writes, an optional wire trace."""
from __future__ import annotations

import socket
import time
from collections import deque

from .wire import Framer, frame

PAUSE = 0.15                # seconds between two messages we send (P1)


class PeerGone(Exception):
    """The connection ended (EOF or a socket error)."""


class PeerSilent(Exception):
    """No message within the time we wait for one."""


class Link:
    """A DXP connection: NUL-framed reads, spaced writes, optional wire trace."""

    def __init__(self, sock: socket.socket, trace=None):
        self.sock = sock
        self.trace = trace
        self.framer = Framer()
        self.inbox: deque[str] = deque()
        self.last_send = float("-inf")
        self.last_receive = float("-inf")
        self.pauses = 0   # sends that had to wait (pitfall P1), for the log and the tests
        for level, option in ((socket.IPPROTO_TCP, socket.TCP_NODELAY),
                              (socket.SOL_SOCKET, socket.SO_KEEPALIVE)):
            try:
                sock.setsockopt(level, option, 1)
            except OSError:
                pass   # not a TCP socket (tests use socketpair)

    def send(self, msg, spaced: bool = True) -> None:
        """Send ``msg``; ``spaced``: first wait ``PAUSE`` after our previous message (P1).
        Error CHATs to a peer that sends garbage go unspaced: a flood of bad messages
        must not buy a flood of pauses (the message after them is spaced again)."""
        # the pause matters only if the peer may still hold our previous message unread
        wait = self.last_send + PAUSE - time.monotonic()
        if spaced and wait > 0 and self.last_send > self.last_receive:
            self.pauses += 1
            time.sleep(wait)
        data = frame(msg)
        try:
            self.sock.settimeout(10.0)   # a peer that stops reading must not block us forever
            self.sock.sendall(data)
        except OSError as exc:
            raise PeerGone(f"send failed: {exc}") from None
        self.last_send = time.monotonic()
        if self.trace:
            self.trace(f"-> {data[:-1].decode('ascii')}")

    def poll(self, timeout: float) -> bool:
        """True if a message is waiting (reads the socket for up to ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        while not self.inbox:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(4096)
            except (TimeoutError, socket.timeout):
                return False
            except OSError as exc:
                raise PeerGone(f"receive failed: {exc}") from None
            if not data:
                raise PeerGone("connection closed by the peer")
            self.last_receive = time.monotonic()
            self.inbox.extend(self.framer.feed(data))
        return True

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass   # already gone
        self.sock.close()

    def receive(self, timeout: float) -> str:
        if not self.poll(timeout):
            raise PeerSilent(f"no message for {timeout:g} s")
        text = self.inbox.popleft()
        if self.trace:
            self.trace(f"<- {text}")
        return text
