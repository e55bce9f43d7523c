"""``rafle match --ray``: the games of a match played by Ray actors, on this machine or a cluster.

Each actor keeps its two engine processes warm from game to game, as a local worker thread
does, and plays a game with the local runner's own code (:meth:`Match.play_game`: clocks,
referee, rules).  The driver hands out game numbers, and collects each result, the engines'
figures, the PDN and the SPRT exactly as the local run does.  An actor that dies (its
machine lost, its process killed) loses only the game in progress: that game is played
again by a new actor, and no finished game is lost or counted twice.
"""
from __future__ import annotations

import copy
import io
import sys
from collections import Counter

from perft.raylink import (ClusterError, connect, disconnect, injected_fault, node_id, placement,
                           ray_module)

from .runner import Match, shut
from .score import EngineStats


class Player:
    """A Ray actor: one pair of engines and a private runner (no PDN, no log, no output)."""

    def __init__(self, args):
        mine = copy.copy(args)
        mine.pdn = mine.log = None
        self.match = Match(mine, out=io.StringIO())
        self.clients = [None, None]

    def play(self, number: int):
        """(result, the engines' figures for this game, their names, error, the node): error
        is set when an engine cannot start at all (a wrong command), which ends the match."""
        injected_fault()                         # tests: an actor lost in mid-match
        m = self.match
        m.stats = [EngineStats(s.name) for s in m.stats]
        try:
            result = m.play_game(number, self.clients, 0)
        except Exception as err:                 # EngineError: an engine never started
            return None, None, m.names, m.error or str(err), node_id()
        return result, m.stats, m.names, None, node_id()

    def close(self) -> None:
        for client in self.clients:
            shut(client)


def run_on_ray(match: Match, address: str | None) -> int:
    """Play ``match`` with Ray actors; the same report as :meth:`Match.run`."""
    try:
        ray = ray_module()
        started = connect(address)
    except ClusterError as exc:
        print(f"rafle match: {exc}", file=sys.stderr)
        return 2
    where = Counter()
    try:
        replayed = play_on_ray(match, ray, where)
        placed = [placement(ray, where, "games played")] if where else []
    finally:
        disconnect(started)
    notes = [f"{replayed} game{'s' if replayed > 1 else ''} played again after a Ray actor "
             f"was lost"] if replayed else []
    return match.close(notes + placed)


def play_on_ray(match: Match, ray, where: Counter | None = None) -> int:
    """Play the games of ``match`` on actors of the Ray already joined (``ray``: the module);
    the number of games played again after an actor was lost.  ``where`` counts the games
    each node played.  Ctrl-C drops the games in progress and leaves ``match.aborted`` set."""
    a = match.args
    actor = ray.remote(num_cpus=1)(Player)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    players = [actor.remote(a) for _ in range(min(cpus, a.games))]
    match.say(f"match: {a.games} games, {match.limits[0].describe()}, {len(match.openings)} "
              f"openings, {len(players)} Ray players")
    queue = list(range(a.games))
    busy = {}                                    # ref -> (player, game number)
    idle = list(players)
    replayed = 0
    try:
        while (queue and not match.stop.is_set()) or busy:
            while queue and idle and not match.stop.is_set():
                p = idle.pop()
                number = queue.pop(0)
                busy[p.play.remote(number)] = (p, number)
            ready, _ = ray.wait(list(busy), num_returns=1)
            for ref in ready:
                p, number = busy.pop(ref)
                try:
                    result, stats, names, error, node = ray.get(ref)
                except ray.exceptions.RayActorError:
                    queue.insert(0, number)      # the actor is gone: the game is played again
                    replayed += 1
                    # The actors left play it.  A new actor only where none is left: one made
                    # for a lost node's CPU (still counted for a while) would wait for it
                    # forever, holding the game handed to it.
                    if not idle and not busy:
                        idle.append(actor.remote(a))
                    continue
                idle.append(p)
                if where is not None:
                    where[node] += 1
                if error:
                    match.error = error
                    match.stop.set()
                    continue
                for e, (mine, theirs) in enumerate(zip(match.stats, stats)):
                    if match.names[e] is None:       # the engines' id names, as a local run
                        match.names[e] = names[e]
                    mine.name = mine.name or names[e]
                    mine.merge(theirs)
                match.finish(result)
    except KeyboardInterrupt:
        match.aborted = True
        match.stop.set()
        match.say("interrupted: the games in progress are dropped")
    finally:
        for p in idle:
            try:
                ray.get(p.close.remote(), timeout=10)
            except Exception:                    # a lost actor has nothing to close
                pass
        for p in players + idle:
            ray.kill(p)
    return replayed
