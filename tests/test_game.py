"""Game records and the rules that end a game (rules.md §4.1)."""
import pytest

from engine import (BadInput, Move, get_variant, legal_moves, move_from_hub, parse_position, play,
                    start_position)
from engine.game import Counters, Game, advance, draw_reason, ending_rule


def quiet_king_moves(game: Game, plies: int) -> None:
    """Play ``plies`` king moves without capture that allow the opponent no capture and
    bring no position a third time (so that only the move-count rules are at work)."""
    for _ in range(plies):
        pos = game.position
        candidates = []
        for move in legal_moves(pos):
            after = play(pos, move)
            if pos.piece_at(move.frm) in "WB" and not move.captured \
                    and not any(m.captured for m in legal_moves(after)):
                candidates.append((game.positions.count(after), move))
        if not candidates or min(candidates, key=lambda c: c[0])[0] >= 2:
            raise AssertionError(f"no quiet king move after {len(game.moves)} plies")
        game.push(min(candidates, key=lambda c: c[0])[1])


def test_no_legal_move_loses():
    blocked = Game(parse_position("W:W46:B41,37"))          # white man 46 blocked, no capture
    assert blocked.outcome().result == "0-2"
    assert blocked.outcome().reason == "no legal move"
    empty = Game(parse_position("B:W10:B"))                  # black has no pieces
    assert (empty.outcome().result, empty.outcome().winner) == ("2-0", 0)
    assert Game().outcome() is None


def test_threefold_repetition():
    game = Game(parse_position("W:WK50,31,32,33:BK1,18,19,20"))
    shuffle = ["50-44", "1-7", "44-50", "7-1"]
    for text in shuffle:
        game.push(move_from_hub(game.position, text))
    assert game.repetitions() == 2 and game.outcome() is None
    for text in shuffle[:3]:
        game.push(move_from_hub(game.position, text))
    assert game.outcome() is None
    game.push(move_from_hub(game.position, shuffle[3]))
    assert game.repetitions() == 3
    assert game.outcome().result == "1-1"
    assert game.outcome().reason == "threefold repetition"
    game.pop()                                               # taking back forgets the occurrence
    assert game.outcome() is None


def test_25_move_rule_after_50_king_plies():
    game = Game(parse_position("W:WK46,K50:BK1,K5"))
    assert ending_rule(game.position) == 0
    quiet_king_moves(game, 49)
    assert game.outcome() is None
    quiet_king_moves(game, 1)
    assert game.outcome().reason == "25-move rule"


def test_25_move_counter_resets_on_man_move_and_capture():
    pos = parse_position("W:WK46,K50,35:BK1,K5")
    near_limit = Counters(king_plies=49)
    king = move_from_hub(pos, "50-44")
    man = move_from_hub(pos, "35-30")
    after = play(pos, king)
    assert advance(near_limit, pos, after).king_plies == 50
    assert draw_reason(after, advance(near_limit, pos, after)) == "25-move rule"
    assert advance(near_limit, pos, play(pos, man)).king_plies == 0
    capture_pos = parse_position("W:WK46,K50:BK1,K5,23")
    capture = [m for m in legal_moves(capture_pos) if m.captured][0]
    assert advance(near_limit, capture_pos, play(capture_pos, capture)).king_plies == 0


def test_16_move_rule_counts_from_the_capture_that_creates_it():
    game = Game(parse_position("W:WK50,K49,33:BK5,28"))
    assert ending_rule(game.position) == 0
    game.push(move_from_hub(game.position, "33x22"))       # black is left with a lone king
    assert ending_rule(game.position) == 16
    assert game.counters[-1].ending_plies == 0             # the creating move is not counted
    quiet_king_moves(game, 31)
    assert game.outcome() is None
    quiet_king_moves(game, 1)
    assert game.outcome().reason == "16-move rule"
    assert len(game.moves) == 33


def test_5_move_rule_from_the_start_position():
    game = Game(parse_position("B:WK48:BK3,K1"))
    assert ending_rule(game.position) == 5
    quiet_king_moves(game, 9)
    assert game.outcome() is None
    quiet_king_moves(game, 1)
    assert game.outcome().result == "1-1"
    assert game.outcome().reason == "5-move rule"


def test_ending_counts_restart_and_continue():
    # 16-move balance turned into the 5-move one by a capture: a new count.
    pos = parse_position("B:WK46,K50,28:BK5")
    take = [m for m in legal_moves(pos) if m.captured][0]
    after = play(pos, take)
    assert ending_rule(pos) == 16 and ending_rule(after) == 5
    assert advance(Counters(ending_plies=20), pos, after).ending_plies == 0
    # Inside the 5-move balance a capture (king v king and man -> king v king) counts on.
    pos = parse_position("W:WK46:BK1,41")
    take = move_from_hub(pos, "46x37")
    after = play(pos, take)
    assert ending_rule(pos) == 5 and ending_rule(after) == 5
    assert advance(Counters(ending_plies=4), pos, after).ending_plies == 5
    # A promotion that gives the first king creates the balance.
    pos = parse_position("B:WK46:B41,42,1")
    crown = move_from_hub(pos, "41-47")
    assert crown.promotes and ending_rule(pos) == 0
    after = play(pos, crown)
    assert ending_rule(after) == 16 and advance(Counters(ending_plies=7), pos, after).ending_plies == 0


def test_ending_rule_material():
    assert ending_rule(parse_position("W:WK46:BK5,K1,K2")) == 16
    assert ending_rule(parse_position("W:WK46:BK5,7,8")) == 16
    assert ending_rule(parse_position("W:WK46:B5,7,8")) == 0          # no king with the three
    assert ending_rule(parse_position("W:WK46:BK5,K1,K2,K3")) == 0    # four pieces
    assert ending_rule(parse_position("W:WK46:BK5")) == 5
    assert ending_rule(parse_position("W:WK46,30:BK5")) == 5
    assert ending_rule(parse_position("W:W46:BK5")) == 0              # the single piece is a man
    assert ending_rule(start_position()) == 0


def test_push_pop_redo_and_history():
    game = Game()
    with pytest.raises(BadInput):
        game.pop()
    with pytest.raises(BadInput):
        game.redo()
    line = ["32-28", "19-23", "28x19"]
    for text in line:
        game.push(move_from_hub(game.position, text))
    end = game.position
    assert len(game.history()) == 3 and game.history()[0] == start_position()
    undone = [game.pop(), game.pop()]
    assert len(game.moves) == 1 and game.can_redo
    assert game.redo() == undone[1]
    assert game.redo() == undone[0]
    assert game.position == end and not game.can_redo
    game.pop()
    game.pop()
    game.push(move_from_hub(game.position, "18-23"))        # a different move drops the redo line
    assert not game.can_redo
    with pytest.raises(BadInput):
        game.push(move_from_hub(start_position(), "32-28"))  # legal at the start, not here
    assert len(game.moves) == 2 and len(game.positions) == 3


# ----- other variants use their own record ------------------------------------------

def test_antidraughts_player_without_a_move_wins():
    game = Game(parse_position("W:W46:B41,37", get_variant("antidraughts")))
    assert game.outcome().result == "2-0"


def test_italian_draws_on_the_fourth_repetition():
    italian = get_variant("italian")
    game = Game(parse_position("W:WK29,K30:BK1,K2", italian))
    first = [m for m in legal_moves(game.position) if not m.captured][0]
    game.push(first)
    reply = [m for m in legal_moves(game.position) if not m.captured][0]
    game.push(reply)
    cycle = [first, reply, Move(first.to, first.frm), Move(reply.to, reply.frm)]
    game.pop()
    game.pop()
    for _ in range(2):
        for move in cycle:
            game.push(move)
    assert game.repetitions() == 3 and game.outcome() is None
    for move in cycle:
        game.push(move)
    assert game.outcome().reason == "4-fold repetition"


def test_frisian_king_against_king_is_drawn_after_two_moves_each():
    game = Game(parse_position("W:WK47:BK4", get_variant("frisian")))
    assert ending_rule(game.position) == 2
    quiet_king_moves(game, 3)
    assert game.outcome() is None
    quiet_king_moves(game, 1)
    assert game.outcome().reason == "2-move rule"


def test_king_move_count_follows_the_variant():
    english = parse_position("W:WK29,K30:BK4,K8", get_variant("english"))
    assert draw_reason(english, Counters(king_plies=79)) is None
    assert draw_reason(english, Counters(king_plies=80)) == "40-move rule"
    assert draw_reason(parse_position("W:WK46,K50:BK1,K5"), Counters(king_plies=50)) == "25-move rule"


def test_remembered_moves_are_each_callers_own_and_the_positions_own():
    """legal_moves remembers its last answers: a caller that changes its list changes no
    later answer, each position (and the paths flag) gets its own moves, and a thread gets
    the same moves as the main one."""
    import random
    import threading

    from engine.position import _generate
    rng = random.Random(5)
    for name in ("international", "russian", "frisian", "turkish"):
        game = Game(None, get_variant(name))
        for _ in range(60):
            moves = game.legal_moves()
            if not moves or game.outcome() is not None:
                break
            pos = game.position
            first = legal_moves(pos)
            assert first == list(_generate(pos, False))
            first.clear()
            assert legal_moves(pos) == list(_generate(pos, False))
            assert legal_moves(pos, paths=True) == list(_generate(pos, True))
            seen = []
            worker = threading.Thread(target=lambda: seen.append(legal_moves(pos)))
            worker.start()
            worker.join()
            assert seen == [list(_generate(pos, False))]
            game.push(rng.choice(moves))
