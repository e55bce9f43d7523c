"""Game rules of the 8x8 and Frisian variants (spec/rules.md §4.3, §4.6), played out in a Game.

Russian (and Brazilian, which lidraughts gives the same rules): 7.2.4-7.2.8 each counted
on its own; the lone-king counts are the stronger side's moves after the move that brought
the balance about.  Frisian: a side with men may not move the same king a fourth time
in a row without capturing.
"""
from __future__ import annotations

import pytest

from engine import (INTERNATIONAL, BadInput, Move, get_variant, legal_moves, move_from_hub,
                    parse_position, play)
from engine.drawrules import WHOSE_EITHER, WHOSE_WHITE, material_rules
from engine.game import Counters, Game, advance, draw_reason, ending_rule
from engine.position import barred_square

RUSSIAN, BRAZILIAN, FRISIAN = get_variant("russian"), get_variant("brazilian"), get_variant("frisian")


def quiet(game: Game, plies: int, want=lambda pos, move, after: True) -> None:
    """Play ``plies`` moves without capture or promotion that leave the opponent no
    capture and bring no position a third time, each also passing ``want``.  Among
    them the least repeated, then the one leaving the opponent most such replies."""
    for _ in range(plies):
        assert game.outcome() is None, f"ended after {len(game.moves)} plies: {game.outcome()}"
        pos = game.position
        choices = []
        for move in game.legal_moves():
            after = play(pos, move)
            if safe(move, after) and want(pos, move, after):
                replies = sum(1 for m in legal_moves(after) if safe(m, play(after, m)))
                choices.append((game.positions.count(after), -replies, len(choices), move))
        assert choices and min(choices)[0] < 2, f"no quiet move after {len(game.moves)} plies"
        game.push(min(choices)[3])


def safe(move: Move, after) -> bool:
    return not (move.captured or move.promotes or any(m.captured for m in legal_moves(after)))


def rules(pos):
    """(lone-king rule's moves, whose moves it counts, 7.2.7 in force, 7.2.6 plies)."""
    return tuple(material_rules(pos.white, pos.black, pos.kings, pos.variant.table))


def off_road(pos, move, after) -> bool:
    return not rules(after)[2]


def king_moves(pos, move, after) -> bool:
    return pos.piece_at(move.frm) in "WB"


# ----- Russian 7.2.4: three kings against one ------------------------------------------

def test_three_kings_against_one_draw_at_the_15th_move_of_the_three():
    game = Game(parse_position("W:WK30,K31,K32:BK1", RUSSIAN))
    assert ending_rule(game.position) == 15
    quiet(game, 28, off_road)
    assert game.outcome() is None
    quiet(game, 1, off_road)                   # White's 15th move: one ply before 7.2.5 would
    assert len(game.moves) == 29
    assert game.outcome().reason == "15-move rule (three kings against one)"


def test_three_kings_count_ignores_man_moves_that_reset_the_kings_only_count():
    # Three kings and a man: a man move restarts 7.2.5 (kings only), not 7.2.4.
    game = Game(parse_position("W:WK30,K31,K32,21:BK1", RUSSIAN))
    quiet(game, 1, lambda pos, move, after: move.frm == 21)
    assert game.counters[-1].king_plies == 0
    quiet(game, 27, lambda pos, move, after: off_road(pos, move, after)
          and king_moves(pos, move, after))
    assert game.outcome() is None
    quiet(game, 1, lambda pos, move, after: off_road(pos, move, after)
          and king_moves(pos, move, after))
    assert game.outcome().reason == "15-move rule (three kings against one)"
    assert game.counters[-1].king_plies == 28


def test_three_kings_count_starts_after_the_crowning_that_makes_the_third_king():
    game = Game(parse_position("W:WK29,K30,6:BK20", RUSSIAN))
    assert ending_rule(game.position) == 0
    crown = [m for m in game.legal_moves() if m.promotes][0]
    game.push(crown)
    assert ending_rule(game.position) == 15 and game.counters[-1].ending_plies == 0
    quiet(game, 29, off_road)                  # Black, White, ... White's 14th: 29 plies
    assert game.counters[-1].ending_plies == 29 and game.outcome() is None
    quiet(game, 1, off_road)                   # White's 15th
    assert game.counters[-1].ending_plies == 30
    assert game.outcome().reason.startswith("15-move rule")


# ----- Russian 7.2.7 and 7.2.8: a lone king against one to three pieces ---------------------

def test_lone_king_on_the_long_diagonal_draws_at_the_5th_move():
    # King and two men against a king on the long diagonal (a1-h8 = 29..4).
    game = Game(parse_position("W:WK32,21,24:BK15", RUSSIAN))
    assert rules(game.position)[:3] == (0, WHOSE_WHITE, True)
    on_road = lambda pos, move, after: rules(after)[2]
    quiet(game, 8, on_road)
    assert game.outcome() is None
    quiet(game, 1, on_road)                    # White's 5th move
    assert game.outcome().reason == "5-move rule (lone king on the long diagonal)"


def test_leaving_the_long_diagonal_ends_that_count():
    game = Game(parse_position("B:WK32,21,24:BK18", RUSSIAN))
    quiet(game, 4, lambda pos, move, after: rules(after)[2])
    assert game.counters[-1].road_plies == 4   # two moves of each side
    quiet(game, 1, off_road)                   # the black king leaves the diagonal
    assert game.counters[-1].road_plies == 0 and not rules(game.position)[2]
    quiet(game, 12, off_road)
    assert game.outcome() is None              # nothing else applies (4 pieces: 7.2.6 is 30)


def test_two_pieces_with_a_king_against_a_king_draw_at_the_5th_move():
    game = Game(parse_position("B:WK32,21:BK1", RUSSIAN))
    assert ending_rule(game.position) == 5
    quiet(game, 9)                             # Black first: White's 5th move is ply 10
    assert game.outcome() is None
    quiet(game, 1)
    assert game.outcome().reason == "5-move rule"


def test_king_against_king_draws_at_either_sides_5th_move():
    game = Game(parse_position("W:WK32:BK1", RUSSIAN))
    assert rules(game.position)[:2] == (5, WHOSE_EITHER)
    quiet(game, 8)
    assert game.outcome() is None
    quiet(game, 1)
    assert game.outcome().reason == "5-move rule"


def test_a_capture_inside_the_5_move_balance_counts_on():
    pos = parse_position("W:WK29:BK4,22", RUSSIAN)   # white king takes the man: K v K
    take = [m for m in legal_moves(pos) if m.captured][0]
    after = play(pos, take)
    c = advance(Counters(ending_plies=4), pos, after)
    assert ending_rule(pos) == ending_rule(after) == 5 and c.ending_plies == 5


def test_three_kings_becoming_two_by_a_capture_start_the_5_move_count():
    pos = parse_position("B:WK30,K31,K23:BK18", RUSSIAN)
    take = legal_moves(pos)[0]
    assert take.captured == (23,)
    after = play(pos, take)
    c = advance(Counters(ending_plies=20), pos, after)
    assert (ending_rule(pos), ending_rule(after), c.ending_plies) == (15, 5, 0)


# ----- Russian 7.2.5 and 7.2.6 ---------------------------------------------------------------

def test_kings_only_for_15_moves_each():
    game = Game(parse_position("W:WK29,K32,30:BK1,K4,2", RUSSIAN))
    quiet(game, 29, king_moves)
    assert game.outcome() is None
    quiet(game, 1, king_moves)
    assert game.outcome().reason == "15-move rule"


def test_no_change_of_material_in_a_4_piece_ending_for_30_moves():
    # Both sides have a king and a man; man moves keep the kings-only count short.
    game = Game(parse_position("W:WK28,29:BK5,4", RUSSIAN))
    assert rules(game.position)[3] == 60
    for _ in range(3):
        quiet(game, 18, king_moves)
        quiet(game, 2, lambda pos, move, after: not king_moves(pos, move, after))
    assert len(game.moves) == 60 and game.counters[-1].king_plies == 0
    assert game.outcome().reason == "30-move rule (no change of material)"


def test_no_change_of_material_limits_and_resets():
    six = parse_position("W:WK32,28,27:BK1,5,6", RUSSIAN)
    assert rules(six)[3] == 120
    assert draw_reason(six, Counters(stable_plies=119)) is None
    assert draw_reason(six, Counters(stable_plies=120)) == "60-move rule (no change of material)"
    assert rules(parse_position("W:W32,28,27:BK1,5,6", RUSSIAN))[3] == 0        # no white king
    assert rules(parse_position("W:WK32,28,27,26:BK1,5,6,7", RUSSIAN))[3] == 0
    man = next(m for m in legal_moves(six) if m.frm == 28)
    assert advance(Counters(stable_plies=7), six, play(six, man)).stable_plies == 8


def test_brazilian_has_the_russian_draw_rules():
    game = Game(parse_position("W:WK30,K31,K32:BK1", BRAZILIAN))
    quiet(game, 29, off_road)
    assert game.outcome().reason == "15-move rule (three kings against one)"


def test_other_variants_keep_their_own_counters():
    pos = parse_position("W:WK46:BK5,K1,K2")
    assert ending_rule(pos) == 16
    assert advance(Counters(ending_plies=3), pos, play(pos, Move(46, 41))) == Counters(1, 4, 0, 1)


# ----- Frisian: the same king at most three quiet moves in a row --------------------------

def frisian_game(start: str, moves: list[str]) -> Game:
    game = Game(parse_position(start, FRISIAN))
    for text in moves:
        game.push(move_from_hub(game.position, text))
    return game


def test_frisian_fourth_quiet_move_of_one_king_is_refused():
    game = frisian_game("W:WK5,46:B41,37,16", ["5-10", "16-21", "10-14", "21-27", "14-9"])
    king = move_from_hub(game.position, "27-32")
    game.push(king)
    assert game.legal_moves() == []            # the man on 46 is blocked, the king barred
    outcome = game.outcome()
    assert (outcome.result, outcome.reason) == ("0-2", "no legal move (the king may not move "
                                                       "a fourth time)")
    with pytest.raises(BadInput, match="3 quiet moves in a row"):
        game.push(move_from_hub(game.position, "9-3"))
    assert len(game.moves) == 6


def test_frisian_another_piece_may_move_and_then_the_king_again():
    game = frisian_game("W:WK5,47:B16", ["5-10", "16-21", "10-14", "21-27", "14-9", "27-32"])
    barred = {m for m in legal_moves(game.position) if m.frm == 9}
    assert barred and not barred & set(game.legal_moves())
    game.push(move_from_hub(game.position, "47-41"))
    game.push(move_from_hub(game.position, "32-38"))
    assert barred & set(game.legal_moves())     # a man moved in between


def barred_after(start: str, chain: list[Move], variant=FRISIAN) -> int | None:
    """The barred king after ``chain`` from ``start`` (boards only: ``play`` checks nothing)."""
    seq = [parse_position(start, variant)]
    for move in chain:
        seq.append(play(seq[-1], move))
    return barred_square(seq[:-1], seq[-1])


def test_frisian_limit_needs_men_and_stops_at_a_capture_or_another_king():
    chain = [Move(5, 10), Move(16, 21), Move(10, 14), Move(21, 27), Move(14, 9), Move(27, 32)]
    assert barred_after("W:WK5:B16", chain) is None                       # no white men
    assert barred_after("W:WK5,47:B16", chain) == 9
    assert barred_after("W:WK10,47:B21", chain[2:]) is None               # two moves known
    took = chain[:2] + [Move(10, 14, (12,))] + chain[3:]
    assert barred_after("W:WK5,47:B16,12", took) is None                  # a capture between
    other = chain[:2] + [Move(3, 14)] + chain[3:]
    assert barred_after("W:WK5,K3,47:B16", other) is None                 # another king
    man = chain[:2] + [Move(47, 41), Move(21, 27), Move(10, 14), Move(27, 32)]
    assert barred_after("W:WK5,47:B16", man) is None                      # a man between
    assert barred_after("W:WK5,47:B16", chain, INTERNATIONAL) is None
    game = Game(parse_position("W:WK5,47:B16", FRISIAN))
    for move in chain:
        game.push(move)
    assert {m.frm for m in game.legal_moves()} == {47}
