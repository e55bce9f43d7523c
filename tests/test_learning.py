"""The training pipeline: ``rafle selfplay`` writes positions, ``rafle train`` fits them.

``rafle train`` is checked on a synthetic data set whose true weights are known: the
scores come from a known evaluation, so a fit that works recovers it (and one with a
wrong gradient, a lost feature or a broken file format does not).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import test_patterns as tp
from engine import Limits, Searcher, get_variant, legal_moves, start_position
from engine import eval as ev
from engine import learn
from engine import weights as wt
from engine.patterns import NDENSE, SCALE, layout
from protocol.cli import main as cli
from protocol.tools import train

# True dense weights far from the fit's start (the hand weights: men 100, kings 320,
# runaways 50), so that recovering them takes a fit that works.
TRUE_OPENING = learn.start_weights()
TRUE_ENDGAME = learn.start_weights()
TRUE_OPENING[[ev.MAN, ev.KING, ev.RUNAWAY]] = 60.0, 200.0, 120.0
TRUE_ENDGAME[[ev.MAN, ev.KING, ev.RUNAWAY]] = 150.0, 450.0, 20.0
CHECKED = (ev.MAN, ev.KING)


def synthetic(path, variant, n=20000, seed=1):
    """Positions scored by a known evaluation (dense terms only), as selfplay writes them."""
    rng = random.Random(seed)
    pos = [tp.random_position(variant, rng) for _ in range(n)]
    arrays = {"white": np.array([p.white for p in pos]), "black": np.array([p.black for p in pos]),
              "kings": np.array([p.kings for p in pos]), "turn": np.array([p.turn for p in pos])}
    features = learn.extract_features(arrays["white"], arrays["black"], arrays["kings"],
                                      arrays["turn"], variant, ev.eval_tables(variant))
    truth = learn.Fit(variant.width)
    _, _, op_d, eg_d, _ = layout(variant.width)
    truth.theta[:] = 0
    truth.theta[op_d:op_d + NDENSE] = TRUE_OPENING
    truth.theta[eg_d:eg_d + NDENSE] = TRUE_ENDGAME
    score = np.array([learn._score(i, *features, truth.theta, truth.bases, truth.eg_w, truth.op_d,
                                   truth.eg_d)
                      for i in range(n)])
    np.savez(path, **arrays, score=np.rint(score).astype(np.int64),
             result=np.ones(n, dtype=np.int64), ply=np.zeros(n, dtype=np.int64),
             game=np.arange(n) // 50, variant=variant.name, nodes=0, seed=seed)


def test_train_recovers_known_weights(tmp_path, capsys):
    v = get_variant("international")
    data, out = tmp_path / "synthetic.npz", tmp_path / "w.npz"
    synthetic(data, v)
    assert cli(["train", "--data", str(data), "--out", str(out), "--lambda", "1",
                "--epochs", "8", "--l2", "1e-3", "--version", "synthetic-1"]) == 0
    printed = capsys.readouterr().out
    assert "epoch 8: training loss" in printed and "validation loss" in printed
    e = wt.load(out, v)
    assert e.name == "synthetic-1"
    with np.load(out) as f:
        block = f["block"] / SCALE
    _, _, op_d, eg_d, _ = layout(10)
    for got, true in ((block[op_d:op_d + NDENSE], TRUE_OPENING),
                      (block[eg_d:eg_d + NDENSE], TRUE_ENDGAME)):
        # Men and kings carry most of the signal: within 15%.
        for d in CHECKED:
            assert abs(got[d] - true[d]) <= 0.15 * true[d], (got, true)
    with np.load(out) as f:
        assert float(f["valid_loss"]) < 1e-3


def _held_and_loss(cli_args, capsys) -> tuple[int, float]:
    """Validation positions and loss of the start weights (``--epochs 0``) on these data."""
    assert cli(["train", *cli_args, "--epochs", "0", "--valid", "0.5"]) == 0
    printed = capsys.readouterr().out
    held = int(printed.split("validation ", 1)[1].split()[0])
    return held, float(printed.split("epoch 0: validation loss ", 1)[1].split()[0])


def test_the_score_enters_the_target_only_in_games_searched_deep_enough(tmp_path, capsys):
    # Two files of games searched with 500 and 5,000 nodes a move, random results: with
    # --score-nodes 1000 the shallow file is judged on its results alone, the deep one on
    # its scores alone (--lambda 1), as each file alone says.
    v = get_variant("international")
    files = []
    for nodes, seed in ((500, 3), (5000, 4)):
        path = tmp_path / f"sp{nodes}.npz"
        synthetic(path, v, n=2000, seed=seed)
        with np.load(path) as d:
            arrays = {k: d[k] for k in d.files}
        arrays["result"] = np.random.default_rng(seed).integers(0, 3, len(arrays["result"]))
        arrays["nodes"] = nodes
        np.savez(path, **arrays)
        files.append(str(path))
    out = ["--out", str(tmp_path / "w.npz")]
    shallow = _held_and_loss(["--data", files[0], "--lambda", "0", *out], capsys)
    deep = _held_and_loss(["--data", files[1], "--lambda", "1", *out], capsys)
    assert shallow[1] > 2 * deep[1]              # the results are far from the scores
    held, loss = _held_and_loss(["--data", *files, "--lambda", "1", "--score-nodes", "1000", *out],
                             capsys)
    assert held == shallow[0] + deep[0]
    assert loss == pytest.approx((shallow[0] * shallow[1] + deep[0] * deep[1]) / held, abs=2e-6)
    # Every game is deep enough at --score-nodes 500, none at 5001; 0 (the default) keeps all.
    both = _held_and_loss(["--data", *files, "--lambda", "1", *out], capsys)
    assert _held_and_loss(["--data", *files, "--lambda", "1", "--score-nodes", "500", *out],
                       capsys) == both
    assert _held_and_loss(["--data", *files, "--lambda", "0", *out], capsys) == _held_and_loss(
        ["--data", *files, "--lambda", "1", "--score-nodes", "5001", *out], capsys)
    assert both[1] < loss


def test_held_out_games_stay_held_out_as_the_data_grows(tmp_path):
    # A game's place (training or validation) depends on the game and the seed alone: a
    # fit from weights made on a smaller set is judged on games those weights never saw.
    v = get_variant("international")
    files = [tmp_path / f"part-{i}.npz" for i in range(3)]
    for i, f in enumerate(files):
        synthetic(f, v, n=3000, seed=10 + i)       # 60 games of 50 positions each
    held = {}
    for names in ([files[0]], files):
        _, data = train.load([str(f) for f in names])
        is_valid = train.held_out(data["key"], 1, 0.2)
        held[len(names)] = is_valid[:3000]           # files[0]'s positions come first
        games = data["game"]
        assert all(len(set(is_valid[games == g].tolist())) == 1 for g in np.unique(games))
        assert 0.05 < is_valid.mean() < 0.4
    assert (held[1] == held[3]).all() and held[1].any()
    _, data = train.load([str(f) for f in files])
    assert (train.held_out(data["key"], 2, 0.2) != train.held_out(data["key"], 1, 0.2)).any()
    # The same numbers in another file name other games.
    assert (train.game_keys("a.npz", np.arange(60)) != train.game_keys("b.npz", np.arange(60))).all()


def test_a_sample_keeps_a_share_of_every_game_whatever_else_is_read(tmp_path, capsys):
    # --sample 0.3: about 30% of the positions, drawn within each game, so every game of
    # 50 positions is still there; a file's kept positions are the same read alone or with
    # others; the held-out games are the same games as without the sample.
    v = get_variant("international")
    files = [str(tmp_path / f"part-{i}.npz") for i in range(3)]
    for i, f in enumerate(files):
        synthetic(f, v, n=3000, seed=20 + i)       # 60 games of 50 positions each
    _, whole = train.load(files)
    _, alone = train.load(files[:1], 0.3)
    _, part = train.load(files, 0.3)
    assert 0.2 < len(part["white"]) / len(whole["white"]) < 0.4
    assert (np.unique(part["game"]) == np.unique(whole["game"])).all()
    n = len(alone["white"])
    for k in ("white", "black", "kings", "score", "key"):
        assert (alone[k] == part[k][:n]).all()
    held_whole = {int(g) for g in whole["game"][train.held_out(whole["key"], 1, 0.2)]}
    held_part = {int(g) for g in part["game"][train.held_out(part["key"], 1, 0.2)]}
    assert held_part == held_whole
    assert len(train.load(files, 1.0)[1]["white"]) == len(whole["white"])
    assert cli(["train", "--data", *files, "--out", str(tmp_path / "w.npz"), "--sample", "0",
                "--epochs", "1"]) == 2
    assert "--sample" in capsys.readouterr().err


def test_a_fit_writes_a_fitted_epoch_not_its_start(tmp_path, capsys):
    # Weights fitted to these very games predict their held-out part better than any epoch
    # can: the fit still writes what it fitted, and says so.
    v = get_variant("russian")
    data, first, second = tmp_path / "d.npz", tmp_path / "w1.npz", tmp_path / "w2.npz"
    synthetic(data, v, n=3000)
    assert cli(["train", "--data", str(data), "--out", str(first), "--lambda", "1", "--epochs", "6",
                "--valid", "0.5", "--quiet"]) == 0
    capsys.readouterr()
    assert cli(["train", "--data", str(data), "--out", str(second), "--lambda", "1",
                "--epochs", "1", "--init", str(first), "--seed", "7", "--valid", "0.5"]) == 0
    assert "the start predicts the held-out games better" in capsys.readouterr().out
    with np.load(second) as f:
        assert int(f["epoch"]) == 1
    with np.load(first) as f:
        assert int(f["epoch"]) >= 1


def test_a_fit_that_learns_nothing_is_caught():
    # The same data with shuffled targets: the validation loss stays high (the test above
    # could not pass by accident).
    v = get_variant("russian")
    rng = random.Random(2)
    pos = [tp.random_position(v, rng) for _ in range(3000)]
    feats = learn.extract_features(np.array([p.white for p in pos]), np.array([p.black for p in pos]),
                                   np.array([p.kings for p in pos]), np.array([p.turn for p in pos]),
                                   v, ev.eval_tables(v))
    target = np.random.default_rng(3).random(3000)
    fit = learn.Fit(8)
    fit.epoch(feats, target, np.arange(3000))
    assert fit.loss(feats, target) > 0.05


def test_selfplay_writes_positions_a_training_run_reads(tmp_path, capsys):
    out = tmp_path / "sp.npz"
    assert cli(["selfplay", "--games", "3", "--nodes", "300", "--jobs", "1", "--out", str(out),
                "--quiet", "--eval", "hand"]) == 0
    with np.load(out) as d:
        n = len(d["white"])
        assert n > 30 and all(len(d[k]) == n for k in ("black", "kings", "turn", "score",
                                                       "result", "ply", "game"))
        assert set(d["game"].tolist()) <= {0, 1, 2} and set(d["result"].tolist()) <= {0, 1, 2}
        assert str(d["variant"]) == "international"
        assert (d["white"] & d["black"] == 0).all()
    weights = tmp_path / "w.npz"
    assert cli(["train", "--data", str(out), "--out", str(weights), "--epochs", "1",
                "--quiet"]) == 0
    s = Searcher(16)
    s.resources.use_weights(str(weights))
    assert s.resources.evaluation_for(start_position().variant).name == "w"


def test_bad_training_input_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"nothing")
    assert cli(["train", "--data", str(bad), "--out", str(tmp_path / "w.npz")]) == 2
    assert "cannot read self-play file" in capsys.readouterr().err


def test_a_selfplay_run_directory_resumes_and_trains(tmp_path, capsys, monkeypatch):
    from protocol.tools import selfplay
    monkeypatch.setattr(selfplay, "CHUNK", 1)          # a chunk a game: a stop between games
    run = tmp_path / "run"
    args = ["selfplay", "--nodes", "200", "--jobs", "1", "--out", str(run), "--quiet",
            "--eval", "hand", "--random-plies", "6"]
    assert cli(args + ["--games", "2"]) == 0
    assert sorted(p.name for p in run.iterdir()) == ["chunk-0000000.npz", "chunk-0000001.npz",
                                                     "run.json"]
    first = (run / "chunk-0000000.npz").read_bytes()
    (run / "chunk-0000001.npz").unlink()               # as if stopped during the second game,
    (run / "chunk-0000001.npz.123.tmp").write_bytes(b"half")   # in the middle of its write
    capsys.readouterr()
    assert cli(args + ["--games", "3"]) == 0           # plays games 1 and 2 only
    assert "from 2 chunks played now; 3 chunk files in all" in capsys.readouterr().out
    assert (run / "chunk-0000000.npz").read_bytes() == first
    with np.load(run / "chunk-0000002.npz") as d:
        assert set(d["game"].tolist()) == {2} and str(d["variant"]) == "international"
    # The same games as one file: the chunks hold exactly its positions.
    whole = tmp_path / "whole.npz"
    assert cli(args[:-7] + ["--out", str(whole), "--quiet", "--eval", "hand", "--random-plies",
                            "6", "--games", "3"]) == 0
    with np.load(whole) as d:
        expected = sorted(zip(d["game"].tolist(), d["ply"].tolist(), d["white"].tolist()))
    got = []
    for k in range(3):
        with np.load(run / f"chunk-{k:07d}.npz") as d:
            got += zip(d["game"].tolist(), d["ply"].tolist(), d["white"].tolist())
    assert sorted(got) == expected
    # Other settings for the same directory are refused; training reads the directory.
    assert cli(args[:2] + ["300"] + args[3:] + ["--games", "3"]) == 2
    assert "other settings (nodes 200)" in capsys.readouterr().err
    weights = tmp_path / "w.npz"
    assert cli(["train", "--data", str(run), "--out", str(weights), "--epochs", "1",
                "--quiet"]) == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli(["train", "--data", str(empty), "--out", str(weights)]) == 2
    assert "holds no self-play chunks" in capsys.readouterr().err


def test_train_can_start_from_a_related_variants_weights(tmp_path, capsys):
    # Russian weights fitted to the same known evaluation start a Brazilian fit far closer
    # to it than the hand evaluation does: epoch 0's validation loss shows the start.
    russian, brazilian = get_variant("russian"), get_variant("brazilian")
    synthetic(tmp_path / "ru.npz", russian, n=6000, seed=4)
    synthetic(tmp_path / "br.npz", brazilian, n=3000, seed=5)
    assert cli(["train", "--data", str(tmp_path / "ru.npz"), "--out", str(tmp_path / "ru-w.npz"),
                "--lambda", "1", "--epochs", "6", "--l2", "1e-3", "--quiet"]) == 0

    def epoch0(*extra):
        capsys.readouterr()
        assert cli(["train", "--data", str(tmp_path / "br.npz"), "--out", str(tmp_path / "br-w.npz"),
                    "--lambda", "1", "--epochs", "1", *extra]) == 0
        line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("epoch 0"))
        return float(line.split()[-1])

    from_hand, from_russian = epoch0(), epoch0("--init", str(tmp_path / "ru-w.npz"))
    assert from_russian < from_hand / 3, (from_russian, from_hand)
    wt.load(tmp_path / "br-w.npz", brazilian)
    # --epochs 0 writes the start as it is, under the new version (Killer and breakthrough
    # ship international's weights so).
    assert epoch0("--init", str(tmp_path / "ru-w.npz"), "--epochs", "0", "--version", "br-0") == from_russian
    with np.load(tmp_path / "ru-w.npz") as a, np.load(tmp_path / "br-w.npz") as b:
        assert (a["block"] == b["block"]).all() and str(b["version"]) == "br-0"

    wide = tmp_path / "int.npz"
    np.savez(wide, block=np.zeros(layout(10)[-1], dtype=np.int32), width=10, version="x",
             variant="international")
    for init, message in ((wide, "not brazilian's 8x8 board"), (tmp_path / "none.npz", "cannot read")):
        assert cli(["train", "--data", str(tmp_path / "br.npz"), "--out", str(tmp_path / "x.npz"),
                    "--init", str(init)]) == 2
        err = capsys.readouterr().err
        assert message in err and str(init) in err and not (tmp_path / "x.npz").exists()


def _start_loss(capsys, data, out, *extra) -> float:
    """``rafle train`` on ``data`` into ``out`` (search scores only): the start's held-out loss."""
    capsys.readouterr()
    assert cli(["train", "--data", str(data), "--out", str(out), "--lambda", "1", *extra]) == 0
    lines = capsys.readouterr().out.splitlines()
    return float(next(x for x in lines if x.startswith("epoch 0")).split()[-1])


def _plays(path, v, name: str) -> None:
    """A Searcher given the weight file ``path`` names its evaluation ``name`` and, from
    ``v``'s start, searches to depth 5 to a legal move."""
    s = Searcher(16)
    s.resources.use_weights(str(path))
    assert s.resources.evaluation_for(v).name == name
    pos = start_position(v)
    assert s.search(pos, [], Limits(depth=5)).pv[0] in legal_moves(pos)


def _windows_fit(tmp_path, capsys, seed: int):
    """Synthetic international positions, ``rafle train`` on them as ``run(out, *extra)`` (the
    start's held-out loss) and a file of windows fitted to them for 2 epochs: (data, run, one)."""
    data = tmp_path / "s.npz"
    synthetic(data, get_variant("international"), n=3000, seed=seed)

    def run(out, *extra):
        return _start_loss(capsys, data, out, *extra)

    one = tmp_path / "one.npz"
    run(one, "--epochs", "2")
    return data, run, one


def test_the_richer_model_starts_from_one_family_weights_and_plays(tmp_path, capsys):
    # --odd-windows adds the second family of windows: started from one-family weights its
    # windows are zero, so epoch 0 scores as the start did; the file says so, loads and
    # plays, and a fit from it keeps the model without the flag.
    v = get_variant("international")
    data, run, one = _windows_fit(tmp_path, capsys, 7)
    two, on = tmp_path / "two.npz", tmp_path / "on.npz"
    start = run(one, "--init", str(one), "--epochs", "0")
    assert run(two, "--init", str(one), "--odd-windows", "--epochs", "0") == start
    with np.load(one) as a, np.load(two) as b:
        assert not bool(a["odd"]) and bool(b["odd"])
        assert len(b["block"]) == layout(10, odd=True)[-1] > len(a["block"])
    run(on, "--init", str(two), "--epochs", "2")
    e = wt.load(on, v)
    assert e.weights[ev.LEARNED] == 49
    _plays(on, v, "on")
    turkish = tmp_path / "t.npz"
    synthetic_full = cli(["selfplay", "--variant", "turkish", "--games", "1", "--nodes", "200",
                          "--jobs", "1", "--out", str(turkish), "--quiet", "--eval", "hand"])
    assert synthetic_full == 0
    capsys.readouterr()
    assert cli(["train", "--data", str(turkish), "--out", str(tmp_path / "x.npz"),
                "--odd-windows"]) == 2
    assert "no second family" in capsys.readouterr().err


def test_the_rectangles_start_from_windows_weights_fit_and_play(tmp_path, capsys):
    # --rectangles fits the rectangles of 12 squares instead of the windows: started from a
    # windows file, its dense and kings' weights are kept (the rectangles at zero, so the
    # start scores as those weights without windows); the file says rect, and plays.
    v = get_variant("international")
    data, run, one = _windows_fit(tmp_path, capsys, 8)
    rect, on = tmp_path / "rect.npz", tmp_path / "on.npz"
    run(rect, "--init", str(one), "--rectangles", "--epochs", "0")
    op_d = layout(10)[2]
    with np.load(one) as a, np.load(rect) as b:
        assert bool(b["rect"]) and not bool(a["rect"])
        assert len(b["block"]) == layout(10, rect=True)[-1]
        assert np.array_equal(b["block"][layout(10, rect=True)[2]:], a["block"][op_d:])
    fitted = run(on, "--init", str(rect), "--epochs", "2")
    with np.load(on) as c:
        assert bool(c["rect"]) and float(c["valid_loss"]) < fitted
    e = wt.load(on, v)
    assert e.weights[ev.LEARNED] == 8 and e.weights[ev.LEARNED_RECT] == 1
    _plays(on, v, "on")
    capsys.readouterr()
    assert cli(["train", "--data", str(data), "--out", str(tmp_path / "x.npz"), "--rectangles",
                "--odd-windows"]) == 2
    assert "choose one" in capsys.readouterr().err
    assert cli(["train", "--data", str(data), "--out", str(tmp_path / "x.npz"), "--rectangles",
                "--rectangles-too"]) == 2
    assert "choose one" in capsys.readouterr().err


def test_the_rectangles_after_the_windows_keep_the_windows_and_fit(tmp_path, capsys):
    # --rectangles-too: the rectangles after the first family of windows.  Started from a
    # windows file, it keeps every weight of it (the rectangles at zero: the same start
    # loss); the file says rect 2, a fit moves the rectangles' weights, and it plays.  (On
    # these positions, scored by dense terms alone, any pattern's fit adds noise: whether
    # the loss falls is the real data's question, docs/evaluation.md.)
    v = get_variant("international")
    data, run, one = _windows_fit(tmp_path, capsys, 9)
    plus, on = tmp_path / "plus.npz", tmp_path / "on.npz"
    start = run(plus, "--init", str(one), "--rectangles-too", "--epochs", "0")
    assert start == run(tmp_path / "same.npz", "--init", str(one), "--epochs", "0")
    _, eg_w, op_d, _, size = layout(10)
    first = layout(10, rect=2)
    with np.load(one) as a, np.load(plus) as b:
        assert int(b["rect"]) == 2 and len(b["block"]) == first[-1]
        assert np.array_equal(b["block"][:eg_w], a["block"][:eg_w])
        assert np.array_equal(b["block"][first[1]:first[1] + eg_w], a["block"][eg_w:op_d])
        assert np.array_equal(b["block"][first[2]:], a["block"][op_d:])
    run(on, "--init", str(plus), "--epochs", "2")
    with np.load(on) as c:
        rects = np.concatenate([c["block"][eg_w:first[1]], c["block"][first[1] + eg_w:first[2]]])
        assert int(c["rect"]) == 2 and np.count_nonzero(rects) > 1000
    e = wt.load(on, v)
    assert e.weights[ev.LEARNED] == 36 and e.weights[ev.LEARNED_RECT] == 2
    _plays(on, v, "on")


def test_the_pip_phase_is_fitted_written_and_kept_from_its_start(tmp_path, capsys):
    # --pip-phase fits with the phase by the men's rows to go; the file says so, loads so and
    # plays; a fit from it keeps the phase without the flag, and its epoch 0 scores as the
    # file it started from.
    v = get_variant("international")
    data, pip, again = tmp_path / "s.npz", tmp_path / "pip.npz", tmp_path / "again.npz"
    synthetic(data, v, n=3000, seed=8)

    def run(out, *extra):
        return _start_loss(capsys, data, out, *extra)

    run(pip, "--pip-phase", "--epochs", "2", "--lr", "1")
    with np.load(pip) as f:
        assert str(f["phase"]) == "pip" and int(f["epoch"]) > 0
        best = float(f["valid_loss"])
    assert abs(run(again, "--init", str(pip), "--epochs", "0") - best) < 1e-5
    with np.load(again) as f:
        assert str(f["phase"]) == "pip"
        plain = {k: f[k] for k in f.files if k != "phase"}
    np.savez(tmp_path / "plain.npz", **plain)     # the same weights read by the pieces' phase
    plain_loss = run(tmp_path / "x.npz", "--init", str(tmp_path / "plain.npz"), "--epochs", "0")
    assert plain_loss > best + 1e-4
    assert wt.load(again, v).weights[ev.LEARNED_PIP] == 300
    _plays(again, v, "again")


def test_every_goal_and_the_full_board_fit_play_and_name_their_weights(tmp_path):
    # The learned evaluation serves every goal and Turkish's full board: a tiny self-play
    # and fit of each writes weights whose fit started from the goal's own hand
    # evaluation, and that play.
    for name in ("antidraughts", "breakthrough", "turkish"):
        v = get_variant(name)
        data, weights = tmp_path / f"{name}.npz", tmp_path / f"{name}-w.npz"
        assert cli(["selfplay", "--variant", name, "--games", "2", "--nodes", "300", "--jobs", "1",
                    "--out", str(data), "--quiet", "--eval", "hand"]) == 0
        assert cli(["train", "--data", str(data), "--out", str(weights), "--epochs", "1",
                    "--quiet", "--valid", "0.5"]) == 0
        e = wt.load(weights, v)
        with np.load(weights) as f:
            men = f["block"][layout(v.width, v.full_board)[2] + ev.MAN] / SCALE
        assert (men < 0) == (name == "antidraughts"), men        # fewer men is better there
        s = Searcher(16)
        s.resources.use_weights(str(weights))
        assert s.resources.evaluation_for(v).name == e.name
        assert ev.uses_windows(v.table, e.weights)
        pos = start_position(v)
        result = s.search(pos, [], Limits(depth=5))
        assert result.pv[0] in legal_moves(pos)
