"""Frisian: a side that still has men may not make a fourth quiet move in a row with the
same king (spec/rules.md §4.3).  The kernels see no history, so the rule is applied where
the game's moves are known, and each place is tested here: the search's ``root_moves``,
the Hub front end (history from ``pos ... moves=``), the text mode and match adjudication.

The positions: White's king goes 5-10-14-9 while Black's man goes 16-21-27-32; then the
king on 9 is barred.  With a man on 47 White may still move that man; with a blocked man
on 46 (Black men on 41 and 37) White has no allowed move and has lost.
"""
from __future__ import annotations

import shlex
import sys

import pytest

from engine import BadInput, get_variant, legal_moves, move_from_hub, parse_position
from engine.game import Game
from engine.negamax import WIN_BOUND
from engine.pdn import read_pdn
from engine.search import Limits, Searcher
from protocol.match import runner as match
from protocol.text.session import Session
from protocol.text.thinking import Thinker
from test_hub import INIT_WAIT, HubProcess

FRISIAN = get_variant("frisian")
MOVES = "5-10 16-21 10-14 21-27 14-9 27-32"
FREE, BLOCKED = "W:WK5,47:B16", "W:WK5,46:B41,37,16"


def game_after(start: str, moves: str = MOVES) -> Game:
    game = Game(parse_position(start, FRISIAN))
    for text in moves.split():
        game.push(move_from_hub(game.position, text))
    return game


@pytest.fixture(scope="module")
def searcher():
    s = Searcher(tt_log2=16)
    s.warm_up()
    return s


# ----- the search's root_moves ----------------------------------------------------------

def test_search_plays_only_the_allowed_moves(searcher):
    game = game_after(FREE)
    allowed = game.legal_moves()
    assert {m.frm for m in allowed} == {47} and len(legal_moves(game.position)) > len(allowed)
    for limits in (Limits(depth=4), Limits(nodes=3000)):
        result = searcher.search(game.position, game.history(), limits, root_moves=allowed)
        assert result.move in allowed and result.pv[0] == result.move
    assert searcher.search(game.position, game.history(), Limits(depth=3),
                           root_moves=[]).move is None


def test_subset_search_agrees_with_the_full_search_where_the_best_move_is_allowed(searcher):
    pos = parse_position("W:W31,32,33,34,35,36,37,38,39,40:B11,12,13,14,15,16,17,18,19,20")
    full = searcher.search(pos, [], Limits(depth=5))
    others = [m for m in legal_moves(pos) if m != full.move]
    searcher.new_game()
    without = searcher.search(pos, [], Limits(depth=5), root_moves=others)
    assert without.move in others and without.depth == 5 and without.score is not None
    searcher.new_game()
    best_two = searcher.search(pos, [], Limits(depth=5), root_moves=[full.move, others[0]])
    assert best_two.move in (full.move, others[0])


def test_subset_search_finds_a_win_and_scores_a_repetition_as_a_draw(searcher):
    # Black's man on 45 is blocked by 50: any move of the man on 7 wins, 50-44 does not.
    pos = parse_position("W:W7,50:B45", FRISIAN)
    allowed = [m for m in legal_moves(pos) if m.frm == 7]
    assert len(allowed) == 2 and len(legal_moves(pos)) == 3
    result = searcher.search(pos, [], Limits(depth=4), root_moves=allowed)
    assert result.move in allowed and result.score > WIN_BOUND
    # A king shuffle: 46-41 now brings a position for the third time.
    game = Game(parse_position("W:WK46,31,32:BK5,20,19"))
    for text in ["46-41", "5-10", "41-46", "10-5"] * 2:
        game.push(move_from_hub(game.position, text))
    repeat = move_from_hub(game.position, "46-41")
    result = searcher.search(game.position, game.history(), Limits(depth=4), analyze=True,
                             root_moves=[repeat])
    assert (result.move, result.score) == (repeat, 0)


# ----- the Hub front end ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def hub():
    engine = HubProcess()
    engine.send("hub")
    engine.read_until("wait")
    engine.send("set-param name=variant value=frisian", "init")
    assert engine.read_until("ready", INIT_WAIT) == ["ready"]
    yield engine
    engine.send("quit")
    assert engine.close() == 0


def test_hub_never_plays_the_barred_king(hub):
    hub.send(f'pos pos={FREE} moves="{MOVES}"', "level depth=4", "go think")
    done = hub.read_until("done")[-1]
    assert done.split()[1] in ("move=47-41", "move=47-42"), done


def test_hub_gives_a_bare_done_when_only_the_barred_king_could_move(hub):
    hub.send(f'pos pos={BLOCKED} moves="{MOVES}"', "level depth=3", "go think")
    assert hub.read_until("done")[-1] == "done"


# ----- the text mode ---------------------------------------------------------------------------

def test_text_mode_refuses_the_barred_king_and_rafle_plays_an_allowed_move():
    lines: list[str] = []
    session = Session(lines.append, FRISIAN, thinker=Thinker(lambda: Searcher(tt_log2=16)))
    session.new_game(Game(parse_position(FREE, FRISIAN)))
    session.set_players("both")
    for text in MOVES.split():
        session.play_typed(text)
    with pytest.raises(BadInput, match="king on 9 has made 3 quiet moves in a row"):
        session.play_typed("9-3")
    assert len(session.game.moves) == 6
    session.set_level("depth 3", Limits(depth=3))
    session.go()
    assert session.game.moves[6].frm == 47


# ----- match adjudication ------------------------------------------------------------------------

# A Hub engine that moves a king whenever it can without capturing, else the first move.
KING_MOVER = r'''
import sys
from engine import get_variant, legal_moves, move_from_hub, move_to_hub, pos_from_hub, play
variant, pos = get_variant("normal"), None
for line in sys.stdin:
    words = line.split()
    cmd = words[0] if words else ""
    if cmd == "hub":
        print("id name=king-mover", flush=True)
        print("wait", flush=True)
    elif cmd == "set-param" and "name=variant" in line:
        variant = get_variant(line.split("value=")[1].split()[0])
    elif cmd == "init":
        print("ready", flush=True)
    elif cmd == "ping":
        print("pong", flush=True)
    elif cmd == "quit":
        break
    elif cmd == "pos":
        pos = line
    elif cmd == "go":
        body = pos.split("pos=")[1]
        p = pos_from_hub(body.split()[0], variant)
        if 'moves="' in body:
            for m in body.split('moves="')[1].split('"')[0].split():
                p = play(p, move_from_hub(p, m))
        moves = legal_moves(p)
        kings = [m for m in moves if p.piece_at(m.frm) in "WB" and not m.captured]
        print("done move=" + move_to_hub((kings or moves)[0], variant), flush=True)
'''


def test_match_counts_a_barred_king_move_as_illegal(tmp_path, capsys):
    script = tmp_path / "king_mover.py"
    script.write_text(KING_MOVER)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    openings = tmp_path / "frisian.txt"
    openings.write_text(f"{FREE} | {MOVES}\n")
    pdn = tmp_path / "games.pdn"
    code = match.main(["--engine1", command, "--engine2", command, "--variant", "frisian",
                       "--games", "1", "--openings", str(openings), "--depth", "1",
                       "--pdn", str(pdn)])
    out = capsys.readouterr().out
    assert code == 0
    (game,) = read_pdn(pdn.read_text())
    assert game.result == "0-2"                   # White (engine 1) moved the barred king
    assert "3 quiet moves in a row" in game.tags["Termination"]
    assert len(game.moves) == 6
    assert "illegal" in out
