"""Reference perft for the variants that perft/data/reference.json has no entry for.

Breakthrough and antidraughts move exactly as international draughts, and frysk as
Frisian (only the start, or the goal, differ), so they must reproduce those variants'
published counts from the same positions.  The other variants' own counts are checked
in test_variants.py (and international in test_perft.py).
"""
from __future__ import annotations

import pytest

from perft.suite import load_reference
from engine import get_variant, parse_position, perft

MAX_NODES = 2_000_000     # enough cases for CI without the deep ones
BORROWED = {"breakthrough": "international", "antidraughts": "international", "frysk": "frisian"}


def cases():
    seen = {}
    for e in load_reference():
        if e["dup_captures_once"] is not True or e["nodes"] > MAX_NODES:
            continue
        for name, source in BORROWED.items():
            if e["variant"] == source:
                seen.setdefault((name, e["fen"], e["depth"]), e["nodes"])
    return [pytest.param(name, fen, depth, nodes, id=f"{name}-d{depth}-{nodes}")
            for (name, fen, depth), nodes in sorted(seen.items())]


CASES = cases()


def test_every_borrowing_variant_has_cases():
    assert {c.values[0] for c in CASES} == set(BORROWED)
    assert all(sum(1 for c in CASES if c.values[0] == name) >= 5 for name in BORROWED)


@pytest.mark.parametrize("name, fen, depth, nodes", CASES)
def test_borrowed_reference_perft(name, fen, depth, nodes):
    assert perft(parse_position(fen, get_variant(name)), depth) == nodes
