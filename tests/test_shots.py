"""Shots and puzzles (protocol.analysis.shots, protocol.analysis.puzzles).

The positions are built by hand on the 1..50 board (White moves up, from 46-50 towards
1-5), and each line is walked with ``engine.legal_moves`` to show it is forced: after
each of the mover's moves the opponent's legal moves are captures only.
"""
from __future__ import annotations

import pytest

from engine import (Limits, Searcher, legal_moves, move_from_pdn, move_to_pdn, play, pos_from_fen,
                    start_position)
from protocol.analysis.puzzles import (Puzzle, puzzle_from_shot, puzzles_from_pdn, puzzles_to_pdn,
                                       read_puzzles, verify_puzzle, write_puzzles)
from protocol.analysis.shots import Shot, allows_shot, shot_at, shot_moves

# 27-22 gives a man, 17x28 is Black's only capture, 32x14 takes 28 and 19: two for one.
ONE_SACRIFICE = "W:W27,32,37,43:B6,15,17,19"
# 19-13 9x18 pulls a man to 18, 30-24 20x29 one to 29, then 34x1 takes 29, 18 and 7 and
# crowns: three men for two, and a king.
TWO_SACRIFICES = "W:W19,30,34,39,40,48:B3,5,7,9,15,20"
# ONE_SACRIFICE turned round (square s -> 51 - s, colours swapped): Black to move.
BLACK_SHOT = "B:W32,34,36,45:B8,14,19,24"
# 34x23 takes one, 17x19 takes two back (22 and 23), 25x23 takes 20 and 19.
CAPTURE_FIRST = "W:W22,25,34,39:B1,13,16,17,20,29"
# The same idea on either wing: 42-37 31x42 47x29, or 42-38 33x42 48x26.
TWO_WAYS = "W:W42,47,48:B3,4,8,9,31,33"
# After 32-28 Black may take 23x32 (then 37x17 takes two) or 22x33 (and White wins nothing).
TWO_REPLIES = "W:W32,37,41,48:B4,16,22,23,26"
# ONE_SACRIFICE without the man on 32: 27-22 17x28 and nothing follows.
LOSING_SACRIFICE = "W:W27,37,43:B6,15,17,19"
# Black threatens 29x20 (or 29x38); 7-1 or 7-2 crowns meanwhile: more material, no capture.
CROWN_ONLY = "W:W7,24,33,45:B10,29"
# 32x23 wins a man and Black has nothing to take back: a capture, not a shot.
PLAIN_CAPTURE = "W:W32,37,43:B6,15,28"

GAME = {"Event": "test", "Round": "3", "White": "rafle", "Black": "scan", "Date": "2026.01.02"}


def legal(pos) -> list[str]:
    return sorted(move_to_pdn(pos, m) for m in legal_moves(pos))


def walk(fen: str, line: list[str]) -> None:
    """Play ``line``, checking that every opponent ply is the opponent's only legal move
    and that the line ends with nothing left to capture."""
    pos = pos_from_fen(fen)
    for ply, word in enumerate(line):
        if ply % 2:
            assert legal(pos) == [word]
        pos = play(pos, move_from_pdn(pos, word))
    assert not any(m.captured for m in legal_moves(pos))


# ----- shots ------------------------------------------------------------------------------
def test_a_one_sacrifice_shot_is_found_with_its_line():
    line = ["27-22", "17x28", "32x14"]
    walk(ONE_SACRIFICE, line)
    assert shot_at(pos_from_fen(ONE_SACRIFICE)) == Shot(line, gain=1, depth=3, sacrifices=1)


def test_a_two_sacrifice_shot_that_crowns_counts_the_king_as_three_men():
    line = ["19-13", "9x18", "30-24", "20x29", "34x1"]
    walk(TWO_SACRIFICES, line)
    pos = pos_from_fen(TWO_SACRIFICES)
    for word in line:
        pos = play(pos, move_from_pdn(pos, word))
    assert pos.piece_at(1) == "W"
    # two men given, three taken, and a man become a king (+2)
    assert shot_at(pos_from_fen(TWO_SACRIFICES)) == Shot(line, gain=3, depth=5, sacrifices=2)


def test_a_shot_is_too_long_for_a_short_horizon():
    assert shot_at(pos_from_fen(TWO_SACRIFICES), max_plies=3) is None


def test_black_has_the_same_shot_turned_round():
    line = ["24-29", "34x23", "19x37"]
    walk(BLACK_SHOT, line)
    assert shot_at(pos_from_fen(BLACK_SHOT)) == Shot(line, gain=1, depth=3, sacrifices=1)


def test_a_capture_that_takes_less_than_is_taken_back_can_start_a_shot():
    pos = pos_from_fen(CAPTURE_FIRST)
    assert legal(pos) == ["22x11", "25x14", "34x23"]
    walk(CAPTURE_FIRST, ["34x23", "17x19", "25x23"])
    assert shot_at(pos) == Shot(["34x23", "17x19", "25x23"], gain=1, depth=3, sacrifices=2)


def test_quiet_positions_have_no_shot():
    pos = start_position()
    assert shot_at(pos) is None
    for word in ("32-28", "18-23"):
        pos = play(pos, move_from_pdn(pos, word))
    assert shot_at(pos) is None


def test_a_sacrifice_that_loses_is_not_a_shot():
    pos = pos_from_fen(LOSING_SACRIFICE)
    walk(LOSING_SACRIFICE, ["27-22", "17x28"])
    assert shot_at(pos) is None
    gains = {shot.line[0]: shot.gain for _, shot in shot_moves(pos)}
    assert gains == {"27-21": -1, "27-22": -1}


def test_crowning_while_a_man_is_lost_is_not_a_shot():
    pos = pos_from_fen(CROWN_ONLY)
    assert shot_at(pos) is None
    gains = {shot.line[0]: shot.gain for _, shot in shot_moves(pos)}
    assert gains["7-1"] == gains["7-2"] == 0      # +2 for the king, -1 for the man: no capture


def test_a_plain_winning_capture_is_not_a_shot():
    pos = pos_from_fen(PLAIN_CAPTURE)
    assert legal(pos) == ["32x23"]
    assert shot_at(pos) is None


def test_a_move_that_allows_a_shot_is_caught():
    before = pos_from_fen("B:W27,32,37,43:B6,11,15,19")
    allowed = {move_to_pdn(before, m): allows_shot(before, m) for m in legal_moves(before)}
    assert allowed.pop("11-17").line == ["27-22", "17x28", "32x14"]
    assert set(allowed.values()) == {None}


def test_a_searcher_confirms_the_shot():
    shot = shot_at(pos_from_fen(ONE_SACRIFICE), Searcher(16), Limits(nodes=20_000))
    assert shot is not None and shot.line[0] == "27-22"


# ----- puzzles ----------------------------------------------------------------------------
def cut(fen: str, ply: int = 40) -> Puzzle:
    pos = pos_from_fen(fen)
    return puzzle_from_shot(pos, shot_at(pos), GAME, ply)


def test_a_puzzle_cut_from_a_shot_verifies():
    p = cut(ONE_SACRIFICE)
    assert p == Puzzle(ONE_SACRIFICE, ["27-22", "17x28", "32x14"], GAME, 40, 3, 1)
    assert verify_puzzle(p) is None
    assert verify_puzzle(cut(TWO_SACRIFICES)) is None
    assert verify_puzzle(p, Searcher(16), Limits(nodes=20_000)) is None


@pytest.mark.parametrize("change, why", [
    ({"solution": ["27-22", "17x28", "33x22"]}, "ply 3 of the solution, 33x22: illegal move"),
    ({"solution": ["27-21", "17x26"], "depth": 2},
     "the solution has no capture by the side to move"),
    ({"gain": 2}, "the solution wins 1, the puzzle says 2"),
    ({"depth": 5}, "depth 5, but the solution has 3 plies"),
    ({"fen": "W:W27,32,37,43:B6,15,17,19,99"}, "bad position"),
])
def test_a_wrong_puzzle_is_refused_with_the_reason(change, why):
    p = cut(ONE_SACRIFICE)
    for name, value in change.items():
        setattr(p, name, value)
    assert verify_puzzle(p).startswith(why)


def test_a_puzzle_with_two_solutions_is_refused():
    walk(TWO_WAYS, ["42-37", "31x42", "47x29"])
    walk(TWO_WAYS, ["42-38", "33x42", "48x26"])
    assert verify_puzzle(cut(TWO_WAYS)) == "not unique: 42-38 33x42 48x26 wins 1 too"


def test_a_puzzle_whose_opponent_has_a_better_capture_is_refused():
    pos = pos_from_fen(TWO_REPLIES)
    assert legal(play(pos, move_from_pdn(pos, "32-28"))) == ["22x33", "23x32"]
    assert shot_at(pos) is None
    p = Puzzle(TWO_REPLIES, ["32-28", "23x32", "37x17"], {}, 0, 3, 1)
    assert verify_puzzle(p) == "ply 2 is not forced: 22x33 instead of 23x32 wins less than 1"


@pytest.mark.parametrize("name", ["puzzles.pdn", "puzzles.json"])
def test_puzzle_files_round_trip(tmp_path, name):
    puzzles = [cut(ONE_SACRIFICE), cut(TWO_SACRIFICES, 7), cut(BLACK_SHOT, 0)]
    puzzles[2].game = {}
    write_puzzles(puzzles, tmp_path / name)
    assert read_puzzles(tmp_path / name) == puzzles


def test_the_puzzle_pdn_carries_fen_rating_and_source():
    text = puzzles_to_pdn([cut(BLACK_SHOT)])
    assert '[FEN "B:W32,34,36,45:B8,14,19,24"]' in text
    assert '[Puzzle "depth 3 gain 1"]' in text and '[SourcePly "40"]' in text
    assert "1... 24-29 2. 34x23 19x37" in text
    assert puzzles_from_pdn(text)[0].solution == ["24-29", "34x23", "19x37"]
