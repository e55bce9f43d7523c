"""Endgame databases: the game-theoretic value (win, draw, loss) of every position with few
pieces, built by Rafle's own kernels and probed by the search.

**Slices.**  A database is cut into *slices*, one per material balance: white men, white
kings, black men, black kings (``wm, wk, bm, bk``; each side has a piece).  A move leads
from a slice to itself (a quiet move), to a slice of as many pieces with one man fewer
(a promotion), or to a slice of fewer pieces (a capture).  Slices are therefore built in
the order of (pieces, men): everything a slice's positions lead to, outside the slice
itself, is known before it is built.

**Index.**  A position of a slice has the number

    ((((r_wm * C(nb, bm) + r_bm) * C(f, wk) + r_wk) * C(f - wk, bk) + r_bk) * 2 + turn

where ``r_x`` ranks a set of squares in the combinatorial number system: white men among
the squares a white man can stand on (``nw``: every square but White's crowning row),
black men among theirs (``nb``), then white kings among the ``f = n - wm - bm`` squares the
men leave free, and black kings among the squares still free.  Kings' ranks are dense; the
men of the two sides are ranked independently, so a placement with a white and a black man
on the same square has a number but no position (``INVALID``; none when a side has no men).

**Values** are for the side to move: ``WIN``, ``LOSS``, ``DRAW`` (2 bits a position in a
slice's file).  They are game-theoretic under the move rules alone: the draw rules
(repetition, the 25-, 16- and 5-move rules and their relatives) are not in them, and the
search applies those rules as it does everywhere else.  Positions with a capture pending
are stored too (their value comes from the captures, which lead to smaller slices), so a
probe needs no search.  Only variants whose goal is the normal one have databases.

**Build** (:func:`solve_pass`): every position of a slice is first valued from its moves
(no move: lost; a move to a position lost for the opponent: won; every move to a position
won for the opponent: lost).  Then the values spread backwards: the positions decided in a
pass mark their *predecessors* in the slice (:func:`mark_predecessors`: the positions one
quiet move before them, found by moving a piece of the side that just moved backwards), and
the next pass values again only the marked positions still unknown.  A position is looked
at again only when one of its children changed, not in every pass as in a plain forward
iteration.  When a pass decides nothing, what is still unknown is a draw (neither side can
force anything).  Passes run on several threads over parts of the positions; a value once
set never changes, and a mark is only ever set, so what one thread reads of another's
writes is always right.
A slice whose colour mirror (``bm, bk, wm, wk``) is built already is not solved but read
from it (:func:`mirror_fill`): that halves the build.
"""
from __future__ import annotations

import os
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

from .bits import lsb_index, popcount
from .movegen import MAX_MOVES, STATE_SIZE, generate, make, opposite
from .variants import (GOAL_NORMAL, V_BOARD, V_FLYING_KING, V_KING_STEPS, V_MAN_STEPS,
                       V_PROMO_BLACK, V_PROMO_WHITE)

FORMAT = "rafle-egdb-1"
MAX_PIECES = 7                 # a count of one kind is below 8 (3 bits of a slice code)
UNKNOWN, WIN, LOSS, INVALID = 0, 1, 2, 3
DRAW = 0                       # in a finished slice, UNKNOWN has become DRAW
NO_SLICE = -1
CHUNK_SHIFT = 12               # marks of the build are looked for a chunk of 4096 at a time

# Rows of the index table X (per variant): bit -> index, index -> bit.
X_SQ, X_WMEN, X_BMEN, X_SQ_BIT, X_WMEN_BIT, X_BMEN_BIT, X_SIZES, X_TURN = range(8)
X_ROWS = 8
# X[X_SIZES]: number of squares, of white-men squares, of black-men squares, board mask
XS_N, XS_NW, XS_NB, XS_BOARD = range(4)


def binomials() -> np.ndarray:
    """C(n, k) for n <= 64, k <= 8."""
    c = np.zeros((65, 9), dtype=np.int64)
    for n in range(65):
        for k in range(9):
            c[n, k] = comb(n, k)
    return c


BINOM = binomials()


def index_table(variant) -> np.ndarray:
    """The index table X of ``variant`` (see the module docstring)."""
    V = variant.table
    board = int(V[V_BOARD])
    white_men = board & ~int(V[V_PROMO_WHITE])
    black_men = board & ~int(V[V_PROMO_BLACK])
    X = np.full((X_ROWS, 64), -1, dtype=np.int64)
    for row, bit_row, mask in ((X_SQ, X_SQ_BIT, board), (X_WMEN, X_WMEN_BIT, white_men),
                               (X_BMEN, X_BMEN_BIT, black_men)):
        i = 0
        for bit in range(64):
            if (mask >> bit) & 1:
                X[row, bit] = i
                X[bit_row, i] = bit
                i += 1
    X[X_SIZES, XS_N] = bin(board).count("1")
    X[X_SIZES, XS_NW] = bin(white_men).count("1")
    X[X_SIZES, XS_NB] = bin(black_men).count("1")
    X[X_SIZES, XS_BOARD] = board
    # X_TURN: the bit of the square half a turn away (the board seen from the other side)
    n = int(X[X_SIZES, XS_N])
    for i in range(n):
        X[X_TURN, X[X_SQ_BIT, i]] = X[X_SQ_BIT, n - 1 - i]
    return X


def slice_code(wm: int, wk: int, bm: int, bk: int) -> int:
    return ((wm * 8 + wk) * 8 + bm) * 8 + bk


def slice_name(key: tuple[int, int, int, int]) -> str:
    """``wm wk bm bk`` as a file stem: ``1200`` is one white man and two white kings... ."""
    return "".join(str(x) for x in key)


def slice_size(X: np.ndarray, key: tuple[int, int, int, int]) -> int:
    """Positions (numbers) of a slice, both sides to move."""
    wm, wk, bm, bk = key
    n, nw, nb = int(X[X_SIZES, XS_N]), int(X[X_SIZES, XS_NW]), int(X[X_SIZES, XS_NB])
    f = n - wm - bm
    return comb(nw, wm) * comb(nb, bm) * comb(f, wk) * comb(f - wk, bk) * 2


def slices(pieces: int) -> list[tuple[int, int, int, int]]:
    """Every slice of 2..``pieces`` pieces, in build order (pieces, then men)."""
    out = []
    for n in range(2, pieces + 1):
        for wm in range(n + 1):
            for wk in range(n + 1 - wm):
                for bm in range(n + 1 - wm - wk):
                    bk = n - wm - wk - bm
                    if wm + wk and bm + bk:
                        out.append((wm, wk, bm, bk))
    return sorted(out, key=lambda s: (sum(s), s[0] + s[2], s))


# ----- index kernels -------------------------------------------------------------------
@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _rank_in(bb, X, row, C):
    r = 0
    j = 1
    while bb:
        bit = lsb_index(bb)
        bb &= bb - 1
        r += C[X[row, bit], j]
        j += 1
    return r


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _rank_free(bb, free, C):
    r = 0
    j = 1
    while bb:
        bit = lsb_index(bb)
        bb &= bb - 1
        r += C[popcount(free & ((1 << bit) - 1)), j]
        j += 1
    return r


@njit(cache=True, nogil=True, _nrt=False)
def position_index(w, b, k, t, X, C):
    """(slice code, number) of a position; the code is that of its material balance."""
    wmen = w & ~k
    bmen = b & ~k
    wk_bb = w & k
    bk_bb = b & k
    wm = popcount(wmen)
    bm = popcount(bmen)
    wk = popcount(wk_bb)
    bk = popcount(bk_bb)
    n = X[X_SIZES, XS_N]
    f = n - wm - bm
    free = X[X_SIZES, XS_BOARD] & ~(wmen | bmen)
    r = _rank_in(wmen, X, X_WMEN, C)
    r = r * C[X[X_SIZES, XS_NB], bm] + _rank_in(bmen, X, X_BMEN, C)
    r = r * C[f, wk] + _rank_free(wk_bb, free, C)
    r = r * C[f - wk, bk] + _rank_free(bk_bb, free & ~wk_bb, C)
    return ((wm * 8 + wk) * 8 + bm) * 8 + bk, r * 2 + t


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _unrank_set(r, count, n, C):
    """The ``count`` indices (a bitmask over 0..n-1) of rank ``r``; ``r`` is consumed."""
    out = 0
    hi = n - 1
    for j in range(count, 0, -1):
        c = hi
        while C[c, j] > r:
            c -= 1
        r -= C[c, j]
        out |= 1 << c
        hi = c - 1
    return out


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _to_bits(mask, X, row):
    """The bits ``X[row, i]`` for every ``i`` set in ``mask``."""
    out = 0
    while mask:
        i = lsb_index(mask)
        mask &= mask - 1
        out |= 1 << X[row, i]
    return out


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _to_free(mask, free):
    """The squares of ``free`` whose order among ``free``'s bits is in ``mask``."""
    out = 0
    i = 0
    while free:
        low = free & -free
        free ^= low
        if (mask >> i) & 1:
            out |= low
        i += 1
    return out


@njit(cache=True, nogil=True, _nrt=False)
def position_of(wm, wk, bm, bk, idx, X, C):
    """The position numbered ``idx`` in a slice: (white, black, kings, turn, valid)."""
    t = idx & 1
    r = idx >> 1
    n = X[X_SIZES, XS_N]
    f = n - wm - bm
    c4 = C[f - wk, bk]
    c3 = C[f, wk]
    c2 = C[X[X_SIZES, XS_NB], bm]
    r_bk = r % c4
    r //= c4
    r_wk = r % c3
    r //= c3
    r_bm = r % c2
    r_wm = r // c2
    wmen = _to_bits(_unrank_set(r_wm, wm, X[X_SIZES, XS_NW], C), X, X_WMEN_BIT)
    bmen = _to_bits(_unrank_set(r_bm, bm, X[X_SIZES, XS_NB], C), X, X_BMEN_BIT)
    if wmen & bmen:
        return 0, 0, 0, t, False
    free = X[X_SIZES, XS_BOARD] & ~(wmen | bmen)
    wk_bb = _to_free(_unrank_set(r_wk, wk, f, C), free)
    bk_bb = _to_free(_unrank_set(r_bk, bk, f - wk, C), free & ~wk_bb)
    return wmen | wk_bb, bmen | bk_bb, wk_bb | bk_bb, t, True


@njit(cache=True, nogil=True, _nrt=False)
def index_round_trip(wm, wk, bm, bk, X, C, size):
    """Unrank then rank every number of a slice: (valid positions, numbers whose position
    ranks elsewhere or has other material).  A check of the index, for the tests."""
    code = ((wm * 8 + wk) * 8 + bm) * 8 + bk
    valid = 0
    bad = 0
    for idx in range(size):
        w, b, k, t, ok = position_of(wm, wk, bm, bk, idx, X, C)
        if not ok:
            continue
        valid += 1
        got_code, got = position_index(w, b, k, t, X, C)
        if got_code != code or got != idx or (w & b) != 0:
            bad += 1
    return valid, bad


@njit(cache=True, nogil=True, _nrt=False)
def mirror_fill(wm, wk, bm, bk, base, lo, hi, src, vals, X, C):
    """Value the positions ``lo..hi`` of a slice from its colour mirror (``bm, bk, wm, wk``,
    built, starting at ``src``): a position turned half round with the colours swapped
    has the same value for its side to move, since every rule is the same for both sides
    seen from their own side of the board."""
    for idx in range(lo, hi):
        w, b, k, t, ok = position_of(wm, wk, bm, bk, idx, X, C)
        if not ok:
            vals[base + idx] = INVALID
            continue
        code, j = position_index(_to_bits(b, X, X_TURN), _to_bits(w, X, X_TURN), _to_bits(k, X, X_TURN),
                                 1 - t, X, C)
        vals[base + idx] = vals[src + j]


# ----- build ---------------------------------------------------------------------------
@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _child_value(w, b, k, t, vals, offsets, X, C):
    """Value of a child for its side to move, UNKNOWN, or -1 if its slice is missing."""
    if (w if t == 0 else b) == 0:
        return LOSS                     # no piece left: no move
    code, idx = position_index(w, b, k, t, X, C)
    off = offsets[code]
    if off < 0:
        return -1
    return vals[off + idx]


@njit(cache=True, nogil=True, _nrt=False)
def mark_predecessors(w, b, k, t, dirty, chunks, V, S, X, C):
    """Set ``dirty[i]`` (and ``chunks[i >> CHUNK_SHIFT]``, so that :func:`collect` skips
    the chunks with no mark) for the number ``i`` of every position of the same slice from
    which a quiet move that crowns nothing leads to this one (the side not to move here
    moved last: one of its men one step back, or one of its kings back along a line over
    empty squares).  Captures and crownings change the material, so these are all the
    predecessors in the slice; some marked ones may have had a capture to make instead
    (captures are compulsory), which is harmless: a mark only asks for another look."""
    mover = 1 - t
    own = b if t == 0 else w
    empty = X[X_SIZES, XS_BOARD] & ~(w | b)
    men = own & ~k
    flying = V[V_FLYING_KING] != 0
    while men:
        sq = lsb_index(men)
        men &= men - 1
        dirs = V[V_MAN_STEPS + mover]
        while dirs:
            d = lsb_index(dirs)
            dirs &= dirs - 1
            back = S[opposite(d), sq]
            if back >= 0 and (empty >> back) & 1:
                moved = (1 << sq) | (1 << back)
                if mover == 0:
                    code, idx = position_index(w ^ moved, b, k, mover, X, C)
                else:
                    code, idx = position_index(w, b ^ moved, k, mover, X, C)
                dirty[idx] = 1
                chunks[idx >> CHUNK_SHIFT] = 1
    ks = own & k
    while ks:
        sq = lsb_index(ks)
        ks &= ks - 1
        dirs = V[V_KING_STEPS]
        while dirs:
            d = lsb_index(dirs)
            dirs &= dirs - 1
            back = S[d, sq]
            while back >= 0 and (empty >> back) & 1:
                moved = (1 << sq) | (1 << back)
                if mover == 0:
                    code, idx = position_index(w ^ moved, b, k ^ moved, mover, X, C)
                else:
                    code, idx = position_index(w, b ^ moved, k ^ moved, mover, X, C)
                dirty[idx] = 1
                chunks[idx >> CHUNK_SHIFT] = 1
                if not flying:
                    break
                back = S[d, back]


@njit(cache=True, nogil=True, _nrt=False)
def solve_pass(wm, wk, bm, bk, base, todo, lo, hi, first, vals, offsets, V, S, X, C, moves, state,
               dirty, chunks):
    """Value the positions ``todo[lo:hi]`` of a slice (all of ``lo..hi`` when ``first``)
    from their moves, and mark in ``dirty`` the predecessors of each position decided
    (not in the first pass, after which every position still unknown is looked at again).
    ``vals[base + idx]`` is the slice's; other slices are found through ``offsets`` (by
    slice code).  Returns the positions decided, or -1 if a child's slice is missing
    (built out of order)."""
    decided = 0
    for j in range(lo, hi):
        idx = j if first else todo[j]
        if not first and vals[base + idx] != UNKNOWN:
            continue
        w, b, k, t, ok = position_of(wm, wk, bm, bk, idx, X, C)
        if not ok:
            vals[base + idx] = INVALID
            continue
        n = generate(w, b, k, t, V, S, moves, state)
        value = LOSS
        for m in range(n):
            cw, cb, ck, ct = make(w, b, k, t, moves[m, 0], moves[m, 1], moves[m, 2], moves[m, 3])
            cv = _child_value(cw, cb, ck, ct, vals, offsets, X, C)
            if cv < 0:
                return -1
            if cv == LOSS:
                value = WIN
                break
            if cv != WIN:
                value = UNKNOWN
        if value != UNKNOWN:
            vals[base + idx] = value
            decided += 1
            if not first:
                mark_predecessors(w, b, k, t, dirty, chunks, V, S, X, C)
    return decided


@njit(cache=True, nogil=True, _nrt=False)
def collect(dirty, chunks, vals, base, out):
    """Write to ``out`` the marked positions still unknown, in order, clear every mark,
    and return their number.  Only the chunks with a mark are read."""
    n = 0
    for c in range(chunks.shape[0]):
        if not chunks[c]:
            continue
        chunks[c] = 0
        for i in range(c << CHUNK_SHIFT, min((c + 1) << CHUNK_SHIFT, dirty.shape[0])):
            if dirty[i]:
                dirty[i] = 0
                if vals[base + i] == UNKNOWN:
                    out[n] = i
                    n += 1
    return n


@njit(cache=True, nogil=True, _nrt=False)
def pack(vals, out):
    """2 bits a value, four to a byte (the first in the low bits); UNKNOWN is DRAW."""
    for i in range(out.shape[0]):
        byte = 0
        for j in range(4):
            p = i * 4 + j
            if p < vals.shape[0]:
                byte |= (vals[p] & 3) << (2 * j)
        out[i] = byte


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def packed_value(data, pos):
    return (data[pos >> 2] >> ((pos & 3) * 2)) & 3


@njit(cache=True, nogil=True, _nrt=False)
def unpack(data, size, out, at):
    for p in range(size):
        out[at + p] = packed_value(data, p)


# ----- probe ---------------------------------------------------------------------------
@njit(cache=True, nogil=True, _nrt=False)
def probe(w, b, k, t, X, C, offsets, data):
    """The value of a position for its side to move (WIN, LOSS, DRAW), or -1 when its
    slice is not loaded.  ``offsets[code]``: the slice's first position in ``data``."""
    if (w if t == 0 else b) == 0:
        return LOSS
    if (b if t == 0 else w) == 0:
        return WIN
    code, idx = position_index(w, b, k, t, X, C)
    off = offsets[code]
    if off < 0:
        return -1
    v = packed_value(data, off + idx)
    return -1 if v == INVALID else v


# ----- files ---------------------------------------------------------------------------
class EgdbError(Exception):
    """A database file that cannot be read, or a build that cannot go on."""


SHIPPED_DIR = Path(__file__).resolve().parent / "data" / "egdb"   # shipped with the package


def default_dir() -> Path:
    """Where databases are built unless told: the user's cache directory."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rafle" / "egdb"


def default_dirs() -> list[Path]:
    """Where databases are looked for unless told: the user's cache directory, then the sets
    shipped with the package (international, English and Russian, up to 4 pieces)."""
    return [default_dir(), SHIPPED_DIR]


def _find(roots, variant, key) -> Path | None:
    """The file of a slice in the first of ``roots`` that has it (None: in none)."""
    for root in roots:
        path = slice_path(root, variant, key)
        if path.exists():
            return path
    return None


def slice_path(root: str | Path, variant, key) -> Path:
    return Path(root) / variant.name / f"{slice_name(key)}.npz"


def read_slice(path: Path, variant, key, X) -> np.ndarray:
    """The packed values of a slice file; EgdbError if it is not that slice's."""
    size = slice_size(X, key)
    try:
        with np.load(path, allow_pickle=False) as f:
            fmt, made_for = str(f["format"]), str(f["variant"])
            counts = tuple(int(x) for x in f["slice"])
            data = np.asarray(f["values"], dtype=np.uint8)
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        raise EgdbError(f"cannot read the database file {path}: {exc}") from None
    if fmt != FORMAT or made_for != variant.name or counts != tuple(key):
        raise EgdbError(f"{path} is not the {variant.name} slice {slice_name(key)} of {FORMAT}")
    if len(data) != (size + 3) // 4:
        raise EgdbError(f"{path} is corrupt: {len(data)} bytes for {size} positions")
    return data


def write_slice(path: Path, variant, key, packed: np.ndarray) -> None:
    """Write a slice file atomically (a slice on disk is complete or absent)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as fh:
        np.savez_compressed(fh, format=np.array(FORMAT), variant=np.array(variant.name),
                            slice=np.array(key, dtype=np.int64), values=packed)
    os.replace(tmp, path)


@dataclass
class Tables:
    """The loaded slices of one variant, as the search probes them."""

    pieces: int                # every slice of up to this many pieces is loaded
    X: np.ndarray
    offsets: np.ndarray        # slice code -> first position in data, or -1
    data: np.ndarray           # packed values of every loaded slice

    def probe(self, pos) -> int:
        """WIN, LOSS, DRAW for the side to move of ``pos``, or -1 (not in the tables)."""
        if bin(pos.white | pos.black).count("1") > self.pieces:
            return -1
        return int(probe(*pos.words, self.X, BINOM,
                         self.offsets, self.data))


def empty_tables() -> Tables:
    """Tables with nothing loaded (what the search is given without a database)."""
    return Tables(0, np.zeros((X_ROWS, 64), dtype=np.int64),
                  np.full(8 ** 4, NO_SLICE, dtype=np.int64), np.zeros(1, dtype=np.uint8))


def load(root, variant, pieces: int = MAX_PIECES) -> Tables | None:
    """The slices of ``variant`` under ``root`` (a folder, or a list of folders: each slice
    from the first that has it) up to the largest complete piece count not above
    ``pieces``; None if there is not even the 2-piece set.  A file that cannot be read
    counts as missing (EgdbError is not raised: a search runs without it)."""
    if variant.goal != GOAL_NORMAL or variant.full_board:
        return None
    roots = [root] if isinstance(root, (str, Path)) else list(root)
    X = index_table(variant)
    top = min(pieces, MAX_PIECES)
    # Room for every slice whose file is there, allocated untouched: each slice is read
    # into its place, so the peak is the tables themselves, not twice them.
    room = sum((slice_size(X, key) + 3) // 4 for key in slices(top)
               if _find(roots, variant, key) is not None)
    data = np.empty(max(room, 1), dtype=np.uint8)
    offsets, at, complete = np.full(8 ** 4, NO_SLICE, dtype=np.int64), 0, 0
    for n in range(2, top + 1):
        placed = []
        start = at
        for key in (s for s in slices(n) if sum(s) == n):
            path = _find(roots, variant, key)
            if path is None:
                break
            try:
                chunk = read_slice(path, variant, key, X)
            except EgdbError:
                break
            data[at:at + len(chunk)] = chunk
            placed.append((key, at))
            at += len(chunk)
        else:
            for key, first in placed:
                offsets[slice_code(*key)] = first * 4
            complete = n
            continue
        at = start
        break
    if not complete:
        return None
    data = data[:at]
    return Tables(complete, X, offsets, data)


@dataclass
class Progress:
    """What a build reports: the slice, its pass, positions decided so far, its size."""

    key: tuple[int, int, int, int]
    done_slices: int
    all_slices: int
    passes: int
    decided: int
    size: int
    finished: bool = False
    seconds: float = 0.0
    skipped: bool = False
    counts: tuple[int, int, int] = (0, 0, 0)   # wins, draws, losses (side to move), when finished


def _counts(region: np.ndarray) -> tuple[int, int, int]:
    found = np.bincount(region.astype(np.int64), minlength=4)
    return int(found[WIN]), int(found[UNKNOWN]), int(found[LOSS])


def build(root: str | Path, variant, pieces: int, threads: int = 1, report=None) -> list[Progress]:
    """Build every slice of ``variant`` up to ``pieces`` pieces under ``root``, skipping
    slices already written (a build is resumable).  ``report(Progress)`` is called as it
    goes.  Returns the final Progress of each slice."""
    if variant.goal != GOAL_NORMAL:
        raise EgdbError(f"{variant.name} has no endgame databases (its goal is not the normal one)")
    if variant.full_board:
        raise EgdbError(f"{variant.name} has no endgame databases: their index covers the "
                        f"dark squares of a diagonal board, not all 64 squares")
    if not 2 <= pieces <= MAX_PIECES:
        raise EgdbError(f"pieces must be 2..{MAX_PIECES}")
    X, C, V, S = index_table(variant), BINOM, variant.table, variant.steps
    order = slices(pieces)
    sizes = [slice_size(X, key) for key in order]
    offsets = np.full(8 ** 4, NO_SLICE, dtype=np.int64)
    starts, at = [], 0
    for key, size in zip(order, sizes):
        starts.append(at)
        at += size
    vals = np.zeros(at, dtype=np.int8)
    threads = max(1, threads)
    scratch = [(np.zeros((MAX_MOVES, 4), dtype=np.int64), np.zeros(STATE_SIZE, dtype=np.int64))
               for _ in range(threads)]
    out = []
    with ThreadPoolExecutor(threads) as pool:
        for i, (key, size, base) in enumerate(zip(order, sizes, starts)):
            path = slice_path(root, variant, key)
            t0 = time.monotonic()
            if path.exists():
                data = read_slice(path, variant, key, X)
                unpack(data, size, vals, base)
                offsets[slice_code(*key)] = base
                done = Progress(key, i + 1, len(order), 0, size, size, True, 0.0, True,
                                _counts(vals[base:base + size]))
                out.append(done)
                if report:
                    report(done)
                continue
            offsets[slice_code(*key)] = base
            passes, decided = 0, 0
            mirror = (key[2], key[3], key[0], key[1])
            src = offsets[slice_code(*mirror)]
            if mirror != key and src >= 0:
                parts = max(1, min(64 * threads, size // 65536 + 1))
                bounds = [size * p // parts for p in range(parts + 1)]
                list(pool.map(lambda p: mirror_fill(key[0], key[1], key[2], key[3], base,
                                                    bounds[p], bounds[p + 1], src, vals, X, C),
                              range(parts)))
                region = vals[base:base + size]
                decided = int(np.count_nonzero((region == WIN) | (region == LOSS)))
            solving = src < 0 or mirror == key
            dirty = np.zeros(size if solving else 0, dtype=np.uint8)
            chunks = np.zeros(((size >> CHUNK_SHIFT) + 1) if solving else 0, dtype=np.uint8)
            todo = np.zeros(0, dtype=np.int64)
            count = size
            while solving:
                first = passes == 0
                parts = max(1, min(64 * threads, count // 4096 + 1))
                bounds = [count * p // parts for p in range(parts + 1)]

                def run(p, first=first, bounds=bounds):
                    moves, state = scratch[p % threads]
                    return solve_pass(key[0], key[1], key[2], key[3], base, todo, bounds[p],
                                      bounds[p + 1], first, vals, offsets, V, S, X, C, moves, state,
                                      dirty, chunks)

                # A part's scratch is shared only by parts of the same residue, which the
                # pool's threads never run at once: parts are grouped per worker below.
                results = list(pool.map(lambda g: [run(p) for p in range(g, parts, threads)],
                                        range(threads)))
                got = [x for group in results for x in group]
                if min(got) < 0:
                    raise EgdbError(f"slice {slice_name(key)}: a slice it leads to is missing")
                passes += 1
                changed = sum(got)
                decided += changed
                if first:
                    # Every position still unknown is looked at again once (most of the
                    # slice was decided; marking all that would cost more than this).
                    todo = np.flatnonzero(vals[base:base + size] == UNKNOWN).astype(np.int64)
                    count = len(todo)
                else:
                    count = collect(dirty, chunks, vals, base, todo)
                if report:
                    report(Progress(key, i, len(order), passes, decided, size))
                if changed == 0 or count == 0:
                    break
            region = vals[base:base + size]
            packed = np.zeros((size + 3) // 4, dtype=np.uint8)
            pack(region, packed)
            write_slice(path, variant, key, packed)
            done = Progress(key, i + 1, len(order), passes, decided, size, True,
                            time.monotonic() - t0, False, _counts(region))
            out.append(done)
            if report:
                report(done)
    return out


# The names of the engine's public face (engine/__init__.py).
egdb_build = build
egdb_load = load
egdb_dir = default_dir
egdb_dirs = default_dirs
egdb_slices = slices
EgdbTables = Tables
EgdbProgress = Progress


def egdb_slice_size(variant, key) -> int:
    """Positions of a slice of ``variant`` (both sides to move)."""
    return slice_size(index_table(variant), key)


def egdb_round_trip(variant, key) -> tuple[int, int]:
    """(valid positions, bad numbers) of a slice's index: see :func:`index_round_trip`."""
    X = index_table(variant)
    return tuple(int(x) for x in index_round_trip(*key, X, BINOM, slice_size(X, key)))


_BYTE_VALUES = np.array([[sum(((byte >> (2 * j)) & 3) == v for j in range(4)) for v in range(4)]
                         for byte in range(256)], dtype=np.int64)


def egdb_slice_counts(root, variant, key) -> tuple[int, int, int, int]:
    """(wins, draws, losses, bytes on disk) of a slice file (side to move's view)."""
    X = index_table(variant)
    path = slice_path(root, variant, key)
    data = read_slice(path, variant, key, X)
    found = np.bincount(data, minlength=256) @ _BYTE_VALUES
    padding = len(data) * 4 - slice_size(X, key)
    return int(found[WIN]), int(found[DRAW]) - padding, int(found[LOSS]), path.stat().st_size


def egdb_value_name(value: int) -> str:
    """A database value as a word: ``win``, ``draw``, ``loss`` (the side to move's view), or
    ``unknown`` for a position the databases do not hold."""
    return {WIN: "win", LOSS: "loss", DRAW: "draw"}.get(value, "unknown")
