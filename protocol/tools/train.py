"""``rafle train``: fit the learned evaluation to self-play positions and write its weights.

    rafle train --data data/selfplay/international --out weights-international.npz
    rafle train --data selfplay.npz [more.npz runs/big ...] --out weights-international.npz

The data are what ``rafle selfplay`` writes: ``.npz`` files of positions, run directories of
``.npz`` chunks, and game store chunks (``.rgs``, :mod:`.gamestore`) or store directories, whose
games are replayed into the same positions.  A store chunk of a directory that does not read
back whole is skipped with a line on stderr naming it; a file named alone that does not read is
an error.  Games of different files are numbered apart.

Targets, from White's side: ``lambda * sigmoid(score / K) + (1 - lambda) * result``, the
search's score and the game's result (1, 1/2, 0) blended; ``--lambda 1`` fits scores only, ``0``
results only; with ``--score-nodes N`` the score enters only in games searched with N nodes a
move or more, the others' target being their result.  Whole games are held out for validation
(``--valid``), so a game's positions never sit on both sides.  Which games are held out depends
only on each game (its file's name and its number there) and ``--seed``, not on the rest of the
data: as the kept set grows, a game held out once stays held out, so weights fitted on a smaller
set never saw the games a later fit from them is judged on.  Each epoch prints the training and
validation losses (mean squared error of the predicted result); the weights of the fitted epoch
with the lowest validation loss are written, as :mod:`engine.weights` reads them.  Fixed seeds
make a run repeatable.  The fitting itself is :mod:`engine.learn`.
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
import zlib

import numpy as np

from engine import RECT_ALONE, RECT_PLUS, BadInput, get_variant
from engine import (Fit, eval_tables, expected_result, extract_features, to_rectangles,
                    weight_block, widen)

from ..about import summary
from . import coverage, gamestore
from .selfplay import chunk_files


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle train", description=summary(__doc__))
    p.add_argument("--data", nargs="+", required=True,
                   help="rafle selfplay files (.npz), run directories (every chunk in them), game "
                        "store chunks (.rgs) or store directories (data/selfplay/VARIANT)")
    p.add_argument("--out", help="the weight file to write (.npz; not with --coverage)")
    p.add_argument("--version", default=None, help="a name for these weights (default: file name)")
    p.add_argument("--epochs", type=int, default=12,
                   help="passes over the training positions (default 12; 0 writes the start: the "
                        "--init weights under a new version, with their loss on these positions)")
    p.add_argument("--lambda", dest="blend", type=float, default=0.5,
                   help="share of the search score in the target (default 0.5)")
    p.add_argument("--score-nodes", type=int, default=0, metavar="N",
                   help="the search's score enters the target (--lambda) only in games searched "
                        "with N nodes a move or more, as each file records it; the others are "
                        "fitted to their result alone (default 0: every game)")
    p.add_argument("--k", type=float, default=200.0,
                   help="score (hundredths of a man) of a 73%% expected result (default 200)")
    p.add_argument("--lr", type=float, default=10.0, help="AdaGrad step (default 10)")
    p.add_argument("--l2", type=float, default=1e-6,
                   help="L2 penalty of pattern weights (default 1e-6: 1e-4 cost 0.002 of validation loss)")
    p.add_argument("--valid", type=float, default=0.05, help="share of games held out")
    p.add_argument("--sample", type=float, default=1.0, metavar="SHARE",
                   help="keep this share of each game's positions, chosen by the game and the "
                        "position's place in it (default 1: all): a set of many games in less "
                        "memory, each game still counted")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the held-out games and of the order of positions (default 1)")
    p.add_argument("--init", metavar="WEIGHTS",
                   help="start from this weight file (a related variant's, the same board size) "
                        "instead of the hand evaluation")
    p.add_argument("--odd-windows", action="store_true",
                   help="the richer model: a second family of 4x4 windows, at odd columns, "
                        "overlapping the first (diagonal boards; kept when --init has it; "
                        "from --init without it, its windows start at zero)")
    p.add_argument("--rectangles", action="store_true",
                   help="the rectangles of 12 squares (4 columns by 6 rows, 3^12 contents each, 8 "
                        "on 10x10) instead of the 4x4 windows (diagonal boards; kept when --init "
                        "has them; from --init without them, its dense and kings' weights are "
                        "kept and the rectangles start at zero)")
    p.add_argument("--rectangles-too", action="store_true",
                   help="the rectangles of 12 squares after the first family of 4x4 windows, both "
                        "read (diagonal boards; kept when --init has them; from --init without "
                        "them, its windows, dense and kings' weights are kept and the rectangles "
                        "start at zero)")
    p.add_argument("--pip-phase", action="store_true",
                   help="blend the opening and endgame weights by the rows the men still have to "
                        "go (Scan's pip count) instead of by the pieces left (kept when --init "
                        "has it)")
    p.add_argument("--quiet", action="store_true", help="no line per epoch")
    p.add_argument("--coverage", nargs="+", metavar="GAMES.pdn",
                   help="instead of fitting: how often the training positions held the window "
                        "contents (--rectangles: the rectangles') of these games' quiet positions, "
                        "against the held-out games (protocol/tools/coverage.py)")
    p.add_argument("--coverage-plies", default="0-999", metavar="A-B",
                   help="--coverage: the plies of each game counted (default %(default)s)")
    return p


def _parts(paths: list[str]):
    """(path, variant, positions) of each file named, a directory standing for its chunks:
    a run's ``.npz`` chunks and a game store's ``.rgs`` chunks (one that does not read back
    whole is skipped, with a line on stderr)."""
    for path in paths:
        if not os.path.isdir(path):
            yield path, *(gamestore.load_chunk(path) if path.endswith(gamestore.SUFFIX)
                          else _read_npz(path))
            continue
        npz, store = chunk_files(path), gamestore.chunk_names(path)
        if not npz and not store:
            raise BadInput(f"{path} holds no self-play chunks")
        for name in npz:
            yield os.path.join(path, name), *_read_npz(os.path.join(path, name))
        yield from gamestore.read_store(path)


def _read_npz(path: str) -> tuple[str, dict[str, np.ndarray]]:
    try:
        with np.load(path, allow_pickle=False) as data:
            return str(data["variant"]), {k: np.asarray(data[k]) for k in
                                          ("white", "black", "kings", "turn", "score", "result",
                                           "game", "ply") if k != "ply" or k in data}
    except (OSError, ValueError, KeyError) as exc:
        raise BadInput(f"cannot read self-play file {path}: {exc}") from None


def load(paths: list[str], sample: float = 1.0) -> tuple[str, dict[str, np.ndarray]]:
    """The positions of every file (one variant), games renumbered apart; ``key`` names each
    position's game by its file's name and its number there (:func:`held_out`); with
    ``sample`` below 1, that share of each file's positions (:func:`sampled`)."""
    parts, variant, offset = [], None, 0
    for path, name, part in _parts(paths):
        if variant is not None and name != variant:
            raise BadInput(f"{path} holds {name} games, the others {variant}")
        variant = name
        part = {k: part[k] for k in ("white", "black", "kings", "turn", "score", "result", "game")}
        part["nodes"] = np.full(len(part["white"]), _nodes(path), dtype=np.int64)
        part["key"] = game_keys(os.path.basename(path), part["game"])
        if sample < 1.0:
            keep = sampled(part["key"], part["game"], sample)
            part = {k: a[keep] for k, a in part.items()}
        part["game"] = part["game"] + offset
        offset = int(part["game"].max()) + 1 if len(part["game"]) else offset
        parts.append(part)
    if not parts or not sum(len(p["white"]) for p in parts):
        raise BadInput("no positions in the data")
    return variant, {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _nodes(path: str) -> int:
    """The nodes a move of a file's games as it records them (a store chunk's header, a
    selfplay file's ``nodes``); a file that does not say, or searched without a node limit
    (0), counts as searched deeper than any ``--score-nodes``."""
    try:
        if path.endswith(gamestore.SUFFIX):
            nodes = int(gamestore.read_header(path).get("nodes") or 0)
        else:
            with np.load(path, allow_pickle=False) as data:
                nodes = int(data["nodes"]) if "nodes" in data else 0
    except (OSError, ValueError, TypeError, KeyError):
        nodes = 0
    return nodes or np.iinfo(np.int64).max


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: 64 well-spread bits from each of ``x`` (uint64, wrapping)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def game_keys(file_name: str, games: np.ndarray) -> np.ndarray:
    """A 64-bit name for each game numbered ``games`` in the file ``file_name``."""
    salt = np.uint64(zlib.crc32(file_name.encode()) << 32)
    return _mix(np.asarray(games).astype(np.uint64) ^ salt)


def sampled(keys: np.ndarray, games: np.ndarray, share: float) -> np.ndarray:
    """Which positions ``--sample share`` keeps: each drawn by its game's key and its place
    among that game's positions, so a position is kept or not whatever else is read."""
    order = np.argsort(games, kind="stable")
    ordered = games[order]
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    place = np.empty(len(games), dtype=np.uint64)
    place[order] = np.arange(len(games)) - np.repeat(first, np.diff(np.r_[first, len(games)]))
    draw = _mix(keys ^ _mix(place + np.uint64(0x9E3779B97F4A7C15)))
    return draw < np.uint64(min(int(share * 2.0 ** 64), 2 ** 64 - 1))


def held_out(keys: np.ndarray, seed: int, share: float, one: bool = True) -> np.ndarray:
    """Which positions' games are held out: ``share`` of the games, chosen by each game's
    key and ``seed`` alone (``one``: at least one game, the one whose draw is lowest)."""
    salt = _mix(np.array([seed % 2 ** 64], dtype=np.uint64))[0]
    draw = _mix(keys ^ salt)
    held = draw < np.uint64(min(int(share * 2.0 ** 64), 2 ** 64 - 1))
    if one and len(draw) and not held.any():
        held = draw == draw.min()
    return held


def _coverage(args) -> int:
    """``--coverage``: the report of :mod:`.coverage`, the data read chunk by chunk."""
    try:
        span = coverage.plies(args.coverage_plies)
        if args.rectangles and args.rectangles_too:
            raise BadInput("--rectangles and --rectangles-too are two models: choose one")
        read = _parts(args.data)
        first = next(read, None)
        if first is None:
            raise BadInput("no positions in the data")
        variant = get_variant(first[1])
        rect = RECT_ALONE if args.rectangles else RECT_PLUS if args.rectangles_too else 0

        def parts():
            for path, name, part in itertools.chain([first], read):
                if name != variant.name:
                    raise BadInput(f"{path} holds {name} games, the others {variant.name}")
                yield path, name, part

        # chunk by chunk, the games a fit of all the data holds out (the one game held where
        # none is drawn applies to the whole data, not to each chunk)
        coverage.report(parts(), game_keys, lambda keys: held_out(keys, args.seed, args.valid,
                                                                  one=False),
                        variant, args.coverage, span, args.odd_windows, rect)
    except BadInput as exc:
        print(f"rafle train: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.coverage:
        return _coverage(args)
    if args.out is None:
        print("rafle train: --out is required (the weight file to write)", file=sys.stderr)
        return 2
    try:
        if not 0 < args.sample <= 1:
            raise BadInput("--sample must be in (0, 1]")
        name, data = load(args.data, args.sample)
        variant = get_variant(name)
        if not 0 <= args.blend <= 1 or not 0 < args.valid < 1 or args.epochs < 0:
            raise BadInput("--lambda must be in 0..1, --valid in (0, 1), --epochs at least 0")
        init, odd, pip, rect = (weight_block(args.init, variant) if args.init
                                else (None, False, False, 0))
        pip = pip or args.pip_phase
        want = RECT_ALONE if args.rectangles else RECT_PLUS if args.rectangles_too else 0
        if (args.odd_windows or want) and variant.full_board:
            raise BadInput(f"{variant.name}'s plain 8x8 board has no second family of windows and no "
                           "rectangles")
        if args.rectangles and args.rectangles_too:
            raise BadInput("--rectangles and --rectangles-too are two models: choose one")
        if args.odd_windows and (want or rect):
            raise BadInput("--odd-windows and the rectangles are two models: choose one")
        if want and init is not None and rect != want:
            init, odd = to_rectangles(init, variant.width, odd, want, rect), False
        if args.odd_windows and init is not None and not odd:
            init = widen(init, variant.width)
        odd = odd or args.odd_windows
        rect = want or rect
        fit = Fit(variant.width, k=args.k, lr=args.lr, l2=args.l2, goal=variant.goal,
                  init=init, full=variant.full_board, odd=odd, rect=rect)
    except BadInput as exc:
        print(f"rafle train: {exc}", file=sys.stderr)
        return 2
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, flush=True))
    start = time.monotonic()
    blend = np.where(data["nodes"] >= args.score_nodes, args.blend, 0.0)
    target = (blend * expected_result(data["score"], args.k) + (1 - blend) * data["result"] / 2.0)
    rng = np.random.default_rng(args.seed)
    games = np.unique(data["game"])
    is_valid = held_out(data["key"], args.seed, args.valid)
    held = np.unique(data["game"][is_valid])
    # The held-out positions last, each part in its order: the training and validation
    # features are then two views of one array, not copies (half the memory at the peak).
    last = np.argsort(is_valid, kind="stable")
    data = {k: data[k][last] for k in ("white", "black", "kings", "turn")}
    target, n_train = target[last], int(np.count_nonzero(~is_valid))
    features = extract_features(data["white"], data["black"], data["kings"], data["turn"], variant,
                                eval_tables(variant), odd, pip, rect)
    train = tuple(f[:n_train] for f in features)
    valid = tuple(f[n_train:] for f in features)
    y_train, y_valid = target[:n_train], target[n_train:]
    say(f"train: {len(y_train)} positions ({len(games) - len(held)} games), validation "
        f"{len(y_valid)} ({len(held)} games); features in {time.monotonic() - start:.1f} s")
    start_loss = fit.loss(valid, y_valid)
    say(f"epoch 0: validation loss {start_loss:.6f}")
    best = (start_loss, 0, fit.block()) if args.epochs == 0 else (np.inf, 0, None)
    order = np.arange(len(y_train))
    for epoch in range(1, args.epochs + 1):
        rng.shuffle(order)
        t0 = time.monotonic()
        train_loss = fit.epoch(train, y_train, order)
        valid_loss = fit.loss(valid, y_valid)
        say(f"epoch {epoch}: training loss {train_loss:.6f}, validation loss {valid_loss:.6f} "
            f"({time.monotonic() - t0:.1f} s)")
        if valid_loss < best[0]:
            best = (valid_loss, epoch, fit.block())
    if best[2] is None:                   # every epoch's loss was nan: the last one is written
        best = (valid_loss, args.epochs, fit.block())
    if best[0] > start_loss:
        say(f"the start predicts the held-out games better ({start_loss:.6f}); if it was "
            f"fitted to them, that figure flatters it")
    version = args.version or args.out.rsplit("/", 1)[-1].removesuffix(".npz")
    np.savez_compressed(args.out, block=best[2], width=variant.width, full=variant.full_board,
                        odd=odd, rect=rect, phase="pip" if pip else "pieces", version=version,
                        variant=variant.name, positions=len(target), epoch=best[1],
                        valid_loss=best[0], k=args.k, blend=args.blend,
                        score_nodes=args.score_nodes)
    op, eg = fit.dense_weights()
    say(f"wrote {args.out} ({version}): epoch {best[1]}, validation loss {best[0]:.6f}; "
        f"men {op[0]:.0f}/{eg[0]:.0f}, kings {op[1]:.0f}/{eg[1]:.0f} (opening/endgame); "
        f"{time.monotonic() - start:.0f} s")
    return 0
