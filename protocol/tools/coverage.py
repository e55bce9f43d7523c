"""``rafle train --coverage GAMES.pdn ...``: how often the training data saw the pattern contents
of other games' positions.

A pattern weight is only as good as the positions that taught it.  This counts, over the training
part of ``--data`` (the games ``rafle train`` would fit, chunk by chunk, never all in memory),
how many times each content of each window (or rectangle, with ``--rectangles``) was read, by
White and by Black through the turned board, as the fit reads them.  Then, for the quiet
positions of each PDN file within ``--coverage-plies``, and for the held-out games of the data as
the measure to compare with, it gives the share of their readings seen fewer than 1, 10, 100 and
1,000 times, the share of positions with a reading seen fewer than 10 times, and the median count
of each position's rarest reading.  Positions the fit could not judge read low there.
"""
from __future__ import annotations

import os

import numpy as np

from engine import BadInput, eval_tables, extract_features, play, read_pdn

from .gamestore import quiet

LIMITS = (1, 10, 100, 1000)
WORDS = ("white", "black", "kings", "turn")


def plies(text: str) -> tuple[int, int]:
    """``--coverage-plies A-B``: the first and last ply counted (0: the game's start)."""
    try:
        first, last = (int(x) for x in text.split("-"))
    except ValueError:
        raise BadInput(f"--coverage-plies takes a range A-B of plies, not {text!r}") from None
    if not 0 <= first <= last:
        raise BadInput(f"--coverage-plies: {text} is not a range of plies from 0")
    return first, last


def pdn_positions(path: str, variant) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The quiet positions of every game of ``path`` (``variant``'s only) and their plies."""
    try:
        with open(path, encoding="utf-8") as f:
            games = read_pdn(f.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {path}: {exc}") from None
    except BadInput as exc:
        raise BadInput(f"{path}: {exc}") from None
    out = {k: [] for k in WORDS}
    ply = []
    for game in games:
        pos = game.start
        if pos.variant is not variant:
            continue
        for i, move in enumerate(game.moves):
            if quiet(pos):
                for k, v in zip(WORDS, pos.words):
                    out[k].append(v)
                ply.append(i)
            pos = play(pos, move)
    return {k: np.asarray(v, dtype=np.int64) for k, v in out.items()}, np.asarray(ply, np.int64)


class Coverage:
    """The readings' counts over the training positions, and the measures of other positions."""

    def __init__(self, variant, odd: bool = False, rect: int = 0):
        self.variant, self.odd, self.rect = variant, odd, rect
        self.tables = eval_tables(variant)
        self.size = 3 ** 12 if rect else 3 ** 8          # the contents of a rectangle, a window
        self.counts: np.ndarray | None = None            # (patterns, contents)
        self.positions = 0

    @property
    def nw(self) -> int:
        return 0 if self.counts is None else self.counts.shape[0]

    def readings(self, words: dict[str, np.ndarray]) -> np.ndarray:
        """(positions, 2 x patterns): each pattern's content read by White, then by Black."""
        iw, ib, *_ = extract_features(words["white"], words["black"], words["kings"],
                                      words["turn"], self.variant, self.tables, self.odd,
                                      False, self.rect)
        if self.counts is None:
            self.counts = np.zeros((iw.shape[1], self.size), dtype=np.int64)
        return np.concatenate([iw, ib], axis=1).astype(np.int64)

    def add(self, words: dict[str, np.ndarray]) -> None:
        r = self.readings(words)
        for x in range(self.nw):
            for column in (r[:, x], r[:, self.nw + x]):
                self.counts[x] += np.bincount(column, minlength=self.size)
        self.positions += len(r)

    def seen(self, r: np.ndarray) -> np.ndarray:
        """How often the training positions held each reading of ``r``."""
        return self.counts[np.tile(np.arange(self.nw), 2), r]

    def line(self, name: str, r: np.ndarray) -> str:
        if not len(r):
            return f"{name:<28} {0:>9}   no positions in the plies counted"
        c = self.seen(r)
        shares = "".join(f" {100 * (c < n).mean():8.2f}%" for n in LIMITS)
        return (f"{name:<28} {len(r):>9}{shares} {100 * (c < 10).any(axis=1).mean():9.1f}%"
                f" {int(np.median(c.min(axis=1))):>9}")


def report(parts, keys_of, held_of, variant, pdns: list[str], span: tuple[int, int],
           odd: bool = False, rect: int = 0, emit=print) -> Coverage:
    """Count the training positions of ``parts`` ((path, variant name, positions)); ``keys_of``
    and ``held_of`` say which games are held out.  Emit a line for the held-out games and for
    each PDN file of ``pdns``."""
    cov = Coverage(variant, odd, rect)
    held, games, held_games = [], 0, 0
    for path, _, part in parts:
        is_held = held_of(keys_of(os.path.basename(path), part["game"]))
        games += len(np.unique(part["game"]))
        held_games += len(np.unique(part["game"][is_held]))
        cov.add({k: part[k][~is_held] for k in WORDS})
        keep = is_held & _within(part.get("ply"), span, len(is_held))
        if keep.any():
            held.append(cov.readings({k: part[k][keep] for k in WORDS}))
    if not cov.positions:
        raise BadInput("no training positions in the data")
    kind = "rectangles" if rect == 1 else "windows and rectangles" if rect else "windows"
    emit(f"coverage: the contents of {cov.nw} {kind}, read by each side, counted over "
         f"{cov.positions:,} training positions ({games - held_games:,} games); quiet positions "
         f"of plies {span[0]}-{span[1]}")
    emit(f"{'positions of':<28} {'positions':>9}" + "".join(f" {'<' + str(n):>9}" for n in LIMITS)
         + f" {'any <10':>10} {'rarest':>9}")
    emit(cov.line(f"held-out games ({held_games:,})", np.concatenate(held) if held
                  else np.zeros((0, 2 * cov.nw), np.int64)))
    for path in pdns:
        words, ply = pdn_positions(path, variant)
        keep = _within(ply, span, len(ply))
        emit(cov.line(os.path.basename(path), cov.readings({k: v[keep] for k, v in words.items()})))
    return cov


def _within(ply, span: tuple[int, int], n: int) -> np.ndarray:
    if ply is None:
        return np.ones(n, dtype=bool)
    return (ply >= span[0]) & (ply <= span[1])
