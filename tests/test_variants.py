"""Every variant besides international: reference perft, the slow twin, rules by example.

* Perft: every variant's entries of perft/data/reference.json, read from the file: those
  that merge duplicate captures by default, those that keep them (every capture path a
  move) with ``paths=True``; up to CI_NODES in CI, the rest with ``-m slow``.
* The slow twin (``slow_rules_variants``, written from spec/rules.md) against the
  kernels on random positions of four kinds: game playouts, random boards, "king
  hunts" (a few kings and men against many pieces) and men about to be crowned.
* One position per special rule, with the answer worked out by hand from the rules.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

import slow_rules_variants as twin
from perft.suite import load_reference
from engine import (
    BLACK, WHITE, BadInput, Position, get_variant, legal_moves, parse_position, perft, play,
    pos_from_fen, pos_from_hub, pos_to_fen, pos_to_hub, start_position,
)
from engine.position import winner
from engine.variants import ALL, INTERNATIONAL

ENTRIES = load_reference()
CI_NODES = 50_000_000
SLOW_NODES = 150_000_000
OTHERS = [v for v in ALL if v is not INTERNATIONAL]


def reference_cases(merged: bool, leave_out=("international",)):
    """The published counts that merge duplicate captures (``merged``) or keep every
    capture path, as test parameters: up to CI_NODES in CI, up to SLOW_NODES with -m slow."""
    seen = {}
    for e in ENTRIES:
        if e["variant"] in leave_out or e["dup_captures_once"] is not merged:
            continue
        seen.setdefault((e["variant"], e["fen"], e["depth"]), (e["nodes"], e["position"]))
    out = []
    for (name, fen, depth), (nodes, label) in sorted(seen.items(), key=lambda kv: kv[1][0]):
        if nodes > SLOW_NODES:
            continue
        marks = [pytest.mark.slow] if nodes > CI_NODES else []
        tag = "native" if "native" in label else label.split()[0]
        out.append(pytest.param(name, fen, depth, nodes, id=f"{name}-{tag}-d{depth}", marks=marks))
    return out


CASES = reference_cases(merged=True)


def test_reference_file_covers_every_8x8_and_10x10_variant_we_play():
    covered = {c.values[0] for c in CASES}
    assert covered == {"killer", "frisian", "english", "russian", "brazilian", "pool",
                       "italian", "spanish", "czech", "thai"}
    assert sum(1 for c in CASES if not c.marks) >= 90


@pytest.mark.parametrize("name, fen, depth, nodes", CASES)
def test_reference_perft(name, fen, depth, nodes):
    assert perft(parse_position(fen, get_variant(name)), depth) == nodes


# Every capture path a move: international's counts too, and Turkish's (kish's counts,
# which also count a position without moves as a leaf: none occurs within these depths).
PATH_CASES = reference_cases(merged=False, leave_out=())


def test_the_counts_that_keep_duplicates_cover_twelve_variants():
    assert {c.values[0] for c in PATH_CASES} == {
        "international", "killer", "frisian", "english", "russian", "brazilian", "pool", "italian",
        "spanish", "czech", "thai", "turkish"}
    assert sum(1 for c in PATH_CASES if not c.marks) >= 80


@pytest.mark.parametrize("name, fen, depth, nodes", PATH_CASES)
def test_reference_perft_counting_every_capture_path(name, fen, depth, nodes):
    assert perft(parse_position(fen, get_variant(name)), depth, paths=True) == nodes


def test_the_two_conventions_differ_where_the_published_counts_do():
    # Frisian's start at depth 4: 3,874 merging duplicates, 3,880 counting every path.
    pos = start_position(get_variant("frisian"))
    published = {e["dup_captures_once"]: e["nodes"] for e in ENTRIES
                 if e["variant"] == "frisian" and e["depth"] == 4 and e["fen"].startswith("W:W31,")}
    assert published[True] < published[False]
    assert perft(pos, 4) == published[True]
    assert perft(pos, 4, paths=True) == published[False]
    assert perft(pos, 4, bulk=False, paths=True) == published[False]


# ----- the slow twin -------------------------------------------------------------

def board_of(pos: Position) -> dict:
    return {s: p for s in range(1, pos.variant.nsquares + 1) if (p := pos.piece_at(s)) != "e"}


def moves_of(pos: Position) -> set:
    return {(m.frm, m.to, frozenset(m.captured), m.promotes) for m in legal_moves(pos)}


def build(v, pieces: dict, turn: int) -> Position:
    """A position from {square: 'w'|'b'|'W'|'B'}; men on their crowning row become kings."""
    half, n = v.per_row, v.nsquares
    white = black = kings = 0
    for s, p in pieces.items():
        bit = 1 << v.square_bit(s)
        if p in "wW":
            white |= bit
        else:
            black |= bit
        if p.isupper() or (p == "w" and s <= half) or (p == "b" and s > n - half):
            kings |= bit
    return Position(white, black, kings, turn, v)


def playout(v, rng):
    pos = start_position(v)
    for _ in range(rng.randint(0, 90)):
        moves = legal_moves(pos)
        if not moves:
            break
        pos = play(pos, rng.choice(moves))
    return pos


def scattered(v, rng):
    squares = rng.sample(range(1, v.nsquares + 1), rng.randint(2, 24))
    return build(v, {s: rng.choice("wbWB" if rng.random() < 0.3 else "wb") for s in squares},
                 rng.randint(0, 1))


def king_hunt(v, rng):
    """Three pieces of the side to move, mostly kings, among many enemy pieces."""
    turn = rng.randint(0, 1)
    mine, theirs = ("w", "b") if turn == WHITE else ("b", "w")
    squares = rng.sample(range(1, v.nsquares + 1), rng.randint(8, 26))
    pieces = {s: (mine.upper() if rng.random() < 0.6 else mine) for s in squares[:3]}
    pieces.update({s: (theirs.upper() if rng.random() < 0.5 else theirs) for s in squares[3:]})
    return build(v, pieces, turn)


def crowning(v, rng):
    """Men of the side to move one to three rows before crowning, enemies near that row."""
    turn = rng.randint(0, 1)
    half, w = v.per_row, v.width
    rows = range(1, 4) if turn == WHITE else range(w - 4, w - 1)
    near = range(0, 5) if turn == WHITE else range(w - 5, w)
    pieces = {}
    for _ in range(rng.randint(3, 10)):
        row = rng.choice(near) if rng.random() < 0.8 else rng.randrange(w)
        pieces[row * half + rng.randint(1, half)] = ("b", "w")[turn] if rng.random() > 0.3 else "BW"[turn]
    for _ in range(rng.randint(1, 3)):
        pieces[rng.choice(rows) * half + rng.randint(1, half)] = "wb"[turn]
    return build(v, pieces, turn)


KINDS = (playout, scattered, king_hunt, crowning)


def compare_with_twin(v, count, seed, paths=False):
    """The kernel's legal moves against the twin's on ``count`` random positions: as sets,
    or with ``paths`` as multisets of capture paths.  Returns (positions with a capture,
    positions where some capture has several paths)."""
    rules = twin.RULES[v.name]
    rng = random.Random(seed)
    captures = repeated = 0
    for i in range(count):
        pos = KINDS[i % len(KINDS)](v, rng)
        side = "W" if pos.turn == WHITE else "B"
        if paths:
            expected = Counter(twin.path_moves(rules, board_of(pos), side))
            got = Counter((m.frm, m.to, frozenset(m.captured), m.promotes)
                          for m in legal_moves(pos, paths=True))
            assert got == expected, pos_to_fen(pos)
            assert set(got) == moves_of(pos), pos_to_fen(pos)     # the same moves, merged
            assert perft(pos, 1, paths=True) == sum(expected.values()), pos_to_fen(pos)
            repeated += sum(got.values()) > len(got)
        else:
            expected = twin.legal_moves(rules, board_of(pos), side)
            assert moves_of(pos) == expected, pos_to_fen(pos)
            # The bulk count (bitboard counts and the men's capture count, no list).
            assert perft(pos, 1) == len(expected), pos_to_fen(pos)
        captures += any(m[2] for m in expected)
    return captures, repeated


@pytest.mark.parametrize("v", ALL, ids=lambda v: v.name)
def test_every_capture_path_agrees_with_the_slow_twin(v):
    captures, repeated = compare_with_twin(v, 200, seed=sum(map(ord, v.name)) + 1, paths=True)
    assert captures >= 60
    # Frisian kings, capturing both ways on lines and rows, reach one capture by several
    # paths often (34 and 22 of these 200 positions); the others rarely.
    assert repeated >= (10 if v.name in ("frisian", "frysk") else 0)


def test_the_slow_twin_counts_both_ways():
    rules = twin.RULES["frisian"]
    pos = start_position(get_variant("frisian"))
    board = board_of(pos)
    assert twin.perft(rules, board, "W", 4) == perft(pos, 4) == 3874
    assert twin.perft(rules, board, "W", 4, paths=True) == perft(pos, 4, paths=True) == 3880


@pytest.mark.parametrize("v", ALL, ids=lambda v: v.name)
def test_kernels_agree_with_the_slow_twin(v):
    captures, _ = compare_with_twin(v, 200, seed=sum(map(ord, v.name)))
    assert captures >= 60       # the positions really exercise captures


@pytest.mark.slow
@pytest.mark.parametrize("v", ALL, ids=lambda v: v.name)
def test_kernels_agree_with_the_slow_twin_many_positions(v):
    compare_with_twin(v, 4000, seed=7)


@pytest.mark.parametrize("v", ALL, ids=lambda v: v.name)
def test_square_numbering_matches_the_rules_text(v):
    rules = twin.RULES[v.name]
    for s in range(1, v.nsquares + 1):
        assert v.coords(s) == twin.coords(rules, s)
        assert v.square_at(*v.coords(s)) == s


# ----- rules by example (squares from (row, column) as a player sees the board) ------

def at(v, *cells):
    return [v.square_at(r, c) for r, c in cells]


def only_move(pos):
    moves = legal_moves(pos)
    assert len(moves) == 1, moves
    return moves[0]


def test_italian_a_king_must_take_the_line_meeting_a_king_first():
    v = get_variant("italian")
    king, bk1, bm1, bm2, bk2, a8, e8 = at(v, (4, 4), (3, 3), (1, 1), (3, 5), (1, 5), (0, 0), (0, 4))
    pos = build(v, {king: "W", bk1: "B", bm1: "b", bm2: "b", bk2: "B"}, WHITE)
    move = only_move(pos)       # two pieces and one king either way: the king first wins
    assert (move.frm, move.to, set(move.captured)) == (king, a8, {bk1, bm1})
    assert a8 == 1 and e8 == 3  # Italian numbering: square 1 is a8


def test_italian_men_do_not_capture_kings():
    v = get_variant("italian")
    man, bking, king, bman = at(v, (5, 3), (4, 2), (5, 5), (4, 6))
    pos = build(v, {man: "w", bking: "B", king: "W", bman: "b"}, WHITE)
    assert {m.frm for m in legal_moves(pos)} == {king}


def test_killer_a_capture_ending_behind_a_king_stops_right_behind_it():
    v = get_variant("killer")
    king, victim = at(v, (9, 0), (6, 3))
    pos = build(v, {king: "W", victim: "B"}, WHITE)
    assert [m.to for m in legal_moves(pos)] == at(v, (5, 4))
    international = build(INTERNATIONAL, {king: "W", victim: "B"}, WHITE)
    assert len(legal_moves(international)) == 6


def test_russian_a_man_crowned_mid_capture_goes_on_as_a_king():
    v = get_variant("russian")
    man, first, second = at(v, (2, 1), (1, 2), (2, 5))
    pos = build(v, {man: "w", first: "b", second: "b"}, WHITE)
    moves = legal_moves(pos)    # crowned on (0,3), it flies on over (2,5)
    assert {m.to for m in moves} == set(at(v, (3, 6), (4, 7)))
    assert all(set(m.captured) == {first, second} and m.promotes for m in moves)
    brazilian = build(get_variant("brazilian"), {man: "w", first: "b", second: "b"}, WHITE)
    assert [(m.to, m.promotes) for m in legal_moves(brazilian)] == [(v.square_at(0, 3), True)]


def test_bulk_count_of_men_crowned_mid_capture_among_other_captures():
    """The men's bitboard capture count hands a man over to the capture search when he
    is crowned on the way (Russian); his other captures, found before that, must not be
    counted twice.  Random men-only boards where one man has both kinds."""
    v = get_variant("russian")
    rules = twin.RULES[v.name]
    rng = random.Random(11)
    mixed = 0
    for _ in range(3000):
        pos = crowning(v, rng)
        own = pos.white if pos.turn == WHITE else pos.black
        if own & pos.kings:
            continue
        expected = twin.legal_moves(rules, board_of(pos), "W" if pos.turn == WHITE else "B")
        assert perft(pos, 1) == len(expected), pos_to_fen(pos)
        by_man = {}
        for frm, _, captured, promotes in expected:
            if captured:
                by_man.setdefault(frm, set()).add(promotes)
        mixed += any(kinds == {True, False} for kinds in by_man.values())
    assert mixed >= 50


def test_english_crowning_ends_the_move_and_kings_are_short():
    v = get_variant("english")
    man, first, second = at(v, (2, 1), (1, 2), (1, 4))
    pos = build(v, {man: "w", first: "b", second: "b"}, WHITE)
    move = only_move(pos)       # a king could go on over (1,4): the new king may not
    assert move.to == v.square_at(0, 3) and move.promotes and move.captured == (first,)
    king = v.square_at(7, 0)
    assert len(legal_moves(build(v, {king: "W", 1: "b"}, WHITE))) == 1


def test_english_black_moves_first_from_1_12():
    pos = start_position(get_variant("english"))
    assert pos.turn == BLACK and pos_to_fen(pos).startswith("B:W21,")
    assert sorted((m.frm, m.to) for m in legal_moves(pos))[0] == (9, 13)


def test_thai_king_lands_behind_and_may_turn_back():
    v = get_variant("thai")
    king, first, second, behind, corner = at(v, (5, 2), (4, 3), (6, 1), (3, 4), (7, 0))
    # Jumping (4,3) the king lands right behind it, on (3,4); the piece leaves at once,
    # so the king turns back down the same line and jumps (6,1) too (or the reverse).
    pos = build(v, {king: "W", first: "b", second: "b"}, WHITE)
    assert {(m.to, frozenset(m.captured)) for m in legal_moves(pos)} == {
        (behind, frozenset({first, second})), (corner, frozenset({first, second}))}
    czech = build(get_variant("czech"), {king: "W", first: "b", second: "b"}, WHITE)
    assert len(legal_moves(czech)) == 5 and {len(m.captured) for m in legal_moves(czech)} == {1}


def test_frisian_a_king_weighs_more_than_a_man_less_than_two():
    v = get_variant("frisian")
    man, bk, m1, m2 = at(v, (5, 4), (4, 3), (4, 5), (2, 5))
    # Man on (5,4): up-left takes a king (value 1.9); up-right takes two men (2).
    pos = build(v, {man: "w", bk: "B", m1: "b", m2: "b"}, WHITE)
    assert set(only_move(pos).captured) == {m1, m2}
    pos = build(v, {man: "w", bk: "B", m1: "b"}, WHITE)
    assert set(only_move(pos).captured) == {bk}


def test_frisian_orthogonal_captures_and_king_first_at_equal_value():
    v = get_variant("frisian")
    man, victim, king, victim2 = at(v, (5, 4), (5, 6), (1, 0), (1, 2))
    pos = build(v, {man: "w", victim: "b"}, WHITE)
    assert only_move(pos).to == v.square_at(5, 8)
    pos = build(v, {man: "w", victim: "b", king: "W", victim2: "b"}, WHITE)
    assert {m.frm for m in legal_moves(pos)} == {king}


def test_czech_king_captures_first_spanish_most_kings():
    czech, spanish = get_variant("czech"), get_variant("spanish")
    man, bm, king, bm2 = at(czech, (5, 6), (4, 5), (7, 0), (6, 1))
    pos = build(czech, {man: "w", bm: "b", king: "W", bm2: "b"}, WHITE)
    assert {m.frm for m in legal_moves(pos)} == {king}
    s = at(spanish, (5, 3), (4, 2), (4, 4), (7, 7))
    pos = build(spanish, {s[0]: "w", s[1]: "B", s[2]: "b"}, WHITE)
    assert set(only_move(pos).captured) == {s[1]}


@pytest.mark.parametrize("v", ALL, ids=lambda v: v.name)
def test_start_position_and_codecs_round_trip(v):
    pos = start_position(v)
    assert pos.turn == (WHITE if v.white_starts else BLACK)
    assert pos.count(WHITE) == pos.count(BLACK) == (len(v.start_white), 0)
    assert pos_from_fen(pos_to_fen(pos), v) == pos
    assert pos_from_hub(pos_to_hub(pos), v) == pos
    assert parse_position("startpos", v) == pos
    assert len(pos_to_hub(pos)) == v.nsquares + 1


def test_start_positions():
    assert pos_to_fen(start_position(get_variant("frysk"))) == "W:W46,47,48,49,50:B1,2,3,4,5"
    assert pos_to_fen(start_position(get_variant("thai"))) == "W:W25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8"
    assert len(legal_moves(start_position(get_variant("frysk")))) == 9


def test_goals_breakthrough_and_losing():
    bt, losing = get_variant("bt"), get_variant("losing")
    assert winner(start_position(bt)) is None
    crowned = build(bt, {3: "W", 30: "b", 45: "w"}, BLACK)
    assert winner(crowned) == WHITE
    blocked = build(losing, {46: "w", 41: "b", 37: "b"}, WHITE)
    assert not legal_moves(blocked)
    assert winner(blocked) == WHITE
    assert winner(build(INTERNATIONAL, {46: "w", 41: "b", 37: "b"}, WHITE)) == BLACK


def test_variant_names_and_aliases():
    for name, expected in (("normal", "international"), ("bt", "breakthrough"),
                           ("losing", "antidraughts"), ("Frysk!", "frysk"),
                           ("checkers", "english"), (" Russian ", "russian")):
        assert get_variant(name).name == expected
    assert {v.hub_name for v in ALL} >= {"normal", "killer", "bt", "frisian", "losing", "frysk",
                                          "russian", "brazilian", "english", "italian",
                                          "turkish"}
    assert get_variant("dama") is get_variant("turkish")
    with pytest.raises(BadInput, match="unknown variant"):
        get_variant("shogi")


