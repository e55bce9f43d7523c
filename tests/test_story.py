"""rafle story: where an engine's games were decided (protocol/tools/match/story.py)."""
from __future__ import annotations

import json

from protocol import cli

# Hand-made games (material counted by hand, a man 1, a king 3):
# 1. White A wins a man at ply 3 (28x19) and keeps it: A's lead holds from ply 3, 3 pieces.
# 2. The same game given to B as White, drawn: B stood a man ahead, not 2: no long lead.
# 3. B as Black loses a man at ply 1 (28x19 is forced) and the game: B behind from ply 1.
GAMES = """
[White "A"]
[Black "B"]
[Round "1"]
[Result "2-0"]
[FEN "W:W33,48:B19,3"]

1. 33-28 19-23 2. 28x19 3-8 2-0

[White "B"]
[Black "A"]
[Round "2"]
[Result "1-1"]
[FEN "W:W33,48:B19,3"]

1. 33-28 19-23 2. 28x19 3-8 1-1

[White "A"]
[Black "B"]
[Round "3"]
[Result "1-0"]
[FEN "W:W28,48:B23,3"]

1. 28x19 3-8 2. 48-42 8-12 1-0
"""


def rafle(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_each_game_from_the_engines_side(tmp_path, capsys):
    pdn = tmp_path / "games.pdn"
    pdn.write_text(GAMES)
    code, out, err = rafle(capsys, "story", str(pdn), "--engine", "B", "--json")
    assert code == 0 and err == ""
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["round"], r["colour"], r["score"], r["plies"], r["fall"], r["pieces"])
            for r in rows] == [("1", "black", 0.0, 4, 3, 3), ("2", "white", 0.5, 4, None, None),
                               ("3", "black", 0.0, 4, 1, 3)]
    assert [(r["ahead"], r["behind"]) for r in rows] == [(0, 0), (0, 0), (0, 0)]


def test_the_summary_gives_the_medians(tmp_path, capsys):
    pdn = tmp_path / "games.pdn"
    pdn.write_text(GAMES)
    code, out, _ = rafle(capsys, "story", str(pdn))       # the first game's White: A
    assert code == 0
    assert out.splitlines() == [
        "A: 3 games, +2 =1 -0",
        "wins: decided from ply 1-3 (median 2) with 3-3 pieces (median 3)",
        "draws: 0 with A 2 or more ahead for 30 plies or more (not converted), 0 behind (held)"]


def test_a_lead_of_a_king_held_for_long_counts(tmp_path, capsys):
    # Two white kings against one for 40 plies (kings to and fro), then a draw.
    moves = " ".join(f"{n}. 49-43 1-6 {n + 1}. 43-49 6-1" for n in range(1, 21, 2))
    pdn = tmp_path / "king.pdn"
    pdn.write_text(f'[White "A"]\n[Black "B"]\n[Result "1-1"]\n[FEN "W:WK47,K49:BK1"]\n\n{moves} 1-1\n')
    code, out, _ = rafle(capsys, "story", str(pdn), "--json")
    row = json.loads(out)
    assert code == 0 and row["plies"] == 40 and (row["ahead"], row["behind"]) == (40, 0)
    code, out, _ = rafle(capsys, "story", str(pdn), "--engine", "B")
    assert out.splitlines()[-1] == ("draws: 0 with B 2 or more ahead for 30 plies or more "
                                    "(not converted), 1 behind (held)")


def test_bad_input_is_a_clear_error(tmp_path, capsys):
    code, out, err = rafle(capsys, "story", str(tmp_path / "none.pdn"))
    assert code == 2 and out == "" and "none.pdn" in err
    bad = tmp_path / "bad.pdn"
    bad.write_text('[White "A"]\n[Black "B"]\n\n1. 32-28 {never closed 2-0\n')
    code, _, err = rafle(capsys, "story", str(bad))
    assert code == 2 and "bad.pdn" in err and "never closed" in err
    ok = tmp_path / "ok.pdn"
    ok.write_text(GAMES)
    code, _, err = rafle(capsys, "story", str(ok), "--engine", "C")
    assert code == 2 and "no finished game of 'C'" in err


def test_the_search_finds_where_a_lost_game_began_to_slide(tmp_path, capsys):
    # B's positions: game 1, ply 2 level (two men each), ply 4 a man down (after 28x19);
    # game 3, plies 2 and 4 a man down.  A man down in these few-piece endings scores
    # below -1.00 even at a small search; level does not.
    pdn = tmp_path / "games.pdn"
    pdn.write_text(GAMES)
    code, out, _ = rafle(capsys, "story", str(pdn), "--engine", "B", "--score", "20000",
                         "--from", "1", "--json")
    assert code == 0
    assert [json.loads(line)["slide"] for line in out.splitlines()] == [4, None, 2]
    code, out, _ = rafle(capsys, "story", str(pdn), "--engine", "B", "--score", "20000",
                         "--from", "3")
    assert out.splitlines()[-1] == ("losses: the search at -1.00 or worse for good from ply 4-4 "
                                    "(median 4; 2 of 2)")


def test_the_tempo_counts_each_sides_rows_from_its_back_row():
    from engine import VARIANTS, pos_from_fen, start_position
    from protocol.tools.match.story import tempo
    assert tempo(pos_from_fen("W:W28:B3"), True) == 4      # 28 is White's 5th row from 46-50
    assert tempo(pos_from_fen("W:W28:B3"), False) == -4
    assert tempo(pos_from_fen("B:W46,28:B3,23"), True) == 4 - 4
    assert tempo(pos_from_fen("W:W28,33:B3"), True) is None       # the men are not level
    assert tempo(pos_from_fen("W:W28,K50:B3,K1"), True) is None   # a king on the board
    for v in VARIANTS.values():                                   # both sides alike at the start
        start = start_position(v)
        assert tempo(start, True) == 0, v.name
        # White starts in the bottom half (its back row the last) in every variant, which
        # the count assumes: a man's rows gone are width - 1 - its row.
        rows = [v.coords(s)[0] for s in range(1, v.nsquares + 1) if start.piece_at(s) == "w"]
        assert min(rows) >= v.width // 2, v.name


def test_the_summary_gives_the_tempo_of_each_result(tmp_path, capsys):
    # Twenty plies with exchanges, men level after them; the tempo is read from the FEN
    # there by hand: a row every five squares, 1-5 Black's back row, 46-50 White's.
    moves = ("1. 33-28 18-22 2. 39-33 17-21 3. 28x26 19-24 4. 32-28 13-19 5. 38-32 12-17 "
             "6. 28-23 19x30 7. 32-28 7-12 8. 43-39 2-7 9. 37-32 30-34 10. 39x19 14x23")
    fen = "W:W26,28,31,32,35,36,40,41,42,44,45,46,47,48,49,50:B1,3,4,5,6,7,8,9,10,11,12,15,16,17,20,23"
    white, black = ([(int(s) - 1) // 5 for s in part[1:].split(",")] for part in fen.split(":")[1:])
    lead = sum(9 - r for r in white) - sum(black)
    games = [f'[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n{moves} {r}\n'
             for w, b, r in (("A", "B", "0-2"), ("B", "A", "1-1"))]
    pdn = tmp_path / "g.pdn"
    pdn.write_text("\n".join(games))
    code, out, _ = rafle(capsys, "story", str(pdn), "--json")
    assert code == 0 and [json.loads(line)["tempo"] for line in out.splitlines()] == [
        {"20": lead}, {"20": -lead}]
    code, out, _ = rafle(capsys, "story", str(pdn))
    assert out.splitlines()[-1] == (
        f"tempo: A's men ahead of the other side's by this many rows at ply 20/40/60 (mean; in "
        f"brackets the games with level men and no king): losses {lead:+.1f} (1) / - / -; "
        f"draws {-lead:+.1f} (1) / - / -")
