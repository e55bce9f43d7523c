"""PDN files: reading what is found in the wild, writing, round trips, errors."""
import random

import pytest

from engine import (BadInput, get_variant, legal_moves, move_from_pdn, move_to_pdn, parse_position, play,
                    start_position)
from engine.game import Game
from engine.pdn import read_pdn, write_pdn


def random_game(seed: int, plies: int, start=None) -> Game:
    rng = random.Random(seed)
    game = Game(start)
    for _ in range(plies):
        moves = legal_moves(game.position)
        if not moves or game.outcome():
            break
        game.push(rng.choice(moves))
    return game


def test_round_trip_of_random_games_in_one_file():
    games = [random_game(seed, 120) for seed in range(6)]
    text = "".join(write_pdn(g, {"Event": "test", "Round": str(i + 1), "White": "A B",
                                 "Black": 'say "hi"'})
                   for i, g in enumerate(games))
    back = read_pdn(text)
    assert len(back) == len(games)
    for g, b in zip(games, back):
        assert b.start == start_position()
        assert b.moves == g.moves
        assert b.result == (g.outcome().result if g.outcome() else "*")
        assert b.tags["GameType"] == "20" and "FEN" not in b.tags
        assert b.tags["Black"] == 'say "hi"'
        assert b.game().position == g.position
    assert all(len(line) <= 80 for line in text.splitlines() if not line.startswith("["))


def test_round_trip_from_a_fen_with_black_to_move_and_ambiguous_captures():
    # Black's king on 49 has two captures from 49 to 25 taking different men.
    start = parse_position("B:W8,16,20,23,41,43,46:BK49")
    ambiguous = [m for m in legal_moves(start) if (m.frm, m.to) == (49, 25)]
    assert len(ambiguous) == 2
    for first in ambiguous:
        game = Game(start)
        game.push(first)
        for m in legal_moves(game.position)[:1]:
            game.push(m)
        text = write_pdn(game, {"Result": "0-2"})
        assert '[FEN "B:W8,16,20,23,41,43,46:BK49"]' in text
        assert "1... " + move_to_pdn(start, first) in text
        (back,) = read_pdn(text)
        assert back.start == start and back.moves == game.moves and back.result == "0-2"


def test_reads_comments_variations_nags_numbers_and_result_forms():
    text = """
[Event "wild"]
[GameType "20,W,10,10,N2,0"]
% a line comment
1.32-28 {a comment
over two lines} 19-23 $1 2. 28x19!? (2. 33-29 (2. 31-27 17-21) 23x34) 14x23 ; rest ignored
3. 31-27 2... 1-0

[Event "second"]
1. 32-28 19-23 1/2-1/2
[Event "third"]
1. 31-26 *
"""
    games = read_pdn(text)
    assert [g.tags["Event"] for g in games] == ["wild", "second", "third"]
    assert [len(g.moves) for g in games] == [5, 2, 1]
    assert [g.result for g in games] == ["2-0", "1-1", "*"]
    assert games[0].moves[2] == move_from_pdn(games[0].game().positions[2], "28x19")


def test_result_tag_used_when_movetext_has_none():
    (game,) = read_pdn('[Result "0-2"]\n\n1. 32-28 19-23\n')
    assert game.result == "0-2" and len(game.moves) == 2


def test_bad_pdn_names_the_game_and_the_move():
    good = "1. 32-28 19-23 2-0\n\n"
    with pytest.raises(BadInput, match=r"game 2, move 2 \(28-22\)"):
        read_pdn(good + "1. 32-28 19-23 2. 28-22 0-2\n")
    with pytest.raises(BadInput, match="never closed"):
        read_pdn("1. 32-28 {unfinished")
    with pytest.raises(BadInput, match="never closed"):
        read_pdn("1. 32-28 (1. 33-29 2-0")
    with pytest.raises(BadInput, match="GameType"):
        read_pdn('[GameType "99"]\n1. 11-15 *')
    with pytest.raises(BadInput, match="game 1: unknown variant"):
        read_pdn('[Variant "chess"]\n1. 32-28 *')
    with pytest.raises(BadInput, match="game 1: bad FEN"):
        read_pdn('[FEN "W:W31-55:B1-20"]\n1. 32-28 *')
    with pytest.raises(BadInput, match="cannot read"):
        read_pdn("1. 32-28 hello *")


def test_written_result_follows_the_rules_unless_told():
    game = Game(parse_position("W:W46:B41,37"))       # white is blocked: black has won
    assert write_pdn(game).rstrip().endswith("0-2")
    assert '[Result "2-0"]' in write_pdn(game, {"Result": "2-0"})
    assert "{white lost on time}" in write_pdn(Game(), {"Result": "0-2"}, "white lost on time")


@pytest.mark.parametrize("name, gametype, variant_tag", [
    ("killer", "20", True), ("frisian", "40", False), ("english", "21", False),
    ("russian", "25", False), ("brazilian", "26", False), ("czech", "29", False),
    ("italian", "22", False), ("thai", "31", False),
])
def test_other_variants_round_trip(name, gametype, variant_tag):
    variant = get_variant(name)
    games = [random_game(seed, 80, start_position(variant)) for seed in range(2)]
    text = "".join(write_pdn(g) for g in games)
    assert f'[GameType "{gametype}"]' in text
    assert ('[Variant' in text) == variant_tag
    for g, b in zip(games, read_pdn(text)):
        assert b.start == g.start and b.moves == g.moves
        assert b.result == (g.outcome().result if g.outcome() else "*")


@pytest.mark.parametrize("name", ["english", "pool"])
def test_black_first_variants_number_black_moves_first(name):
    variant = get_variant(name)
    text = f'[GameType "{variant.gametype}"]\n\n1. 11-15 23-19 2. 8-11 22-17 *\n'
    (read,) = read_pdn(text)
    game = read.game()
    assert len(game.moves) == 4 and read.start == start_position(variant)
    written = write_pdn(game)
    assert "1. 11-15 23-19 2. 8-11 22-17 *" in written
    assert "..." not in written
    (back,) = read_pdn(written)
    assert back.moves == game.moves
    # A record that begins with White's move (the second mover here) starts "1...".
    late = Game(game.positions[1])
    for move in game.moves[1:]:
        late.push(move)
    written = write_pdn(late)
    assert "1... 23-19 2. 8-11 22-17 *" in written
    (back,) = read_pdn(written)
    assert back.start == game.positions[1] and back.moves == game.moves[1:]


# ----- comments and variations: a tree beside the main line ---------------------------------

ANNOTATED = """[Event "notes"]
[Result "*"]

{White opens} 1. 32-28 {the centre} (1. 33-29 {quieter} 19-23 (1... 20-24 2. 29x20 15x24)
2. 38-33) 1... 19-23 2. 28x19 14x23 {forced} (2... 13x24 {also possible}) 3. 37-32 *
"""


def steps_text(start, line) -> list[str]:
    pos, out = start, []
    for step in line:
        out.append(move_to_pdn(pos, step.move))
        pos = play(pos, step.move)
    return out


def test_comments_and_variations_are_kept_as_a_tree():
    (game,) = read_pdn(ANNOTATED)
    assert [move_to_pdn(p, m) for p, m in zip(game.game().positions, game.moves)] == \
        ["32-28", "19-23", "28x19", "14x23", "37-32"]
    assert sorted(game.notes) == [0, 1, 4]
    assert game.notes[0].comment == "White opens"
    first = game.notes[1]
    assert first.comment == "the centre" and len(first.variations) == 1
    line = first.variations[0]
    assert steps_text(start_position(), line) == ["33-29", "19-23", "38-33"]
    assert line[0].note.comment == "quieter"
    nested = line[1].note.variations        # 1... 20-24 instead of 19-23
    after_3329 = play(start_position(), line[0].move)
    assert [steps_text(after_3329, v) for v in nested] == [["20-24", "29x20", "15x24"]]
    fourth = game.notes[4]
    assert fourth.comment == "forced"
    assert fourth.variations[0][0].note.comment == "also possible"


def test_comments_and_variations_round_trip():
    (game,) = read_pdn(ANNOTATED)
    text = write_pdn(game.game(), {"Result": "*"}, notes=game.notes)
    flat = " ".join(text.split())
    assert ("{White opens} 1. 32-28 {the centre} (1. 33-29 {quieter} 1... 19-23 (1... 20-24 2. 29x20 "
            "15x24) 2. 38-33) 1... 19-23 2. 28x19 14x23 {forced} (2... 13x24 {also possible}) "
            "3. 37-32 *") in flat
    (back,) = read_pdn(text)
    assert back.moves == game.moves and back.notes == game.notes
    assert all(len(line) <= 80 for line in text.splitlines())


def test_a_variation_with_an_illegal_move_is_kept_as_written():
    (game,) = read_pdn("1. 32-28 19-23 2. 28x19 (2. 33-29 (2. 31-27 17-21) 23x34) 14x23 *")
    assert len(game.moves) == 4
    assert game.notes[3].unread == ["2. 33-29 (2. 31-27 17-21) 23x34"]
    text = write_pdn(game.game(), notes=game.notes)
    assert "2. 28x19 (2. 33-29 (2. 31-27 17-21) 23x34) 2... 14x23" in " ".join(text.split())
    (back,) = read_pdn(text)
    assert back.notes == game.notes


def test_a_variation_before_any_move_is_refused():
    with pytest.raises(BadInput, match="a variation before any move"):
        read_pdn("(1. 32-28) 1. 33-29 *")


def test_move_annotations_are_kept_and_written_back():
    text = ("1. 32-28! {good} 19-23 $14 (1... 18-23?! $6 2. 33-29 (!)) 2. 28x19!? 14x23 ; said after\n"
            "% an escape line for other programs\n3. 37-32 ?? $2 *")
    (game,) = read_pdn(text)
    assert game.notes[1].nags == ["!"] and game.notes[1].comment == "good"
    assert game.notes[2].nags == ["$14"]
    assert [step.note.nags for step in game.notes[2].variations[0]] == [["?!", "$6"], ["!"]]
    assert game.notes[3].nags == ["!?"]
    assert game.notes[4].comment == "said after" and not game.notes[4].nags
    assert game.notes[5].nags == ["??", "$2"]
    out = write_pdn(game.game(), {"Result": "*"}, notes=game.notes)
    assert ("1. 32-28! {good} 1... 19-23 $14 (1... 18-23?! $6 2. 33-29!) 2. 28x19!? 14x23 "
            "{said after} 3. 37-32?? $2 *") in " ".join(out.split())
    (back,) = read_pdn(out)
    assert back.moves == game.moves and back.notes == game.notes


def test_an_annotation_before_any_move_of_its_line_is_dropped():
    (game,) = read_pdn("$3 1. 32-28 19-23 (! 1... 18-23) *")
    assert 0 not in game.notes and game.notes[2].variations and not game.notes[2].nags
    assert not game.notes[2].variations[0][0].note.nags
