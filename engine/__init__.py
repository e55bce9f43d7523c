"""Rafle's engine: rules, move generation, search and evaluation (the numba part).

This package does no I/O.  The protocol layer and ``perft`` use only the names below (a test
reads their imports); the engine's own modules and the tests may use any.

The names are declared once, as the imports of the ``if TYPE_CHECKING:`` block, which editors
and type checkers follow to the definitions.  At run time each is loaded on first use
(PEP 562), from the module that block names: reading a numba-free name (the variants, the
options) does not import numba, so the Hub front end declares its parameters at once and
loads the kernels later (:func:`load`, in a background thread).  The numba cache is keyed to
these sources first (:mod:`engine.cache`).
"""
from __future__ import annotations

import ast
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from .cache import key_the_compile_cache

key_the_compile_cache()

if TYPE_CHECKING:
    from .cache import keyed_dir
    from .book import book_arrays, book_key, read_book, shipped_book
    from .egdb import (EgdbError, egdb_build, egdb_dir, egdb_dirs, egdb_load, egdb_slice_counts,
                       egdb_slice_size, egdb_slices, egdb_value_name)
    from .errors import BadInput, NoGpu
    from .eval import eval_tables
    from .game import Game, Outcome
    from .install import install_command
    from .learn import Fit, expected_result, extract_features, to_rectangles, widen
    from .notation import (capture_paths, find_move, move_from_hub, move_from_pdn, move_to_hub,
                           move_to_pdn, parse_position, pos_from_dxp, pos_from_fen, pos_from_hub,
                           pos_from_pieces, pos_to_dxp, pos_to_fen, pos_to_hub)
    from .options import OPTIONS, options_usage, parse_float, parse_int
    from .patterns import RECT_ALONE, RECT_PLUS
    from .pdn import Note, Step, read_pdn, write_pdn
    from .counting import new_perft_table
    from .divide import new_stop_flag, perft, perft_divide, set_stop, warm_up
    from .gpu_perft import gpu_counter, gpu_name
    from .profiling import jit_functions
    from .position import (BLACK, WHITE, Move, Position, allowed_moves, legal_moves, play,
                           start_position)
    from .limits import Info, Limits, Result
    from .replay import NO_SCORE, quiet_positions
    from .search import Searcher
    from .variants import INTERNATIONAL, VARIANTS, Variant, get_variant
    from .weights import weight_block


def _declared() -> dict[str, str]:
    """Each exported name and its module, read from the ``TYPE_CHECKING`` block above."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
    return {alias.name: node.module for node in block.body for alias in node.names}


_WHERE = _declared()
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


# Loaded only by whoever asks for their names: the GPU perft (``numba.cuda``).
_ON_DEMAND = {"gpu_perft"}


def load() -> None:
    """Import every kernel-backed module now (numba and its cache: about a second warm),
    but those loaded on demand only."""
    for module in set(_WHERE.values()) - _ON_DEMAND:
        import_module(f".{module}", __name__)


def __dir__():
    return sorted(list(globals()) + __all__)
