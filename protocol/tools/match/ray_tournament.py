"""``rafle tournament --ray``: the games of a tournament played by Ray actors, on this
machine or a cluster.

The actors and the dealing are :mod:`.ray_runner`'s, as for ``rafle match --ray``: one actor
per CPU, a game at a time each, a lost actor's game played again by the others, a lost head
stopping the event in one line before Ray ends the driver.  Each actor holds a copy of the
tournament that reads no state and writes no file; it starts the engines its game needs and
keeps them warm for the next, as a local worker thread does, and plays the game with the
local code (:meth:`.Match.play_game`).  The driver scores each game as it comes, into the
state file and the PDN, exactly as a local run: the same command goes on after any stop.

A DXP engine on another host (``host= port=``) is refused with ``--ray``: its operator runs
one instance for the event, and the games that need it are the organiser's to schedule;
play such an event without ``--ray``.
"""
from __future__ import annotations

import copy
import io
import sys
from collections import Counter

from perft.raylink import (ClusterError, connect, disconnect, head_answers, injected_fault,
                           node_id, placement, ray_module)

from .ray_runner import deal, hire


class Seat:
    """A Ray actor: a private copy of the tournament (no state, PDN, log or output) and the
    engines of its last game."""

    def __init__(self, make, args, specs):
        mine = copy.copy(args)
        mine.log = mine.live = None
        self.event = make(mine, specs, out=io.StringIO(), resume=False)
        self.engines: dict[int, object] = {}     # engine index -> its running client

    def ready(self) -> str:
        """The node it runs on, once it is up."""
        return node_id()

    def play(self, gid: int):
        """(game id, result, error, the node): error is set when an engine cannot start at
        all (a wrong command), which ends the tournament."""
        injected_fault()                         # tests: an actor lost in mid-event
        a, b, k = self.event.games[gid]
        for e in [e for e in self.engines if e not in (a, b)]:
            self.engines.pop(e).quit()
        clients = [self.engines.pop(a, None), self.engines.pop(b, None)]
        pair = self.event.pairing(a, b)
        try:
            return gid, pair.play_game(k, clients, 0), None, node_id()
        except Exception as err:                 # EngineError: an engine never started
            return gid, None, pair.error or str(err), node_id()
        finally:
            for e, client in zip((a, b), clients):
                if client is not None:
                    self.engines[e] = client

    def close(self) -> None:
        for client in self.engines.values():
            client.quit()


def refuse_remote_on_ray(specs) -> None:
    """ValueError for a DXP engine on another host: Ray actors start every engine."""
    for s in specs:
        if s.host is not None:
            raise ValueError(f"--ray starts every engine on Ray actors, and engine {s.name} is "
                             f"on another host ({s.host}:{s.port}): play without --ray")


def run_on_ray(event, address: str | None) -> int:
    """Run the tournament ``event`` with its games on Ray; its exit status."""
    try:
        ray = ray_module()
        started = connect(address)
    except ClusterError as exc:
        print(f"rafle tournament: {exc}", file=sys.stderr)
        return 2
    try:
        return event.run(lambda interrupted: play_on_ray(event, ray, interrupted))
    except ClusterError as exc:                  # HeadLost, or actors that cannot start
        n, a = len(event.done), event.args
        print(f"rafle tournament: {exc}: stopped after {n} of {len(event.games)} games; the "
              f"{n} finished are in {a.state} and {a.pdn}: the same command goes on",
              file=sys.stderr)
        return 1
    finally:
        disconnect(started)


def play_on_ray(event, ray, interrupted) -> list[str]:
    """Play the games ``event`` lacks on actors; the notes: games played again, and where
    the games ran."""
    queue = [gid for gid in range(len(event.games)) if gid not in event.done]
    where = Counter()
    crew = hire(ray, Seat, (type(event), event.args, event.specs), len(queue))
    event.say(f"{len(crew.hired)} Ray players")
    try:
        deal(ray, crew, queue, event.stop, lambda answer: take(event, answer, where))
    except KeyboardInterrupt:
        interrupted()
    notes = [f"{crew.replayed} game{'s' * (crew.replayed > 1)} played again after a Ray actor "
             f"was lost"] if crew.replayed else []
    return notes + ([placement(ray, where, "games played")] if where and head_answers(ray) else [])


def take(event, answer: tuple, where: Counter) -> None:
    """A game an actor finished: scored, into the state file and the PDN."""
    gid, result, error, node = answer
    where[node] += 1
    if error:
        event.error = error
        event.stop.set()
        return
    a, b, _ = event.games[gid]
    event.finish(gid, a, b, result, event.pairing(a, b))
