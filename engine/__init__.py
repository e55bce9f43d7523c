"""Rafle's engine: rules, move generation, search and evaluation (the numba part).

This package does no I/O.  The protocol layer uses only the names exported here.
"""
from .errors import BadInput
from .notation import (
    capture_paths, move_from_hub, move_from_pdn, move_to_hub, move_to_pdn, parse_position,
    pos_from_fen, pos_from_hub, pos_to_fen, pos_to_hub, square_name,
)
from .position import (
    BLACK, WHITE, Move, Position, is_lost, legal_moves, perft, perft_divide, play,
    start_position, warm_up, winner,
)
from .variants import (
    GOAL_BREAKTHROUGH, GOAL_LOSING, GOAL_NORMAL, INTERNATIONAL, VARIANTS, Variant, get_variant,
)

__all__ = [
    "BadInput", "Move", "Position", "Variant", "WHITE", "BLACK", "INTERNATIONAL", "VARIANTS",
    "get_variant", "start_position", "legal_moves", "play", "perft", "perft_divide",
    "is_lost", "warm_up", "pos_from_hub", "pos_to_hub", "pos_from_fen", "pos_to_fen",
    "parse_position", "move_from_hub", "move_to_hub", "move_from_pdn", "move_to_pdn",
    "capture_paths", "winner", "square_name", "GOAL_NORMAL", "GOAL_BREAKTHROUGH", "GOAL_LOSING",
]
