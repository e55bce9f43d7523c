"""Rafle's engine: rules, move generation, search and evaluation (the numba part).

This package does no I/O.  The protocol layer and ``perft`` use only the names exported
here (a test reads their imports).  Names are loaded on first use (PEP 562): this is
the one lazy loader of the project.  Reading a numba-free name (the variants, the
search options) does not import numba, so the Hub front end can declare its
parameters at once and load the kernels later, by touching a kernel-backed name
(:func:`load`) in a background thread.

One exception to "no I/O", before any kernel is compiled: numba's cache
(``cache=True``) checks only the file of the function it compiled, so a kernel that
calls a kernel of another file that has changed would load stale machine code (it
happened: a search kernel kept an old evaluation).  The cache therefore lives in a
directory named by a digest of this package's sources, under the user's cache
directory (``NUMBA_CACHE_DIR``, when set, is left alone); directories of other digests
unused for a day are removed.
"""
import hashlib
import os
import shutil
import sys
import time
from importlib import import_module
from pathlib import Path


def _key_the_compile_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = Path(__file__).resolve().parent
    try:
        digest = hashlib.sha1()
        for path in sorted(here.glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rafle"
        mine = base / f"numba-{digest.hexdigest()[:16]}"
        mine.mkdir(parents=True, exist_ok=True)
        os.utime(mine)
        for other in base.glob("numba-*"):
            if other != mine and time.time() - other.stat().st_mtime > 86400:
                shutil.rmtree(other, ignore_errors=True)
    except OSError:
        return                  # numba's own place (__pycache__), as before
    os.environ["NUMBA_CACHE_DIR"] = str(mine)
    numba = sys.modules.get("numba")
    if numba is not None:             # imported before us: it has read its settings
        numba.config.CACHE_DIR = str(mine)


_key_the_compile_cache()

_EXPORTS = {
    "book": ("Book", "BookError", "book_arrays", "book_key", "check_book", "read_book",
             "shipped_book"),
    "errors": ("BadInput",),
    "egdb": ("EgdbError", "EgdbProgress", "EgdbTables", "egdb_build", "egdb_dir", "egdb_load",
             "egdb_round_trip", "egdb_slice_counts", "egdb_slice_size", "egdb_slices", "egdb_value_name"),
    "eval": ("eval_tables",),
    "learn": ("Fit", "expected_result", "extract_features"),
    "game": ("Game", "Outcome"),
    "options": ("Option", "default_options", "parse_bool", "parse_int", "parse_float"),
    "pdn": ("PdnGame", "read_pdn", "write_pdn"),
    "search": ("Info", "Limits", "Result", "Searcher"),
    "notation": ("capture_paths", "find_move", "move_from_hub", "move_from_pdn", "move_to_hub",
                 "move_to_pdn", "parse_position", "pos_from_dxp", "pos_from_fen", "pos_from_hub",
                 "pos_from_pieces", "pos_to_dxp", "pos_to_fen", "pos_to_hub", "square_name"),
    "position": ("BLACK", "WHITE", "Move", "Position", "allowed_moves", "barred_square", "is_lost", "legal_moves",
                 "play", "start_position", "warm_up", "winner"),
    "counting": ("new_perft_table",),
    "divide": ("Divide", "new_stop_flag", "perft", "perft_divide", "set_stop"),
    "variants": ("GOAL_BREAKTHROUGH", "GOAL_LOSING", "GOAL_NORMAL", "INTERNATIONAL", "VARIANTS",
                 "Variant", "get_variant"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def load() -> None:
    """Import every kernel-backed module now (numba and its cache: about a second warm)."""
    for module in _EXPORTS:
        import_module(f".{module}", __name__)


def __dir__():
    return sorted(list(globals()) + __all__)
