"""``rafle selfplay``: games of Rafle against itself, kept as training positions.

    rafle selfplay --games 2000 --nodes 3000 --out selfplay.npz [--jobs 2] [--seed 1]
    rafle selfplay --games 200000 --nodes 20000 --out runs/big [--ray]   # resumable

Each game starts from one of the variant's balanced openings (the match runner's built-in
sets: international, Russian, English, Frisian; the start position in other variants), then ``--random-plies`` random moves for variety,
then Rafle plays both sides at a fixed node budget per move (deterministic for a seed).
Every position where neither side has a capture pending (a quiet position: the static
evaluation means something there) is kept with the search's score and the game's result,
both from White's side.  Games run in ``--jobs`` processes (default: every core), or as
Ray tasks with ``--ray``, in chunks, with a progress line on stderr.

The output is one ``.npz`` of arrays: ``white``, ``black``, ``kings`` (bitboards as the
kernels take them, signed 64-bit), ``turn``, ``score`` (hundredths of a man, White's
side; ``MATE_SCORE`` clipped),
``result`` (2 White won, 1 draw, 0 Black won), ``ply``, ``game``; and ``variant``,
``nodes``, ``seed``.  ``rafle train`` reads it.

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
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

from engine import (VARIANTS, BadInput, Game, Limits, install_command, Position, Searcher,
                    get_variant, legal_moves)
from perft.raylink import RETRIES, ClusterError, connect, disconnect, ray_module

from ..about import summary
from .match.openings import builtin, parse_opening

MAX_PLIES = 400
CLIP = 2000            # scores beyond (won or lost games) are kept at this size
CHUNK = 10             # games a task plays
FIELDS = ("white", "black", "kings", "turn", "score", "result", "ply", "game")


def quiet(pos: Position) -> bool:
    """Neither the side to move nor the other side has a capture."""
    if any(m.captured for m in legal_moves(pos)):
        return False
    other = Position(pos.white, pos.black, pos.kings, 1 - pos.turn, pos.variant)
    return not any(m.captured for m in legal_moves(other))


_searcher: Searcher | None = None


def _setup(evaluation: str, weights_path: str | None) -> None:
    global _searcher
    _searcher = Searcher(18)
    _searcher.set_option("eval", evaluation)
    if weights_path:
        _searcher.set_option("weights", weights_path)
    _searcher.warm_up()


def play_games(variant_name: str, first: int, count: int, seed: int, nodes: int,
               random_plies: int, openings: list[str]) -> dict[str, list]:
    """Play games ``first .. first+count-1``; their quiet positions as lists."""
    variant = get_variant(variant_name)
    out = {k: [] for k in FIELDS}
    out["count"], out["first"] = count, first
    for number in range(first, first + count):
        rng = random.Random(seed * 1_000_003 + number)
        game = Game(None, variant)
        if openings:
            for move in parse_opening(rng.choice(openings), variant).moves:
                game.push(move)
        for _ in range(random_plies):
            moves = game.legal_moves()
            if not moves or game.outcome() is not None:
                break
            game.push(rng.choice(moves))
        _searcher.new_game()
        kept = []
        while game.outcome() is None and len(game.moves) < MAX_PLIES:
            pos = game.position
            result = _searcher.search(pos, game.history(), Limits(nodes=nodes))
            if result.move is None:
                break
            if result.score is not None and quiet(pos):
                white_score = result.score if pos.turn == 0 else -result.score
                kept.append((pos, max(-CLIP, min(CLIP, white_score)), len(game.moves)))
            game.push(result.move)
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


def _ray_chunk(setup: tuple, chunk: tuple) -> dict[str, list]:
    """One Ray task: a chunk of games, in a worker that sets its searcher up once."""
    global _set_up_with
    if _set_up_with != setup:
        _setup(*setup)
        _set_up_with = setup
    return play_games(*chunk)


def _on_ray(args, chunks):
    """The chunks' results as they finish, from Ray tasks (a local Ray instance, or the
    cluster at ``--ray ADDRESS``).  A task whose worker dies is played again (up to
    ``RETRIES`` times); a chunk still missing after that ends the run with ClusterError."""
    ray = ray_module()
    started = connect(args.ray or None)
    try:
        task = ray.remote(max_retries=RETRIES)(_ray_chunk)
        pending = [task.remote((args.eval, args.weights), chunk) for chunk in chunks]
        lost = 0
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            try:
                yield ray.get(ready[0])
            except ray.exceptions.RayError:
                lost += 1
        if lost:
            raise ClusterError(f"{lost} chunk{'s' if lost > 1 else ''} of {CHUNK} games could not "
                               f"be played")
    finally:
        disconnect(started)


VARIANT_HELP = "the variant (default international): " + ", ".join(VARIANTS)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle selfplay", description=summary(__doc__))
    p.add_argument("--variant", default="international", help=VARIANT_HELP)
    p.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    p.add_argument("--nodes", type=int, default=3000, help="search nodes per move (default 3000)")
    p.add_argument("--random-plies", type=int, default=4,
                   help="random moves after the opening (default 4)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes (default: every core)")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the random plies: the same seed plays the same games (default 1)")
    p.add_argument("--eval", choices=("learned", "hand"), default="learned",
                   help="the evaluation that plays (default learned where weights exist)")
    p.add_argument("--weights", default=None, help="play with this weight file")
    p.add_argument("--out", required=True,
                   help="the .npz file to write, or a directory: a resumable run, a file a chunk")
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
        openings = []
        if builtin(variant) is not None:
            openings = [line.split("#", 1)[0].strip() for line in
                        builtin(variant).read_text(encoding="utf-8").splitlines()]
            openings = [o for o in openings if o]
    except BadInput as exc:
        print(f"rafle selfplay: {exc}", file=sys.stderr)
        return 2
    try:
        run = _Run(args, variant.name) if not args.out.endswith(".npz") else None
    except BadInput as exc:
        print(f"rafle selfplay: {exc}", file=sys.stderr)
        return 2
    start = time.monotonic()
    parts = []
    chunks = [(variant.name, first, min(CHUNK, args.games - first), args.seed, args.nodes,
               args.random_plies, openings) for first in range(0, args.games, CHUNK)]
    if run is not None:
        chunks = [c for c in chunks if not run.has(c[1], c[2])]
    already = args.games - sum(c[2] for c in chunks)     # games of chunks on disk
    done, positions = already, 0
    finished = _on_ray(args, chunks) if args.ray is not None else _on_processes(args, chunks)
    try:
        for part in finished:
            if run is not None:
                run.write(part)
            else:
                parts.append(part)
            done += part["count"]
            positions += len(part["white"])
            if not args.quiet:
                rate = (done - already) / max(time.monotonic() - start, 1e-9)
                print(f"\rselfplay: {min(done, args.games)}/{args.games} games, {positions} "
                      f"positions, {rate:.1f} games/s", end="", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        finished.close()
        print("\nrafle selfplay: interrupted; " + ("the chunks finished are on disk: run the "
              "same command to go on" if run else "writing the games finished"),
              file=sys.stderr)
    except ClusterError as exc:
        if run is None and not parts:
            print(f"rafle selfplay: {exc}", file=sys.stderr)
            return 2
        print(f"\nrafle selfplay: {exc}; " + ("the chunks finished are on disk" if run else
                                               "writing the games finished"), file=sys.stderr)
    if not args.quiet:
        print(file=sys.stderr)
    if run is not None:
        print(f"{args.out}: {positions} positions from {len(chunks)} chunks played now; "
              f"{run.count()} chunk files in all, {time.monotonic() - start:.0f} s")
        return 0
    data = _arrays(parts)
    np.savez_compressed(args.out, **data, variant=variant.name, nodes=args.nodes, seed=args.seed)
    print(f"wrote {args.out}: {len(data['white'])} positions from {args.games} games "
          f"in {time.monotonic() - start:.0f} s")
    return 0


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
                _atomic(path, lambda f: f.write(json.dumps(self.settings).encode()))
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
        _atomic(self._path(part["first"]), lambda f: np.savez_compressed(
            f, **data, variant=self.variant, nodes=self.nodes, seed=self.seed,
            count=part["count"]))

    def count(self) -> int:
        return len(chunk_files(self.dir))


def chunk_files(directory: str) -> list[str]:
    """A run directory's whole chunk files, sorted (a stopped write's ``.tmp`` is not one)."""
    return sorted(n for n in os.listdir(directory) if n.startswith("chunk-") and n.endswith(".npz"))


def _atomic(path: str, write) -> None:
    """Write ``path`` through a temporary file renamed over it: a stop leaves the old
    file or the new one, never half of one."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        write(f)
    os.replace(tmp, path)
