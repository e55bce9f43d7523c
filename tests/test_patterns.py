"""The pattern evaluation against its slow twin, and its colour symmetry.

The twin reads each 4x4 window (both families: at even and at odd columns), or each rectangle of
4 columns by 6 rows (alone, or after the first family), square by square on (row, column)
coordinates, with the
board turned 180 degrees for Black, and sums the weights as engine/patterns.py's
docstring defines them; it shares no table with the kernel.  Both run on thousands of
random positions of the 10x10 and 8x8 boards with random weights.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from engine import BLACK, WHITE, Position, get_variant, start_position
from engine import eval as ev
from engine import weights as wt
from engine.patterns import (KING_TERMS, NCONFIG, NDENSE, PHASE_ONE, RCONFIG, RECT_ALONE, RECT_PLUS,
                             SCALE, layout, windows)
from engine.variants import VARIANTS

BOARDS = ["international", "russian", "english", "antidraughts", "breakthrough"]
ALL_BOARDS = BOARDS + ["turkish"]           # the full board too (no slow twin of its terms)


def coords(width: int, square: int, full: bool = False) -> tuple[int, int]:
    if full:                                    # Turkish: 1 = a8 .. 8 = h8, 9 = a7 ..
        return divmod(square - 1, width)
    half = width // 2
    row = (square - 1) // half
    return row, 2 * ((square - 1) % half) + (1 if row % 2 == 0 else 0)


def slow_pips(pos: Position) -> int:
    """Scan's pip count: the rows every man still has to go to promote, both sides."""
    v = pos.variant
    total = 0
    for s in range(1, v.nsquares + 1):
        row = coords(v.width, s, v.full_board)[0]     # from the top, where White promotes
        total += {"w": row, "b": v.width - 1 - row}.get(pos.piece_at(s), 0)
    return total


def slow_learned(pos: Position, block: np.ndarray, odd: bool = False, pip: bool = False,
                 rect: int = 0, drawish_kings: int = 0) -> int:
    v = pos.variant
    width, n, full = v.width, v.nsquares, v.full_board
    board = {coords(width, s, full): pos.piece_at(s) for s in range(1, n + 1)}
    nw = windows(width, full, odd, rect)
    op_w, eg_w, op_d, eg_d, _ = layout(width, full, odd, rect)

    def index(view, r0, c0, own, opp, rows):
        idx, i = 0, 0
        for r in range(r0, r0 + rows):
            for c in range(c0, c0 + 4):
                if full or (r + c) % 2 == 1:
                    piece = view(r, c)
                    idx += 3 ** i * (1 if piece == own else 2 if piece == opp else 0)
                    i += 1
        return idx

    white_view = lambda r, c: board[(r, c)]
    black_view = lambda r, c: board[(width - 1 - r, width - 1 - c)]
    # Each window: (its top row, left column, rows, contents); 2x4 on the full board.
    rows = 2 if full else 4
    corners = [(r, c, rows, NCONFIG) for r in range(width + 1 - rows)
               for c in range(0, width - 3, 2)]
    if rect == RECT_ALONE:
        corners = []
    if rect:                                    # the top six rows and the bottom six
        corners += [(r, c, 6, RCONFIG) for r in (0, width - 6) for c in range(0, width - 3, 2)]
    if odd:                                     # the second family: 4x4 at odd columns
        corners += [(r, c, 4, NCONFIG) for r in range(width - 3) for c in range(1, width - 4, 2)]
    assert len(corners) == nw
    op = eg = 0
    at = 0                                      # where the window's weights start
    for r0, c0, rows, size in corners:
        iw = index(white_view, r0, c0, "w", "b", rows)
        ib = index(black_view, r0, c0, "b", "w", rows)
        op += block[op_w + at + iw] - block[op_w + at + ib]
        eg += block[eg_w + at + iw] - block[eg_w + at + ib]
        at += size

    if full:        # no slow twin of the full board's terms: the test zeroes their weights
        assert not block[op_d:op_d + 2 * NDENSE].any()
    else:
        feats = slow_terms(pos)
        op += sum(block[op_d + d] * f for d, f in enumerate(feats))
        eg += sum(block[eg_d + d] * f for d, f in enumerate(feats))
    # The kings' terms: a first king, kings beyond it, a weight for each king's square
    # (0-based), Black's read on the board turned (square s is square n + 1 - s).
    kw = [s for s in range(1, n + 1) if pos.piece_at(s) == "W"]
    kb = [s for s in range(1, n + 1) if pos.piece_at(s) == "B"]
    first = (len(kw) > 0) - (len(kb) > 0)
    more = max(len(kw) - 1, 0) - max(len(kb) - 1, 0)
    for at, total in ((eg_d + NDENSE, "op"), (eg_d + NDENSE + KING_TERMS, "eg")):
        k = (block[at] * first + block[at + 1] * more + sum(block[at + 1 + s] for s in kw)
             - sum(block[at + 2 + n - s] for s in kb))
        if total == "op":
            op += k
        else:
            eg += k
    has_king = {"w": any(p == "W" for p in board.values()), "b": any(p == "B" for p in board.values())}
    if pip:                                     # the rows to go, of the start's
        pips, start = slow_pips(pos), slow_pips(start_position(v))
        ph = PHASE_ONE if pips >= start else PHASE_ONE * pips // start
    else:
        pieces = sum(p != "e" for p in board.values())
        start = 32 if full else 40 if width == 10 else 24
        ph = PHASE_ONE if pieces >= start else PHASE_ONE * pieces // start
    total = op * ph + eg * (PHASE_ONE - ph)
    unit = PHASE_ONE * SCALE
    score = total // unit if total >= 0 else -((-total) // unit)
    n_white = sum(p in "wW" for p in board.values())
    n_black = sum(p in "bB" for p in board.values())
    if v.goal == "losing":
        pass                                    # antidraughts: no drawish endings
    elif score > 0 and has_king["b"] and n_white <= 3:
        score //= ev.WEIGHTS[ev.DRAW_DIV]
    elif score < 0 and has_king["w"] and n_black <= 3:
        score = -((-score) // ev.WEIGHTS[ev.DRAW_DIV])
    elif score != 0 and has_king["w"] and has_king["b"] and drawish_kings and level_kings(board):
        score = abs(score) // drawish_kings * (1 if score > 0 else -1)
    return -score if pos.turn == BLACK else score


def level_kings(board: dict) -> bool:
    """As many kings on each side, and men within one."""
    count = {p: sum(q == p for q in board.values()) for p in "wWbB"}
    return count["W"] == count["B"] and abs(count["w"] - count["b"]) <= 1


def slow_terms(pos: Position) -> list[int]:
    """The hand terms MAN .. TEMPO (White's count minus Black's), square by square."""
    v = pos.variant
    width, n = v.width, v.nsquares
    mid = width // 2
    board = {coords(width, s): pos.piece_at(s) for s in range(1, n + 1)}
    f = [0] * NDENSE
    has_king = {"w": "W" in board.values(), "b": "B" in board.values()}
    left = {"w": 0, "b": 0}
    for (row, col), piece in board.items():
        if piece == "e":
            continue
        sign = 1 if piece in "wW" else -1
        if piece in "WB":
            f[ev.KING] += sign
            if row + col == width - 1:
                f[ev.KING_DIAG] += sign
            for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
                r, c = row + dr, col + dc
                while board.get((r, c)) == "e":
                    f[ev.MOB_KING] += sign
                    if not v.table[ev.V_FLYING_KING]:
                        break
                    r, c = r + dr, c + dc
            continue
        own = "wW" if piece == "w" else "bB"
        ahead = -1 if piece == "w" else 1
        own_row = width - 1 - row if piece == "w" else row
        f[ev.MAN] += sign
        f[ev.ROW + own_row] += sign
        f[ev.BACK] += sign * (own_row == 0)
        f[ev.CENTRE] += sign * (row in (mid - 1, mid) and 2 <= col <= width - 3)
        behind = [board.get((row - ahead, col + dc)) for dc in (-1, 1)]
        if all(p is not None and p in own for p in behind):
            f[ev.SUPPORT] += sign
            f[ev.OUTPOST] += sign * (own_row >= mid)
        free = [board.get((row + ahead, col + dc)) == "e" for dc in (-1, 1)]
        f[ev.MOB_MAN] += sign * sum(free)
        f[ev.BLOCKED] -= sign * (not any(free))
        left[piece] += 1 if col < mid else -1
        if own_row >= mid and not has_king["b" if piece == "w" else "w"]:
            cone = [p for (r, c), p in board.items()
                    if 0 < (r - row) * ahead and abs(c - col) <= (r - row) * ahead]
            if all(p == "e" for p in cone):
                f[ev.RUNAWAY] += sign
                f[ev.RUN_ROW] += sign * own_row
    f[ev.BALANCE] = -(abs(left["w"]) - abs(left["b"]))
    f[ev.TEMPO] = 1 if pos.turn == WHITE else -1
    return f


def men(pos: Position) -> tuple[int, int]:
    """White's and Black's men as the kernels take them (signed: Turkish uses bit 63)."""
    white, black, kings, _ = pos.words
    return white & ~kings, black & ~kings


def random_position(variant, rng: random.Random) -> Position:
    n = variant.nsquares
    squares = rng.sample(range(1, n + 1), rng.randint(2, min(n - 4, 40)))
    white = black = kings = 0
    crown_w = set(range(1, variant.width // 2 + 1))
    crown_b = set(range(n - variant.width // 2 + 1, n + 1))
    for i, s in enumerate(squares):
        bit = 1 << variant.square_bit(s)
        side = i % 2
        if side == WHITE:
            white |= bit
        else:
            black |= bit
        if rng.random() < 0.15 or s in (crown_w if side == WHITE else crown_b):
            kings |= bit
    return Position(white, black, kings, rng.randint(0, 1), variant)


def random_block(width: int, seed: int, full: bool = False, odd: bool = False,
                 rect: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(-3000, 3000, size=layout(width, full, odd, rect)[-1]).astype(np.int64)


@pytest.mark.parametrize("pip", [False, True])
def test_the_full_boards_windows_agree_with_their_slow_twin(pip):
    # Turkish: 2x4 windows of the plain 8x8 board, read square by square on (row, column)
    # coordinates, against the kernel (its dense weights zero: the twin reads windows).
    v = get_variant("turkish")
    block = random_block(8, 11, full=True)
    op_d = layout(8, True)[2]
    block[op_d:op_d + 2 * NDENSE] = 0           # the kings' terms stay
    e = wt.learned(block, 8, "random", full=True, pip=pip)
    assert windows(8, True) == 21 and e.weights[ev.LEARNED] == 21
    T = ev.eval_tables(v)
    rng = random.Random("turkish")
    for _ in range(1500):
        pos = random_position(v, rng)
        fast = int(ev.evaluate(*pos.words, v.table, T, e.weights))
        assert fast == slow_learned(pos, block, pip=pip), pos


@pytest.mark.parametrize("odd,pip,rect", [(False, False, 0), (True, False, 0), (False, True, 0),
                                          (False, True, RECT_ALONE), (False, False, RECT_PLUS)])
@pytest.mark.parametrize("name", BOARDS)
def test_the_kernel_agrees_with_its_slow_twin(name, odd, pip, rect):
    v = get_variant(name)
    block = random_block(v.width, 1, odd=odd, rect=rect)
    e = wt.learned(block, v.width, "random", odd=odd, variant=v, pip=pip, rect=rect)
    assert e.weights[ev.LEARNED] == windows(v.width, odd=odd, rect=rect)
    assert e.weights[ev.LEARNED_RECT] == rect
    T = ev.eval_tables(v)
    rng = random.Random(name)
    for _ in range(1500):
        pos = random_position(v, rng)
        fast = int(ev.evaluate(*pos.words, v.table, T, e.weights))
        assert fast == slow_learned(pos, block, odd, pip, rect), pos


@pytest.mark.parametrize("name", BOARDS)
def test_drawish_kings_scales_as_its_slow_twin(name):
    # With drawish-kings (engine.eval.DRAW_KINGS) a side ahead with as many kings as the
    # other and men within one keeps 1/d of its score; the positions it touches are counted
    # so that the rule is seen at work, not only left alone.
    v = get_variant(name)
    block = random_block(v.width, 2)
    e = wt.learned(block, v.width, "random", variant=v, pip=True)
    scaled = e.weights.copy()
    scaled[ev.DRAW_KINGS] = 3
    T = ev.eval_tables(v)
    rng = random.Random(name + "kings")
    touched = 0
    for _ in range(1500):
        pos = random_position(v, rng)
        fast = int(ev.evaluate(*pos.words, v.table, T, scaled))
        assert fast == slow_learned(pos, block, pip=True, drawish_kings=3), pos
        touched += fast != int(ev.evaluate(*pos.words, v.table, T, e.weights))
    assert touched == 0 if v.goal == "losing" else touched > 20   # antidraughts: none


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_pip_phase_is_whole_at_every_variants_start(name):
    # The pip phase's 100% (engine.weights.start_pips, from the board's geometry) is the
    # start position's pip count, counted square by square.  Frysk (5 men a side) and Thai
    # (2 rows) start with fewer men than their board holds: for them, as for the phase by
    # pieces (engine.weights.start_pieces), the game starts part-way to the endgame.
    v = get_variant(name)
    start = start_position(v)
    full = wt.start_pips(v.width, v.full_board)
    if bin(start.white | start.black).count("1") == wt.start_pieces(v.width, v.full_board):
        assert full == slow_pips(start)
    else:
        assert name in ("frysk", "thai") and slow_pips(start) < full


def mirrored(pos: Position) -> Position:
    """The board turned 180 degrees with the colours swapped and the other side to move."""
    v = pos.variant
    n = v.nsquares
    turn = lambda bb: sum(1 << v.square_bit(n + 1 - s) for s in range(1, n + 1)
                          if bb >> v.square_bit(s) & 1)
    return Position(turn(pos.black), turn(pos.white), turn(pos.kings), 1 - pos.turn, v)


@pytest.mark.parametrize("name,odd,pip,rect", [(n, False, False, False) for n in ALL_BOARDS]
                         + [("international", True, False, False), ("russian", True, False, False),
                            ("international", False, True, False), ("turkish", False, True, False),
                            ("international", False, True, RECT_ALONE),
                            ("russian", False, False, RECT_ALONE),
                            ("international", False, True, RECT_PLUS),
                            ("english", False, False, RECT_PLUS)])
def test_a_mirrored_position_scores_the_same_for_its_side_to_move(name, odd, pip, rect):
    # The score is the side to move's: the mirror (colours swapped, the other side to
    # move) is the same position seen from the other chair, so the same score; from
    # White's side the two are each other's negation.
    v = get_variant(name)
    e = wt.learned(random_block(v.width, 2, v.full_board, odd, rect), v.width, "random",
                   v.full_board, odd, v, pip, rect)
    T = ev.eval_tables(v)
    rng = random.Random(name + "mirror")
    for _ in range(1000):
        pos = random_position(v, rng)
        twin = mirrored(pos)
        a = ev.evaluate(*pos.words, v.table, T, e.weights)
        b = ev.evaluate(*twin.words, v.table, T, e.weights)
        assert a == b, (pos, twin)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_mens_local_terms_in_the_windows_score_as_the_terms(name):
    # Given its variant, the learned evaluation carries support, outposts, blocked men and
    # men's mobility in its windows, as the men alone make them, and adds only what kings
    # change: the same score as the terms computed from the position, kings or none.
    v = get_variant(name)
    block = random_block(v.width, 8, v.full_board)
    plain = wt.learned(block, v.width, "random", v.full_board)
    folded = wt.learned(block, v.width, "random", v.full_board, variant=v)
    assert plain.weights[ev.LEARNED_LOCAL] == 0 and folded.weights[ev.LEARNED_LOCAL] == 1
    T = ev.eval_tables(v)
    rng = random.Random(name + "local")
    kings = 0
    for _ in range(600):
        pos = random_position(v, rng)
        kings += pos.kings != 0
        assert (ev.evaluate(*pos.words, v.table, T, folded.weights)
                == ev.evaluate(*pos.words, v.table, T, plain.weights)), pos
    assert kings > 100 and 600 - kings > 20      # both kinds of position


def test_zero_weights_score_zero_and_sizes_fit_a_few_megabytes():
    for name, nw in (("international", 28), ("russian", 15)):
        v = get_variant(name)
        assert windows(v.width) == nw
        block = np.zeros(layout(v.width)[-1], dtype=np.int64)
        e = wt.learned(block, v.width, "zero")
        pos = random_position(v, random.Random(3))
        assert ev.evaluate(*pos.words, v.table,
                           ev.eval_tables(v), e.weights) == 0
        assert layout(v.width)[-1] == 2 * nw * NCONFIG + 2 * NDENSE + 2 * KING_TERMS
        assert layout(v.width)[-1] * 2 < 1 << 20        # int16 on disk: under a megabyte


def test_a_weight_file_loads_and_a_bad_one_is_named(tmp_path):
    v = get_variant("international")
    block = random_block(10, 4).astype(np.int32)
    _, eg_w, op_d, eg_d, _ = layout(10)
    for d in (op_d, eg_d):        # no terms of men to fold into the windows (below)
        block[d + ev.MAN:d + ev.CENTRE + 1] = 0
        block[[d + ev.SUPPORT, d + ev.OUTPOST, d + ev.BLOCKED, d + ev.MOB_MAN]] = 0
    good = tmp_path / "w.npz"
    np.savez_compressed(good, block=block, width=10, version="test-1", variant="international")
    e = wt.load(good, v)
    packed = e.weights[ev.LEARNED_AT:]
    assert e.name == "test-1" and (packed[eg_w:] == block[op_d:]).all()
    wide = block.astype(np.int64)
    nw = windows(10)
    rng = random.Random(5)
    for _ in range(2000):        # one entry a window and White's index: both sides, both phases
        u, iw = rng.randrange(nw), rng.randrange(NCONFIG)
        digits = [iw // 3 ** j % 3 for j in range(8)]
        ib = sum(3 ** (7 - j) * (1 if d == 2 else 2 if d == 1 else 0) for j, d in enumerate(digits))
        op = wide[u * NCONFIG + iw] - wide[(nw - 1 - u) * NCONFIG + ib]
        eg = wide[eg_w + u * NCONFIG + iw] - wide[eg_w + (nw - 1 - u) * NCONFIG + ib]
        assert packed[u * NCONFIG + iw] == op * 2 ** 32 + eg
    for bad, message in (
            (b"not a zip file at all", "cannot read the weight file"),
            (None, "8x8 board"),
            ("short", "not the"),
    ):
        path = tmp_path / "bad.npz"
        if bad is None:
            np.savez(path, block=block, width=8, version="x", variant="russian")
        elif bad == "short":
            np.savez(path, block=block[:10], width=10, version="x", variant="international")
        else:
            path.write_bytes(bad)
        with pytest.raises(wt.WeightsError, match=message) as info:
            wt.load(path, v)
        assert str(path) in str(info.value)
    # A diagonal 8x8 board's file is not Turkish's (all 64 squares), nor the other way.
    diagonal, full = tmp_path / "d.npz", tmp_path / "f.npz"
    np.savez(diagonal, block=random_block(8, 6).astype(np.int32), width=8, version="x")
    np.savez(full, block=random_block(8, 6, True).astype(np.int32), width=8, full=True, version="y")
    assert wt.load(full, get_variant("turkish")).name == "y" and wt.check(full) == "y"
    for path, variant in ((diagonal, "turkish"), (full, "russian")):
        with pytest.raises(wt.WeightsError, match="all 64 squares") as info:
            wt.load(path, get_variant(variant))
        assert str(path) in str(info.value)


def test_a_pip_phase_file_says_so_and_an_unknown_phase_is_named(tmp_path):
    # A file's phase is "pip" or "pieces" (absent: pieces, as every shipped file); the two
    # blend the same weights differently wherever the men's advance and their number part.
    v = get_variant("international")
    block = random_block(10, 12).astype(np.int32)
    pip, pieces, bad = tmp_path / "pip.npz", tmp_path / "pieces.npz", tmp_path / "bad.npz"
    np.savez(pip, block=block, width=10, phase="pip", version="p")
    np.savez(pieces, block=block, width=10, version="q")
    a, b = wt.load(pip, v), wt.load(pieces, v)
    assert a.weights[ev.LEARNED_PIP] == 300 and b.weights[ev.LEARNED_PIP] == 0
    assert wt.weight_block(pip, v)[2] and not wt.weight_block(pieces, v)[2]
    T = ev.eval_tables(v)
    rng = random.Random("pip file")
    score = lambda p, e: ev.evaluate(*p.words, v.table, T, e.weights)
    scores = [(score(p, a), score(p, b)) for p in (random_position(v, rng) for _ in range(200))]
    assert sum(x != y for x, y in scores) > 100
    start = start_position(v)                   # both phases whole: the same score
    assert (ev.evaluate(*start.words, v.table, T, a.weights)
            == ev.evaluate(*start.words, v.table, T, b.weights))
    np.savez(bad, block=block, width=10, phase="moon", version="m")
    for call in (wt.load, wt.weight_block):
        with pytest.raises(wt.WeightsError, match="phase 'moon'") as info:
            call(bad, v)
        assert str(bad) in str(info.value)


@pytest.mark.parametrize("name", ["international", "turkish"])
def test_a_file_without_the_kings_terms_loads_with_them_at_zero(tmp_path, name):
    # Weight files written before the kings' terms existed (every shipped file of 2026-12-05)
    # play as they did: their kings' terms read as zero.
    v = get_variant(name)
    block = random_block(v.width, 9, v.full_board).astype(np.int32)
    block[-2 * KING_TERMS:] = 0
    old, new = tmp_path / "old.npz", tmp_path / "new.npz"
    np.savez(old, block=block[:-2 * KING_TERMS], width=v.width, full=v.full_board, version="o")
    np.savez(new, block=block, width=v.width, full=v.full_board, version="n")
    assert wt.check(old) == "o"
    a, b = wt.load(old, v), wt.load(new, v)
    assert np.array_equal(a.weights, b.weights)
    start, odd, pip, rect = wt.weight_block(old, v)
    assert np.array_equal(start, block) and not odd and not pip and not rect
    # With weights there, a king's square counts, and a position without kings is left alone.
    block[-2 * KING_TERMS + 2:] = np.arange(2 * KING_TERMS - 2) * 16
    e = wt.learned(block, v.width, "kings", v.full_board, variant=v)
    T = ev.eval_tables(v)
    one = Position(1 << v.square_bit(v.nsquares), 1 << v.square_bit(1),
                   1 << v.square_bit(v.nsquares), WHITE, v)
    assert (ev.evaluate(*one.words, v.table, T, e.weights)
            != ev.evaluate(*one.words, v.table, T, a.weights))
    men = Position(1 << v.square_bit(v.nsquares), 1 << v.square_bit(1), 0, WHITE, v)
    assert (ev.evaluate(*men.words, v.table, T, e.weights)
            == ev.evaluate(*men.words, v.table, T, a.weights))


def test_odd_windows_load_widen_and_a_mismatch_is_refused(tmp_path):
    # A file with the second family says so (odd); its size must fit; widened one-family
    # weights (the second family zero) score every position as the first family alone.
    from engine import learn
    v = get_variant("international")
    block = random_block(10, 8).astype(np.int32)
    wide = learn.widen(block, 10)
    assert len(wide) == layout(10, odd=True)[-1]
    one, two = wt.learned(block, 10, "one"), wt.learned(wide, 10, "two", odd=True)
    T = ev.eval_tables(v)
    rng = random.Random("widen")
    for _ in range(300):
        pos = random_position(v, rng)
        assert (ev.evaluate(*pos.words, v.table, T, one.weights)
                == ev.evaluate(*pos.words, v.table, T, two.weights)), pos
    good, bad = tmp_path / "good.npz", tmp_path / "bad.npz"
    np.savez(good, block=wide, width=10, odd=True, version="two-1")
    assert wt.check(good) == "two-1" and wt.load(good, v).weights[ev.LEARNED] == 49
    np.savez(bad, block=block, width=10, odd=True, version="x")
    with pytest.raises(wt.WeightsError, match="not the") as info:
        wt.load(bad, v)
    assert str(bad) in str(info.value)
    np.savez(bad, block=random_block(8, 6, True).astype(np.int32), width=8, full=True, odd=True,
             version="x")
    with pytest.raises(wt.WeightsError, match="second family"):
        wt.load(bad, get_variant("turkish"))


def test_rectangles_load_start_from_windows_and_a_mismatch_is_refused(tmp_path):
    # A file of rectangles says so (rect); its size must fit; it cannot say odd too.  A
    # block of windows made a block of rectangles keeps its dense and kings' weights: with
    # the windows' and rectangles' weights zero both score every position alike.
    from engine import learn
    v = get_variant("international")
    block = random_block(10, 9)
    block[:layout(10)[2]] = 0
    rect = learn.to_rectangles(block, 10)
    assert len(rect) == layout(10, rect=True)[-1] and not rect[:layout(10, rect=True)[2]].any()
    one, two = wt.learned(block, 10, "one", variant=v), wt.learned(rect, 10, "two", variant=v,
                                                                  rect=True)
    T = ev.eval_tables(v)
    rng = random.Random("to-rectangles")
    for _ in range(300):
        pos = random_position(v, rng)
        assert (ev.evaluate(*pos.words, v.table, T, one.weights)
                == ev.evaluate(*pos.words, v.table, T, two.weights)), pos
    good, bad = tmp_path / "good.npz", tmp_path / "bad.npz"
    np.savez(good, block=rect.astype(np.int32), width=10, rect=True, version="rect-1")
    e = wt.load(good, v)
    assert wt.check(good) == "rect-1" and e.weights[ev.LEARNED] == 8 and e.weights[ev.LEARNED_RECT]
    assert wt.weight_block(good, v)[3]
    np.savez(bad, block=block.astype(np.int32), width=10, rect=True, version="x")
    with pytest.raises(wt.WeightsError, match="not the") as info:
        wt.load(bad, v)
    assert str(bad) in str(info.value)
    np.savez(bad, block=rect.astype(np.int32), width=10, rect=True, odd=True, version="x")
    with pytest.raises(wt.WeightsError, match="rectangles") as info:
        wt.load(bad, v)
    assert str(bad) in str(info.value)
    np.savez(bad, block=rect.astype(np.int32), width=10, rect=3, version="x")
    with pytest.raises(wt.WeightsError, match="rect 3") as info:
        wt.load(bad, v)
    assert str(bad) in str(info.value)


def test_the_rectangles_after_the_windows_start_from_either_model():
    # A block of windows made a block of windows and rectangles (RECT_PLUS) keeps its
    # windows, dense and kings' weights: with the rectangles at zero it scores every
    # position as before.  From a block of rectangles alone it keeps the rectangles too,
    # and back to the rectangles alone it gives them back as they were.
    from engine import learn
    v = get_variant("international")
    T = ev.eval_tables(v)
    block = random_block(10, 10)
    plus = learn.to_rectangles(block, 10, rect=RECT_PLUS)
    _, eg_w, op_d, _, size = layout(10, rect=RECT_PLUS)
    first = windows(10) * NCONFIG
    assert len(plus) == size and not plus[first:eg_w].any() and not plus[eg_w + first:op_d].any()
    one = wt.learned(block, 10, "one", variant=v)
    two = wt.learned(plus, 10, "two", variant=v, rect=RECT_PLUS)
    assert two.weights[ev.LEARNED] == 36 and two.weights[ev.LEARNED_RECT] == RECT_PLUS
    rng = random.Random("to-plus")
    for _ in range(300):
        pos = random_position(v, rng)
        assert (ev.evaluate(*pos.words, v.table, T, one.weights)
                == ev.evaluate(*pos.words, v.table, T, two.weights)), pos
    rect = random_block(10, 11, rect=RECT_ALONE)
    plus = learn.to_rectangles(rect, 10, rect=RECT_PLUS, was=RECT_ALONE)
    back = learn.to_rectangles(plus, 10, rect=RECT_ALONE, was=RECT_PLUS)
    assert np.array_equal(back, rect) and not plus[:first].any()


@pytest.mark.parametrize("name", BOARDS)
def test_the_training_features_are_the_hand_terms(name):
    from engine import learn
    v = get_variant(name)
    rng = random.Random(name + "features")
    pos = [random_position(v, rng) for _ in range(400)]
    _, _, feats, _, _, _, _ = learn.extract_features(
        np.array([p.white for p in pos]), np.array([p.black for p in pos]),
        np.array([p.kings for p in pos]), np.array([p.turn for p in pos]), v, ev.eval_tables(v))
    for p, f in zip(pos, feats):
        want = slow_terms(p)
        for d in learn.FIXED:         # left out of the fit (collinear with the men)
            want[d] = 0
        assert list(f) == want, p


@pytest.mark.parametrize("name", ALL_BOARDS)
def test_hand_weights_and_empty_windows_are_the_hand_evaluation(name):
    # A fit starts here: the learned evaluation with the hand weights of the variant's
    # goal as its dense weights (antidraughts' negated material and mobility,
    # breakthrough's tripled race) and nothing in its windows scores as the hand
    # evaluation (outside the drawish endings, where it scales the side-to-move bonus too).
    from engine import learn
    v = get_variant(name)
    _, _, op_d, eg_d, size = layout(v.width, v.full_board)
    block = np.zeros(size, dtype=np.int64)
    block[op_d:op_d + NDENSE] = block[eg_d:eg_d + NDENSE] = learn.start_weights(v.goal) * SCALE
    e = wt.learned(block, v.width, "hand-start", v.full_board, variant=v)
    T = ev.eval_tables(v)
    rng = random.Random(name + "hand")
    checked = 0
    for _ in range(1000):
        p = random_position(v, rng)
        drawish = bin(p.white).count("1") <= 3 or bin(p.black).count("1") <= 3
        if drawish and v.goal != "losing":
            continue
        learned = ev.evaluate(*p.words, v.table, T, e.weights)
        assert learned == ev.evaluate_position(p), p
        checked += 1
    assert checked > (900 if v.goal == "losing" else 500)


@pytest.mark.parametrize("name,odd,pip,rect", [(n, False, False, False) for n in ALL_BOARDS]
                         + [("international", True, False, False), ("english", True, False, False),
                            ("international", False, True, False), ("turkish", False, True, False),
                            ("international", False, True, RECT_ALONE),
                            ("english", False, False, RECT_ALONE),
                            ("international", False, True, RECT_PLUS),
                            ("russian", False, False, RECT_PLUS)])
def test_the_fit_scores_positions_as_the_kernel_does(name, odd, pip, rect):
    # rafle train reads windows through engine.patterns.window_indices, the kernel through
    # its own summing loop: with the same weights both give the same score.
    from engine import learn
    v = get_variant(name)
    block = random_block(v.width, 5, v.full_board, odd, rect)
    T = ev.eval_tables(v)
    rng = random.Random(name + "fit")
    pos = [random_position(v, rng) for _ in range(500)]
    feats = learn.extract_features(*(np.array(w, dtype=np.int64) for w in zip(*(p.words for p in pos))),
                                   v, T, odd, pip, rect)
    fit = learn.Fit(v.width, full=v.full_board, odd=odd, rect=rect)
    fit.theta[:] = block / SCALE
    for d in learn.FIXED:                  # left out of the fit: no weight there
        fit.theta[fit.op_d + d] = fit.theta[fit.eg_d + d] = 0.0
    block = np.rint(fit.theta * SCALE).astype(np.int64)
    e = wt.learned(block, v.width, "random", v.full_board, odd, v, pip, rect)
    for i, p in enumerate(pos):
        kernel = ev.evaluate(*p.words, v.table, T, e.weights)
        white = kernel if p.turn == WHITE else -kernel
        assert abs(learn._score(i, *feats, fit.theta, fit.bases, fit.eg_w, fit.op_d, fit.eg_d)
                   - white) <= 1, p


@pytest.mark.parametrize("name,odd,rect", [(n, False, False) for n in ALL_BOARDS]
                         + [("international", True, False), ("brazilian", True, False),
                            ("international", False, RECT_ALONE), ("russian", False, RECT_ALONE),
                            ("international", False, RECT_PLUS), ("english", False, RECT_PLUS)])
def test_windows_updated_move_by_move_equal_windows_read_afresh(name, odd, rect):
    # The search keeps each window's index and the windows' sum, and a move updates only
    # the windows of the squares that changed (engine.eval.windows_after).
    from engine.position import legal_moves, play, start_position
    v = get_variant(name)
    e = wt.learned(random_block(v.width, 7, v.full_board, odd, rect), v.width, "random",
                   v.full_board, odd, v, rect=rect)
    T = ev.eval_tables(v)
    rng = random.Random(name + "update")
    idx = np.zeros((2, 64), dtype=np.int64)
    fresh = np.zeros(64, dtype=np.int64)
    checked = 0
    for _ in range(30):
        pos = start_position(v)
        acc = ev.window_sum(*men(pos), v.width, T, e.weights, idx[0])
        for _ in range(120):
            moves = legal_moves(pos)
            if not moves:
                break
            nxt = play(pos, rng.choice(moves))
            acc = ev.windows_after(acc, idx, 0, 1, *men(pos), *men(nxt), T, e.weights,
                                   ev.window_form(T, e.weights))
            idx[0] = idx[1]
            want = ev.window_sum(*men(nxt), v.width, T, e.weights, fresh)
            assert acc == want and (idx[1] == fresh).all(), nxt
            pos = nxt
            checked += 1
    assert checked > 1000


def test_the_kings_training_features_read_bit_63():
    # Turkish's h1 is bit 63, a negative int64: every king there and on bit 62 is counted.
    from engine import learn
    v = get_variant("turkish")
    kings = np.array([-2**63 + 2**62], dtype=np.int64)
    white, black = np.array([-2**63], dtype=np.int64), np.array([2**62], dtype=np.int64)
    *_, kf, kv = learn.extract_features(white, black, kings, np.array([0]), v, ev.eval_tables(v))
    assert kf.tolist() == [[0, 1, 2 + 63, 2 + (63 - 62)]] and kv.tolist() == [[0, 0, 1, -1]]
