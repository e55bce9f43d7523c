"""The game store: self-play games kept compactly, a training set that grows in the repository.

A store is a directory of chunk files (``data/selfplay/international/`` in the repository), each
``chunk-<seed>-<first game, 7 digits>.rgs`` holding whole games of one ``rafle selfplay --store``
run, not positions: a game is its start position, its moves and the search's scores, and its
positions are found again by replaying the moves (:func:`replay`).  A file is::

    RAFLE-GAMES 1                      the magic line
    {"variant": ..., "seed": ...}      the header: one line of JSON
    <payload>                          xz (lzma) of the arrays the header's "layout" lists

The header says how the games were made (``command``, ``seed``, ``build``: git commit, whether
the work tree had changes, package version; ``variant``, ``nodes`` a move, ``random_plies``,
``eval``, ``weights``), what the chunk holds (``first`` game, ``games``, ``plies``, ``positions``
kept for training) and how to read it (``layout``: each array's name, dtype and length, in payload
order; ``payload_bytes``; ``sha256`` of the payload).  The arrays, little-endian:

* a game each: ``game`` (u4, its number in the run), ``start`` (u2, a line of ``starts``),
  ``lead`` (u2, the plies before the labels: the opening and the random moves), ``plies`` (u2,
  every move played), ``result`` (u1: 2 White won, 1 draw, 0 Black won);
* a move each: ``moves`` (u1; u2 in a chunk with an index over 255), the move's index
  in ``engine.legal_moves(pos)`` order, which is deterministic;
* a searched ply each (``plies - lead`` a game): ``scores`` (i2, hundredths of a man from White's
  side, clipped to +-``CLIP`` as selfplay keeps them; ``NO_SCORE`` where the search gave none);
* ``starts``: the start positions as FEN, one a line (utf-8 bytes).

A searched position with a score and no capture pending for either side (:func:`quiet`) is a
training position: replay gives them as the arrays ``rafle train`` reads (``FIELDS``), the same
that ``rafle selfplay --out FILE.npz`` writes for the same seed: about 2.2 bytes a position
(``data/selfplay/README.md``).  A chunk that does not read back whole (bad magic or header,
truncated, checksum, a move index out of range) raises :class:`BadInput` naming the file;
:func:`read_store` skips such a chunk with a line on stderr and reads the others.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import lzma
import os
import re
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import numpy as np

from engine import (NO_SCORE, BadInput, Position, get_variant, keyed_dir, legal_moves,
                    pos_from_fen, quiet_positions)

from ..about import version

MAGIC = b"RAFLE-GAMES 1\n"
SUFFIX = ".rgs"
CLIP = 2000               # scores beyond (won or lost games) are kept at this size
FIELDS = ("white", "black", "kings", "turn", "score", "result", "ply", "game")
# Settings of a run that every chunk of one seed shares (a resumed run must not change them).
SETTINGS = ("variant", "nodes", "random_plies", "eval", "weights")
_GAME_ARRAYS = (("game", "<u4"), ("start", "<u2"), ("lead", "<u2"), ("plies", "<u2"),
                ("result", "u1"))
# The header's fields in the order a reader looks for them (others after these).
_ORDER = ("variant", "seed", "first", "games", "plies", "positions", "nodes", "random_plies",
          "eval", "weights", "command", "build", "written", "layout", "payload_bytes", "sha256")
_NAME = re.compile(r"chunk-(\d+)-(\d{7,})\.rgs")


@dataclass(frozen=True)
class GameRecord:
    """One game as the store keeps it: ``moves`` are indices in ``legal_moves`` order,
    ``scores`` one for each move after the first ``lead`` (None where the search gave none)."""

    number: int
    start: str
    lead: int
    moves: tuple[int, ...]
    scores: tuple[int | None, ...]
    result: int


def quiet(pos: Position, moves=None) -> bool:
    """Neither the side to move nor the other side has a capture (``moves``: the side to
    move's legal moves, if known)."""
    if any(m.captured for m in (legal_moves(pos) if moves is None else moves)):
        return False
    other = Position(pos.white, pos.black, pos.kings, 1 - pos.turn, pos.variant)
    return not any(m.captured for m in legal_moves(other))


def clip(score: int) -> int:
    return max(-CLIP, min(CLIP, score))


# ----- writing ---------------------------------------------------------------------------------

def encode(records: list[GameRecord], header: dict) -> bytes:
    """A chunk file's bytes: the games, with ``header``'s fields and those of the payload."""
    starts = sorted({r.start for r in records})
    moves = [i for r in records for i in r.moves]
    arrays = {
        "game": [r.number for r in records],
        "start": [starts.index(r.start) for r in records],
        "lead": [r.lead for r in records],
        "plies": [len(r.moves) for r in records],
        "result": [r.result for r in records],
        "moves": moves,
        "scores": [NO_SCORE if s is None else clip(s) for r in records for s in r.scores],
        "starts": list("\n".join(starts).encode()),
    }
    dtypes = dict(_GAME_ARRAYS, moves="u1" if max(moves, default=0) < 256 else "<u2",
                  scores="<i2", starts="u1")
    for r in records:
        if len(r.scores) != len(r.moves) - r.lead or r.lead < 0 or r.result not in (0, 1, 2):
            raise BadInput(f"game {r.number}: {len(r.moves)} moves, lead {r.lead}, "
                           f"{len(r.scores)} scores, result {r.result}: not a game record")
    raw = b"".join(np.asarray(arrays[name], dtype=dtypes[name]).tobytes() for name in arrays)
    payload = lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME)
    header = dict(header, games=len(records), plies=len(moves),
                  layout=[[name, dtypes[name], len(arrays[name])] for name in arrays],
                  payload_bytes=len(payload), sha256=hashlib.sha256(payload).hexdigest())
    header = {k: header[k] for k in sorted(header, key=lambda k: (_ORDER + (k,)).index(k))}
    return MAGIC + json.dumps(header).encode() + b"\n" + payload


def write_atomic(path: str, write) -> None:
    """Write ``path`` through a temporary file renamed over it: a stop leaves the old
    file or the new one, never half of one."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        write(f)
    os.replace(tmp, path)


@lru_cache(maxsize=1)
def build() -> dict:
    """The code that plays: the git commit of this checkout (None for an installed package
    or a copy without git), whether tracked files had changes, and the package version."""
    root = Path(__file__).resolve().parents[2]

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                                  timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    checkout = (root / "pyproject.toml").is_file() and git("rev-parse", "--show-toplevel")
    commit = git("rev-parse", "HEAD") if checkout and Path(checkout).resolve() == root else None
    changes = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"commit": commit, "dirty": bool(changes) if commit else None, "version": version()}


# ----- reading ---------------------------------------------------------------------------------

def read_header(path: str) -> dict:
    """A chunk's header, without reading its payload."""
    try:
        with open(path, "rb") as f:
            magic, line = f.readline(), f.readline(1 << 20)
    except OSError as exc:
        raise BadInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    return _header(path, magic, line)


def _header(path: str, magic: bytes, line: bytes) -> dict:
    if magic != MAGIC:
        raise BadInput(f"{path}: not a Rafle game store chunk (no {MAGIC.strip().decode()!r} line)")
    try:
        header = json.loads(line)
        layout = {name: (dtype, int(n)) for name, dtype, n in header["layout"]}
        get_variant(header["variant"])
        int(header["payload_bytes"]), str(header["sha256"]), int(header["games"])
    except BadInput as exc:
        raise BadInput(f"{path}: bad header: {exc}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise BadInput(f"{path}: bad header: {type(exc).__name__} {exc}") from None
    expected = [name for name, _ in _GAME_ARRAYS] + ["moves", "scores", "starts"]
    if list(layout) != expected or any(layout[n][1] != header["games"] for n, _ in _GAME_ARRAYS) \
            or layout["moves"][0] not in ("u1", "<u2") or layout["scores"][0] != "<i2" \
            or any(layout[n][0] != d for n, d in _GAME_ARRAYS + (("starts", "u1"),)):
        raise BadInput(f"{path}: bad header: the layout {header['layout']} is not "
                       f"{expected} at the header's game count")
    return header


def _checked(path: str) -> tuple[dict, bytes]:
    """A chunk's header and payload, the payload checked against the header's size and sha256."""
    try:
        with open(path, "rb") as f:
            magic, line, payload = f.readline(), f.readline(), f.read()
    except OSError as exc:
        raise BadInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    header = _header(path, magic, line)
    if len(payload) != header["payload_bytes"]:
        raise BadInput(f"{path}: truncated or padded: {len(payload)} payload bytes, the header "
                       f"says {header['payload_bytes']}")
    if hashlib.sha256(payload).hexdigest() != header["sha256"]:
        raise BadInput(f"{path}: checksum mismatch: the payload is corrupt")
    return header, payload


def read_chunk(path: str) -> tuple[dict, list[GameRecord]]:
    """A chunk's header and games (:func:`_checked`)."""
    header, payload = _checked(path)
    try:
        raw = lzma.decompress(payload)
    except lzma.LZMAError as exc:
        raise BadInput(f"{path}: cannot decompress the payload: {exc}") from None
    arrays, at = {}, 0
    for name, dtype, n in header["layout"]:
        size = np.dtype(dtype).itemsize * n
        if at + size > len(raw):
            break
        arrays[name] = np.frombuffer(raw, dtype=dtype, count=n, offset=at)
        at += size
    if at != len(raw) or len(arrays) != len(header["layout"]):
        raise BadInput(f"{path}: the payload holds {len(raw)} bytes, not what the layout says")
    return header, _records(path, arrays)


def _records(path: str, a: dict[str, np.ndarray]) -> list[GameRecord]:
    """The games of a chunk's arrays, their counts checked against each other."""
    starts = bytes(a["starts"]).decode(errors="replace").split("\n")
    plies, lead = a["plies"].astype(np.int64), a["lead"].astype(np.int64)
    if (lead > plies).any() or plies.sum() != len(a["moves"]) \
            or (plies - lead).sum() != len(a["scores"]) or (a["result"] > 2).any() \
            or (a["start"] >= len(starts)).any():
        raise BadInput(f"{path}: the game arrays disagree (moves, scores, starts or results)")
    records, m, s = [], 0, 0
    for g in range(len(plies)):
        n, searched = int(plies[g]), int(plies[g] - lead[g])
        records.append(GameRecord(int(a["game"][g]), starts[a["start"][g]], int(lead[g]),
                                  tuple(a["moves"][m:m + n].tolist()),
                                  tuple(None if x == NO_SCORE else x
                                        for x in a["scores"][s:s + searched].tolist()),
                                  int(a["result"][g])))
        m, s = m + n, s + searched
    return records


def replay(records: list[GameRecord], variant_name: str, path: str = "") -> dict[str, np.ndarray]:
    """The training positions of the games (quiet, with a score), as the arrays ``FIELDS``
    (int64, game and ply order) that ``rafle selfplay`` writes and ``rafle train`` reads.
    Each game is replayed by one kernel (:func:`engine.quiet_positions`)."""
    variant = get_variant(variant_name)
    out = {k: [np.zeros(0, dtype=np.int64)] for k in FIELDS}
    for record in sorted(records, key=lambda r: r.number):
        where = f"{path + ': ' if path else ''}game {record.number}"
        try:
            start = pos_from_fen(record.start, variant)
        except BadInput as exc:
            raise BadInput(f"{where}: bad start position: {exc}") from None
        scores = np.array([NO_SCORE if s is None else s for s in record.scores], dtype=np.int64)
        try:
            words, plies = quiet_positions(start, np.array(record.moves, dtype=np.int64),
                                           record.lead, scores)
        except BadInput as exc:
            raise BadInput(f"{where}: {exc}") from None
        for i, k in enumerate(("white", "black", "kings", "turn")):
            out[k].append(words[:, i])
        out["score"].append(scores[plies - record.lead])
        out["result"].append(np.full(len(plies), record.result, dtype=np.int64))
        out["ply"].append(plies)
        out["game"].append(np.full(len(plies), record.number, dtype=np.int64))
    return {k: np.concatenate(v) for k, v in out.items()}


def load_chunk(path: str) -> tuple[str, dict[str, np.ndarray]]:
    """A chunk's variant and training positions (:func:`replay`), from the replay cache when
    this chunk's games were replayed before by the same rules (:func:`_cached`)."""
    header = read_header(path)
    cached = _cached(header)
    if cached is not None:
        _checked(path)          # the chunk on disk must still be whole
        return header["variant"], cached
    header, records = read_chunk(path)
    positions = replay(records, header["variant"], path)
    _keep(header, positions)
    return header["variant"], positions


# ----- the replay cache ------------------------------------------------------------------------
# Replaying costs about 2 microseconds a position in the kernel (10 million: about 20 s; it was
# 0.05-0.3 ms in Python), reading them back about 1, so each chunk's positions are kept once
# replayed, under the user's cache directory, in a directory named by a digest of the engine's
# sources and of this file (the rules, the order of moves and what is quiet decide them), as
# ``<payload sha256>.npz`` (``engine.keyed_dir``).
# A cache entry that does not read back is replayed again; one that cannot be written is skipped.

_CACHED_TYPES = {"white": "<i8", "black": "<i8", "kings": "<i8", "turn": "i1", "score": "<i2",
                 "result": "u1", "ply": "<u2", "game": "<u4"}


@lru_cache(maxsize=1)
def _cache_dir() -> Path | None:
    try:
        return keyed_dir("replay", Path(__file__).read_bytes())
    except OSError:
        return None


def _cached(header: dict) -> dict[str, np.ndarray] | None:
    where = _cache_dir()
    path = where / f"{header['sha256']}.npz" if where else None
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            positions = {k: np.asarray(data[k], dtype=np.int64) for k in FIELDS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    n = len(positions["white"])
    whole = all(len(v) == n for v in positions.values()) and header.get("positions", n) == n
    return positions if whole else None


def _keep(header: dict, positions: dict[str, np.ndarray]) -> None:
    where = _cache_dir()
    if where is None:
        return
    compact = {k: positions[k].astype(_CACHED_TYPES[k]) for k in FIELDS}
    path = str(where / f"{header['sha256']}.npz")
    try:
        write_atomic(path, lambda f: np.savez_compressed(f, **compact))
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(f"{path}.{os.getpid()}.tmp")


def chunk_names(directory: str) -> list[str]:
    """A store's chunk files, sorted (a stopped write's ``.tmp`` is not one)."""
    return sorted(n for n in os.listdir(directory) if _NAME.fullmatch(n))


def read_store(directory: str, warn=None) -> Iterator[tuple[str, str, dict[str, np.ndarray]]]:
    """(path, variant, positions) of each chunk in ``directory`` that reads back whole; one
    that does not is skipped with a line on stderr (or to ``warn``) naming it."""
    warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
    for name in chunk_names(directory):
        path = os.path.join(directory, name)
        try:
            variant, positions = load_chunk(path)
        except BadInput as exc:
            warn(f"rafle: skipped a corrupt game store chunk: {exc}")
            continue
        yield path, variant, positions


# ----- a store being written ---------------------------------------------------------------------

class Store:
    """A store directory that a run adds chunks to, and the games it already holds."""

    def __init__(self, directory: str):
        self.dir = directory
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise BadInput(f"cannot use {directory} for the game store: {exc}") from None
        build()             # the commit the run started from, not the one when a chunk is written

    def path(self, seed: int, first: int) -> str:
        return os.path.join(self.dir, f"chunk-{seed}-{first:07d}{SUFFIX}")

    def headers(self, warn: bool = True) -> Iterator[tuple[str, dict]]:
        """(path, header) of each chunk whose payload is whole (checked by size and sha256,
        not replayed); a chunk that is not is skipped, with a line on stderr if ``warn``."""
        for name in chunk_names(self.dir):
            path = os.path.join(self.dir, name)
            try:
                header = _checked(path)[0]
            except BadInput as exc:
                if warn:
                    print(f"rafle: skipped a corrupt game store chunk: {exc}", file=sys.stderr)
                continue
            yield path, header

    def covered(self, seed: int, settings: dict) -> set[int]:
        """The games of ``seed`` already in whole chunks.  A chunk of another variant, or of
        this seed with other ``SETTINGS``, is refused: a run does not mix them."""
        games = set()
        for path, header in self.headers():
            if header["variant"] != settings["variant"]:
                raise BadInput(f"{self.dir} holds {header['variant']} games ({path}): use a "
                               f"directory a variant")
            if header.get("seed") != seed:
                continue
            differ = [k for k in SETTINGS if header.get(k) != settings[k]]
            if differ:
                raise BadInput(f"{path} holds games of seed {seed} with other settings ("
                               + ", ".join(f"{k} {header.get(k)!r}" for k in differ)
                               + "): use another seed (--seed next)")
            games.update(range(header["first"], header["first"] + header["games"]))
        return games

    def next_seed(self) -> int:
        """One more than the largest seed of the store's chunk names (1 in an empty store)."""
        return max((int(_NAME.fullmatch(n).group(1)) for n in chunk_names(self.dir)),
                   default=0) + 1

    def write(self, records: list[GameRecord], header: dict) -> str:
        """Write a chunk of ``records`` (``header`` with ``seed`` and ``first``); its path."""
        path = self.path(header["seed"], header["first"])
        data = encode(records, dict(header, build=build(),
                                    written=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
        write_atomic(path, lambda f: f.write(data))
        return path

    def totals(self) -> tuple[int, int, int]:
        """Chunks, games and training positions in the store."""
        chunks = games = positions = 0
        for _, header in self.headers(warn=False):
            chunks, games, positions = (chunks + 1, games + header["games"],
                                        positions + header.get("positions", 0))
        return chunks, games, positions
