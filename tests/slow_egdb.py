"""A slow, obvious endgame database: the twin of :mod:`engine.egdb`'s build.

It shares nothing with ``engine/``: positions are dicts of the variant's square numbers
(the move generator of :mod:`slow_rules_variants`), every position of up to N pieces is
listed by plain enumeration, the game graph between them is written out in full, and
values are found by plain fixed-point iteration over that graph: a position without a
move is lost, one with a move to a position lost for the opponent is won, one whose every
move leads to a position won for the opponent is lost; what no pass decides is drawn.
"""
from __future__ import annotations

from itertools import combinations

import slow_rules_variants as slow

WIN, DRAW, LOSS = "win", "draw", "loss"


def _squares(rules):
    return range(1, rules.size * rules.size // 2 + 1)


def _men_squares(rules, side):
    """Where a man of ``side`` can stand: anywhere but the row where it is crowned."""
    far = slow._far_row(rules, side)
    return [s for s in _squares(rules) if slow.coords(rules, s)[0] != far]


def positions(rules, pieces: int):
    """Every position of 2..``pieces`` pieces with a piece of each side, both sides to move:
    (frozenset of (square, piece)), side)."""
    for n in range(2, pieces + 1):
        for wm in range(n + 1):
            for wk in range(n + 1 - wm):
                for bm in range(n + 1 - wm - wk):
                    bk = n - wm - wk - bm
                    if wm + wk == 0 or bm + bk == 0:
                        continue
                    yield from _slice(rules, wm, wk, bm, bk)


def _slice(rules, wm, wk, bm, bk):
    for wmen in combinations(_men_squares(rules, "W"), wm):
        rest = [s for s in _men_squares(rules, "B") if s not in wmen]
        for bmen in combinations(rest, bm):
            free = [s for s in _squares(rules) if s not in wmen and s not in bmen]
            for wkings in combinations(free, wk):
                free2 = [s for s in free if s not in wkings]
                for bkings in combinations(free2, bk):
                    board = frozenset([(s, "w") for s in wmen] + [(s, "b") for s in bmen]
                                      + [(s, "W") for s in wkings] + [(s, "B") for s in bkings])
                    yield board, "W"
                    yield board, "B"


def solve(rules, pieces: int) -> dict:
    """(board, side) -> WIN, DRAW or LOSS for the side to move."""
    graph = {}
    for board, side in positions(rules, pieces):
        moves = slow.legal_moves(rules, dict(board), side)
        children = []
        for move in moves:
            after, other = slow.play(rules, dict(board), side, move)
            children.append((frozenset(after.items()), other))
        graph[(board, side)] = children
    value = {}
    changed = True
    while changed:
        changed = False
        for node, children in graph.items():
            if node in value:
                continue
            found = None
            if not children:
                found = LOSS
            else:
                seen = [_value_of(c, value) for c in children]
                if LOSS in seen:
                    found = WIN
                elif all(v == WIN for v in seen):
                    found = LOSS
            if found is not None:
                value[node] = found
                changed = True
    return {node: value.get(node, DRAW) for node in graph}


def _value_of(child, value):
    board, side = child
    if not any(slow.own(p, side) for _, p in board):
        return LOSS                       # no piece left: no move
    return value.get(child)
