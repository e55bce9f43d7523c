"""Perft counts timed, with per-root-move progress, and reference suites.

A suite is a JSON list in the format of ``perft/data/reference.json`` (the built-in
suite: published counts, each entry with its source): entries with
``variant``, ``position`` (a label), ``fen``, ``depth``, ``nodes`` and
``dup_captures_once``.  Rafle plays with duplicate captures merged (one move per from,
to, captured set and crowning); entries that count every capture path
(``dup_captures_once`` false) are counted in the capture-path mode (``paths``), and
variants Rafle does not know yet are skipped.  Entries repeating the same
position and depth (several sources) are run once and checked against every source.

This module prints nothing: the runner (``perft.runner``) owns the output.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from engine import BadInput, Move, Position, get_variant, parse_position, perft_divide

# Called as the count goes on: (root moves done, root moves, current root move,
# nodes counted so far, seconds so far).
Progress = Callable[[int, int, Move, int, float], None]


@dataclass(frozen=True)
class Count:
    """One perft run: the total and the count under each root move."""

    depth: int
    nodes: int
    seconds: float
    divide: tuple[tuple[Move, int], ...]


def count(pos: Position, depth: int, bulk: bool = True, progress: Progress | None = None,
          paths: bool = False, threads: int = 1, table=None, plies: int | None = None,
          count_subtrees=None) -> Count:
    """perft(depth), split by root move (the engine's one divide, ``perft_divide``, which
    takes the same arguments), timed, with progress so that long runs can say how far they
    have got.  An exception raised by ``progress`` (Ctrl-C) stops the running kernels and
    goes on to the caller."""
    start = time.perf_counter()

    def counted(tally, root: int) -> None:
        if progress is not None:
            progress(tally.done, len(tally.moves), tally.moves[root], tally.nodes,
                     time.perf_counter() - start)

    result = perft_divide(pos, depth, bulk, paths, table=table, threads=threads, plies=plies,
                          on_count=counted, count_subtrees=count_subtrees)
    if result.stopped:
        raise KeyboardInterrupt               # stopped: the count is incomplete
    return Count(depth, result.nodes, time.perf_counter() - start, result.counts)


# ----- reference suites ------------------------------------------------------------

REFERENCE = Path(__file__).resolve().parent / "data" / "reference.json"


def load_reference() -> list[dict]:
    """The built-in suite: every published count Rafle checks itself against."""
    return load_suite(REFERENCE)


@dataclass
class Case:
    """One position and depth of a suite, with the count every source gives."""

    variant: str
    label: str
    fen: str
    depth: int
    expected: list[int] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    pos: Position | None = None
    error: str | None = None      # the FEN could not be read
    paths: bool = False           # dup_captures_once false: every capture path counts


@dataclass
class Selection:
    """The cases to run and why the other entries were left out."""

    cases: list[Case]
    unknown_variants: Counter = field(default_factory=Counter)
    paths: int = 0                # cases counted in the capture-path mode
    over_budget: int = 0          # expected nodes above --max-nodes
    other_variant: int = 0        # filtered out by --variant


MAX_DEPTH = 64            # deeper counts would not end in a lifetime
MAX_SUITE_BYTES = 50 << 20


def check_depth(depth: int, what: str = "depth", lowest: int = 0) -> int:
    """The one check of a perft depth, for ``--depth`` and suite entries alike."""
    if not lowest <= depth <= MAX_DEPTH:
        raise BadInput(f"{what} must be between {lowest} and {MAX_DEPTH}, got {depth}")
    return depth


def load_suite(path: str | Path) -> list[dict]:
    """The entries of a suite file; BadInput if it is missing or malformed."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SUITE_BYTES + 1)
    except (OSError, ValueError) as exc:       # ValueError: a NUL in the path
        raise BadInput(f"cannot read suite {str(path)!r}: "
                       f"{getattr(exc, 'strerror', None) or exc}") from None
    if len(data) > MAX_SUITE_BYTES:
        raise BadInput(f"suite {str(path)!r} is larger than {MAX_SUITE_BYTES >> 20} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"suite {str(path)!r} is not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadInput(f"suite {str(path)!r} is not JSON: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("cases"), list):
        data = data["cases"]
    if not isinstance(data, list):
        raise BadInput(f"suite {str(path)!r} must be a JSON list of perft entries")
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise BadInput(f"suite entry {i} is not an object")
        for key, kind in (("variant", str), ("fen", str), ("depth", int), ("nodes", int)):
            if not isinstance(entry.get(key), kind) or isinstance(entry.get(key), bool):
                raise BadInput(f"suite entry {i} needs {key!r} ({kind.__name__})")
        check_depth(entry["depth"], f"suite entry {i}: depth")
    return data


def _variant_name(name: str) -> str | None:
    """Rafle's name for a variant, or None if Rafle does not know it."""
    try:
        return get_variant(name).name
    except BadInput:
        return None


def select(entries: list[dict], variant: str | None = None,
           max_nodes: int | None = None) -> Selection:
    """Group the entries into cases, leaving out what Rafle cannot or should not run."""
    sel = Selection([])
    wanted = None
    if variant is not None:
        wanted = _variant_name(variant) or variant.lower()
    by_key: dict[tuple, Case] = {}
    for entry in entries:
        name = _variant_name(entry["variant"])
        if wanted is not None and (name or entry["variant"].lower()) != wanted:
            sel.other_variant += 1
            continue
        if name is None:
            sel.unknown_variants[entry["variant"]] += 1
            continue
        paths = entry.get("dup_captures_once") is False
        if max_nodes is not None and entry["nodes"] > max_nodes:
            sel.over_budget += 1
            continue
        pos, error = None, None
        try:
            pos = parse_position(entry["fen"], get_variant(name))
            key = (name, pos.key, entry["depth"], paths)
        except BadInput as exc:
            error = str(exc)
            key = (name, entry["fen"], entry["depth"], paths)
        case = by_key.get(key)
        if case is None:
            case = by_key[key] = Case(name, str(entry.get("position", "")), entry["fen"],
                                      entry["depth"], pos=pos, error=error, paths=paths)
            sel.cases.append(case)
            sel.paths += paths
        case.expected.append(entry["nodes"])
        case.sources.append(str(entry.get("source", "?")))
    # A label shared by several positions (a source's "test position") names none.
    fens = {}
    for case in sel.cases:
        fens.setdefault((case.variant, case.label), set()).add(case.fen)
    for case in sel.cases:
        if not case.label or len(fens[(case.variant, case.label)]) > 1:
            case.label = f"{case.label} [{case.fen}]".strip()
    return sel
