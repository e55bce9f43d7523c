"""Rafle's engine: rules, move generation, search and evaluation (the numba part).

This package does no I/O.  The protocol layer uses only the names exported here.
They are loaded on first use (PEP 562), so that ``engine.variants`` and
``engine.options`` can be read without importing numba: the Hub front end declares
its parameters from them before the kernels load.
"""
from importlib import import_module

_EXPORTS = {
    "errors": ("BadInput",),
    "notation": ("capture_paths", "move_from_hub", "move_from_pdn", "move_to_hub", "move_to_pdn",
                 "parse_position", "pos_from_fen", "pos_from_hub", "pos_to_fen", "pos_to_hub",
                 "square_name"),
    "position": ("BLACK", "WHITE", "Move", "Position", "is_lost", "legal_moves", "perft",
                 "perft_divide", "play", "start_position", "warm_up", "winner"),
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


def __dir__():
    return sorted(list(globals()) + __all__)
