"""``rafle match --ray``: the games of a match played by Ray actors, on this machine or a cluster.

Each actor keeps its two engine processes warm from game to game, as a local worker thread
does, and plays a game with the local runner's own code (:meth:`Match.play_game`: clocks,
referee, rules).  The driver hands out game numbers, and collects each result, the engines'
figures, the PDN and the SPRT exactly as the local run does.  An actor that dies (its
machine lost, its process killed) loses only the game in progress: that game is played
again by the actors left, and no finished game is lost or counted twice.  A game goes only
to an actor that has said it is up: one made for a lost node's CPU (still counted for a
while) never starts, and must not hold a game.  A lost head (:class:`HeadWatch`) stops the
match in one line, before Ray ends the driver; with ``--state`` the same command goes on.
:class:`Crew`, :func:`hire` and :func:`deal` hand games to actors of any kind: a
tournament's (:mod:`.ray_tournament`) use them too.
"""
from __future__ import annotations

import copy
import io
import sys
from collections import Counter

from perft.raylink import (ClusterError, HeadLost, HeadWatch, connect, disconnect, head_answers,
                           injected_fault, node_id, placement, ray_module)

from .runner import Match, shut
from .score import EngineStats


class Player:
    """A Ray actor: one pair of engines and a private runner (no PDN, no log, no output)."""

    def __init__(self, args):
        mine = copy.copy(args)
        mine.pdn = mine.log = mine.state = None
        self.match = Match(mine, out=io.StringIO())
        self.clients = [None, None]

    def ready(self) -> str:
        """The node it runs on, once it is up."""
        return node_id()

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
        placed = [placement(ray, where, "games played")] if where and head_answers(ray) else []
    except ClusterError as exc:              # HeadLost, or actors that cannot start
        match.close_files()
        print(f"rafle match: {exc}: stopped after {len(match.score.results)} of "
              f"{match.args.games} games; {kept(match)}", file=sys.stderr)
        return 1
    finally:
        disconnect(started)
    notes = [f"{replayed} game{'s' if replayed > 1 else ''} played again after a Ray actor "
             f"was lost"] if replayed else []
    return match.close(notes + placed)


def kept(match: Match) -> str:
    """Where the finished games of a stopped match are, and how to go on."""
    n, a = len(match.score.results), match.args
    if match.state:
        return (f"the {n} finished are in {a.state}" + (f" and {a.pdn}" if a.pdn else "")
                + ": the same command goes on")
    if a.pdn:
        return f"the {n} finished are in {a.pdn} (--state FILE lets the same command go on)"
    return f"the {n} finished are in the lines above (--state FILE lets the same command go on)"


class Crew:
    """Ray actors of class ``cls`` (made with ``init``), one game at a time each: those
    starting (not yet up), idle and busy.  Shared by a match and a tournament."""

    FAILURES = 10           # actors that may fail to start before the run gives up

    def __init__(self, ray, cls, init: tuple, count: int):
        self.ray, self.init = ray, init
        self.actor = ray.remote(num_cpus=1)(cls)
        self.hired, self.idle = [], []
        self.starting = {}                       # ready ref -> player
        self.busy = {}                           # play ref -> (player, game number)
        self.failures = 0
        self.replayed = 0                        # games played again after an actor was lost
        for _ in range(count):
            self.hire()

    def hire(self) -> None:
        p = self.actor.remote(*self.init)
        self.hired.append(p)
        self.starting[p.ready.remote()] = p

    def up(self, ref) -> None:
        """A ready answer: the actor takes games; or it never started (its node was lost),
        and another is made, up to ``FAILURES`` in all (then ClusterError)."""
        p = self.starting.pop(ref)
        try:
            self.ray.get(ref)
            self.idle.append(p)
            return
        except self.ray.exceptions.RayError as exc:
            self.failures += 1
            if self.failures >= self.FAILURES:
                said = " ".join(str(exc).split())[:300]
                raise ClusterError(f"{self.failures} Ray actors could not start ({said})") from None
        self.hire()

    def dismiss(self) -> None:
        """Close the idle actors' engines and end every actor."""
        for p in self.idle:
            try:
                self.ray.get(p.close.remote(), timeout=10)
            except Exception:                    # a lost actor has nothing to close
                pass
        for p in self.hired:
            self.ray.kill(p)


def hire(ray, cls, init: tuple, games: int) -> Crew:
    """Actors for ``games`` games, one per CPU of the cluster at most, once its head
    answers (HeadLost if it stays silent)."""
    HeadWatch(ray).ensure()                      # (a tune iteration: the head of the last)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    return Crew(ray, cls, init, min(cpus, games))


def deal(ray, crew: Crew, queue: list[int], stop, take) -> None:
    """Hand the games numbered in ``queue`` to ``crew`` until none is left or ``stop`` (an
    Event) is set, and ``take(answer)`` each game's answer as it comes.  A lost actor's game
    goes back to the queue (counted in ``crew.replayed``); a lost head raises HeadLost.  At
    the end, or on Ctrl-C (which is raised on), the actors are ended."""
    watch, busy, lost = HeadWatch(ray), crew.busy, False
    try:
        while (queue and not stop.is_set()) or busy:
            while queue and crew.idle and not stop.is_set():
                p, number = crew.idle.pop(), queue.pop(0)
                busy[p.play.remote(number)] = (p, number)
            ready, _ = watch.wait(list(busy) + list(crew.starting))
            for ref in ready:
                if ref in crew.starting:
                    crew.up(ref)
                    continue
                p, number = busy.pop(ref)
                try:
                    answer = ray.get(ref)
                except ray.exceptions.RayActorError:
                    queue.insert(0, number)      # the actor is gone: the game is played again
                    crew.replayed += 1
                    crew.hire()                  # it plays if its node (or another) is up
                    continue
                crew.idle.append(p)
                take(answer)
    except HeadLost:
        lost = True                              # asking the cluster anything now would hang
        raise
    finally:
        if not lost and head_answers(ray):       # else the actors end with their nodes
            crew.dismiss()


def play_on_ray(match: Match, ray, where: Counter | None = None) -> int:
    """Play the games of ``match`` on actors of the Ray already joined (``ray``: the module);
    the number of games played again after an actor was lost.  ``where`` counts the games
    each node played.  Ctrl-C drops the games in progress and leaves ``match.aborted`` set;
    a lost head raises HeadLost, the finished games kept by ``match``."""
    a = match.args
    queue = [n for n in range(a.games) if n not in match.done]
    crew = hire(ray, Player, (a,), len(queue))
    match.say(f"match: {a.games} games, {match.limits[0].describe()}, {len(match.openings)} "
              f"openings, {len(crew.hired)} Ray players{match.before()}")
    try:
        deal(ray, crew, queue, match.stop, lambda answer: take(match, answer, where))
    except KeyboardInterrupt:
        match.aborted = True
        match.stop.set()
        match.say("interrupted: the games in progress are dropped")
    return crew.replayed


def take(match: Match, answer: tuple, where: Counter | None) -> None:
    """A game an actor finished: into the score, the figures, the PDN and the state."""
    result, stats, names, error, node = answer
    if where is not None:
        where[node] += 1
    if error:
        match.error = error
        match.stop.set()
        return
    for e, (mine, theirs) in enumerate(zip(match.stats, stats)):
        if match.names[e] is None:               # the engines' id names, as a local run
            match.names[e] = names[e]
        mine.name = mine.name or names[e]
        mine.merge(theirs)
    match.finish(result)
