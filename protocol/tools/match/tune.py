"""``rafle tune``: tune the engine's numeric options by SPSA, from games of the engine against
itself.

Each iteration draws a perturbation (:mod:`.spsa`, where the schedule is written out), plays a
mini-match of the engine with ``theta+`` against the engine with ``theta-`` (the match runner:
its balanced openings, colours swapped within each pair, a fast clock or a fixed depth, on
every core or on Ray actors), and moves ``theta`` by the score.  The iterations take the
openings in turn, so a run goes through the whole set rather than playing the first few again.

The run lives in its state file (``--state``, JSON): the parameters, the settings of the games,
the seed, the schedule, ``theta`` and every iteration's record (theta before and after, the
signs, the perturbations, both sides' values, each game's result).  The file is replaced
atomically after each iteration, so Ctrl-C loses only the iteration in progress; the same
command (or ``rafle tune --state FILE`` alone) goes on from it, drawing what an unbroken run
would have drawn; so too after a lost Ray head, which stops the run in one line.  A file that
holds another run (other parameters or games) is refused.  At the end come the values to
ship: as ``--option`` pairs, and as the lines of ``engine/options.py`` to change.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import engine
from engine import install_command
from perft.raylink import (ClusterError, HeadLost, connect, disconnect, head_answers, placement,
                           ray_module)

from ...about import summary
from .cli import _option, add_engine_guards, build_parser as match_parser
from .ray_runner import play_on_ray
from .runner import Match, concurrency, run_workers
from .spsa import (PARAM_FORM, Param, Perturbation, Schedule, TuneError, parse_param, perturb,
                   tunable_names, update)

ITERATIONS, GAMES, TC = 100, 8, "1+0.01"
LIMITS = ("tc", "depth", "nodes", "movetime")
GAME_SETTINGS = ("engine", "option", "games", *LIMITS, "variant", "openings", "max_plies")


@dataclass
class Run:
    """A tuning run, as its state file holds it."""

    params: list[Param]
    settings: dict
    seed: int
    schedule: Schedule
    theta: list[float]
    records: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"params": [asdict(p) for p in self.params], "settings": self.settings,
                "seed": self.seed, "schedule": asdict(self.schedule), "theta": self.theta,
                "records": self.records}

    @classmethod
    def from_json(cls, data: dict) -> "Run":
        run = cls([Param(**p) for p in data["params"]], data["settings"], int(data["seed"]),
                  Schedule(**data["schedule"]), [float(t) for t in data["theta"]],
                  list(data["records"]))
        if len(run.theta) != len(run.params) or any(
                r["iteration"] != i for i, r in enumerate(run.records, start=1)):
            raise ValueError("its theta or its iteration numbers do not add up")
        return run

    def named(self, values) -> dict:
        return {p.name: v for p, v in zip(self.params, values)}


def load_run(path: Path) -> Run | None:
    if not path.exists():
        return None
    try:
        return Run.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TuneError(f"cannot read the tuning state {path}: {exc}") from None


def save_run(run: Run, path: Path) -> None:
    """Replace the file at once: a reader (or a Ctrl-C) never finds half of it."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(run.to_json(), indent=1), encoding="utf-8")
    os.replace(tmp, path)


# ----- the run's settings: from the command line, or from the file it goes on with -------

def given_settings(args) -> dict:
    """The game settings this command line gives (None where it gives none)."""
    given = {key: getattr(args, key) for key in GAME_SETTINGS}
    if given["option"] is not None:
        given["option"] = [list(pair) for pair in given["option"]]
    if all(given[key] is None for key in LIMITS):
        for key in LIMITS:
            del given[key]                        # none given: the file's, or the default
    return given


def new_run(args, params: list[Param]) -> Run:
    if not params:
        raise TuneError("give the options to tune: --param NAME (one --param each)")
    settings = given_settings(args)
    if not any(settings.get(key) is not None for key in LIMITS):
        settings.update(tc=TC, depth=None, nodes=None, movetime=None)
    defaults = {"engine": "rafle hub", "option": [], "games": GAMES, "variant": "international",
                "max_plies": 0}
    for key, value in defaults.items():
        if settings[key] is None:
            settings[key] = value
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2 ** 31)
    return Run(params, settings, seed, Schedule(args.iterations or ITERATIONS),
               [p.start for p in params])


def check_same_run(run: Run, args, params: list[Param], path: Path) -> None:
    """Refuse a command line that would change the run the file holds."""
    again = f"give another --state file to start a new run, or leave them out to go on with {path}"
    if params and {p.name: p for p in params} != {p.name: p for p in run.params}:
        raise TuneError(f"{path} tunes {' '.join(p.text() for p in run.params)}; this command "
                        f"tunes {' '.join(p.text() for p in params)}: {again}")
    changed = [key for key, value in given_settings(args).items()     # limits: all or none
               if (value is not None or key in LIMITS) and value != run.settings.get(key)]
    if args.seed is not None and args.seed != run.seed:
        changed.append("seed")
    if changed:
        held = ", ".join(f"{key}={run.settings.get(key, run.seed if key == 'seed' else None)}"
                         for key in changed)
        raise TuneError(f"{path} holds a run with {held}; this command changes "
                        f"{', '.join(changed)}: {again}")


# ----- one iteration ------------------------------------------------------------------------

def mini_match(run: Run, draw: Perturbation, args) -> Match:
    """The match of iteration ``draw.k``: theta+ as engine 1, theta- as engine 2."""
    s = run.settings
    ns = match_parser().parse_args([])
    ns.engine1 = ns.engine2 = s["engine"]
    ns.name1, ns.name2 = "theta+", "theta-"
    ns.option = [tuple(pair) for pair in s["option"]]
    ns.option1 = [(p.name, str(v)) for p, v in zip(run.params, draw.plus)]
    ns.option2 = [(p.name, str(v)) for p, v in zip(run.params, draw.minus)]
    ns.games = s["games"]
    ns.tc, ns.movetime = s["tc"], s["movetime"]
    ns.depth, ns.nodes = (str(s[key]) if s[key] is not None else None for key in ("depth", "nodes"))
    ns.variant, ns.openings, ns.max_plies = s["variant"], s["openings"], s["max_plies"]
    for key in ("time_margin", "hang_timeout", "init_timeout"):
        setattr(ns, key, getattr(args, key))
    ns.concurrency = min(args.concurrency, s["games"])
    ns.first_opening = 1 + draw.k * s["games"] // 2
    ns.event = "rafle tune"
    return Match(ns, out=io.StringIO())


def play(match: Match, ray, where: Counter | None = None) -> None:
    """Play the mini-match here or on Ray (``where`` counts the games each Ray node played);
    afterwards ``match.aborted`` says if Ctrl-C cut it."""
    if ray is not None:
        play_on_ray(match, ray, where)
        return

    def interrupted() -> None:
        match.aborted = True
        match.stop.set()

    run_workers(match.worker, match.args.concurrency, interrupted)


def record(run: Run, draw: Perturbation, match: Match, theta: list[float]) -> dict:
    wins, draws, losses = match.score.wdl()
    games = [{"theta+": "white" if r.white == 0 else "black", "result": r.result,
              "reason": r.reason, "plies": len(r.game.moves), "opening": r.opening + 1}
             for r in sorted(match.score.results, key=lambda r: r.number)]
    return {"iteration": draw.k + 1, "theta": run.named(run.theta),
            "delta": run.named(draw.delta), "c": run.named(draw.c),
            "plus": run.named(draw.plus), "minus": run.named(draw.minus),
            "wins": wins, "draws": draws, "losses": losses, "games": games,
            "theta_after": run.named(theta)}


def iteration_line(run: Run, rec: dict, total: int) -> str:
    def values(d: dict, fmt: str = "") -> str:
        return " ".join(f"{name}={value:{fmt}}" for name, value in d.items())

    n = rec["wins"] + rec["draws"] + rec["losses"]
    share = (rec["wins"] + rec["draws"] / 2) / n if n else 0.5
    return (f"iteration {rec['iteration']}/{total}: theta+ {values(rec['plus'])} vs theta- "
            f"{values(rec['minus'])}: +{rec['wins']} ={rec['draws']} -{rec['losses']} "
            f"({100 * share:.1f}%); theta {values(rec['theta_after'], '.2f')}")


# ----- the end: the values to ship ------------------------------------------------------------

def ship_lines(run: Run) -> list[str]:
    values = [p.value(t) for p, t in zip(run.params, run.theta)]
    lines = [f"after {len(run.records)} iterations: theta "
             + " ".join(f"{p.name}={t:.2f}" for p, t in zip(run.params, run.theta)),
             "as options: " + " ".join(f"--option {p.name}={v}" for p, v in zip(run.params, values)),
             "in engine/options.py:"]
    source = Path(engine.__file__).with_name("options.py")
    try:
        text = source.read_text(encoding="utf-8").splitlines()
    except OSError:
        text = []
    for p, v in zip(run.params, values):
        found = re.compile(rf'^(\s*_\w+\("{re.escape(p.name)}",\s*)([^,]+)(,.*)$')
        at = next(((i, m) for i, line in enumerate(text, start=1)
                   if (m := found.match(line))), None)
        if at is None:
            lines.append(f"  {p.name}: its default becomes {v} (not found as one line: by hand)")
        else:
            i, m = at
            lines.append(f"  line {i}: {m[1].lstrip()}{v}{m[3]}")
    return lines


# ----- the command --------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle tune", description=summary(__doc__))
    p.add_argument("--param", action="append", type=str, default=[], metavar=PARAM_FORM,
                   help="an option to tune, with its start (default: the option's default), final "
                        "perturbation C_END (a twentieth of its range, at most half the start) and "
                        "final learning rate R_END (0.2); empty fields keep the default "
                        f"(NAME::5). Tunable: {', '.join(tunable_names())}")
    p.add_argument("--iterations", type=int,
                   help=f"iterations in all, earlier ones included (default {ITERATIONS}; for a "
                        "run that goes on, the number it was planned for, which also fixed its "
                        "schedule)")
    p.add_argument("--games", type=int, help=f"games per iteration, an even number (default {GAMES})")
    p.add_argument("--tc", help=f"clock of each game (default {TC} when no other limit is given)")
    p.add_argument("--depth", type=int, help="depth per move")
    p.add_argument("--nodes", type=int, help="nodes per move")
    p.add_argument("--movetime", help="seconds per move")
    p.add_argument("--engine", help="the engine's command (default: rafle hub)")
    p.add_argument("--option", action="append", type=_option, metavar="NAME=VALUE",
                   help="a Hub parameter for both sides, not tuned (book=false)")
    p.add_argument("--variant", help="variant (default international)")
    p.add_argument("--openings", help="file of openings, 'builtin' or 'startpos' (as rafle match)")
    p.add_argument("--max-plies", type=int, help="adjudicate a draw after this many plies")
    p.add_argument("--seed", type=int, help="the seed of the perturbations (default: drawn)")
    p.add_argument("--state", default="tune.json",
                   help="the run's file, written after each iteration; the same command goes on "
                        "from it (default tune.json)")
    p.add_argument("--concurrency", type=concurrency, default=os.cpu_count() or 1,
                   help="games at a time (default: the number of cores)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="play the games on Ray actors, locally or on the cluster at ADDRESS, as "
                        "rafle match --ray; needs Ray: " + install_command("cluster"))
    add_engine_guards(p)
    return p


def prepare(args) -> tuple[Run, Path]:
    path = Path(args.state)
    params = [parse_param(text) for text in args.param]
    names = [p.name for p in params]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise TuneError(f"--param {', '.join(twice)} given more than once")
    fixed = sorted({name for name, _ in args.option or []} & set(names))
    if fixed:
        raise TuneError(f"{', '.join(fixed)} is tuned: it cannot be fixed by --option too")
    if args.games is not None and (args.games < 2 or args.games % 2):
        raise TuneError("--games must be an even number (pairs of games, colours swapped), at least 2")
    if args.iterations is not None and args.iterations < 1:
        raise TuneError("--iterations must be at least 1")
    run = load_run(path)
    if run is None:
        return new_run(args, params), path
    check_same_run(run, args, params, path)
    return run, path


def tune(run: Run, path: Path, args, ray, out) -> int:
    total = args.iterations or run.schedule.iterations
    s = run.settings
    limit = " ".join(f"{key}={s[key]}" for key in LIMITS if s[key] is not None)
    say = lambda text: print(text, file=out, flush=True)   # noqa: E731
    say(f"tune: {' '.join(p.text() for p in run.params)}; {total} iterations of {s['games']} "
        f"games at {limit}, seed {run.seed}, schedule for {run.schedule.iterations} iterations; "
        f"{len(run.records)} played before ({path})")
    where = Counter()
    for k in range(len(run.records), total):
        draw = perturb(run.params, run.theta, k, run.seed, run.schedule)
        match = mini_match(run, draw, args)
        try:
            play(match, ray, where)
        except HeadLost as lost:
            print(f"rafle tune: {lost}: stopped in iteration {k + 1} of {total}; {path} holds "
                  f"the {len(run.records)} finished: the same command goes on", file=sys.stderr)
            return 1
        if match.error:                          # an engine that cannot start at all
            print(f"rafle tune: iteration {k + 1}: {match.error}", file=sys.stderr)
            return 1
        if match.aborted or len(match.score.results) < s["games"]:
            say(f"interrupted: iteration {k + 1} is dropped; {path} holds {len(run.records)}, "
                "and the same command goes on")
            return 0
        w, _, l = match.score.wdl()
        theta = update(run.params, run.theta, draw, (w - l) / s["games"], run.schedule)
        run.records.append(record(run, draw, match, theta))
        run.theta = theta
        save_run(run, path)
        say(iteration_line(run, run.records[-1], total))
    if where and head_answers(ray):
        say(placement(ray, where, "games played"))
    for line in ship_lines(run):
        say(line)
    return 0


def main(argv: list[str], out=None) -> int:
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    ray = started = None
    try:
        run, path = prepare(args)
        if args.ray is not None:
            ray = ray_module()
            started = connect(args.ray or None)
        return tune(run, path, args, ray, out)
    except (ValueError, OSError, ClusterError) as exc:    # TuneError, BadInput: ValueErrors
        print(f"rafle tune: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the state file holds every finished iteration; the same command "
              "goes on", file=out, flush=True)
        return 0
    finally:
        if started:
            disconnect(started)
