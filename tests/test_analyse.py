"""``rafle analyse``: the annotated PDN (exact text, read back), marks (a planted blunder, a
forced move), resuming without analysing a game twice, a bad game refused by line, the HTML
page, and the win-probability fit (protocol.analysis, protocol.tools.analyse)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from engine import Limits, read_pdn
from protocol.analysis import game as analysis_game
from protocol.analysis.annotate import annotated_pdn, format_eval
from protocol.analysis.game import analyse_game
from protocol.analysis.report import crosstable, summary_lines
from protocol.analysis.source import split_games
from protocol.analysis.winprob import accuracy, fit_scale
from protocol.tools import analyse

NODES = 3000
SHORT = ("[Event \"test\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n"
         "1. 32-28 19-23 2. 28x19 14x23 3. 34-29 23x34 4. 40x29 20-24 5. 29x20 15x24 "
         "6. 31-27 24-29 7. 33x24 *\n")
# 17 men each, quiet, about level; 32-28 lets 23x21 take two men (the only reply).
BLUNDER = ('[FEN "W:W27,30,32,35,36,37,38,41,42,43,44,45,46,47,48,49,50:'
           'B1,2,3,4,5,6,7,8,9,10,11,12,13,15,16,17,23"]\n1. 32-28 23x21 *\n')
OTHER = ("[Event \"test\"]\n[Round \"2\"]\n[White \"B\"]\n[Black \"A\"]\n[Result \"2-0\"]\n\n"
         "1. 34-30 18-22 2. 30-24 20x29 3. 33x24 19x30 4. 35x24 2-0\n")
BAD = ("[Event \"test\"]\n[Round \"3\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n"
       "1. 32-28 19-23\n2. 28x19 14x25 *\n")

# The exact text at NODES nodes a position: it changes with the search (as bench does) and K.
EXPECTED = """\
[Event "test"]
[Site "?"]
[Date "????.??.??"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "*"]
[Annotator "Rafle (nodes 3000)"]
[GameType "20"]

1. 32-28 {[%eval -0.07]} 1... 19-23 {[%eval 0.02]} 2. 28x19 {[%eval 0.01]}
2... 14x23 {[%eval 0.00]} 3. 34-29 {[%eval -0.04]} 3... 23x34 {[%eval -0.05]}
4. 40x29 {[%eval -0.12]} 4... 20-24 {[%eval 0.11]} 5. 29x20 {[%eval 0.15]}
5... 15x24 {[%eval 0.12]} 6. 31-27 {[%eval -0.03]} 6... 24-29 $4 {[%eval 1.74]
Blunder. 10-14 was best.} (6... 10-14 7. 37-32 13-19 8. 41-37 5-10 9. 33-28)
7. 33x24 {[%eval 1.70]} *

"""


@pytest.fixture(scope="module")
def searcher():
    analyse._setup(1)
    return analyse._searcher


def test_the_annotated_pdn_of_a_short_game(searcher):
    game = read_pdn(SHORT)[0]
    analysis = analyse_game(game, Limits(nodes=NODES), searcher)
    text = annotated_pdn(game, analysis, "Rafle")
    assert text == EXPECTED
    back = read_pdn(text)[0]
    assert back.moves == game.moves
    assert back.notes[12].nags == ["$4"] and "[%eval" in back.notes[1].comment
    assert len(back.notes[12].variations) == 1


def test_a_planted_blunder_is_marked_and_a_forced_move_never(searcher):
    blunder, forced = analyse_game(read_pdn(BLUNDER)[0], Limits(nodes=NODES), searcher).moves
    assert blunder.mark == "??" and blunder.loss >= 15 and blunder.best != "32-28"
    assert forced.forced and forced.mark == "" and forced.loss == 0


def test_scores_as_lidraughts_writes_them():
    assert [format_eval(s) for s in (35, -120, 0, 9987, -9994, 10000, None)] == [
        "0.35", "-1.20", "0.00", "#7", "#-3", "", ""]
    assert accuracy(0) == pytest.approx(100, abs=0.01) and accuracy(1000) == 0
    assert 60 < accuracy(10) < 70


def test_a_file_is_cut_into_games_with_their_lines():
    text = SHORT + "\n" + BAD + "\n\n" + OTHER
    games = split_games("f.pdn", text)
    assert [g.line for g in games] == [1, 9, 19]
    assert [g.text.splitlines()[1] for g in games] == ['[Round "1"]', '[Round "3"]', '[Round "2"]']


def run(tmp_path, capsys, *args: str) -> tuple[int, str, str]:
    code = analyse.main([*args, "--nodes", str(NODES), "--jobs", "1", "--quiet"])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_stopped_run_goes_on_without_analysing_a_game_twice(tmp_path, capsys, monkeypatch,
                                                              searcher):
    games = tmp_path / "games.pdn"
    games.write_text(SHORT + "\n" + OTHER)
    out, state = str(tmp_path / "out.pdn"), str(tmp_path / "state.json")
    calls = []
    real = analyse.analyse_game

    def counting(game, *a, **kw):
        calls.append(game.tags["Round"])
        return real(game, *a, **kw)

    monkeypatch.setattr(analyse, "analyse_game", counting)
    code, said, err = run(tmp_path, capsys, str(games), "--out", out, "--state", state,
                          "--max-games", "1")
    assert code == 0 and calls == ["1"] and "1 game not analysed yet" in err
    assert len(read_pdn(open(out).read())) == 1
    code, said, err = run(tmp_path, capsys, str(games), "--out", out, "--state", state)
    assert code == 0 and calls == ["1", "2"]
    assert [g.tags["Round"] for g in read_pdn(open(out).read())] == ["1", "2"]
    code, said, err = run(tmp_path, capsys, str(games), "--out", out, "--state", state)
    assert calls == ["1", "2"]          # all done: nothing searched again
    assert "A (white)" in said and "accuracy" in said


def test_a_bad_game_is_refused_by_line_and_the_others_analysed(tmp_path, capsys, searcher):
    games = tmp_path / "games.pdn"
    games.write_text(SHORT + "\n" + BAD + "\n" + OTHER)
    out, page = tmp_path / "out.pdn", tmp_path / "report.html"
    code, said, err = run(tmp_path, capsys, str(games), "--out", str(out), "--html", str(page))
    assert code == 0
    assert f"{games}:9: " in err and "line 16" in err and "14x25" in err
    assert "refused 1 game:" in said
    assert [g.tags["Round"] for g in read_pdn(out.read_text())] == ["1", "2"]
    html = page.read_text()
    assert html.count("<svg") == 2 and "Crosstable" in html and "<table class=cross>" in html
    assert "<script" not in html and "src=" not in html and "href=" not in html
    assert "Blunder" in out.read_text() and "6... 24-29 ?? blunder" in html


def test_nothing_to_analyse_is_an_error(tmp_path, capsys):
    games = tmp_path / "games.pdn"
    games.write_text(BAD)
    code, said, err = run(tmp_path, capsys, str(games), "--out", str(tmp_path / "o.pdn"))
    assert code == 1 and "refused" in err


def test_the_crosstable_counts_points():
    a = analyse_game.__globals__["GameAnalysis"]
    games = [a({"White": "A", "Black": "B", "Result": "2-0"}, 0, [], ""),
             a({"White": "B", "Black": "A", "Result": "1-1"}, 0, [], "")]
    players, cells = crosstable(games)
    assert players == ["A", "B"] and cells[("A", "B")] == [2, 1] and cells[("B", "A")] == [0, 1]
    assert summary_lines(games)[0] == "? round ?: A - B 2-0"


def test_the_winprob_fit_recovers_a_known_scale():
    rng = np.random.default_rng(7)
    k = 150.0
    scores = rng.normal(0, 250, 40_000).round()
    p = 1 / (1 + np.exp(-scores / k))
    draw = rng.random(len(scores)) < np.minimum(p, 1 - p)          # draws count one half
    win = rng.random(len(scores)) < (p - np.minimum(p, 1 - p) / 2) / (1 - np.minimum(p, 1 - p))
    results = np.where(draw, 1, np.where(win, 2, 0))
    fit = fit_scale(scores, results)
    assert fit.k == pytest.approx(k, rel=0.05) and fit.positions == len(scores)
    assert 0.2 < fit.draws < 0.5


def test_the_shipped_scale_is_the_fitted_one():
    assert 100 < analysis_game.K < 400


# White to move has a shot (34-30 25x34 39x19 14x32 38x16) and plays 28-22 instead.
SHOT = ('[FEN "W:W26,28,31,33,34,35,37,38,39,40,41,42,43,44,45,46,47,48,49,50:'
        'B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,17,18,21,24,25"]\n1. 28-22 18x36 *\n')


def test_a_missed_shot_is_marked_and_becomes_a_puzzle(tmp_path, capsys, searcher):
    pytest.importorskip("protocol.analysis.puzzles")
    games = tmp_path / "games.pdn"
    games.write_text(SHOT)
    out, puzzles = tmp_path / "out.pdn", tmp_path / "puzzles.json"
    code, said, err = run(tmp_path, capsys, str(games), "--out", str(out), "--puzzles",
                          str(puzzles))
    assert code == 0
    assert "Missed shot: 34-30 25x34 39x19 14x32 38x16." in " ".join(out.read_text().split())
    found = json.loads(puzzles.read_text())
    assert [(p["solution"], p["ply"], p["depth"]) for p in found] == [
        (["34-30", "25x34", "39x19", "14x32", "38x16"], 0, 5)]
    assert found[0]["fen"].startswith("W:W26,28,31")


# Black's 11-17 gives White 27-22 17x28 32x14; its four other moves give no shot.
ALLOWS = '[FEN "B:W27,32,37,43:B6,11,15,19"]\n1... 11-17 2. 27-22 17x28 3. 32x14 *\n'


def test_a_move_that_allowed_a_shot_is_marked_and_the_shot_is_a_puzzle(searcher):
    game, = read_pdn(ALLOWS)
    a = analyse_game(game, Limits(nodes=NODES), searcher, find_shots=True)
    allowing = a.moves[0]
    assert allowing.move == "11-17" and allowing.allowed == ["27-22", "17x28", "32x14"]
    assert allowing.allowed_gain == 1 and not any(m.allowed for m in a.moves[1:])
    assert not a.moves[1].shot                       # White played the shot: not missed
    assert "Allowed a shot: 27-22 17x28 32x14." in " ".join(annotated_pdn(game, a, "test").split())
    found = analysis_game.puzzles(game.game(), a)
    assert [(p["ply"], p["solution"]) for p in found] == [(1, ["27-22", "17x28", "32x14"])]


def test_a_shot_no_move_could_avoid_is_not_laid_on_the_move_before():
    """The rule alone, with shot finders that see a shot after every move, or after one."""
    from engine import legal_moves, move_to_pdn, play, pos_from_fen
    from protocol.analysis.game import _avoidable
    from protocol.analysis.shots import Shot
    pos = pos_from_fen("B:W27,32,37,43:B6,11,15,19")
    shot = Shot(["27-22", "17x28", "32x14"], 1, 3, 1)
    assert not _avoidable(pos, "11-17", 1, lambda after: shot)            # every move allows it
    only = play(pos, next(m for m in legal_moves(pos) if move_to_pdn(pos, m) == "11-17"))
    assert _avoidable(pos, "11-17", 1, lambda after: shot if after == only else None)
    assert not _avoidable(pos, "11-17", 1, lambda after: shot if after != only else None)
