"""Rafle's engine: rules, move generation, search and evaluation (the numba part).

This package does no I/O.  The protocol layer and ``perft`` use only the names exported
here (a test reads their imports).  Names are loaded on first use (PEP 562): this is
the one lazy loader of the project.  Reading a numba-free name (the variants, the
search options) does not import numba, so the Hub front end can declare its
parameters at once and load the kernels later, by touching a kernel-backed name
(:func:`load`) in a background thread.
"""
from importlib import import_module

_EXPORTS = {
    "errors": ("BadInput",),
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
                 "new_stop_flag", "perft", "perft_divide", "play", "set_stop", "start_position",
                 "warm_up", "winner"),
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
