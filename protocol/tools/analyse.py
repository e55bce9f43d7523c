"""``rafle analyse``: game analysis as lidraughts does it, to an annotated PDN.

    rafle analyse games.pdn [more.pdn ...] --out annotated.pdn [--nodes N | --depth N |
        --movetime S] [--threads N] [--jobs N] [--ray [ADDRESS]] [--state STATE.json]
        [--html REPORT.html] [--puzzles PUZZLES] [--quiet]
    rafle analyse --fit-winprob selfplay.npz

Every position of every game is searched at the same limit; each move gets its evaluation
(``{[%eval 0.35]}``, White's side, in men), a mark by the win probability it loses (``$6``
?!, ``$2`` ?, ``$4`` ??) with the better line as a variation, and the endgame databases'
verdict where they hold the position (:mod:`protocol.analysis`).  A summary per game and
player follows: inaccuracies, mistakes, blunders, average loss and accuracy.

A game that cannot be read is refused, with its file and line, and the others analysed.
``--state`` keeps each finished game's analysis (by the hash of its text): the same command
after a stop analyses only the games not there.  Games run in ``--jobs`` processes (default:
every core), or as Ray tasks with ``--ray``.  ``--html`` writes one static page (crosstable,
evaluation graphs, mistakes, missed shots); ``--puzzles`` the missed shots as puzzles.
``--fit-winprob`` refits the win-probability curve to ``rafle selfplay --out`` data.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from engine import BadInput, Limits, Searcher, install_command
from perft.raylink import RETRIES, ClusterError, HeadWatch, connect, disconnect, ray_module

from ..about import summary, version
from ..analysis.annotate import annotated_pdn
from ..analysis.game import GameAnalysis, analyse_game, describe, puzzles
from ..analysis.report import html_report, summary_lines
from ..analysis.source import Source, read_files, read_source
from ..analysis.winprob import K, fit_file

DEFAULT_NODES = 100_000
STATE_VERSION = 1

_searcher: Searcher | None = None


def _setup(threads: int) -> None:
    """This process's searcher: no book (every position is searched), warm."""
    global _searcher
    _searcher = Searcher()
    _searcher.set_option("threads", str(threads))
    _searcher.set_option("book", "false")
    _searcher.warm_up()


def analyse_source(source: Source, limits: Limits, find_shots: bool, on_progress=None) -> dict:
    """One game's analysis as a dict (what the state file keeps), with this process's searcher."""
    game = read_source(source)
    return analyse_game(game, limits, _searcher, on_progress, find_shots=find_shots).to_dict()


def _on_processes(args, todo, limits, find_shots):
    with ProcessPoolExecutor(max_workers=args.jobs, initializer=_setup,
                             initargs=(args.threads,)) as pool:
        futures = {pool.submit(analyse_source, s, limits, find_shots): s for s in todo}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            for f in futures:
                f.cancel()


_set_up_with = None


def _ray_game(threads: int, source: Source, limits: Limits, find_shots: bool) -> dict:
    """One Ray task: a game, in a worker that sets its searcher up once."""
    global _set_up_with
    if _set_up_with != threads:
        _setup(threads)
        _set_up_with = threads
    return analyse_source(source, limits, find_shots)


def _on_ray(args, todo, limits, find_shots):
    ray = ray_module()
    started = connect(args.ray or None)
    try:
        task = ray.remote(max_retries=RETRIES)(_ray_game)
        pending = {task.remote(args.threads, s, limits, find_shots): s for s in todo}
        lost = 0
        watch = HeadWatch(ray)                   # a lost head: HeadLost, a ClusterError
        while pending:
            ready, _ = watch.wait(list(pending))
            source = pending.pop(ready[0])
            try:
                yield source, ray.get(ready[0])
            except ray.exceptions.RayError:
                lost += 1
        if lost:
            raise ClusterError(f"{lost} game{'s' if lost > 1 else ''} could not be analysed")
    finally:
        disconnect(started)


def _in_process(args, todo, limits, find_shots, bar):
    if _searcher is None:
        _setup(args.threads)
    for number, source in enumerate(todo):
        def progress(done, total, number=number):
            bar(number, done / total)
        yield source, analyse_source(source, limits, find_shots, progress)


class State:
    """The state file: each finished game's analysis by the hash of its text."""

    def __init__(self, path: str | None):
        self.path, self.games = path, {}
        if path and os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as f:
                    data = json.load(f)
                if data.get("version") != STATE_VERSION:
                    raise ValueError(f"version {data.get('version')!r}, not {STATE_VERSION}")
                self.games = data["games"]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise BadInput(f"cannot read the state file {path}: {exc}") from None

    def get(self, key: str, limits: str, shots: bool) -> dict | None:
        found = self.games.get(key)
        if found is None or found.get("limits") != limits or (shots and not found.get("shots")):
            return None
        return found["analysis"]

    def put(self, key: str, limits: str, shots: bool, analysis: dict) -> None:
        self.games[key] = {"limits": limits, "shots": shots, "analysis": analysis}
        if self.path:
            _write_atomic(self.path, json.dumps({"version": STATE_VERSION, "games": self.games}))


def _write_atomic(path: str, text: str) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _bar(quiet: bool, total: int, already: int):
    """A function (game index among those to do, share of it done) drawing the progress bar."""
    start = time.monotonic()
    shown = [""]

    def draw(index: int, share: float) -> None:
        if quiet or total == 0:
            return
        done = already + index + share
        filled = int(30 * done / total)
        text = (f"analyse: [{'#' * filled}{'.' * (30 - filled)}] {done:.1f}/{total} games, "
                f"{time.monotonic() - start:.0f} s")
        if text != shown[0]:
            shown[0] = text
            print(f"\r{text}", end="", file=sys.stderr, flush=True)
    return draw


def _limits(args) -> Limits:
    if args.movetime is not None:
        return Limits(movetime=args.movetime)
    if args.depth is not None:
        return Limits(depth=args.depth)
    return Limits(nodes=args.nodes if args.nodes is not None else DEFAULT_NODES)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle analyse", description=summary(__doc__))
    p.add_argument("files", nargs="*", metavar="FILE.pdn", help="the games to analyse")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int, help=f"nodes per position (default {DEFAULT_NODES})")
    limit.add_argument("--depth", type=int, help="depth per position")
    limit.add_argument("--movetime", type=float, metavar="S", help="seconds per position")
    p.add_argument("--threads", type=int, default=1, help="search threads per game (default 1)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="games analysed at once, one process each (default: every core)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="analyse the games as Ray tasks, on a local Ray instance or on the "
                        "cluster at ADDRESS; needs Ray: " + install_command("cluster"))
    p.add_argument("--out", metavar="OUT.pdn", help="the annotated games (PDN)")
    p.add_argument("--state", metavar="STATE.json",
                   help="keep each finished game here; the same command after a stop goes on")
    p.add_argument("--html", metavar="REPORT.html", help="a static page: crosstable, graphs, "
                                                         "mistakes, missed shots")
    p.add_argument("--puzzles", metavar="PUZZLES", help="the missed shots as puzzles (.pdn or .json)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--fit-winprob", metavar="DATA.npz",
                   help="fit the win-probability curve to `rafle selfplay --out` data and stop")
    p.add_argument("--max-games", type=int, default=None, help=argparse.SUPPRESS)   # tests: stop
    return p


def main(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.fit_winprob:
        return _fit(args.fit_winprob)
    try:
        if not args.files or not args.out:
            raise BadInput("give the games (FILE.pdn ...) and --out OUT.pdn")
        if args.jobs < 1 or args.threads < 1:
            raise BadInput("--jobs and --threads must be 1 or more")
        for name in ("nodes", "depth"):
            if getattr(args, name) is not None and getattr(args, name) < 1:
                raise BadInput(f"--{name} must be 1 or more")
        if args.movetime is not None and not args.movetime > 0:
            raise BadInput("--movetime must be more than 0")
        state = State(args.state)
    except BadInput as exc:
        print(f"rafle analyse: {exc}", file=sys.stderr)
        return 2
    limits = _limits(args)
    said = describe(limits)
    find_shots = bool(args.puzzles or args.html)
    games, refused = read_files(args.files)
    for r in refused:
        print(f"rafle analyse: refused {r}", file=sys.stderr)
    done: dict[str, dict] = {}
    todo, seen = [], set()
    for source, _ in games:
        found = state.get(source.key, said, find_shots)
        if found is not None:
            done[source.key] = found
        elif source.key not in seen:
            seen.add(source.key)
            todo.append(source)
    if args.max_games is not None:
        todo = todo[:args.max_games]
    stopped = _run(args, todo, limits, find_shots, state, done, said)
    analysed = [(source, game, GameAnalysis.from_dict(done[source.key]))
                for source, game in games if source.key in done]
    _write_outputs(args, analysed)
    for line in summary_lines([a for _, _, a in analysed]):
        print(line)
    if refused:
        print(f"refused {len(refused)} game{'s' if len(refused) > 1 else ''}:")
        for r in refused:
            print(f"  {r}")
    left = len(games) - len(analysed)
    if stopped or left:
        print(f"{left} game{'s' if left != 1 else ''} not analysed yet"
              + (": run the same command to go on" if args.state else ""), file=sys.stderr)
    return 0 if analysed else 1


def _run(args, todo, limits, find_shots, state, done, said) -> bool:
    """Analyse ``todo``, each finished game kept in ``done`` and the state; True if stopped."""
    bar = _bar(args.quiet, len(todo), 0)
    if args.ray is not None:
        finished = _on_ray(args, todo, limits, find_shots)
    elif args.jobs > 1 and len(todo) > 1:
        finished = _on_processes(args, todo, limits, find_shots)
    else:
        finished = _in_process(args, todo, limits, find_shots, bar)
    count = 0
    try:
        for source, analysis in finished:
            done[source.key] = analysis
            state.put(source.key, said, find_shots, analysis)
            count += 1
            bar(count, 0.0)
    except KeyboardInterrupt:
        finished.close()
        print("\nrafle analyse: interrupted", file=sys.stderr)
        return True
    except ClusterError as exc:
        print(f"\nrafle analyse: {exc}", file=sys.stderr)
        return True
    finally:
        if not args.quiet and todo:
            print(file=sys.stderr)
    return False


def _write_outputs(args, analysed) -> None:
    annotator = f"Rafle {version()}"
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("".join(annotated_pdn(game, a, annotator) for _, game, a in analysed))
    if args.html:
        with open(args.html, "w", encoding="utf-8") as f:
            f.write(html_report([a for _, _, a in analysed]))
    if args.puzzles:
        from ..analysis.puzzles import Puzzle, verify_puzzle, write_puzzles
        found = [Puzzle(**p) for _, game, a in analysed for p in puzzles(game.game(), a)]
        searcher = Searcher()
        kept = [p for p in found if verify_puzzle(p, searcher) is None]
        write_puzzles(kept, args.puzzles)
        if not args.quiet:
            print(f"puzzles: {len(kept)} of {len(found)} missed shots verified (unique, forced, "
                  f"confirmed by a deeper search or the databases), in {args.puzzles}")


def _fit(path: str) -> int:
    try:
        fit = fit_file(path)
    except (OSError, ValueError, KeyError) as exc:
        print(f"rafle analyse: cannot fit {path}: {exc}", file=sys.stderr)
        return 2
    print(f"{path}: k = {fit.k:.1f} from {fit.positions} positions ({100 * fit.draws:.0f}% "
          f"of them from drawn games); mean log loss {fit.log_loss:.5f} "
          f"(k 200: {fit.log_loss_default:.5f}); shipped k = {K:.1f}")
    return 0
