"""The searcher's tunables and their defaults, declared without loading any kernel.

The Hub front end declares these as ``param`` lines before numba is imported (clients
expect ``wait`` within about half a second of launch); ``engine.search.Searcher``
validates and applies them.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    """A tunable, declared to GUIs as a Hub ``param``."""

    name: str
    type: str
    default: str
    min: str | None = None
    max: str | None = None
    values: tuple[str, ...] = ()


TT_ENTRY_BYTES = 16


def _largest_table_log2(most: int = 30) -> int:
    """The largest table (log2 of entries) that fits in half of this machine's memory."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = 4 << 30
    n = most
    while n > 16 and TT_ENTRY_BYTES << n > memory // 2:
        n -= 1
    return n


TT_MIN_LOG2, TT_MAX_LOG2, TT_DEFAULT_LOG2 = 16, _largest_table_log2(), 22
EVALS = ("learned", "hand")     # learned: the variant's shipped weights where it has them
DEFAULT_EVAL = "learned"
# Threshold pruning is on, in its verified form, margin 40 + 10 a ply, checked at every ply:
# +315 =445 -240 (Elo +26 +- 16) over 1,000 games against off (README "Threshold pruning").
DEFAULT_THRESHOLD = True
FORMS = ("plain", "verified")   # threshold pruning: engine.negamax FORM_PLAIN, FORM_VERIFIED
DEFAULT_FORM = "verified"
DEFAULT_MARGIN = 40
DEFAULT_INTERVAL = 1
DEFAULT_SLOPE = 10
DEFAULT_BOOK, DEFAULT_BOOK_PLY, DEFAULT_BOOK_MARGIN = True, 8, 10
DEFAULT_THREADS, MAX_THREADS = 1, 16
# Endgame databases: probe the slices of up to egdb-size pieces found in egdb-path (empty:
# the user's cache directory, where `rafle egdb build` writes); 0 = off.  Missing files:
# the search runs without them.
DEFAULT_EGDB_SIZE, MAX_EGDB_SIZE = 7, 7
INT_OPTIONS = {  # name: (default, min, max)
    "tt-size": (TT_DEFAULT_LOG2, TT_MIN_LOG2, TT_MAX_LOG2),
    "threads": (DEFAULT_THREADS, 1, MAX_THREADS),
    "threshold-margin": (DEFAULT_MARGIN, 0, 5000),
    "threshold-interval": (DEFAULT_INTERVAL, 1, 32),
    "threshold-slope": (DEFAULT_SLOPE, 0, 1000),
    "book-ply": (DEFAULT_BOOK_PLY, 0, 1000),
    "book-margin": (DEFAULT_BOOK_MARGIN, 0, 10000),
    "egdb-size": (DEFAULT_EGDB_SIZE, 0, MAX_EGDB_SIZE),
}


def declare(tt_log2: int, threshold: bool, margin: int, interval: int,
            evaluation: str = DEFAULT_EVAL, weights_file: str = "",
            threads: int = DEFAULT_THREADS, form: str = DEFAULT_FORM,
            slope: int = DEFAULT_SLOPE, book: bool = DEFAULT_BOOK,
            book_ply: int = DEFAULT_BOOK_PLY, book_margin: int = DEFAULT_BOOK_MARGIN,
            book_file: str = "", egdb_size: int = DEFAULT_EGDB_SIZE,
            egdb_path: str = "") -> list[Option]:
    """The options with these current values, in the order GUIs are shown them."""
    out = [Option("tt-size", "int", str(tt_log2), str(TT_MIN_LOG2), str(TT_MAX_LOG2)),
           Option("threads", "int", str(threads), "1", str(MAX_THREADS)),
           Option("eval", "enum", evaluation, values=EVALS),
           Option("weights", "string", weights_file),
           Option("threshold", "bool", "true" if threshold else "false"),
           Option("threshold-form", "enum", form, values=FORMS)]
    for name, value in (("threshold-margin", margin), ("threshold-interval", interval),
                        ("threshold-slope", slope)):
        _, lo, hi = INT_OPTIONS[name]
        out.append(Option(name, "int", str(value), str(lo), str(hi)))
    out.append(Option("book", "bool", "true" if book else "false"))
    for name, value in (("book-ply", book_ply), ("book-margin", book_margin)):
        _, lo, hi = INT_OPTIONS[name]
        out.append(Option(name, "int", str(value), str(lo), str(hi)))
    out.append(Option("book-file", "string", book_file))
    _, lo, hi = INT_OPTIONS["egdb-size"]
    out.append(Option("egdb-size", "int", str(egdb_size), str(lo), str(hi)))
    out.append(Option("egdb-path", "string", egdb_path))
    return out


def default_options() -> list[Option]:
    """The options of a fresh ``Searcher``."""
    return declare(TT_DEFAULT_LOG2, DEFAULT_THRESHOLD, DEFAULT_MARGIN, DEFAULT_INTERVAL)


# ----- parsing a value: the one place where option and level values are read ----------------

def parse_bool(text: str) -> bool | None:
    """``true/false``, ``1/0``, ``on/off``, ``yes/no`` (any case); None for anything else."""
    v = str(text).strip().lower()
    return True if v in ("true", "1", "on", "yes") else False if v in ("false", "0", "off", "no") else None


def parse_float(text: str) -> float | None:
    """A finite decimal number (``1.5``, ``2``, ``1e3``); None for anything else (nan, inf too)."""
    try:
        value = float(str(text).strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_int(text: str, lo: int, hi: int) -> int | None:
    """A whole number within ``[lo, hi]`` (``12``; ``1e3`` and ``12.0`` too); None otherwise."""
    value = parse_float(text)
    if value is None or value != int(value):
        try:
            value = int(str(text).strip())     # exact for integers too large for a float
        except ValueError:
            return None
    n = int(value)
    return n if lo <= n <= hi else None
