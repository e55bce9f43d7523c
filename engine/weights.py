"""The evaluation's weight arrays: the hand weights, and learned ones from a weight file.

A weight file (``.npz``) holds ``block`` (int32, the pattern weights of
:func:`engine.patterns.layout`), ``width`` (the board it was fitted for; ``full``
true for the plain 8x8 board of Turkish draughts, absent or false for a diagonal
board; ``odd`` true where the second family of windows is in, absent or false if not),
``version`` (a name such as ``international-1``) and ``variant``.  The files Rafle ships live in
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
from .eval import (CENTRE, LEARNED, LEARNED_AT, LEARNED_START, MAN, N_WEIGHTS, SLOT_ROW,
                   T_SLOTS, WEIGHTS, board_tables, men_terms)
from .patterns import NCONFIG, NDENSE, SLOTS_AT, TURNED, layout, odd_windows, windows

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
MEN_LIMIT = 1 << 20  # the bound of a single man's dense weights, which ride in the windows too:
                     # 40 men's four terms add under 2^28 to the windows' 56 * 2^24


def _both_sides(w: np.ndarray, families: list[int]) -> np.ndarray:
    """Per window and White's index: White's weight minus the weight Black reads from
    the same squares (the opposite window of the same family, through the board turned:
    ``TURNED``)."""
    out, at = [], 0
    for n in families:
        f = w[at * NCONFIG:(at + n) * NCONFIG].reshape(n, NCONFIG)
        out.append((f - f[::-1][:, TURNED]).ravel())
        at += n
    return np.concatenate(out)


def learned(block: np.ndarray, width: int, name: str, full: bool = False,
            odd: bool = False) -> Evaluation:
    """The weight array of a learned evaluation: the hand weights, then one entry a window
    and index for both sides and both phases (White's weight minus Black's from the same
    squares, opening * 2^32 + endgame: one read), then the dense weights (opening,
    endgame).  The dense terms of single men (material, advancement, back rank, centre)
    are added into the windows' entries (:func:`_men_in_windows`): the search reads them
    there, and evaluates only the other dense terms (``engine.eval.piece_terms``).
    ``odd``: the block holds the second family of windows too."""
    _, eg_w, op_d, _, size = layout(width, full, odd)
    nw = windows(width, full, odd)
    families = [windows(width, full)] + ([odd_windows(width)] if odd else [])
    block = np.asarray(block, dtype=np.int64)
    op = _both_sides(np.clip(block[:eg_w], -LIMIT, LIMIT), families)
    eg = _both_sides(np.clip(block[eg_w:op_d], -LIMIT, LIMIT), families)
    out = np.zeros(LEARNED_AT + eg_w + size - op_d, dtype=np.int64)
    out[:N_WEIGHTS] = WEIGHTS
    out[LEARNED] = nw
    out[LEARNED_START] = start_pieces(width, full)
    out[LEARNED_AT + eg_w:] = block[op_d:]
    for d in (LEARNED_AT + eg_w, LEARNED_AT + eg_w + NDENSE):
        out[d + MAN:d + CENTRE + 1] = np.clip(out[d + MAN:d + CENTRE + 1], -MEN_LIMIT, MEN_LIMIT)
    men_op, men_eg = _men_in_windows(out, width, full, LEARNED_AT + eg_w,
                                      LEARNED_AT + eg_w + NDENSE, eg_w)
    out[LEARNED_AT:LEARNED_AT + eg_w] = (op + men_op) * (1 << 32) + eg + men_eg
    out.flags.writeable = False
    return Evaluation(out, name)


def _men_in_windows(W: np.ndarray, width: int, full: bool, a: int, b: int, size: int):
    """The terms of single men (``engine.eval.men_terms``, dense weights at ``W[a]`` and
    ``W[b]``) as ``size`` window weights to add, opening and endgame: each square's terms
    go to the first window it lies in, so that the search reads them with the windows."""
    T = board_tables(width, full)
    slots = T[T_SLOTS:].reshape(64, SLOT_ROW)
    configs = np.arange(NCONFIG)
    op, eg = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    for x in range(64):
        if slots[x, 0] == 0:
            continue                  # not a square of the board
        u, power = int(slots[x, SLOTS_AT]), int(slots[x, SLOTS_AT + 1])
        man = np.int64(np.uint64(1) << np.uint64(x))
        for colour, wm, bm in ((1, man, np.int64(0)), (2, np.int64(0), man)):
            sa, sb = men_terms(wm, bm, width, T, W, a, b, 1)
            at = u * NCONFIG + np.flatnonzero(configs // power % 3 == colour)  # its digit
            op[at] += sa
            eg[at] += sb
    return op, eg


def start_pieces(width: int, full: bool = False) -> int:
    """The pieces on the board at the start: the phase's 100%."""
    return 32 if full else 40 if width == 10 else 24


def _read(path: Path) -> tuple[np.ndarray, int, bool, bool, str]:
    """(block, width, full board, second family, version) of a weight file; WeightsError
    if unreadable."""
    try:
        with np.load(path, allow_pickle=False) as data:
            full = bool(data["full"]) if "full" in data.files else False
            odd = bool(data["odd"]) if "odd" in data.files else False
            return (np.asarray(data["block"]), int(data["width"]), full, odd,
                    str(data["version"]))
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        raise WeightsError(f"cannot read the weight file {path}: {exc}") from None


def _board(width: int, full: bool) -> str:
    return f"{width}x{width} board" + (" (all 64 squares)" if full else "")


def check(path: str | Path) -> str:
    """The version of the weight file ``path``; WeightsError if it is not one."""
    path = Path(path)
    block, width, full, odd, version = _read(path)
    if (width not in (8, 10) or (full and (width != 8 or odd))
            or len(block) != layout(width, full, odd)[-1]):
        raise WeightsError(f"the weight file {path} is not a pattern evaluation of Rafle's")
    return version


def load(path: str | Path, variant) -> Evaluation:
    """The learned evaluation in ``path`` for ``variant``'s board; WeightsError if the
    file is unreadable or not one of ours."""
    block, version, odd = _checked(Path(path), variant)
    return learned(block.astype(np.int64), variant.width, version, variant.full_board, odd)


def weight_block(path: str | Path, variant) -> tuple[np.ndarray, bool]:
    """The weights of ``path`` as ``rafle train`` wrote them (to start a fit of
    ``variant`` from them), and whether they hold the second family of windows;
    WeightsError as :func:`load`."""
    block, _, odd = _checked(Path(path), variant)
    return block, odd


def _checked(path: Path, variant) -> tuple[np.ndarray, str, bool]:
    block, width, full, odd, version = _read(path)
    if (width, full) != (variant.width, variant.full_board):
        raise WeightsError(f"the weight file {path} is for a {_board(width, full)}, "
                           f"not {variant.name}'s {_board(variant.width, variant.full_board)}")
    if odd and full:
        raise WeightsError(f"the weight file {path} holds a second family of windows, "
                           f"which the plain 8x8 board has not")
    size = layout(width, full, odd)[-1]
    if block.ndim != 1 or len(block) != size or block.dtype.kind not in "iu":
        raise WeightsError(f"the weight file {path} holds {block.shape} {block.dtype} weights, "
                           f"not the {size} integers of the pattern evaluation")
    return block, version, odd


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
