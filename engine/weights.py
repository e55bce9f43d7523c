"""The evaluation's weight arrays: the hand weights, and learned ones from a weight file.

A weight file (``.npz``) holds ``block`` (int32, the pattern weights of
:func:`engine.patterns.layout`), ``width`` (the board it was fitted for; ``full``
true for the plain 8x8 board of Turkish draughts, absent or false for a diagonal
board; ``odd`` true where the second family of windows is in, absent or false if not;
``rect`` 1 (or true) where the windows are the rectangles of 12 squares, 2 where the rectangles
follow the first family of windows, absent or 0 if there are none;
``phase`` ``pip`` where the opening and endgame weights are blended by the men's rows still to
go, absent or ``pieces`` where by the pieces left), ``version`` (a name such as
``international-1``) and ``variant``.  The files Rafle ships live in
``engine/data/weights-<variant>.npz``; ``rafle train`` writes them.  A variant without
a file plays with the hand evaluation.  A file that cannot be read, or does not fit
the board, raises :class:`WeightsError` naming the file; callers fall back to the
hand evaluation and say so.
"""
from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import BadInput
from .eval import (BLOCKED, CENTRE, LEARNED, LEARNED_AT, LEARNED_DENSE, LEARNED_LOCAL,
                   LEARNED_PIP, LEARNED_RECT, LEARNED_START, MAN, MOB_MAN, N_WEIGHTS, OUTPOST, SLOT_ROW,
                   SUPPORT, T_FAR_B, T_FAR_W, T_PSLOTS, T_RSLOTS, T_SLOTS, WEIGHTS, board_tables,
                   men_terms)
from .movegen import opposite, step
from .variants import NDIRS, V_BOARD, V_MAN_STEPS
from .patterns import (KING_TERMS, NCONFIG, NDENSE, RECT_ALONE, RECT_PLUS, RECT_TURNED, SLOTS_AT,
                       TURNED, families, layout, window_bases, windows)

DATA = Path(__file__).resolve().parent / "data"


class WeightsError(BadInput):
    """A weight file that is missing pieces, corrupt, or made for another board."""


@dataclass(frozen=True)
class Evaluation:
    """A weight array the kernels read, and what it is (``hand`` or a version name)."""

    weights: np.ndarray
    name: str


HAND = Evaluation(WEIGHTS, "hand")


def shipped(variant) -> Path:
    """Where Rafle's own weight file for ``variant`` lives (it may not exist)."""
    return DATA / f"weights-{variant.name}.npz"


LIMIT = 1 << 24      # a window weight's bound: 56 of them sum inside 32 bits (28 entries of two)
MEN_LIMIT = 1 << 20  # the bound of a man's dense weights, which ride in the windows too: 40 men's
                     # four single terms (under 2^28) and their six weights of local terms
                     # (under 2^28) add to the windows' 56 * 2^24, inside 2^31 (72 * 2^24 with
                     # the rectangles after the windows: still inside)


def _both_sides(w: np.ndarray, fams: list[tuple[int, int]]) -> np.ndarray:
    """Per window and White's index: White's weight minus the weight Black reads from
    the same squares (the opposite window of the same family, through the board turned:
    ``TURNED``, or ``RECT_TURNED`` for the rectangles)."""
    out, at = [], 0
    for n, stride in fams:
        turned = TURNED if stride == NCONFIG else RECT_TURNED
        f = w[at:at + n * stride].reshape(n, stride)
        out.append((f - f[::-1][:, turned]).ravel())
        at += n * stride
    return np.concatenate(out)


def learned(block: np.ndarray, width: int, name: str, full: bool = False,
            odd: bool = False, variant=None, pip: bool = False, rect: int = 0) -> Evaluation:
    """The weight array of a learned evaluation: the hand weights, then one entry a window
    and index for both sides and both phases (White's weight minus Black's from the same
    squares, opening * 2^32 + endgame: one read), then the dense weights (opening,
    endgame).  The dense terms of single men (material, advancement, back rank, centre)
    are added into the windows' entries (:func:`_men_in_windows`): the search reads them
    there, and evaluates only the other dense terms (``engine.eval.piece_terms``).  Given
    the ``variant`` (the way its men step), the terms of a man and its neighbours
    (``engine.eval.local_terms``) go into the windows too, as the men alone make them
    (:func:`_local_in_windows`).  ``odd``: the block holds the second family of windows too;
    ``pip``: its phase is by the men's rows still to go (``engine.eval.pip_phase``);
    ``rect``: the rectangles, alone (1) or after the first family (2)."""
    _, eg_w, op_d, _, size = layout(width, full, odd, rect)
    nw = windows(width, full, odd, rect)
    fams = families(width, full, odd, rect)
    block = np.asarray(block, dtype=np.int64)
    op = _both_sides(np.clip(block[:eg_w], -LIMIT, LIMIT), fams)
    eg = _both_sides(np.clip(block[eg_w:op_d], -LIMIT, LIMIT), fams)
    out = np.zeros(LEARNED_AT + eg_w + size - op_d, dtype=np.int64)
    out[:N_WEIGHTS] = WEIGHTS
    out[LEARNED] = nw
    out[LEARNED_RECT] = int(rect)
    out[LEARNED_DENSE] = LEARNED_AT + eg_w
    out[LEARNED_START] = start_pieces(width, full)
    out[LEARNED_PIP] = start_pips(width, full) if pip else 0
    out[LEARNED_AT + eg_w:] = block[op_d:]
    a, b = LEARNED_AT + eg_w, LEARNED_AT + eg_w + NDENSE
    for d in (a, b):
        for t in (*range(MAN, CENTRE + 1), SUPPORT, OUTPOST, BLOCKED, MOB_MAN):
            out[d + t] = np.clip(out[d + t], -MEN_LIMIT, MEN_LIMIT)
    men_op, men_eg = _men_in_windows(out, width, full, a, b, eg_w, rect, odd)
    op += men_op
    eg += men_eg
    local = None if variant is None else _local_in_windows(out, width, full, variant.table,
                                                            a, b, eg_w, rect, odd)
    if local is not None:
        out[LEARNED_LOCAL] = 1
        op += local[0]
        eg += local[1]
    out[LEARNED_AT:LEARNED_AT + eg_w] = op * (1 << 32) + eg
    out.flags.writeable = False
    return Evaluation(out, name)


def _slots(width: int, full: bool, rect: int) -> np.ndarray:
    """The windows (or rectangles) each square lies in, and its power of three there."""
    T = board_tables(width, full)
    at = {0: T_SLOTS, RECT_ALONE: T_RSLOTS, RECT_PLUS: T_PSLOTS}[int(rect)]
    return T[at:at + 64 * SLOT_ROW].reshape(64, SLOT_ROW)


def _men_in_windows(W: np.ndarray, width: int, full: bool, a: int, b: int, size: int,
                    rect: int = 0, odd: bool = False):
    """The terms of single men (``engine.eval.men_terms``, dense weights at ``W[a]`` and
    ``W[b]``) as ``size`` window weights to add, opening and endgame: each square's terms
    go to the first window it lies in, so that the search reads them with the windows."""
    T = board_tables(width, full)
    slots = _slots(width, full, rect)
    bases, strides = window_bases(width, full, odd, rect)
    op, eg = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    for x in range(64):
        if slots[x, 0] == 0:
            continue                  # not a square of the board
        u, power = int(slots[x, SLOTS_AT]), int(slots[x, SLOTS_AT + 1])
        configs = np.arange(strides[u])
        man = np.int64(np.uint64(1) << np.uint64(x))
        for colour, wm, bm in ((1, man, np.int64(0)), (2, np.int64(0), man)):
            sa, sb = men_terms(wm, bm, width, T, W, a, b, 1)
            at = bases[u] + np.flatnonzero(configs // power % 3 == colour)  # its digit
            op[at] += sa
            eg[at] += sb
    return op, eg


def _reach(V) -> list[list[int]]:
    """``reach[d][y]``: the board's squares one step of direction ``d`` from the board's
    square ``y``, as ``engine.movegen.step`` finds them (bits; 0 off the board)."""
    board = int(V[V_BOARD])
    one = lambda y: np.int64(np.uint64(1) << np.uint64(y))
    return [[int(step(one(y), d, V)) & board if board >> y & 1 else 0 for y in range(64)]
            for d in range(NDIRS)]


def _local_in_windows(W: np.ndarray, width: int, full: bool, V: np.ndarray, a: int, b: int,
                      size: int, rect: int = 0, odd: bool = False):
    """``engine.eval.local_terms`` of the men alone (dense weights at ``W[a]`` and ``W[b]``)
    as ``size`` window weights to add, opening and endgame: a man's support and outpost
    (the squares behind it, ``eval._supported``) go to the first window holding the man
    and those squares, its steps and whether it is blocked (``man_steps``, ``man_free``)
    to the first holding the man and the squares ahead; None where a square has no such
    window."""
    T = board_tables(width, full)
    slots = _slots(width, full, rect)
    bases, strides = window_bases(width, full, odd, rect)
    op, eg = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    digits: dict = {}
    reach = _reach(V)
    to = lambda x, d: [y for y in range(64) if reach[d][x] >> y & 1]           # x steps to
    into = lambda x, d: [y for y in range(64) if reach[d][y] >> x & 1]         # steps to x
    for x in range(64):
        if slots[x, 0] == 0:
            continue                  # not a square of the board
        for turn, colour, sign, far in ((0, 1, 1, T[T_FAR_W]), (1, 2, -1, T[T_FAR_B])):
            mine, theirs = int(V[V_MAN_STEPS + turn]), int(V[V_MAN_STEPS + 1 - turn])
            rear = [into(x, opposite(d)) for d in range(NDIRS) if (theirs & ~mine) >> d & 1]
            ahead = [y for d in range(NDIRS) if mine >> d & 1 for y in to(x, d)]
            exits = [y for d in range(NDIRS) if mine >> d & 1 for y in into(x, opposite(d))]
            found = _window_of(slots, [x, *(y for ys in rear for y in ys)], strides, digits)
            if found is None:
                return None
            u, digit = found
            held = digit(x) == colour
            for ys in rear:             # an own man on a square of each rear direction
                held &= np.any([digit(y) == colour for y in ys], axis=0)
            for s, d in ((op, a), (eg, b)):
                s[bases[u]:bases[u] + strides[u]] += sign * held * (
                    W[d + SUPPORT] + (far >> x & 1) * W[d + OUTPOST])
            found = _window_of(slots, [x, *ahead, *exits], strides, digits)
            if found is None:
                return None
            u, digit = found
            man = digit(x) == colour
            steps = np.sum([digit(y) == 0 for y in ahead], axis=0, dtype=np.int64)
            free = np.any([digit(y) == 0 for y in exits], axis=0)
            for s, d in ((op, a), (eg, b)):
                s[bases[u]:bases[u] + strides[u]] += sign * man * (
                    steps * W[d + MOB_MAN] - ~free * W[d + BLOCKED])
    return op, eg


def _window_of(slots: np.ndarray, squares: list[int], strides: np.ndarray,
               digits: dict | None = None):
    """(u, the digit of a square in window u's indices) of the first window of the first
    family holding every one of ``squares`` (``strides``: each window's contents); None if
    none does."""
    power = [{int(slots[y, SLOTS_AT + 2 * j]): int(slots[y, SLOTS_AT + 1 + 2 * j])
              for j in range(slots[y, 0])} for y in squares]
    for u in power[0]:
        if all(u in p for p in power):
            at = dict(zip(squares, (p[u] for p in power)))
            if digits is None:
                digits = {}
            return u, lambda y: _digits(digits, at[y], int(strides[u]))
    return None


def _digits(cache: dict, power: int, stride: int) -> np.ndarray:
    """The digit of ``power`` (a power of three) in every index below ``stride``, kept in
    ``cache`` (the rectangles' indices are many, their powers few)."""
    if (power, stride) not in cache:
        cache[power, stride] = (np.arange(stride) // power % 3).astype(np.int8)
    return cache[power, stride]


def start_pieces(width: int, full: bool = False) -> int:
    """The pieces on the board at the start: the phase's 100%."""
    return 32 if full else 40 if width == 10 else 24


def start_pips(width: int, full: bool = False) -> int:
    """The men's rows still to go at the start, both sides (Scan's 300 on 10x10): the pip
    phase's 100%.  A side's men fill its first rows: two of eight squares on the plain 8x8
    board, else all but the middle two rows of half the squares."""
    per, rows = (width, 2) if full else (width // 2, width // 2 - 1)
    first = 1 if full else 0                  # Turkish leaves its back row empty
    return 2 * per * sum(width - 1 - r for r in range(first, first + rows))


PHASES = ("pieces", "pip")


def _read(path: Path) -> tuple[np.ndarray, int, bool, bool, bool, int, str]:
    """(block, width, full board, second family, pip phase, rectangles, version) of a
    weight file; WeightsError if unreadable."""
    try:
        with np.load(path, allow_pickle=False) as data:
            full = bool(data["full"]) if "full" in data.files else False
            odd = bool(data["odd"]) if "odd" in data.files else False
            rect = int(data["rect"]) if "rect" in data.files else 0
            phase = str(data["phase"]) if "phase" in data.files else "pieces"
            width = int(data["width"])
            block, version = np.asarray(data["block"]), str(data["version"])
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        raise WeightsError(f"cannot read the weight file {path}: {exc}") from None
    if phase not in PHASES:
        raise WeightsError(f"the weight file {path} has the phase {phase!r}, not one of "
                           f"{', '.join(PHASES)}")
    if rect not in (0, RECT_ALONE, RECT_PLUS):
        raise WeightsError(f"the weight file {path} says rect {rect}: not a model of Rafle's "
                           f"(0 none, {RECT_ALONE} the rectangles alone, {RECT_PLUS} after the "
                           f"windows)")
    if rect and (full or odd):
        raise WeightsError(f"the weight file {path} holds rectangles with another family of "
                           f"windows or on the plain 8x8 board: not a model of Rafle's")
    return (_with_kings(block, width, full, odd, rect), width, full, odd, phase == "pip", rect,
            version)


def _with_kings(block: np.ndarray, width: int, full: bool, odd: bool, rect: int) -> np.ndarray:
    """A block written before the kings' terms were (``engine.patterns.KING_TERMS``), with
    them at zero: the evaluation it was fitted as; any other block as it is."""
    if rect:
        return block                  # (rectangles came after the kings' terms)
    try:
        short = layout(width, full, odd)[-1] - 2 * KING_TERMS
    except ValueError:
        return block
    if block.ndim == 1 and len(block) == short:
        return np.concatenate([block, np.zeros(2 * KING_TERMS, dtype=block.dtype)])
    return block


def _board(width: int, full: bool) -> str:
    return f"{width}x{width} board" + (" (all 64 squares)" if full else "")


def check(path: str | Path) -> str:
    """The version of the weight file ``path``; WeightsError if it is not one."""
    path = Path(path)
    block, width, full, odd, _, rect, version = _read(path)
    if (width not in (8, 10) or (full and (width != 8 or odd))
            or len(block) != layout(width, full, odd, rect)[-1]):
        raise WeightsError(f"the weight file {path} is not a pattern evaluation of Rafle's")
    return version


def load(path: str | Path, variant) -> Evaluation:
    """The learned evaluation in ``path`` for ``variant``'s board; WeightsError if the
    file is unreadable or not one of ours."""
    block, version, odd, pip, rect = _checked(Path(path), variant)
    return learned(block.astype(np.int64), variant.width, version, variant.full_board, odd,
                   variant, pip, rect)


def weight_block(path: str | Path, variant) -> tuple[np.ndarray, bool, bool, int]:
    """The weights of ``path`` as ``rafle train`` wrote them (to start a fit of
    ``variant`` from them), whether they hold the second family of windows, whether
    their phase is the pip count, and their rectangles (0 none, 1 alone, 2 after the windows);
    WeightsError as :func:`load`."""
    block, _, odd, pip, rect = _checked(Path(path), variant)
    return block, odd, pip, rect


def _checked(path: Path, variant) -> tuple[np.ndarray, str, bool, bool, int]:
    block, width, full, odd, pip, rect, version = _read(path)
    if (width, full) != (variant.width, variant.full_board):
        raise WeightsError(f"the weight file {path} is for a {_board(width, full)}, "
                           f"not {variant.name}'s {_board(variant.width, variant.full_board)}")
    if odd and full:
        raise WeightsError(f"the weight file {path} holds a second family of windows, "
                           f"which the plain 8x8 board has not")
    size = layout(width, full, odd, rect)[-1]
    if block.ndim != 1 or len(block) != size or block.dtype.kind not in "iu":
        raise WeightsError(f"the weight file {path} holds {block.shape} {block.dtype} weights, "
                           f"not the {size} integers of the pattern evaluation")
    return block, version, odd, pip, rect


def default(variant, path: str | Path | None = None) -> tuple[Evaluation, str | None]:
    """The evaluation Rafle plays ``variant`` with: the weights in ``path`` (default: its
    shipped file) if they exist and load, else the hand evaluation; and a note when a
    file failed to load."""
    path = shipped(variant) if path is None else Path(path)
    if not path.is_file():
        return HAND, (None if path == shipped(variant) else
                      f"no weight file {path}; playing with the hand evaluation")
    try:
        return load(path, variant), None
    except WeightsError as exc:
        return HAND, f"{exc}; playing with the hand evaluation"
