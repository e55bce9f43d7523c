"""The peer of ``rafle bench --depth-times --peer COMMAND``: a Hub version 1 engine (Scan 2.0,
``shared/peers/scan20/hub.sh``) searching the same positions, one at a time, for its depths
and times.

The peer is started once (``hub`` ... ``wait``, ``set book false``, ``init`` ... ``ready``) and
quit at the end.  For each position, after Rafle's search of it and never at the same time,
it gets ``new`` (its tables cleared, as Rafle's searcher is fresh), ``pos``, ``time <ms>``
(``--max-time``) and ``go``, and is sent ``stop`` as soon as it reports ``--max-depth``.

Its iterations are read from its ``info`` lines (depth, nodes and its own ``time``; Scan 2.0
writes the time with two decimals).  Scan 2.0 writes a line when a root move becomes the best
one, from depth 12 on: the first line of a depth comes once the first move of that iteration is
searched, before the iteration ends, where Rafle reports the end of each iteration; a time to
depth read from those first lines leans to the peer.  So the peer also searches each position
once to each depth compared (:meth:`Peer.complete`: Scan's ``depth <n>`` before ``go``), and the
wall time from ``go`` to its ``move`` is its time to complete that iteration (a millisecond or
so of the pipe included, which leans to Rafle).

A peer that cannot start, dies or goes silent is reported with its command and dropped: the
run goes on with Rafle's figures only.  A position the peer refuses (``error``) or cannot read
(not international draughts) is skipped with a note.
"""
from __future__ import annotations

import threading
import time
from typing import Callable

from engine import INTERNATIONAL, pos_from_fen, pos_to_hub

from ..hub.client import EngineError, EngineRefused, SearchReply
from ..hub.hub1 import Hub1Client

STOP_GRACE = 10.0       # seconds the peer has to answer ``stop``
SLACK = 30.0            # seconds past --max-time before a silent peer is given up
START_TIME = 120.0      # seconds to answer ``wait`` and ``ready`` (Scan loads its bitbases)

Rows = list[tuple[int, int, float]]     # (depth, nodes, seconds), in the order reported


class Peer:
    """One Hub version 1 engine process, searched position by position."""

    def __init__(self, command: str, emit: Callable[[str], None] = print):
        self.command = command
        self.emit = emit
        self.client: Hub1Client | None = None
        try:
            client = Hub1Client(command, options={"book": "false"}, label="peer")
        except EngineError as exc:
            self._lost(f"cannot start: {exc}")
            return
        self.client = client
        try:
            client.start(START_TIME)
        except EngineError as exc:
            self._lost(f"did not start: {exc}")

    @property
    def name(self) -> str:
        return self.client.name if self.client is not None else "peer"

    def alive(self) -> bool:
        return self.client is not None

    def search(self, label: str, fen: str, max_depth: int, max_time: float) -> Rows | None:
        """The peer's iterations on ``fen`` up to ``max_depth`` (the first line of each depth
        and every later one), or None where it did not search it."""
        if self.client is None:
            return None
        pos = pos_from_fen(fen)
        if pos.variant is not INTERNATIONAL:
            self.emit(f"peer: {label} skipped (it reads international draughts only)")
            return None
        rows: Rows = []
        reached = threading.Event()

        def on_info(args: dict[str, str]) -> None:
            try:
                depth, nodes, seconds = int(args["depth"]), int(args["nodes"]), float(args["time"])
            except (KeyError, ValueError):
                return
            if 0 < depth <= max_depth:
                rows.append((depth, nodes, seconds))
            if depth >= max_depth:
                reached.set()

        reply = self._search(label, pos_to_hub(pos), [f"move-time={max_time}"], max_time,
                             stop=reached, on_info=on_info)
        return None if reply is None else rows

    def complete(self, label: str, fen: str, depth: int, max_time: float) -> float | None:
        """Seconds the peer takes to complete its iteration ``depth`` on ``fen`` (a search
        limited to that depth, its tables cleared), or None where it did not (a refusal, the
        time ran out, or it stopped short of that depth)."""
        pos = pos_from_fen(fen)
        if self.client is None or pos.variant is not INTERNATIONAL:
            return None
        reply = self._search(f"{label} at depth {depth}", pos_to_hub(pos),
                             [f"move-time={max_time}", f"depth={depth}"], max_time)
        if reply is None:
            return None
        reached = reply.info.get("depth", "0")
        if reply.elapsed >= max_time or not reached.isdigit() or int(reached) != depth:
            return None
        return reply.elapsed

    def _search(self, label: str, position: str, level: list[str], max_time: float,
                **watch) -> SearchReply | None:
        """One search of ``position`` with its tables cleared, stopped at ``max_time``; None
        where the peer refused it (reported, the peer settled) or failed (reported, dropped)."""
        now = time.monotonic()
        try:
            self.client.new_game()
            return self.client.search(position, [], level, deadline=now + max_time + SLACK,
                                      stop_at=now + max_time, stop_grace=STOP_GRACE, **watch)
        except EngineRefused as exc:
            self.emit(f"peer: {label} skipped: {exc}")
            self._settle()
        except EngineError as exc:
            self._lost(f"failed on {label}: {exc}")
        return None

    def _settle(self) -> None:
        """After a refusal the peer searches its previous board: stop it and wait for its
        ``pong``, so that its stale answer is read before the next position."""
        try:
            self.client.send("stop")
            self.client.ping(STOP_GRACE + SLACK)
        except EngineError as exc:
            self._lost(f"did not settle after a refusal: {exc}")

    def _lost(self, why: str) -> None:
        self.emit(f"peer {self.command!r} {why}; Rafle's figures only from here")
        self.quit()

    def quit(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            client.quit()
