"""Endgame databases (engine/egdb.py, rafle egdb): index, build against its slow twin,
retrograde consistency, known values, probing in the search, files and the command."""
from __future__ import annotations

import random
import re
import subprocess
import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest

import slow_egdb
import slow_rules_variants as slow
from engine import (Limits, Searcher, egdb_build, egdb_dirs, egdb_load, egdb_slice_size,
                    egdb_slices, get_variant, legal_moves, move_from_hub, play, pos_from_fen,
                    pos_from_pieces)
from engine.egdb import egdb_round_trip
from engine.egdb import (BINOM, CHUNK_SHIFT, DRAW, LOSS, WIN, index_table, mark_predecessors, position_index,
                         position_of)
from hub_transcript import HubTranscript

ROOT = Path(__file__).resolve().parents[1]
NAMES = {WIN: slow_egdb.WIN, DRAW: slow_egdb.DRAW, LOSS: slow_egdb.LOSS}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """International and Russian to 3 pieces, English to 3, in one directory."""
    root = tmp_path_factory.mktemp("egdb")
    for name in ("international", "english", "russian"):
        egdb_build(root, get_variant(name), 3, threads=2)
    return root


# ----- index -----------------------------------------------------------------------------

def _valid_count(variant, key) -> int:
    """Placements of a slice counted independently of the index: men of each side on the
    squares outside their crowning row, never two on one square, kings on what is left."""
    wm, wk, bm, bk = key
    n = variant.nsquares
    half = variant.width // 2
    white_men = set(range(half + 1, n + 1))          # not on White's crowning row (1..half)
    black_men = set(range(1, n - half + 1))
    both = len(white_men & black_men)
    pairs = sum(comb(both, i) * comb(len(white_men) - both, wm - i) * comb(len(black_men) - i, bm)
                for i in range(wm + 1))
    free = n - wm - bm
    return pairs * comb(free, wk) * comb(free - wk, bk) * 2


@pytest.mark.parametrize("name,pieces", [("international", 4), ("english", 4)])
def test_index_round_trip_every_slice(name, pieces):
    variant = get_variant(name)
    for key in egdb_slices(pieces):
        valid, bad = egdb_round_trip(variant, key)
        assert bad == 0, key
        assert valid == _valid_count(variant, key), key
        assert valid <= egdb_slice_size(variant, key)


def test_unranked_positions_have_their_material_and_legal_men():
    variant = get_variant("international")
    X = index_table(variant)
    rng = random.Random(5)
    for key in egdb_slices(4):
        for _ in range(50):
            w, b, k, t, ok = position_of(*key, rng.randrange(egdb_slice_size(variant, key)), X, BINOM)
            if not ok:
                continue
            counts = (bin(w & ~k).count("1"), bin(w & k).count("1"),
                      bin(b & ~k).count("1"), bin(b & k).count("1"))
            assert counts == key
            pos = pos_from_fen(_fen(w, b, k, t, variant), variant)    # refuses crowned men
            assert (pos.white, pos.black, pos.kings) == (w, b, k)


def _fen(w, b, k, t, variant) -> str:
    def side(bb):
        return ",".join(("K" if (k >> bit) & 1 else "") + str(variant.bit_square(bit))
                        for bit in range(64) if (bb >> bit) & 1)
    return f"{'WB'[t]}:W{side(w)}:B{side(b)}"


# ----- the build against its slow twin -------------------------------------------------

def _agrees_with_twin(root, name, pieces):
    variant = get_variant(name)
    tables = egdb_load(root, variant, pieces)
    assert tables is not None and tables.pieces >= pieces
    twin = slow_egdb.solve(slow.RULES[name], pieces)
    assert len(twin) == sum(_valid_count(variant, key) for key in egdb_slices(pieces))
    wrong = []
    for (board, side), value in twin.items():
        pos = pos_from_pieces(dict(board), 0 if side == "W" else 1, variant)
        if NAMES[tables.probe(pos)] != value:
            wrong.append((dict(board), side, value))
    assert not wrong, wrong[:5]
    return twin


def test_build_agrees_with_the_twin_international_2(built):
    twin = _agrees_with_twin(built, "international", 2)
    assert {slow_egdb.WIN, slow_egdb.DRAW, slow_egdb.LOSS} <= set(twin.values())


def test_build_agrees_with_the_twin_english_3(built):
    _agrees_with_twin(built, "english", 3)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["international", "russian"])
def test_build_agrees_with_the_twin_3(built, name):
    _agrees_with_twin(built, name, 3)


# ----- every stored value is one step of retrograde analysis -----------------------------

def _check_consistent(tables, pos):
    value = tables.probe(pos)
    children = [tables.probe(play(pos, m)) for m in legal_moves(pos)]
    assert min(children, default=0) >= 0        # every child is in the tables
    if value == WIN:
        assert LOSS in children
    elif value == LOSS:
        assert all(c == WIN for c in children)  # no move at all is a loss too
    else:
        assert LOSS not in children and any(c == DRAW for c in children)


@pytest.mark.parametrize("name", ["international", "english", "russian"])
def test_values_are_retrograde_consistent_on_samples(built, name):
    variant = get_variant(name)
    tables = egdb_load(built, variant)
    X = index_table(variant)
    rng = random.Random(11)
    seen = {WIN: 0, DRAW: 0, LOSS: 0}
    for key in egdb_slices(3):
        size = egdb_slice_size(variant, key)
        for _ in range(150):
            w, b, k, t, ok = position_of(*key, rng.randrange(size), X, BINOM)
            if ok:
                pos = pos_from_fen(_fen(w, b, k, t, variant), variant)
                _check_consistent(tables, pos)
                seen[tables.probe(pos)] += 1
    assert min(seen.values()) > 0


# ----- predecessors: the positions one quiet move back ------------------------------------

def _board(w, b, k, variant) -> dict:
    """{square: w, W, b, B} of a position's bitboards (the slow twin's board)."""
    out = {}
    for bit in range(64):
        if (w | b) >> bit & 1:
            piece = "w" if (w >> bit) & 1 else "b"
            out[variant.bit_square(bit)] = piece.upper() if (k >> bit) & 1 else piece
    return out


def _marked(variant, key, w, b, k, t) -> set[int]:
    X = index_table(variant)
    size = egdb_slice_size(variant, key)
    dirty = np.zeros(size, dtype=np.uint8)
    chunks = np.zeros((size >> CHUNK_SHIFT) + 1, dtype=np.uint8)
    mark_predecessors(w, b, k, t, dirty, chunks, variant.table, variant.steps, X, BINOM)
    marked = np.flatnonzero(dirty)
    assert set(np.flatnonzero(chunks).tolist()) == set((marked >> CHUNK_SHIFT).tolist())
    return set(marked.tolist())


@pytest.mark.parametrize("name", ["international", "english", "russian"])
def test_marked_predecessors_are_exactly_the_quiet_moves_back(name):
    """Both ways, against the slow twin's quiet moves: every marked position has a quiet
    move that crowns nothing onto the position, and every such move of a sampled parent
    is marked from its child."""
    variant, rules = get_variant(name), slow.RULES[name]
    X = index_table(variant)
    rng = random.Random(3)
    checked = parents = 0
    for key in [(1, 1, 1, 1), (2, 0, 1, 1), (0, 2, 2, 0), (1, 2, 0, 1), (3, 0, 1, 0)]:
        size = egdb_slice_size(variant, key)
        for _ in range(60):
            w, b, k, t, ok = position_of(*key, rng.randrange(size), X, BINOM)
            if not ok:
                continue
            side, mover = "WB"[t], "BW"[t]
            board = _board(w, b, k, variant)
            for idx in _marked(variant, key, w, b, k, t):     # marked -> a real move back
                pw, pb, pk, pt, pok = position_of(*key, idx, X, BINOM)
                assert pok and pt == 1 - t
                before = _board(pw, pb, pk, variant)
                assert any(slow.play(rules, before, mover, m) == (board, side)
                           for m in slow.quiet_moves(rules, before, mover) if not m[3])
                checked += 1
            code, here = position_index(w, b, k, t, X, BINOM)
            for m in slow.quiet_moves(rules, board, side):  # a real move -> marked
                if m[3]:
                    continue                                 # a crowning leaves the slice
                after, _ = slow.play(rules, board, side, m)
                cpos = pos_from_pieces(after, 1 - t, variant)
                assert here in _marked(variant, key, *cpos.words), (board, side, m)
                parents += 1
    assert checked > 500 and parents > 500


# ----- known values ----------------------------------------------------------------------

def test_known_values_international(built):
    tables = egdb_load(built, get_variant("international"))
    # One king against one king, no capture on the board: a draw.
    assert tables.probe(pos_from_fen("W:WK47:BK4")) == DRAW
    assert tables.probe(pos_from_fen("B:WK47:BK4")) == DRAW
    # Both kings in the corners of the long diagonal: the side to move can only step along
    # it (46 and 5 have no other diagonal) and is captured from the far corner: lost.
    assert tables.probe(pos_from_fen("W:WK46:BK5")) == LOSS
    assert tables.probe(pos_from_fen("B:WK46:BK5")) == LOSS
    # A capture on the board decides: the side to move takes the lone king.
    assert tables.probe(pos_from_fen("W:WK28:BK23")) == WIN
    # A man against a king: the man is lost once the king stands in its way.
    assert tables.probe(pos_from_fen("W:W6:BK1")) == LOSS


@pytest.mark.slow
def test_known_values_four_pieces(tmp_path):
    """Three kings against one: won, unless the lone king holds the long diagonal
    (46-5), where it cannot be trapped; four kings against one win even there."""
    egdb_build(tmp_path, get_variant("international"), 4, threads=2)
    tables = egdb_load(tmp_path, get_variant("international"))
    assert tables.pieces == 4
    assert tables.probe(pos_from_fen("W:WK1,K2,K3:BK45")) == WIN
    assert tables.probe(pos_from_fen("W:WK1,K2,K3:BK46")) == DRAW
    assert tables.probe(pos_from_fen("W:WK1,K2,K3:BK28")) == DRAW


# ----- files ------------------------------------------------------------------------------

def test_build_is_resumable_and_a_bad_file_counts_as_missing(tmp_path):
    variant = get_variant("english")
    first = egdb_build(tmp_path, variant, 2)
    assert all(not p.skipped for p in first)
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "english").iterdir()}
    again = egdb_build(tmp_path, variant, 3)
    assert [p.key for p in again if p.skipped] == [p.key for p in first]
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    assert egdb_load(tmp_path, variant).pieces == 3
    (tmp_path / "english" / "0101.npz").write_bytes(b"not a database")
    assert egdb_load(tmp_path, variant) is None                 # a 2-piece slice is gone
    (tmp_path / "english" / "0101.npz").unlink()
    egdb_build(tmp_path, variant, 2)                            # rebuilt, the rest kept
    assert egdb_load(tmp_path, variant).pieces == 3
    (tmp_path / "english" / "1020.npz").write_bytes(b"")
    assert egdb_load(tmp_path, variant).pieces == 2             # 3 pieces incomplete
    assert egdb_load(tmp_path / "nowhere", variant) is None
    assert egdb_load(tmp_path, get_variant("antidraughts")) is None


# ----- the search ---------------------------------------------------------------------

def _searcher(root) -> Searcher:
    s = Searcher(18)
    assert s.set_option("egdb-path", str(root))
    return s


def test_root_in_the_tables_keeps_its_value(built):
    """From a won root the move played wins, from a drawn one it does not lose."""
    variant = get_variant("international")
    s = _searcher(built)
    tables = s.resources.egdb_for(variant)
    X = index_table(variant)
    rng = random.Random(3)
    done = {WIN: 0, DRAW: 0}
    while min(done.values()) < 8:
        key = rng.choice(egdb_slices(3)[4:])
        w, b, k, t, ok = position_of(*key, rng.randrange(egdb_slice_size(variant, key)), X, BINOM)
        pos = pos_from_fen(_fen(w, b, k, t, variant), variant) if ok else None
        if pos is None or len(legal_moves(pos)) < 2 or tables.probe(pos) not in done:
            continue
        value = tables.probe(pos)
        s.new_game()
        r = s.search(pos, [], Limits(depth=3))
        after = tables.probe(play(pos, r.move))
        assert after == (LOSS if value == WIN else DRAW), _fen(w, b, k, t, variant)
        done[value] += 1


def test_search_scores_a_capture_into_a_known_win(built):
    """Four pieces, outside the 3-piece tables: the capture reaches them, and the search
    scores the known win beyond every evaluation."""
    s = _searcher(built)
    pos = pos_from_fen("W:WK20,K19:B38,K32")
    tables = s.resources.egdb_for(pos.variant)
    moves = legal_moves(pos)
    assert len(moves) == 5 and all(m.is_capture for m in moves)
    won = [m for m in moves if tables.probe(play(pos, m)) == LOSS]
    assert len(won) == 2 and tables.probe(pos) == -1
    r = s.search(pos, [], Limits(depth=2))
    assert r.score > 8000 and r.move in won
    s.set_option("egdb-size", "0")
    s.new_game()
    assert s.search(pos, [], Limits(depth=2)).score < 8000


def test_a_won_ending_is_converted(built):
    """Known wins are played out, not shuffled: the side with the win captures everything."""
    s = _searcher(built)
    for fen in ("W:WK6:B24", "W:WK20,K19:B38,K32"):
        pos, history = pos_from_fen(fen), []
        for _ in range(30):
            r = s.search(pos, history, Limits(depth=6))
            if r.move is None:
                break
            history.append(pos)
            pos = play(pos, r.move)
        assert pos.black == 0 and pos.turn == 1, fen


def test_without_files_the_search_runs(tmp_path):
    s = _searcher(tmp_path / "none")
    pos = pos_from_fen("W:WK47:BK4")
    r = s.search(pos, [], Limits(depth=4))
    assert r.move in legal_moves(pos) and s.resources.egdb_for(pos.variant) is None and not s.resources.notes
    s.set_option("egdb-size", "0")
    assert s.resources.egdb_for(pos.variant) is None


def test_hub_transcript_with_the_tables(built):
    engine = HubTranscript()
    engine.send("hub")
    params = engine.read_until("wait")
    assert any(line.startswith("param name=egdb-size value=7 type=int min=0 max=7") for line in params)
    assert any(line.startswith('param name=egdb-path value="" type=string') for line in params)
    engine.send(f"set-param name=egdb-path value={built}", "init")
    engine.read_until("ready")
    # W:WK6:B24, won for White (the man cannot escape the king)
    pos = pos_from_fen("W:WK6:B24")
    engine.send("pos pos=W" + "e" * 5 + "W" + "e" * 17 + "b" + "e" * 26, "level depth=4", "go think")
    done = engine.read_until("done")[-1]
    move = move_from_hub(pos, done.split("move=")[1].split()[0])
    assert egdb_load(built, pos.variant).probe(play(pos, move)) == LOSS
    engine.send("set-param name=egdb-size value=9", "ping")     # out of range: ignored, as Scan
    assert engine.read_until("pong") == ["pong"]
    engine.send("quit")
    assert engine.close() == 0


# ----- the command ----------------------------------------------------------------------

def _rafle(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "protocol.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


def test_command_builds_lists_and_probes(tmp_path):
    out = _rafle("egdb", "build", "--variant", "english", "--pieces", "2", "--dir", str(tmp_path),
                 "--quiet")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("1/4 0101: ") and "win" in lines[0] and "passes" in lines[0]
    assert lines[-1].startswith("english up to 2 pieces: 4 slices, 7,024 positions (4 built now)")
    again = _rafle("egdb", "build", "--variant", "english", "--pieces", "2", "--dir", str(tmp_path))
    assert "(kept)" in again.stdout and "(0 built now)" in again.stdout
    info = _rafle("egdb", "info", "--variant", "english", "--dir", str(tmp_path), "--slices")
    lines = info.stdout.splitlines()
    assert lines[-1].startswith("english: every slice of up to 2 pieces, 7,024 positions")
    counts = re.match(r"0101: ([\d,]+) positions, win ([\d,]+) draw ([\d,]+) loss ([\d,]+), ", lines[0])
    size, wins, draws, losses = (int(x.replace(",", "")) for x in counts.groups())
    assert size == 32 * 31 * 2 == wins + draws + losses and min(wins, draws) > 0
    probe = _rafle("egdb", "probe", "--variant", "english", "--dir", str(tmp_path), "--fen", "W:WK1:BK32")
    assert probe.returncode == 0 and probe.stdout.strip() in ("draw for white (to move)",
                                                             "win for white (to move)",
                                                             "loss for white (to move)")
    outside = _rafle("egdb", "probe", "--variant", "english", "--dir", str(tmp_path),
                     "--fen", "W:WK1,K2:BK32")
    assert outside.returncode == 1 and outside.stdout.strip() == "not in the databases"


def test_command_refuses_what_it_cannot_build(tmp_path):
    out = _rafle("egdb", "build", "--variant", "antidraughts", "--pieces", "2", "--dir", str(tmp_path))
    assert out.returncode == 1 and "no endgame databases" in out.stderr
    out = _rafle("egdb", "build", "--pieces", "9", "--dir", str(tmp_path))
    assert out.returncode == 1 and "pieces must be 2..7" in out.stderr
    out = _rafle("egdb", "probe", "--fen", "W:Wxx", "--dir", str(tmp_path))
    assert out.returncode == 2 and "rafle egdb:" in out.stderr


@pytest.mark.parametrize("name", ["international", "english", "russian"])
def test_the_shipped_sets_are_found_without_a_build(name, tmp_path):
    """A fresh install has the 2-4 piece databases of international, English and Russian:
    they ship in the package and are looked for after the user's own folder."""
    from engine.egdb import SHIPPED_DIR
    variant = get_variant(name)
    assert egdb_dirs()[-1] == SHIPPED_DIR
    shipped = egdb_load(SHIPPED_DIR, variant)
    assert shipped is not None and shipped.pieces == 4
    found = egdb_load([tmp_path, SHIPPED_DIR], variant)        # an empty folder of one's own
    assert found.pieces == 4 and (found.offsets == shipped.offsets).all()
    s = Searcher(16)
    assert s.set_option("egdb-path", "") and s.resources.egdb_for(variant).pieces >= 4
    assert s.set_option("egdb-path", str(tmp_path)) and s.resources.egdb_for(variant) is None
