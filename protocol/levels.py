"""Rafle's strength levels, shared by the front ends that play a person (text mode, the board).

A level is a name ("easy" ... "brutal") for search limits, or limits given directly
(``depth 6``, ``time 2.5``, ``nodes 100000``).
"""
from __future__ import annotations

from engine import BadInput, Limits, parse_float, parse_int

# Named strengths, weakest first.  The low levels are fixed depths (quick, and always the
# same reply); the high ones are thinking times per move.
LEVELS: dict[str, Limits] = {
    "easy": Limits(depth=2),
    "medium": Limits(depth=4),
    "hard": Limits(movetime=1.0),
    "expert": Limits(movetime=3.0),
    "brutal": Limits(movetime=10.0),
}


def describe_limits(limits: Limits) -> str:
    parts = []
    if limits.depth is not None:
        parts.append(f"depth {limits.depth}")
    if limits.movetime is not None:
        parts.append(f"{limits.movetime:g} s per move")
    if limits.nodes is not None:
        parts.append(f"{limits.nodes} nodes")
    return ", ".join(parts) or "engine default"


def parse_level(words: list[str]) -> tuple[str, Limits]:
    """``easy``..``brutal``, ``depth N``, ``time SECONDS`` or ``nodes N``: (name, limits)."""
    if not words:
        raise BadInput(f"level needs a name ({', '.join(LEVELS)}) or depth N / time S")
    key = words[0].lower()
    if key in LEVELS and len(words) == 1:
        return key, LEVELS[key]
    if key in ("depth", "time", "nodes") and len(words) == 1:
        example = {"depth": "depth 6", "time": "time 2.5", "nodes": "nodes 100000"}[key]
        raise BadInput(f"{key} needs a number, e.g. {example}")
    if key in ("depth", "time", "nodes") and len(words) == 2:
        value = parse_float(words[1]) if key == "time" else parse_int(words[1], -10 ** 18, 10 ** 18)
        if value is None:
            raise BadInput(f"{key} needs a number, got {words[1]!r}")
        most = {"depth": 60, "time": 24 * 3600, "nodes": 10 ** 12}[key]
        if not 0 < value <= most:
            raise BadInput(f"{key} must be more than 0 and at most {most}")
        limits = {"depth": Limits(depth=value), "time": Limits(movetime=value),
                  "nodes": Limits(nodes=value)}[key]
        return f"{key} {words[1]}", limits
    raise BadInput(f"unknown level {' '.join(words)!r}: use one of {', '.join(LEVELS)}, "
                   "or depth N, or time SECONDS")
