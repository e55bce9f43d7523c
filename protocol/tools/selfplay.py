"""``rafle selfplay``: games of Rafle against itself, kept as training positions.

    rafle selfplay --store data/selfplay/international --seed next --games 100 --nodes 3000
    rafle selfplay --games 2000 --nodes 3000 --out selfplay.npz [--jobs 2] [--seed 1]
    rafle selfplay --games 200000 --nodes 20000 --out runs/big [--ray]   # resumable

Each game starts from one of the variant's balanced openings (the match runner's built-in
sets: international, Russian, English, Frisian; the start position in other variants), then ``--random-plies`` random moves for variety,
then Rafle plays both sides at a fixed node budget per move (deterministic for a seed).
Every position where neither side has a capture pending (a quiet position: the static
evaluation means something there) is kept with the search's score and the game's result,
both from White's side.  Games run in ``--jobs`` processes (default: every core), or as
Ray tasks with ``--ray``, in chunks, with a progress line on stderr.

``--store DIR`` adds the games to a game store (:mod:`.gamestore`): the training set kept in
the repository (``data/selfplay/VARIANT/``, see its README), a few bytes a position.  Each block
of ``STORE_CHUNK`` games is written as it completes, as one ``chunk-<seed>-<first>.rgs`` file
holding the games themselves (start, moves as indices in ``legal_moves`` order, the score of
every searched ply, result) and a header (command, seed, build, settings, sha256).  The store
holds many seeds: ``--seed next`` starts a new one; the same command with the same seed plays
only the games of the seed the store lacks (resumable), and refuses other settings for it.

The ``--out`` output is one ``.npz`` of arrays: ``white``, ``black``, ``kings`` (bitboards as the
kernels take them, signed 64-bit), ``turn``, ``score`` (hundredths of a man, White's
side; ``MATE_SCORE`` clipped),
``result`` (2 White won, 1 draw, 0 Black won), ``ply``, ``game``; and ``variant``,
``nodes``, ``seed``.  ``rafle train`` reads it; a store's games replay to the same arrays.

An ``--out`` that does not end in ``.npz`` is a directory, for long runs: each chunk of
games is written there as it finishes (``chunk-0000120.npz``: games 120 on, the same
arrays), with the run's settings in ``run.json``.  Run the same command again after a
stop (or with more ``--games``) and it plays only the chunks that are not there; other
settings for the same directory are refused.  ``rafle train --data DIR`` reads every chunk.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

from engine import (VARIANTS, BadInput, Game, Limits, install_command, Searcher, get_variant,
                    legal_moves, pos_to_fen)
from perft.raylink import (RETRIES, ClusterError, HeadLost, HeadWatch, connect, disconnect,
                           head_answers, node_id, placement, ray_module)

from ..about import summary
from .gamestore import FIELDS, GameRecord, Store, clip, quiet, write_atomic
from .match.openings import builtin, parse_opening

MAX_PLIES = 400
CHUNK = 10             # games a task plays
STORE_CHUNK = 100      # games a game store chunk file holds (--store)

_searcher: Searcher | None = None


def _setup(evaluation: str, weights_path: str | None) -> None:
    global _searcher
    _searcher = Searcher(18)
    _searcher.set_option("eval", evaluation)
    if weights_path:
        _searcher.set_option("weights", weights_path)
    _searcher.warm_up()


def _push(game: Game, move, indices: list[int]) -> None:
    """Play ``move``, noting its index in ``legal_moves`` order (the game store's move)."""
    indices.append(legal_moves(game.position).index(move))
    game.push(move)


def play_games(variant_name: str, first: int, count: int, seed: int, nodes: int,
               random_plies: int, openings: list[str]) -> dict[str, list]:
    """Play games ``first .. first+count-1``; their quiet positions as lists (``FIELDS``),
    and the games as the store keeps them (``records``: :class:`GameRecord` each)."""
    variant = get_variant(variant_name)
    out = {k: [] for k in FIELDS}
    out["count"], out["first"], out["records"] = count, first, []
    for number in range(first, first + count):
        rng = random.Random(seed * 1_000_003 + number)
        game = Game(None, variant)
        indices: list[int] = []
        if openings:
            for move in parse_opening(rng.choice(openings), variant).moves:
                _push(game, move, indices)
        for _ in range(random_plies):
            moves = game.legal_moves()
            if not moves or game.outcome() is not None:
                break
            _push(game, rng.choice(moves), indices)
        lead = len(game.moves)
        _searcher.new_game()
        kept, scores = [], []
        while game.outcome() is None and len(game.moves) < MAX_PLIES:
            pos = game.position
            result = _searcher.search(pos, game.history(), Limits(nodes=nodes))
            if result.move is None:
                break
            moves = legal_moves(pos)
            score = None if result.score is None else clip(
                result.score if pos.turn == 0 else -result.score)
            if score is not None and quiet(pos, moves):
                kept.append((pos, score, len(game.moves)))
            scores.append(score)
            _push(game, result.move, indices)
        outcome = game.outcome()
        result = 1 if outcome is None or outcome.winner is None else (2 if outcome.winner == 0 else 0)
        for pos, score, ply in kept:
            white, black, kings, turn = pos.words     # signed: Turkish's h1 is bit 63
            out["white"].append(white)
            out["black"].append(black)
            out["kings"].append(kings)
            out["turn"].append(turn)
            out["score"].append(score)
            out["result"].append(result)
            out["ply"].append(ply)
            out["game"].append(number)
        out["records"].append(GameRecord(number, pos_to_fen(game.start), lead, tuple(indices),
                                         tuple(scores), result))
    return out


def _on_processes(args, chunks):
    """The chunks' results as they finish, from ``--jobs`` local processes."""
    with ProcessPoolExecutor(max_workers=max(1, args.jobs), initializer=_setup,
                             initargs=(args.eval, args.weights)) as pool:
        futures = [pool.submit(play_games, *chunk) for chunk in chunks]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            for f in futures:
                f.cancel()


_set_up_with = None


def _ray_chunk(setup: tuple, chunk: tuple) -> tuple[dict[str, list], str]:
    """One Ray task: a chunk of games, in a worker that sets its searcher up once; and the
    node it ran on."""
    global _set_up_with
    if _set_up_with != setup:
        _setup(*setup)
        _set_up_with = setup
    return play_games(*chunk), node_id()


def _on_ray(args, chunks):
    """The chunks' results as they finish, from Ray tasks (a local Ray instance, or the
    cluster at ``--ray ADDRESS``).  A task whose worker dies is played again (up to
    ``RETRIES`` times); a chunk still missing after that ends the run with ClusterError, a lost
    head with HeadLost.  The last line says which nodes played the chunks."""
    ray = ray_module()
    started = connect(args.ray or None)
    try:
        task = ray.remote(max_retries=RETRIES)(_ray_chunk)
        pending = [task.remote((args.eval, args.weights), chunk) for chunk in chunks]
        lost = 0
        where = Counter()
        watch = HeadWatch(ray)
        while pending:
            ready, pending = watch.wait(pending)
            try:
                part, node = ray.get(ready[0])
            except ray.exceptions.RayError:
                lost += 1
                continue
            where[node] += 1
            yield part
        if where and not args.quiet and head_answers(ray):
            print("\n" + placement(ray, where, "chunks played"), end="", file=sys.stderr)
        if lost:
            raise ClusterError(f"{lost} chunk{'s' if lost > 1 else ''} of {CHUNK} games could not "
                               f"be played")
    finally:
        disconnect(started)


VARIANT_HELP = "the variant (default international): " + ", ".join(VARIANTS)


def _seed(text: str) -> int | str:
    if text == "next":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a seed: {text!r} (a number, or next)") from None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle selfplay", description=summary(__doc__))
    p.add_argument("--variant", default="international", help=VARIANT_HELP)
    p.add_argument("--games", type=int, default=100,
                   help="games to play (default 100; with --store, the games of the seed)")
    p.add_argument("--nodes", type=int, default=3000, help="search nodes per move (default 3000)")
    p.add_argument("--random-plies", type=int, default=4,
                   help="random moves after the opening (default 4)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes (default: every core)")
    p.add_argument("--seed", type=_seed, default=1,
                   help="seed of the random plies: the same seed plays the same games (default "
                        "1); with --store, next is one more than the largest seed there")
    p.add_argument("--eval", choices=("learned", "hand"), default="learned",
                   help="the evaluation that plays (default learned where weights exist)")
    p.add_argument("--weights", default=None, help="play with this weight file")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", help="the .npz file to write, or a directory: a resumable run, "
                                     "a file a chunk")
    where.add_argument("--store", metavar="DIR",
                       help="add the games to the game store DIR (data/selfplay/VARIANT): "
                            f"compact .rgs files of {STORE_CHUNK} games, resumable by seed")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="play the chunks of games as Ray tasks, on a local Ray instance or on "
                        "the cluster at ADDRESS; needs Ray: " + install_command("cluster"))
    p.add_argument("--quiet", action="store_true", help="no progress line")
    return p


def main(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        variant = get_variant(args.variant)
        if not 1 <= args.games <= 10_000_000 or not 1 <= args.nodes <= 10 ** 9:
            raise BadInput("--games and --nodes must be positive")
        if args.seed == "next" and args.store is None:
            raise BadInput("--seed next is the next seed of a --store")
        openings = []
        if builtin(variant) is not None:
            openings = [line.split("#", 1)[0].strip() for line in
                        builtin(variant).read_text(encoding="utf-8").splitlines()]
            openings = [o for o in openings if o]
        if args.store is not None:
            return _play_store(args, variant.name, openings, argv)
        run = _Run(args, variant.name) if not args.out.endswith(".npz") else None
    except (BadInput, ClusterError) as exc:
        print(f"rafle selfplay: {exc}", file=sys.stderr)
        return 2
    start = time.monotonic()
    parts = []
    tasks = _tasks(variant.name, [(0, args.games)], args.seed, args, openings)
    if run is not None:
        tasks = [t for t in tasks if not run.has(t[1], t[2])]
    try:
        positions, lost = _drive(args, tasks, run.write if run else parts.append,
                                 "run the same command to go on" if run else None)
    except ClusterError as exc:
        print(f"rafle selfplay: {exc}", file=sys.stderr)
        return 2
    if run is not None:
        if lost:
            return 1
        print(f"{args.out}: {positions} positions from {len(tasks)} chunks played now; "
              f"{run.count()} chunk files in all, {time.monotonic() - start:.0f} s")
        return 0
    data = _arrays(parts)
    np.savez_compressed(args.out, **data, variant=variant.name, nodes=args.nodes, seed=args.seed)
    print(f"wrote {args.out}: {len(data['white'])} positions from "
          f"{len(set(data['game'].tolist())) if lost else args.games} games "
          f"in {time.monotonic() - start:.0f} s")
    return 1 if lost else 0


def _tasks(variant: str, blocks: list[tuple[int, int]], seed: int, args, openings) -> list[tuple]:
    """The tasks (``play_games``'s arguments) of the blocks of games (first, count): ``CHUNK``
    games each."""
    return [(variant, first, min(CHUNK, start + count - first), seed, args.nodes,
             args.random_plies, openings)
            for start, count in blocks for first in range(start, start + count, CHUNK)]


def _drive(args, tasks: list[tuple], take, resume: str | None) -> tuple[int, bool]:
    """Play ``tasks``, handing each finished part to ``take``, with a progress line; the
    positions played, and whether the Ray head was lost (said in one line).  ``resume`` says
    how to go on after a stop, for a run kept on disk as it goes (None: the parts taken are
    written at the end).  A ClusterError with nothing taken (or no run on disk) is raised."""
    start = time.monotonic()
    already = args.games - sum(t[2] for t in tasks)     # games of chunks on disk
    done, positions, taken = already, 0, 0
    finished = _on_ray(args, tasks) if args.ray is not None else _on_processes(args, tasks)
    try:
        for part in finished:
            take(part)
            taken += 1
            done += part["count"]
            positions += len(part["white"])
            if not args.quiet:
                rate = (done - already) / max(time.monotonic() - start, 1e-9)
                print(f"\rselfplay: {min(done, args.games)}/{args.games} games, {positions} "
                      f"positions, {rate:.1f} games/s", end="", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        finished.close()
        print("\nrafle selfplay: interrupted; " + (f"the chunks finished are on disk: {resume}"
              if resume else "writing the games finished"), file=sys.stderr)
    except HeadLost as lost:
        print(("" if args.quiet else "\n") + f"rafle selfplay: {lost}: stopped after "
              f"{min(done, args.games)} of {args.games} games; " + (
                  f"the chunks finished are on disk: {resume}" if resume else
                  "writing the games finished"), file=sys.stderr)
        return positions, True
    except ClusterError as exc:
        if resume is None and not taken:
            raise
        print(f"\nrafle selfplay: {exc}; " + ("the chunks finished are on disk" if resume else
                                               "writing the games finished"), file=sys.stderr)
    if not args.quiet:
        print(file=sys.stderr)
    return positions, False


def _play_store(args, variant: str, openings: list[str], argv: list[str]) -> int:
    """``--store DIR``: play the games of the seed that the store lacks, writing a chunk file
    (:mod:`.gamestore`) as each block of ``STORE_CHUNK`` games completes."""
    start = time.monotonic()
    store = Store(args.store)
    seed = store.next_seed() if args.seed == "next" else args.seed
    if seed < 0:
        raise BadInput("a game store's seeds are 0 or more")
    settings = {"variant": variant, "nodes": args.nodes, "random_plies": args.random_plies,
                "eval": args.eval, "weights": args.weights}
    blocks = _missing(args.games, store.covered(seed, settings))
    header = dict(settings, seed=seed, command=shlex.join(["rafle", "selfplay", *argv]))
    block_of = {t[1]: first for first, count in blocks
                for t in _tasks(variant, [(first, count)], seed, args, openings)}
    size, waiting = dict(blocks), {first: [] for first, _ in blocks}
    kept = [0, 0]                       # games and positions written to the store

    def take(part: dict) -> None:
        first = block_of[part["first"]]
        waiting[first].append(part)
        parts = waiting[first]
        if sum(p["count"] for p in parts) == size[first]:
            del waiting[first]
            records = sorted((r for p in parts for r in p["records"]), key=lambda r: r.number)
            positions = sum(len(p["white"]) for p in parts)
            store.write(records, dict(header, first=first, positions=positions))
            kept[0] += len(records)
            kept[1] += positions

    _, lost = _drive(args, _tasks(variant, blocks, seed, args, openings), take,
                     f"run it again with --seed {seed} to go on")
    if lost:
        return 1
    chunks, games, total = store.totals()
    played, positions = kept           # an interrupted run counts only its whole chunks
    print(f"{args.store}: {positions} positions from {played} game{'s' * (played != 1)} of seed "
          f"{seed} played now; {chunks} chunk files, {games} games, {total} positions in all, "
          f"{time.monotonic() - start:.0f} s")
    return 0


def _missing(games: int, covered: set[int]) -> list[tuple[int, int]]:
    """The blocks (first, count) of games ``0 .. games-1`` not in ``covered``: runs of
    missing games, cut at multiples of ``STORE_CHUNK``."""
    blocks: list[list[int]] = []
    for number in range(games):
        if number in covered:
            continue
        if blocks and blocks[-1][0] + blocks[-1][1] == number and number % STORE_CHUNK:
            blocks[-1][1] += 1
        else:
            blocks.append([number, 1])
    return [tuple(b) for b in blocks]


def _arrays(parts: list[dict]) -> dict[str, np.ndarray]:
    """The parts' positions as arrays, in game and ply order."""
    data = {k: np.concatenate([np.asarray(p[k], dtype=np.int64) for p in parts]) if parts
            else np.zeros(0, dtype=np.int64) for k in FIELDS}
    order = np.lexsort((data["ply"], data["game"]))
    return {k: v[order] for k, v in data.items()}


class _Run:
    """A resumable run's directory: ``run.json`` (its settings) and a file a chunk."""

    def __init__(self, args, variant: str):
        self.dir = args.out
        self.variant, self.nodes, self.seed = variant, args.nodes, args.seed
        self.settings = {"variant": variant, "nodes": args.nodes, "seed": args.seed,
                         "random_plies": args.random_plies, "eval": args.eval,
                         "weights": args.weights, "chunk": CHUNK}
        try:
            os.makedirs(self.dir, exist_ok=True)
            path = os.path.join(self.dir, "run.json")
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    before = json.load(f)
                differ = sorted(k for k in self.settings if before.get(k) != self.settings[k])
                if differ:
                    raise BadInput(f"{self.dir} holds a run with other settings ("
                                   + ", ".join(f"{k} {before.get(k)!r}" for k in differ)
                                   + "): use another directory")
            else:
                write_atomic(path, lambda f: f.write(json.dumps(self.settings).encode()))
        except (OSError, ValueError, AttributeError) as exc:
            raise BadInput(f"cannot use {self.dir} for the run: {exc}") from None

    def _path(self, first: int) -> str:
        return os.path.join(self.dir, f"chunk-{first:07d}.npz")

    def has(self, first: int, count: int) -> bool:
        """The chunk of ``count`` games from ``first`` is on disk whole."""
        try:
            with np.load(self._path(first), allow_pickle=False) as data:
                return int(data["count"]) == count
        except (OSError, ValueError, KeyError):
            return False

    def write(self, part: dict) -> None:
        data = _arrays([part])
        write_atomic(self._path(part["first"]), lambda f: np.savez_compressed(
            f, **data, variant=self.variant, nodes=self.nodes, seed=self.seed,
            count=part["count"]))

    def count(self) -> int:
        return len(chunk_files(self.dir))


def chunk_files(directory: str) -> list[str]:
    """A run directory's whole chunk files, sorted (a stopped write's ``.tmp`` is not one)."""
    return sorted(n for n in os.listdir(directory) if n.startswith("chunk-") and n.endswith(".npz"))
