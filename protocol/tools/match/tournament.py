"""``rafle tournament``: round robin or gauntlet among many engines, resumable.

    rafle tournament --engine name=deep cmd="rafle hub" option.eval=learned \\
                     --engine name=hand cmd="rafle hub" option.eval=hand \\
                     --engine name=dame cmd="dame hub" tc=10+0.1 \\
                     --games 4 --tc 5+0.1 --state event.json --pdn event.pdn
    rafle tournament --engines engines.toml --format gauntlet

Each pairing plays ``--games`` games from the same openings, colours swapped every game,
by the match runner's rules (``rafle match``: the runner keeps the clocks, judges every
move, ends games by the rules; an engine that crashes, hangs, plays an illegal move or
oversteps its clock loses that game and is restarted).  Engines speak Hub, Hub version 1
(``proto=hub1``: Scan 2.0's dialect) or DXP (``proto=dxp``: the command must listen on
``{port}``, which is replaced by a free port; the runner connects as initiator, see
:mod:`.engines` for what each protocol can carry and :mod:`.adjudicate` for how a game a DXP
engine ends itself is scored).

A DXP engine on another host, run by its operator as at an olympiad, is given by its address
instead of a command: ``--engine name=scan proto=dxp host=10.0.0.7 port=27531``.  The runner
connects to it for its games and closes the connection when done; it never starts or stops
it.  A refused connection, or a peer that accepts no game within ``--hang-timeout``, forfeits
that game (the Termination names the address: ``scan at 10.0.0.7:27531: connection refused,
a forfeit``); the event goes on with the other pairings and connects again at the engine's
next game.  With ``--concurrency`` above 1, two games may connect to it at once.

The state file is rewritten after every game: the same command continues an interrupted
tournament, keeps every finished game and never plays one twice.  At the end: standings
with Sonneborn-Berger, ratings fitted over all games with 95% error bars
(:mod:`.ratings`), a crosstable, and every game in the PDN file.

With ``--ray [ADDRESS]`` the games are played by Ray actors (:mod:`.ray_tournament`), each
scored into the state file and the PDN as it finishes, as here.

An engines file (TOML or JSON) lists the engines, each with ``name``, ``command`` (or, for
a DXP engine on another host, ``host`` and ``port``) and optionally ``protocol`` (hub, hub1
or dxp), ``dir``, ``tc``, ``depth``, ``nodes``, ``movetime``
and ``options`` (Hub parameters)::

    [[engine]]
    name = "rafle"
    command = "rafle hub"
    options = { eval = "learned", threads = "1" }

    [[engine]]
    name = "dame"
    command = "dame hub"
    tc = "10+0.1"

    [[engine]]
    name = "scan"
    protocol = "dxp"
    host = "10.0.0.7"
    port = 27531
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import sys
import threading
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine import get_variant, write_pdn

from ...about import summary
from ...hub.client import EngineError
from .adjudicate import Databases
from .elo import signed
from .dxp_client import ADDRESS, check_port
from .engines import check_command, check_limit, clock_note
from .ratings import fit_ratings
from .ray_tournament import refuse_remote_on_ray, run_on_ray
from .cli import add_engine_guards, add_live, add_ray, build_parser as match_parser
from .live import Live
from .runner import TC_FORMS, Limit, Match, concurrency, parse_tc, run_workers
from .score import GameResult

FORMATS = ("round-robin", "gauntlet")
INCIDENTS = ("crashed", "lost on time", "illegal", "failed to start", "gave no move",
             "broke the protocol", "a forfeit")
BAR = 24


@dataclass
class EngineSpec:
    """One engine as the organiser described it."""

    name: str
    command: str
    protocol: str = "hub"
    dir: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    tc: str | None = None
    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    host: str | None = None         # a DXP engine on another host: its address, no command
    port: int | None = None

    def check(self) -> "EngineSpec":
        who = f"engine {self.name or '?'}"
        if self.host is not None or self.port is not None:
            self._check_address(who)
        elif not self.name or not self.command.strip():
            raise ValueError(f"{who}: a name and a command (or host= and port=) are needed")
        check_command(self.protocol, self.target, who)
        if self.tc is not None:
            parse_tc(self.tc)
        return self

    def _check_address(self, who: str) -> None:
        if not self.name:
            raise ValueError(f"{who}: a name is needed")
        if self.command.strip():
            raise ValueError(f"{who}: give a command or an address (host= port=), not both")
        if self.protocol != "dxp":
            raise ValueError(f"{who}: an engine on another host is reached by DXP only: proto=dxp")
        if not self.host or self.port is None:
            raise ValueError(f"{who}: an engine on another host needs both host= and port=")
        if self.dir is not None:
            raise ValueError(f"{who}: dir= is for a command, not for an engine on another host")
        self.port = check_port(self.port, who)

    @property
    def target(self) -> str:
        """What the match runner is given: the command, or the address ``dxp://HOST:PORT``."""
        if self.host is None:
            return self.command
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{ADDRESS}{host}:{self.port}"

    def record(self) -> dict:
        """The spec as the state file's signature keeps it (no address fields for a command,
        so that a state written before they existed still matches)."""
        return {k: v for k, v in asdict(self).items()
                if k not in ("host", "port") or self.host is not None}


KEYS = {"name": "name", "cmd": "command", "command": "command", "proto": "protocol",
        "protocol": "protocol", "dir": "dir", "tc": "tc", "depth": "depth", "nodes": "nodes",
        "movetime": "movetime", "host": "host", "port": "port"}


def parse_engine(tokens: list[str]) -> EngineSpec:
    """``name=A cmd="rafle hub" option.eval=hand tc=5+0.1 proto=hub dir=/path``, or for a
    DXP engine on another host ``name=B proto=dxp host=10.0.0.7 port=27531``."""
    values: dict = {"options": {}}
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq:
            raise ValueError(f"engine field {token!r} must be KEY=VALUE")
        if key.startswith("option."):
            values["options"][key[len("option."):]] = value
        elif key in KEYS:
            values[KEYS[key]] = value
        else:
            raise ValueError(f"unknown engine field {key!r} (known: {', '.join(KEYS)}, option.NAME)")
    return _spec(values)


def _spec(values: dict) -> EngineSpec:
    try:
        return EngineSpec(
            name=str(values.get("name", "")), command=str(values.get("command", "")),
            protocol=str(values.get("protocol", "hub")).lower(),
            dir=None if values.get("dir") is None else str(values["dir"]),
            options={str(k): str(v) for k, v in dict(values.get("options") or {}).items()},
            tc=None if values.get("tc") is None else str(values["tc"]),
            depth=None if values.get("depth") is None else int(values["depth"]),
            nodes=None if values.get("nodes") is None else int(values["nodes"]),
            movetime=None if values.get("movetime") is None else float(values["movetime"]),
            host=None if values.get("host") is None else str(values["host"]),
            port=values.get("port")).check()
    except (TypeError, AttributeError) as exc:
        raise ValueError(f"engine {values.get('name', '?')}: {exc}") from None


def load_engines(path: str) -> list[EngineSpec]:
    """The engines of a TOML or JSON file (``[[engine]]`` tables, or a list under ``engine``)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text) if path.endswith(".json") else tomllib.loads(text)
    except (OSError, ValueError) as exc:       # JSONDecodeError and TOMLDecodeError are ValueErrors
        raise ValueError(f"cannot read the engines file {path}: {exc}") from None
    entries = data.get("engine", data.get("engines")) if isinstance(data, dict) else data
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ValueError(f"{path}: expected a list of engines ([[engine]] tables)")
    return [_spec(e) for e in entries]


def schedule(n: int, form: str, games: int) -> list[tuple[int, int, int]]:
    """Every game of the event as (engine a, engine b, game number within the pairing),
    pairing by pairing: a round robin pairs everyone, a gauntlet the first engine with each
    of the others."""
    pairs = ([(a, b) for a in range(n) for b in range(a + 1, n)] if form == "round-robin"
             else [(0, b) for b in range(1, n)])
    return [(a, b, k) for a, b in pairs for k in range(games)]


class _PairMatch(Match):
    """The match runner for one pairing, with the tournament's engine descriptions."""

    def __init__(self, args, specs: tuple[EngineSpec, EngineSpec], limits: list[Limit], out,
                 event: "Tournament"):
        super().__init__(args, out, limits)
        self.dirs = [spec.dir for spec in specs]
        self.databases = event.databases    # one copy for the whole event
        self.log_file, self.log_lock = event.log_file, event.log_lock   # one log too


class Tournament:
    def __init__(self, args: argparse.Namespace, specs: list[EngineSpec], out=None,
                 resume: bool = True):
        """``resume``: read the state file (a Ray actor's copy, which plays games and keeps
        no state, does not)."""
        self.args = args
        self.out = out or sys.stdout
        self.specs = specs
        names = [s.name for s in specs]
        if len(set(names)) != len(names):
            raise ValueError(f"engine names must differ: {', '.join(names)}")
        if len(specs) < 2:
            raise ValueError("a tournament needs at least two engines")
        self.variant = get_variant(args.variant)
        self.games = schedule(len(specs), args.format, args.games)
        self.limits = [self._limit(s) for s in specs]
        for s, limit in zip(specs, self.limits):
            check_limit(s.protocol, limit, s.options, self.variant, f"engine {s.name}")
        notes = [clock_note(s.protocol, limit, s.name) for s, limit in zip(specs, self.limits)]
        self.notes = [n for n in notes if n]
        self.databases = Databases(self.variant)
        self.log_file = None                # opened by run, shared by the pairings
        self.log_lock = threading.Lock()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.done: dict[int, dict] = {}
        self.state_path = Path(args.state)
        self.signature = self._signature()
        if resume:
            self._load_state()
        self.pairings: dict[tuple[int, int], _PairMatch] = {}
        self.date = datetime.date.today().strftime("%Y.%m.%d")
        self.played_now = 0
        self.live: Live | None = None          # --live FILE: opened by run

    # ----- set-up ---------------------------------------------------------------------
    def _limit(self, spec: EngineSpec) -> Limit:
        a = self.args
        tc = spec.tc
        depth = spec.depth if spec.depth is not None else a.depth
        nodes = spec.nodes if spec.nodes is not None else a.nodes
        movetime = spec.movetime if spec.movetime is not None else a.movetime
        if tc is None and spec.depth is None and spec.nodes is None and spec.movetime is None:
            tc = a.tc
        if tc is None and not (depth or nodes or movetime):
            tc = "10+0.1"
        if tc is not None:
            base, inc, moves = parse_tc(tc)
            return Limit(base, inc, moves, depth=depth, nodes=nodes)
        return Limit(movetime=movetime, depth=depth, nodes=nodes)

    def _signature(self) -> dict:
        a = self.args
        return {"engines": [s.record() for s in self.specs], "format": a.format, "games": a.games,
                "variant": self.variant.name, "openings": a.openings, "max_plies": a.max_plies,
                "limits": [asdict(lim) for lim in self.limits]}

    def _load_state(self) -> None:
        if not self.state_path.exists():
            return
        try:
            state = json.loads(self.state_path.read_text(encoding="utf-8"))
            games = state["games"]
            signature = state["signature"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"cannot read the tournament state {self.state_path}: {exc}") from None
        now = json.loads(json.dumps(self.signature))
        if signature != now:
            more = (isinstance(signature, dict) and {**signature, "games": now["games"]} == now
                    and isinstance(signature["games"], int) and signature["games"] < now["games"])
            if not more:
                raise ValueError(f"{self.state_path} holds another tournament (other engines, "
                                 "limits or more games): give another --state file to start a "
                                 "new one")
            games = self._extended(games, signature["games"])
        self.done = {int(g["id"]): g for g in games}

    def _extended(self, games: list[dict], before: int) -> list[dict]:
        """The finished games of the same event with ``before`` games a pairing, now that it
        plays more: each keeps its pairing and its number there (so its opening and colours),
        and takes that game's place in the longer schedule (its Round tag follows)."""
        old = schedule(len(self.specs), self.args.format, before)
        place = {key: gid for gid, key in enumerate(self.games)}
        out = []
        for g in games:
            was = int(g["id"])
            if not 0 <= was < len(old):
                raise ValueError(f"cannot read the tournament state {self.state_path}: game "
                                 f"{was + 1} is not one of its {len(old)} games")
            gid = place[old[was]]
            if gid != was:
                g = {**g, "id": gid, "pdn": g["pdn"].replace(f'[Round "{was + 1}"]',
                                                             f'[Round "{gid + 1}"]', 1)}
            out.append(g)
        return out

    def _save_state(self) -> None:
        data = {"signature": self.signature, "games": [self.done[i] for i in sorted(self.done)]}
        tmp = self.state_path.with_name(self.state_path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.state_path)

    def pairing(self, a: int, b: int) -> _PairMatch:
        with self.lock:
            if (a, b) not in self.pairings:
                A, B = self.specs[a], self.specs[b]
                ns = match_parser().parse_args([])
                common = vars(self.args)
                for key in ("variant", "openings", "max_plies", "time_margin", "hang_timeout",
                            "init_timeout", "event"):
                    setattr(ns, key, common[key])
                ns.games = self.args.games
                ns.engine1, ns.engine2, ns.name1, ns.name2 = A.target, B.target, A.name, B.name
                ns.option1, ns.option2 = list(A.options.items()), list(B.options.items())
                ns.protocol = f"{A.protocol},{B.protocol}"
                ns.depth = ns.nodes = ns.movetime = None
                ns.tc = "1"                     # replaced by each engine's own limit below
                self.pairings[(a, b)] = _PairMatch(ns, (A, B), [self.limits[a], self.limits[b]],
                                                   self.out, self)
                self.pairings[(a, b)].live = self.live
            return self.pairings[(a, b)]

    # ----- output -----------------------------------------------------------------------
    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def points(self) -> list[float]:
        pts = [0.0] * len(self.specs)
        for g in self.done.values():
            pts[g["a"]] += g["score_a"]
            pts[g["b"]] += 1.0 - g["score_a"]
        return pts

    def progress_line(self) -> str:
        n, total = len(self.done), len(self.games)
        filled = BAR * n // total
        pts = self.points()
        order = sorted(range(len(self.specs)), key=lambda i: -pts[i])
        standings = ", ".join(f"{self.specs[i].name} {pts[i]:g}" for i in order)
        return f"[{'#' * filled}{'-' * (BAR - filled)}] {n}/{total}  {standings}"

    def report(self) -> list[str]:
        names = [s.name for s in self.specs]
        n = len(names)
        pts = self.points()
        played = [0] * n
        cross = [[0.0] * n for _ in range(n)]
        met = [[0] * n for _ in range(n)]
        results = []
        for g in self.done.values():
            a, b, s = g["a"], g["b"], g["score_a"]
            played[a] += 1
            played[b] += 1
            cross[a][b] += s
            cross[b][a] += 1.0 - s
            met[a][b] += 1
            met[b][a] += 1
            results.append((a, b, s))
        sb = [sum(cross[i][j] * pts[j] for j in range(n)) for i in range(n)]
        elo, err = fit_ratings(n, results)
        order = sorted(range(n), key=lambda i: (-pts[i], -sb[i]))
        width = max(len(x) for x in names)
        lines = [f"{'rank':>4}  {'engine':<{width}}  {'points':>7}  {'games':>5}  {'SB':>7}  "
                 f"{'elo':>6}  {'+-':>5}"]
        for rank, i in enumerate(order, 1):
            rating, bar = (signed(elo[i], 0), f"{err[i]:.0f}") if played[i] else ("n/a", "n/a")
            lines.append(f"{rank:>4}  {names[i]:<{width}}  {pts[i]:>7g}  {played[i]:>5}  {sb[i]:>7.2f}  "
                         f"{rating:>6}  {bar:>5}")
        lines.append("crosstable (points / games, row against column):")
        cell = max(width, 7)
        lines.append(" " * (width + 2) + "  ".join(f"{names[j]:>{cell}}" for j in order))
        for i in order:
            cells = ["-" if i == j else (f"{cross[i][j]:g}/{met[i][j]}" if met[i][j] else "")
                     for j in order]
            lines.append(f"{names[i]:<{width}}  " + "  ".join(f"{c:>{cell}}" for c in cells))
        incidents = [g for g in self.done.values() if any(w in g["reason"] for w in INCIDENTS)]
        if incidents:
            lines.append(f"incidents ({len(incidents)} games forfeited):")
            for g in sorted(incidents, key=lambda g: g["id"]):
                lines.append(f"  game {g['id'] + 1} {g['white']} - {g['black']}: {g['reason']}")
        summary = {"games": len(self.done), "planned": len(self.games)}
        for i in range(n):
            summary[f"points.{names[i]}"] = f"{pts[i]:g}"
            summary[f"elo.{names[i]}"] = f"{round(elo[i], 1) + 0.0:.1f}" if played[i] else "none"
        lines.append("tournament " + " ".join(f"{k}={shlex.quote(str(v))}" for k, v in summary.items()))
        return lines

    # ----- running --------------------------------------------------------------------
    def finish(self, gid: int, a: int, b: int, r: GameResult, pair: _PairMatch) -> None:
        white, black = pair.names[r.white], pair.names[1 - r.white]
        tags = {"Event": self.args.event, "Site": "rafle tournament", "Date": self.date,
                "Round": str(gid + 1), "White": white, "Black": black, "Result": r.result,
                "Termination": r.reason, "TimeControl": pair.limits[r.white].describe(),
                "PlyCount": str(len(r.game.moves))}
        record = {"id": gid, "a": a, "b": b, "white": white, "black": black, "result": r.result,
                  "reason": r.reason, "plies": len(r.game.moves), "score_a": r.points(0),
                  "pdn": write_pdn(r.game, tags, r.reason, r.notes)}
        if self.live:
            self.live.end(pair.live_key(r.number), white, black, r.result, r.reason,
                          len(r.game.moves))
        with self.lock:
            self.done[gid] = record
            self.played_now += 1
            self._save_state()
            with open(self.args.pdn, "a", encoding="utf-8") as f:
                f.write(record["pdn"])
            self.say(f"game {gid + 1}: {white} - {black} {r.result} ({r.reason}, "
                     f"{len(r.game.moves)} plies)")
            self.say(self.progress_line())
            if self.args.max_games and self.played_now >= self.args.max_games:
                self.stop.set()

    def _next(self) -> tuple[int, int, int, int] | None:
        with self.lock:
            if self.stop.is_set():
                return None
            for gid, (a, b, k) in enumerate(self.games):
                if gid not in self.done and gid not in self.running:
                    self.running.add(gid)
                    return gid, a, b, k
        return None

    def worker(self, worker: int) -> None:
        cache: dict[int, object] = {}
        try:
            while True:
                job = self._next()
                if job is None:
                    return
                gid, a, b, k = job
                for e in [e for e in cache if e not in (a, b)]:
                    cache.pop(e).quit()
                clients = [cache.pop(a, None), cache.pop(b, None)]
                pair = self.pairing(a, b)
                try:
                    result = pair.play_game(k, clients, worker)
                except EngineError as err:
                    with self.lock:
                        self.running.discard(gid)
                    if pair.error:                      # an engine that never starts
                        self.error = pair.error
                        self.stop.set()
                    elif not self.stop.is_set():
                        self.say(f"game {gid + 1} not played: {err}")
                    for c in clients:
                        if c is not None:
                            c.quit()
                    return
                finally:
                    for e, c in zip((a, b), clients):
                        if c is not None:
                            cache[e] = c
                self.finish(gid, a, b, result, pair)
                with self.lock:
                    self.running.discard(gid)
        finally:
            for c in cache.values():
                c.quit()

    def play_here(self, interrupted) -> list[str]:
        """Play the games in ``--concurrency`` local threads; no notes."""
        left = len(self.games) - len(self.done)
        run_workers(self.worker, min(self.args.concurrency, max(left, 1)), interrupted)
        return []

    def run(self, play=None) -> int:
        """Play the games left and report.  ``play(interrupted)`` plays them (by default
        :meth:`play_here`; :mod:`.ray_tournament` on Ray), calls ``interrupted()`` on Ctrl-C,
        and returns notes (where the games ran) printed before the standings."""
        a = self.args
        self.running: set[int] = set()
        self.error: str | None = None
        if self.done:   # a resumed event: the PDN again holds exactly the finished games
            Path(a.pdn).write_text("".join(self.done[i]["pdn"] for i in sorted(self.done)),
                                   encoding="utf-8")
        else:
            Path(a.pdn).write_text("", encoding="utf-8")
        left = len(self.games) - len(self.done)
        self.say(f"tournament: {len(self.specs)} engines, {a.format}, {len(self.games)} games "
                 f"({len(self.done)} played before, {left} to play), "
                 + ("on Ray" if getattr(a, "ray", None) is not None
                    else f"concurrency {a.concurrency}"))
        for note in self.notes:
            self.say(note)
        def interrupted() -> None:
            self.say("interrupted: the games in progress are dropped, the finished ones are kept")
            self.stop.set()
            for pair in list(self.pairings.values()):
                pair.aborted = True
                pair.stop.set()

        self.log_file = open(a.log, "a", encoding="utf-8") if a.log else None
        if a.live:
            self.live = Live(a.live, "tournament", a.event, self.variant.name, len(self.games))
            for i in sorted(self.done):
                g = self.done[i]
                self.live.add_result(g["white"], g["black"], g["result"], g["reason"], g["plies"])
        try:
            notes = (play or self.play_here)(interrupted)
        finally:
            if self.log_file:
                self.log_file.close()
            if self.live:
                self.live.close()
        if self.error:
            print(f"rafle tournament: {self.error}", file=sys.stderr)
            return 1
        if len(self.done) < len(self.games):
            self.say(f"stopped after {len(self.done)} of {len(self.games)} games; the same command "
                     f"continues ({self.state_path})")
        for line in notes + self.report():
            self.say(line)
        return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle tournament", description=summary(__doc__))
    p.add_argument("--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE",
                   help="an engine: name=NAME cmd=COMMAND [proto=hub|hub1|dxp] [dir=DIR] [tc=..] "
                        "[depth=..] [nodes=..] [movetime=..] [option.PARAM=VALUE ...]; a DXP "
                        "engine on another host, run by its operator: name=NAME proto=dxp "
                        "host=HOST port=PORT (no cmd)")
    p.add_argument("--engines", help="a TOML or JSON file of engines")
    p.add_argument("--format", choices=FORMATS, default="round-robin",
                   help="round-robin (every pair) or gauntlet (the first engine against each other)")
    p.add_argument("--games", type=int, default=2, help="games per pairing (default 2)")
    p.add_argument("--tc", help=f"clock {TC_FORMS}, for engines without their own")
    p.add_argument("--movetime", type=float, help="seconds per move, for engines without a limit")
    p.add_argument("--depth", type=int, help="depth per move, for engines without a limit")
    p.add_argument("--nodes", type=int, help="nodes per move, for engines without a limit")
    p.add_argument("--variant", default="international",
                   help="variant (sent to every Hub engine as its 'variant' parameter)")
    p.add_argument("--openings", help="file of openings, 'builtin' or 'startpos' (as rafle match)")
    p.add_argument("--concurrency", type=concurrency, default=max(1, (os.cpu_count() or 2) // 2),
                   help="games at a time (default: half the cores, each game runs two engines; "
                        "at most the number of cores)")
    p.add_argument("--max-plies", type=int, default=0, help="adjudicate a draw after this many plies")
    p.add_argument("--max-games", type=int, default=0,
                   help="stop after this many games (the state keeps them; run again to go on)")
    p.add_argument("--state", default="tournament.json", help="the state file (default tournament.json)")
    p.add_argument("--pdn", default="tournament.pdn", help="every game (default tournament.pdn)")
    add_engine_guards(p)
    p.add_argument("--event", default="rafle tournament", help="PDN Event tag")
    add_live(p)
    p.add_argument("--log", help="append every line and DXP message to and from the engines to "
                                 "this file (not the traffic of games played on Ray)")
    add_ray(p, "each starting the engines its games need")
    return p


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.live and args.ray is not None:
        parser.error("--live follows games played here: not with --ray")
    try:
        specs = load_engines(args.engines) if args.engines else []
        specs += [parse_engine(tokens) for tokens in args.engine]
        tournament = Tournament(args, specs)
        if args.ray is not None:
            refuse_remote_on_ray(specs)
    except (ValueError, OSError) as exc:         # BadInput is a ValueError
        print(f"rafle tournament: {exc}", file=sys.stderr)
        return 2
    if args.ray is not None:
        return run_on_ray(tournament, args.ray or None)
    return tournament.run()
