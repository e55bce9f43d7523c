"""The match runner: plays a match between two engines and reports who is stronger.

Each engine is a command (``rafle hub``, ``dame hub``, ``scan hub``) driven by a client for
its protocol (:mod:`.engines`: Hub, Hub version 1 or DXP).  Openings come in pairs with
colours swapped; the runner keeps both clocks itself, sends the full game (start position
plus every move) before each move so engines can see repetitions, judges every move and
ends games by the rules (the engine's ``Game``); :mod:`.score` keeps the tally.  An engine
that crashes, hangs, refuses the position (an ``error`` answer to a Hub-1 ``pos``), answers an
illegal move or oversteps its clock loses that game and is restarted; a DXP engine that ends a
game itself is scored by :mod:`.adjudicate`.  A DXP engine on another host (``dxp://HOST:PORT``)
is connected to, never started or stopped: a refused connection or a peer that goes silent
forfeits the game, named with its address, and the next game connects again.  After each game
a line of W/D/L, score, Elo with its 95% error bar and the SPRT state is printed; the
last line (``match ...``) is the machine-readable summary.
"""
from __future__ import annotations

import argparse
import datetime
import os
import re
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from engine import (INTERNATIONAL, WHITE, BadInput, Game, Note, get_variant, move_from_hub,
                    move_to_hub, pos_to_hub, write_pdn)

from ...hub.client import EngineError, EngineProtocolError, EngineRefused, EngineTimeout, HubClient
from .adjudicate import Databases, judge_game_end
from .dxp_client import DxpGameEnd
from .elo import Sprt
from .engines import (check_command, check_limit, clock_note, kept_limit, open_client,
                      remote_address)
from .openings import Opening, builtin, load_openings
from .score import GameResult, Score
from .state import MatchState, signature


@dataclass(frozen=True)
class Limit:
    """One engine's thinking limit: a clock (``[moves/]base[+inc]``) or per-move limits."""

    base: float | None = None
    inc: float = 0.0
    moves: int = 0                      # moves per time control, 0 = whole game
    movetime: float | None = None
    depth: int | None = None
    nodes: int | None = None

    @property
    def clock(self) -> bool:
        return self.base is not None

    def describe(self) -> str:
        if self.clock:
            text = f"{self.base:g}+{self.inc:g}"
            return f"{self.moves}/{text}" if self.moves else text
        parts = [f"movetime={self.movetime:g}s" if self.movetime else "",
                 f"depth={self.depth}" if self.depth else "",
                 f"nodes={self.nodes}" if self.nodes else ""]
        return " ".join(p for p in parts if p)


TC_FORMS = "[MOVES/]BASE[+INC], times in seconds or with units: 10+0.1, 5m+2s, 1m30s, 40/5m"
_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_TIME = re.compile(rf"(?:(?P<h>{_NUMBER})h)?(?:(?P<m>{_NUMBER})m)?(?:(?P<s>{_NUMBER})s?)?")


def move_comment(info: dict[str, str], seconds: float) -> str:
    """What a move's engine said of it, as cutechess writes it after each move: the score (the
    mover's view, as the engine gave it) and depth of its last ``info``, then the time it took:
    ``+0.15/17 1.234s``; only the time for an engine that says nothing (DXP)."""
    score, depth = info.get("score"), info.get("depth")
    said = ""
    if score and depth:
        said = f"{'' if score.startswith(('-', '+')) else '+'}{score}/{depth} "
    return f"{said}{seconds:.3f}s"


def parse_seconds(text: str) -> float:
    """``90``, ``0.5``, ``90s``, ``5m``, ``1m30s``, ``1h`` -> seconds; ValueError otherwise."""
    found = _TIME.fullmatch(text.strip().lower())
    if found is None or not any(found.groups()):
        raise ValueError(f"{text!r} is not a time in seconds (90, 0.5) or with units (90s, 5m, 1m30s)")
    h, m, s = (float(found[unit] or 0) for unit in "hms")
    return 3600 * h + 60 * m + s


def parse_tc(text: str) -> tuple[float, float, int]:
    """``10+0.1``, ``60``, ``40/300+1``, ``5m+2s``, ``40/5m`` -> (base, inc, moves) in seconds."""
    moves, _, body = text.rpartition("/")
    base, plus, inc = body.partition("+")
    try:
        if moves and not (moves.strip().isascii() and moves.strip().isdigit()):
            raise ValueError(f"{moves!r} is not a number of moves")
        values = parse_seconds(base), parse_seconds(inc) if plus else 0.0, int(moves or 0)
    except ValueError as exc:
        raise ValueError(f"bad time control {text!r}: {exc}; the forms are {TC_FORMS}") from None
    if values[0] <= 0:
        raise ValueError(f"bad time control {text!r}: the base time must be more than 0")
    return values


def per_engine(text: str | None, kind=float, flag: str = "value") -> tuple:
    """``a`` for both engines or ``a,b`` for engine 1 and engine 2."""
    if text is None:
        return None, None
    parts = text.split(",")
    if len(parts) > 2:
        raise ValueError(f"{flag} {text!r}: give one value or two separated by a comma")
    try:
        values = [kind(p) for p in parts]
    except ValueError as exc:
        raise ValueError(f"{flag} {text!r}: {exc}") from None
    return (values[0], values[-1])


def concurrency(text: str) -> int:
    """``--concurrency``: games at a time, from 1 to the number of cores (each game runs
    two engines, which take turns to think)."""
    cores = os.cpu_count() or 1
    count = int(text) if text.strip().isascii() and text.strip().isdigit() else 0
    if not 1 <= count <= cores:
        raise argparse.ArgumentTypeError(
            f"{text!r}: from 1 to {cores}, the number of cores of this machine")
    return count


class Match:
    def __init__(self, args: argparse.Namespace, out=None, limits: list[Limit] | None = None):
        self.args = args
        self.out = out or sys.stdout
        self.commands = [args.engine1, args.engine2]
        self.names = [args.name1, args.name2]
        self.dirs: list[str | None] = [None, None]      # the engines' working directories
        self.variant = get_variant(args.variant)
        common = ([("variant", self.variant.hub_name)] if self.variant is not INTERNATIONAL
                  else []) + args.option
        self.options = [dict(common + args.option1), dict(common + args.option2)]
        self._protocols(args, limits or self._limits(args))
        openings = args.openings or ("builtin" if builtin(self.variant) else "startpos")
        self.openings: list[Opening] = load_openings(openings, self.variant)
        self.first_opening = args.first_opening - 1      # an index, from 0
        self.databases = Databases(self.variant)     # adjudicates games an engine ended
        self.score = Score(self.names, args.games, Sprt.parse(args.sprt) if args.sprt else None)
        self.stats = self.score.stats
        self.lock = threading.Lock()
        self.memory: dict[tuple[int, int], tuple[int, int]] = {}   # (engine, pid): first, last RSS
        self.log_lock = threading.Lock()
        self.stop = threading.Event()
        self.aborted = False
        self.started = [False, False]           # each engine has completed a handshake
        self.error: str | None = None
        self.next_game = 0
        self.date = datetime.date.today().strftime("%Y.%m.%d")
        self.live = None                # a live.Live for rafle gui --watch (--live FILE)
        self.state: MatchState | None = None
        self.done = self._resume()      # the numbers of the games finished before (--state)
        self.log_file = open(args.log, "a" if self.done else "w", encoding="utf-8") \
            if args.log else None
        self.pdn_file = open(args.pdn, "w", encoding="utf-8") if args.pdn else None
        if self.pdn_file and self.done:  # the PDN again holds exactly the finished games
            self.pdn_file.write(self.state.pdn())
            self.pdn_file.flush()

    def _resume(self) -> set[int]:
        """``--state FILE``: the games it holds, back in the score and the figures; their
        numbers (ValueError for a file that cannot be read or holds another match)."""
        path = getattr(self.args, "state", None)
        if not path:
            return set()
        self.state = MatchState(path, signature(self.args, self.given))
        self.state.load()
        for e, name in enumerate(self.state.names):
            if self.names[e] is None:
                self.names[e] = name
        self.stats[:] = self.state.engine_stats() or self.stats
        for r in self.state.results():
            self.score.add(r)
        if self.score.verdict:
            self.stop.set()
        return set(self.state.games)

    def live_key(self, number: int) -> str:
        return f"{self.names[0]}|{self.names[1]}|{number}"

    @staticmethod
    def _limits(args) -> list[Limit]:
        movetime, depth, nodes = (per_engine(args.movetime, parse_seconds, "--movetime"),
                                  per_engine(args.depth, int, "--depth"),
                                  per_engine(args.nodes, int, "--nodes"))
        tcs = per_engine(args.tc, str, "--tc")
        if not any(v is not None for v in (*movetime, *depth, *nodes, *tcs)):
            tcs = ("10+0.1", "10+0.1")
        limits = []
        for i in range(2):
            if tcs[i] is not None:
                base, inc, moves = parse_tc(tcs[i])
                limits.append(Limit(base, inc, moves, depth=depth[i], nodes=nodes[i]))
            else:
                limits.append(Limit(movetime=movetime[i], depth=depth[i], nodes=nodes[i]))
        return limits

    def _protocols(self, args, given: list[Limit]) -> None:
        """Each engine's protocol, checked against its limit; the limits the runner keeps
        (a DXP engine's: the clock its GAMEREQ gives) and the notes that say so."""
        self.protocols = list(per_engine(getattr(args, "protocol", None) or "hub", str))
        for e in (0, 1):
            who = f"engine {e + 1}"
            check_command(self.protocols[e], self.commands[e], who)
            check_limit(self.protocols[e], given[e], self.options[e], self.variant, who)
        self.given = given
        self.remote = [remote_address(p, c) for p, c in zip(self.protocols, self.commands)]
        for e, address in enumerate(self.remote):   # named before it is reached, if ever
            if address and self.names[e] is None:
                self.names[e] = address
        self.limits = [kept_limit(p, lim) for p, lim in zip(self.protocols, given)]
        notes = [clock_note(p, lim, self.names[e] or f"engine {e + 1}")
                 for e, (p, lim) in enumerate(zip(self.protocols, given))]
        self.notes = [n for n in notes if n]

    # ----- output ----------------------------------------------------------------
    def log(self, text: str) -> None:
        if self.log_file:
            with self.log_lock:
                self.log_file.write(f"{time.monotonic():.3f} {text}\n")
                self.log_file.flush()

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def who(self, e: int) -> str:
        """Engine ``e``'s name for what the runner reports: with its address if it is remote."""
        name = self.names[e] or f"engine {e + 1}"
        address = self.remote[e]
        return f"{name} at {address}" if address and address != name else name

    # ----- engines -----------------------------------------------------------------
    def _client(self, index: int, worker: int) -> HubClient:
        client = open_client(self.protocols[index], self.commands[index], self.options[index],
                             self.given[index], self.log,
                             f"w{worker}.{self.names[index] or f'e{index + 1}'}", self.dirs[index],
                             self.args.hang_timeout)
        try:
            client.start(self.args.init_timeout)
        except EngineError:
            client.quit(0.5)                     # no half-started process left behind
            raise
        with self.lock:
            if self.names[index] is None:
                self.names[index] = client.name
                if self.names[0] == self.names[1]:   # two copies of one engine
                    self.names[1] = f"{client.name}-2"
        return client

    def _search_window(self, limit: Limit, clock: float, to_go: int):
        """(level lines, budget, stop_at, deadline) for one move, times relative to now."""
        hang = self.args.hang_timeout
        if limit.clock:
            budget = clock + limit.inc      # Hub: the increment is added before the move
            level = [f"time={max(clock, 0.0):.3f} inc={limit.inc:g}" if not to_go else
                     f"moves={to_go} time={max(clock, 0.0):.3f} inc={limit.inc:g}"]
            flag = budget + self.args.time_margin
            return level + self._extra(limit), budget, flag, flag + 0.05
        if limit.movetime:
            stop_at = 2 * limit.movetime + 1.0
            return ([f"move-time={limit.movetime:g}"] + self._extra(limit), limit.movetime,
                    stop_at, stop_at + hang)
        return self._extra(limit), None, hang, hang + 5.0

    def _prepare(self, clients: list[HubClient | None], worker: int) -> dict[int, EngineError]:
        """Check the running engines, start missing ones (both at once: start-up can take
        seconds); the errors by engine index."""
        def ready(e: int) -> None:
            if clients[e] is not None and not clients[e].alive():
                clients[e] = shut(clients[e])   # it left between games (a DXP stop code)
            if clients[e] is None:
                clients[e] = self._client(e, worker)
            else:
                clients[e].ping()
                clients[e].new_game()
            self.started[e] = True

        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="match-start") as pool:
            starts = [pool.submit(ready, e) for e in (0, 1)]
        errors: dict[int, EngineError] = {}
        for e, start in enumerate(starts):
            try:
                start.result()
            except EngineError as err:
                errors[e] = err
        return errors

    def _failure(self, e: int, err: EngineError, limit: Limit, budget) -> str:
        """Why engine ``e`` loses the game it gave no move in (counted in its figures): on
        time only if it said nothing at all; what it said instead is quoted."""
        name = self.who(e)
        with self.lock:
            if isinstance(err, EngineTimeout) and limit.clock:
                self.stats[e].time_losses += 1
                said = f"; it sent {err.said}" if err.said else ""
                return f"{name} lost on time (no move within {budget:.3f}s{said})"
            self.stats[e].crashes += 1
        if isinstance(err, EngineRefused):
            return f"{name} refused the game: {err}"
        if isinstance(err, EngineProtocolError):
            return f"{name} broke the protocol: {err}"
        if self.remote[e]:     # no process of ours: it went silent or the connection ended
            return f"{name}: {err}, a forfeit"
        return f"{name} crashed or hung: {err}"

    @staticmethod
    def _extra(limit: Limit) -> list[str]:
        return ([f"depth={limit.depth}"] if limit.depth else []) + \
               ([f"nodes={limit.nodes}"] if limit.nodes else [])

    # ----- one game ----------------------------------------------------------------
    def play_game(self, number: int, clients: list[HubClient | None], worker: int) -> GameResult:
        index = (self.first_opening + number // 2) % len(self.openings)
        opening = self.openings[index]
        white = number % 2                   # engine 1 has White in even games
        game = Game(opening.start)
        for move in opening.moves:
            game.push(move)
        notes: dict[int, Note] = {}          # each engine move's score, depth and time

        def lose(engine: int, reason: str) -> GameResult:
            side_white = engine == white
            self.log(f"game {number + 1}: {reason}")
            clients[engine] = shut(clients[engine])
            return GameResult(number, white, game, "0-2" if side_white else "2-0", reason, index,
                              notes)

        errors = self._prepare(clients, worker)
        for e, err in errors.items():
            if self.remote[e]:                   # its operator runs it: a forfeit, not an abort
                with self.lock:
                    self.stats[e].crashes += 1
                return lose(e, f"{self.who(e)}: {err}, a forfeit")
            if not self.started[e]:              # never worked: a wrong command, not a loss
                self.error = f"engine {e + 1} ({self.commands[e]}) failed to start: {err}"
                self.aborted = True
                self.stop.set()
                raise err
            with self.lock:
                self.stats[e].crashes += 1
            return lose(e, f"engine {e + 1} failed to start: {err}")

        clocks = [lim.base or 0.0 for lim in self.limits]
        if self.live:
            self.live.begin(self.live_key(number), self.names[white] or f"engine {white + 1}",
                            self.names[1 - white] or f"engine {2 - white}", game)
        # per engine: [time used, time given] over the game and over the current period
        spent = [[0.0, lim.base or 0.0] for lim in self.limits]
        period = [[0.0, lim.base or 0.0] for lim in self.limits]
        moved = [0, 0]

        def finished(result: str, reason: str) -> GameResult:
            with self.lock:
                for e, lim in enumerate(self.limits):
                    if lim.clock and not lim.moves and spent[e][1] > 0:
                        self.stats[e].game_shares.append((moved[e], spent[e][0] / spent[e][1]))
            return GameResult(number, white, game, result, reason, index, notes)

        start = pos_to_hub(game.start)
        while True:
            outcome = game.outcome()
            if outcome:
                return finished(outcome.result, outcome.reason)
            if self.args.max_plies and len(game.moves) >= self.args.max_plies:
                return finished("1-1", "move limit")
            if self.stop.is_set() and self.aborted:
                raise EngineError("match aborted")
            pos = game.position
            e = white if pos.turn == WHITE else 1 - white
            name = self.names[e] or f"engine {e + 1}"
            limit = self.limits[e]
            own_moves = sum(1 for p in game.positions[len(opening.moves):-1] if p.turn == pos.turn)
            to_go = limit.moves - own_moves % limit.moves if limit.moves else 0
            level, budget, stop_at, deadline = self._search_window(limit, clocks[e], to_go)
            now = time.monotonic()
            try:
                moves = [move_to_hub(m, game.variant) for m in game.moves]
                reply = clients[e].search(start, moves, level, now + deadline, now + stop_at)
            except DxpGameEnd as end:           # it ended the game in place of a move
                verdict = judge_game_end(end, pos, name, self.databases)
                self.log(f"game {number + 1}: {verdict.reason}")
                return finished(verdict.result, verdict.reason)
            except EngineError as err:
                return lose(e, self._failure(e, err, limit, budget))
            left = None
            if limit.clock:
                left = clocks[e] = clocks[e] + limit.inc - reply.elapsed
                moved[e] += 1
                for account in (spent[e], period[e]):
                    account[0] += reply.elapsed
                    account[1] += limit.inc
                if limit.moves and to_go == 1:
                    clocks[e] += limit.base
                    with self.lock:
                        self.stats[e].period_shares.append(period[e][0] / period[e][1])
                    period[e] = [0.0, limit.base]
            with self.lock:
                self.stats[e].record(reply.elapsed, budget, left)
            if left is not None and left < -self.args.time_margin:
                with self.lock:
                    self.stats[e].time_losses += 1
                return lose(e, f"{name} lost on time ({reply.elapsed:.3f}s used, "
                               f"{budget:.3f}s available)")
            if reply.move is None:
                with self.lock:
                    self.stats[e].illegal += 1
                return lose(e, f"{name} gave no move (bare done) with legal moves available")
            try:
                move = move_from_hub(pos, reply.move)
                game.push(move)   # also refuses what the game forbids (Frisian's king rule)
                notes[len(game.moves)] = Note(comment=move_comment(reply.info, reply.elapsed))
                if self.live:
                    timed = any(lim.clock for lim in self.limits)
                    self.live.moved(self.live_key(number), game, {
                        "white": clocks[white], "black": clocks[1 - white]} if timed else None)
            except BadInput as err:
                with self.lock:
                    self.stats[e].illegal += 1
                return lose(e, f"{name} played an illegal move {reply.move!r}: {err}")

    # ----- the match ---------------------------------------------------------------
    def worker(self, worker: int) -> None:
        clients: list[HubClient | None] = [None, None]
        try:
            while not self.stop.is_set():
                with self.lock:
                    while self.next_game in self.done:
                        self.next_game += 1
                    number = self.next_game
                    if number >= self.args.games:
                        return
                    self.next_game += 1
                try:
                    result = self.play_game(number, clients, worker)
                except EngineError:
                    return                   # aborted
                if self.aborted:
                    return
                self.finish(result)
                self.note_memory(clients)
        finally:
            for c in clients:
                shut(c)

    def note_memory(self, clients: list[HubClient | None]) -> None:
        """Each engine process's memory after its first game and after its latest one."""
        with self.lock:
            for e, client in enumerate(clients):
                rss = client.rss() if client is not None else None
                if rss is not None:
                    first, _ = self.memory.get((e, client.proc.pid), (rss, rss))
                    self.memory[(e, client.proc.pid)] = (first, rss)

    def memory_lines(self) -> list[str]:
        lines = []
        for e in (0, 1):
            seen = [v for (engine, _), v in self.memory.items() if engine == e]
            if seen:
                first = sum(v[0] for v in seen) / len(seen) / 2**20
                last = sum(v[1] for v in seen) / len(seen) / 2**20
                lines.append(f"memory of {self.names[e]} ({len(seen)} process"
                             f"{'es' if len(seen) > 1 else ''}): {first:.1f} MB after its first "
                             f"game, {last:.1f} MB after its last (resident, mean per process)")
        return lines

    def finish(self, r: GameResult) -> None:
        white, black = self.names[r.white], self.names[1 - r.white]
        tags = {"Event": self.args.event, "Site": "rafle match", "Date": self.date,
                "Round": str(r.number + 1), "White": white, "Black": black,
                "Result": r.result, "Termination": r.reason,
                "TimeControl": self.limits[r.white].describe(),
                "PlyCount": str(len(r.game.moves))}
        text = write_pdn(r.game, tags, r.reason, r.notes)
        if self.live:
            self.live.end(self.live_key(r.number), white, black, r.result, r.reason,
                          len(r.game.moves))
        with self.lock:
            self.score.add(r)
            if self.pdn_file:
                self.pdn_file.write(text)
                self.pdn_file.flush()
            if self.state:      # the figures so far (here: with the moves of games in progress)
                self.state.add(r, text, self.names, self.stats)
            if self.score.verdict:
                self.stop.set()
            self.say(f"game {r.number + 1}: {white} - {black} {r.result} ({r.reason}, "
                     f"{len(r.game.moves)} plies, opening {r.opening + 1})")
            self.say(self.score.table_line())

    def run(self) -> int:
        a = self.args
        self.say(f"match: {a.games} games, {self.limits[0].describe()}"
                 + (f" vs {self.limits[1].describe()}" if self.limits[1] != self.limits[0] else "")
                 + f", {len(self.openings)} openings, concurrency {a.concurrency}"
                 + self.before())
        for note in self.notes:
            self.say(note)
        def interrupted() -> None:
            self.aborted = True
            self.stop.set()
            self.say("interrupted: finishing")

        run_workers(self.worker, a.concurrency, interrupted)
        return self.close()

    def before(self) -> str:
        """For the first line: the games a ``--state`` file held (none: '')."""
        return f", {len(self.done)} played before ({self.args.state})" if self.done else ""

    def close_files(self) -> None:
        if self.live:
            self.live.close()
        for f in (self.log_file, self.pdn_file):
            if f:
                f.close()

    def close(self, notes: list[str] = ()) -> int:
        """Close the files and print the report (after ``notes``); the exit code."""
        self.close_files()
        if self.error:
            print(f"rafle match: {self.error}", file=sys.stderr)
            return 1
        for text in list(notes) + self.score.report(self.aborted) + self.memory_lines():
            self.say(text)
        return 0


def run_workers(target, count: int, on_interrupt) -> None:
    """Run ``target(w)`` in ``count`` threads until all end; on Ctrl-C call
    ``on_interrupt()`` (which tells them to stop) and give them 10 s each to end."""
    threads = [threading.Thread(target=target, args=(w,), daemon=True) for w in range(count)]
    for t in threads:
        t.start()
    try:
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(0.2)
    except KeyboardInterrupt:
        # A second Ctrl-C while the games stop (a terminal or `timeout` signals the whole
        # process group, and often twice) must not cut the stop short with a traceback.
        previous = _ignore_sigint()
        try:
            on_interrupt()
            for t in threads:
                t.join(10)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)


def _ignore_sigint():
    """Ignore SIGINT from now on (main thread only); the handler it replaced, or None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, signal.SIG_IGN)


def shut(client: HubClient | None) -> None:
    """Quit ``client`` if there is one; None, to clear its slot."""
    if client is not None:
        client.quit()
    return None
