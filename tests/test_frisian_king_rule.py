"""Frisian: a side that still has men may not make a fourth quiet move in a row with the
same king (spec/rules.md §4.3).  The rule is read from the game's positions
(``engine.barred_square``): by the referee, and by the search, whose kernel leaves the
barred king's quiet moves out of its root; each place is tested here: the search, the Hub
front end (history from ``pos ... moves=``), the text mode and match adjudication.

The positions: White's king goes 5-10-14-9 while Black's man goes 16-21-27-32; then the
king on 9 is barred.  With a man on 47 White may still move that man; with a blocked man
on 46 (Black men on 41 and 37) White has no allowed move and has lost.
"""
from __future__ import annotations

import shlex
import sys

import pytest

from engine import BadInput, get_variant, legal_moves, move_from_hub, parse_position
from engine import weights
from engine.game import Game
from engine.pdn import read_pdn
from engine.search import Limits, Searcher
from protocol.tools.match import cli as match
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


# ----- the search: the barred king is a kernel input read from the history -------------------

def test_search_plays_only_the_allowed_moves(searcher):
    game = game_after(FREE)
    allowed = game.legal_moves()
    assert {m.frm for m in allowed} == {47} and len(legal_moves(game.position)) > len(allowed)
    for limits in (Limits(depth=4), Limits(nodes=3000), Limits(depth=1)):
        result = searcher.search(game.position, game.history(), limits)
        assert result.move in allowed and result.pv[0] == result.move


def test_search_has_no_move_when_only_the_barred_king_could_move(searcher):
    game = game_after(BLOCKED)
    assert game.legal_moves() == [] and legal_moves(game.position)
    result = searcher.search(game.position, game.history(), Limits(depth=3))
    assert result.move is None and result.pv == ()


def test_search_with_a_barred_king_plays_the_allowed_move_that_a_deeper_search_prefers(searcher):
    # The king on 9 is barred; either man may move, at every depth.
    game = game_after("W:WK5,47,46:B16,26")
    for depth in (2, 4, 6):
        result = searcher.search(game.position, game.history(), Limits(depth=depth))
        assert result.move.frm in (46, 47) and result.depth == depth


# ----- the Hub front end ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def hub():
    engine = HubProcess()
    engine.send("hub")
    engine.read_until("wait")
    engine.send("set-param name=variant value=frisian", "init")
    assert engine.read_until("ready", INIT_WAIT) == [f"init eval={weights.check(weights.shipped(get_variant('frisian')))} egdb=0", "ready"]
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
