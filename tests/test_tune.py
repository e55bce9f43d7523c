"""``rafle tune``: the SPSA step on a synthetic objective (theta moves to the optimum), the
schedule's anchors, the parameters it takes and refuses, and a real run of the engine against
itself that writes its file and goes on from it."""
import json
import math
import random
import shlex
import sys

import pytest

from protocol.tools.match import spsa, tune

RAFLE_HUB = f"{shlex.quote(sys.executable)} -m protocol.cli hub"


# ----- SPSA itself ----------------------------------------------------------------------------

def play_fake(plus, minus, optimum, scale, games, rng) -> float:
    """s+ - s- of a mini-match where each game is won by theta+ with the logistic probability of
    the strength difference, strength -((x - optimum) / scale)^2 summed over parameters."""
    def strength(values):
        return -sum(((x - o) / s) ** 2 for x, o, s in zip(values, optimum, scale))
    p = 1 / (1 + math.exp(-(strength(plus) - strength(minus))))
    wins = sum(rng.random() < p for _ in range(games))
    return (2 * wins - games) / games


def spsa_run(params, optimum, scale, iterations=200, seed=3):
    rng = random.Random(seed)
    schedule = spsa.Schedule(iterations)
    theta = [p.start for p in params]
    for k in range(iterations):
        draw = spsa.perturb(params, theta, k, seed, schedule)
        theta = spsa.update(params, theta, draw, play_fake(draw.plus, draw.minus, optimum, scale,
                                                           8, rng), schedule)
    return theta


@pytest.mark.parametrize("optimum", [(70, 2), (12, 9)])
def test_spsa_moves_theta_to_the_optimum_of_a_synthetic_objective(optimum):
    params = [spsa.parse_param("threshold-margin:40:10"), spsa.parse_param("threshold-slope:5:2")]
    theta = spsa_run(params, optimum, scale=(15, 4))
    assert abs(theta[0] - optimum[0]) < 10, theta
    assert abs(theta[1] - optimum[1]) < 2.5, theta


def test_with_no_difference_between_the_sides_theta_stays():
    params = [spsa.parse_param("threshold-margin")]
    schedule = spsa.Schedule(10)
    draw = spsa.perturb(params, [40.0], 0, 1, schedule)
    assert spsa.update(params, [40.0], draw, 0.0, schedule) == [40.0]


def test_one_step_goes_towards_the_winning_side_by_the_schedules_gain():
    params = [spsa.parse_param("threshold-margin:40:10:0.5"), spsa.parse_param("lmr-depth")]
    schedule = spsa.Schedule(50)
    for k in (0, 7, 49):
        draw = spsa.perturb(params, [40.0, 3.0], k, 11, schedule)
        after = spsa.update(params, [40.0, 3.0], draw, 0.25, schedule)   # theta+ did better
        for p, before, now, c, d, plus in zip(params, (40.0, 3.0), after, draw.c, draw.delta,
                                              draw.plus):
            assert (now - before) * (plus - before) > 0          # towards theta+
            assert now - before == pytest.approx(schedule.a_k(p, k) * 0.25 / (2 * c) * d)
    # the anchors: c falls to c_end at the last planned iteration, where the step is r_end c_end
    p = params[0]
    assert schedule.c_k(p, 49) == pytest.approx(10)
    assert schedule.a_k(p, 49) / (2 * schedule.c_k(p, 49)) == pytest.approx(0.5 * 10)
    assert schedule.c_k(p, 0) > schedule.c_k(p, 10) > schedule.c_k(p, 49)
    assert schedule.big_a == 5


def test_the_perturbation_is_drawn_from_the_seed_and_the_iteration_alone():
    draws = [spsa.signs(5, k, 4) for k in range(20)]
    assert draws == [spsa.signs(5, k, 4) for k in range(20)]
    assert len(set(draws)) > 5 and spsa.signs(6, 0, 4) != draws[0] or spsa.signs(6, 1, 4) != draws[1]


def test_values_are_clipped_to_the_bounds_and_rounded_for_integers():
    p = spsa.parse_param("threshold-margin:3:10")
    draw = spsa.perturb([p], [3.0], 0, 1, spsa.Schedule(10))
    assert sorted((draw.plus[0], draw.minus[0]))[0] == 0       # 3 - 12.6 clipped to 0
    assert all(isinstance(v, int) for v in draw.plus + draw.minus)
    assert spsa.update([p], [0.0], draw, -1.0 if draw.plus[0] > 0 else 1.0,
                       spsa.Schedule(10)) == [0.0]


# ----- parameters -----------------------------------------------------------------------------

def test_defaults_come_from_the_option():
    p = spsa.parse_param("threshold-margin")
    assert (p.start, p.lo, p.hi, p.integer, p.c_end, p.r_end) == (40, 0, 5000, True, 20, 0.2)
    assert spsa.parse_param("lmr-two-moves").c_end == pytest.approx(64 / 20)   # start 0: range
    assert spsa.parse_param("threshold-interval").c_end == 1                   # at least 1
    assert spsa.parse_param("lmr-depth::2.5:").c_end == 2.5
    assert spsa.parse_param("lmr-depth:5").text() == "lmr-depth:5:2.5:0.2"     # half the start


@pytest.mark.parametrize("text, words", [
    ("book", "book is a bool option"),
    ("eval", "eval is a enum option"),
    ("weights", "weights is a string option"),
    ("no-such", "'no-such': no such option; the tunable ones are tt-size"),
    ("threshold-margin:6000", "START 6000 is outside its bounds 0..5000"),
    ("threshold-margin:x", "START 'x' is not a number"),
    ("threshold-margin:40:0.2", "would round to the same whole number"),
    ("threshold-margin:40:5:-1", "must be more than 0"),
    ("threshold-margin:1:2:3:4", "the form is NAME[:START[:C_END[:R_END]]]"),
])
def test_bad_params_are_refused_naming_the_option(text, words):
    with pytest.raises(spsa.TuneError, match=words.replace("[", r"\[").replace(".", r"\.")):
        spsa.parse_param(text)


@pytest.mark.parametrize("args, words", [
    (["--param", "book"], "rafle tune: --param book: only numeric options with bounds"),
    ([], "give the options to tune: --param NAME"),
    (["--param", "lmr-depth", "--param", "lmr-depth"], "--param lmr-depth given more than once"),
    (["--param", "lmr-depth", "--option", "lmr-depth=4"], "lmr-depth is tuned"),
    (["--param", "lmr-depth", "--games", "3"], "--games must be an even number"),
])
def test_the_command_refuses_bad_runs_before_playing(tmp_path, capsys, args, words):
    assert tune.main(["--state", str(tmp_path / "t.json"), *args]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "t.json").exists()


# ----- a real run -----------------------------------------------------------------------------

def run_tune(tmp_path, capsys, *args) -> str:
    code = tune.main(["--state", str(tmp_path / "t.json"), "--engine", RAFLE_HUB, "--concurrency",
                      "1", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_a_run_writes_its_file_and_the_same_file_goes_on(tmp_path, capsys):
    state = tmp_path / "t.json"
    first = ["--param", "threshold-margin", "--param", "lmr-depth:3:1", "--iterations", "2",
             "--games", "4", "--depth", "2", "--max-plies", "24"]
    out = run_tune(tmp_path, capsys, *first)
    assert "iteration 1/2: theta+ threshold-margin=" in out and "iteration 2/2" in out
    assert "as options: --option threshold-margin=" in out
    assert '_int("threshold-margin", ' in out              # the line of engine/options.py
    saved = json.loads(state.read_text())
    assert [r["iteration"] for r in saved["records"]] == [1, 2]
    for r in saved["records"]:
        assert len(r["games"]) == 4 and r["wins"] + r["draws"] + r["losses"] == 4
        assert {g["theta+"] for g in r["games"]} == {"white", "black"}
        assert r["plus"]["threshold-margin"] != r["minus"]["threshold-margin"]
    assert saved["records"][1]["theta"] == saved["records"][0]["theta_after"]
    assert [g["opening"] for g in saved["records"][1]["games"]] == [3, 3, 4, 4]   # the next ones
    assert saved["theta"] == list(saved["records"][1]["theta_after"].values())

    # Again with more iterations, naming only the file: iteration 3 from the saved theta.
    out = run_tune(tmp_path, capsys, "--iterations", "3")
    assert "2 played before" in out and "iteration 3/3" in out and "iteration 1/" not in out
    again = json.loads(state.read_text())
    assert again["records"][:2] == saved["records"]
    assert list(again["records"][2]["theta"].values()) == saved["theta"]
    assert again["seed"] == saved["seed"] and again["schedule"] == saved["schedule"]
    # what an unbroken run would have drawn at iteration 3
    params = [spsa.Param(**p) for p in saved["params"]]
    draw = spsa.perturb(params, saved["theta"], 2, saved["seed"], spsa.Schedule(**saved["schedule"]))
    assert list(again["records"][2]["plus"].values()) == list(draw.plus)

    # Another set of parameters, or other games, for this file: refused, the file untouched.
    for args, words in ((["--param", "threshold-margin"], "tunes threshold-margin:40:20:0.2 lmr-depth:3:1:0.2"),
                        (["--param", "lmr-depth:3:1", "--param", "threshold-margin:41"], "this command tunes"),
                        (["--games", "6"], "holds a run with games=4"),
                        (["--tc", "1+0.01"], "changes tc, depth")):
        assert tune.main(["--state", str(state), *args]) == 2
        err = capsys.readouterr().err
        assert words in err and "give another --state file" in err
    assert json.loads(state.read_text()) == again


@pytest.mark.slow          # two processes, each starting its engines: about 25 s
def test_ctrl_c_keeps_the_finished_iterations_and_the_same_command_goes_on(tmp_path):
    import signal
    import subprocess
    import time
    state = tmp_path / "c.json"
    argv = [sys.executable, "-m", "protocol.cli", "tune", "--state", str(state), "--engine",
            RAFLE_HUB, "--param", "lmr-depth", "--games", "2", "--depth", "1", "--max-plies", "10",
            "--concurrency", "1", "--iterations", "30"]
    # Without job control a background child starts with SIGINT ignored: restore the default.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not state.exists():
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    kept = json.loads(state.read_text())["records"]             # whole, not half written
    assert 1 <= len(kept) < 30 and "interrupted" in out
    argv[argv.index("30")] = str(len(kept) + 1)
    again = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{len(kept)} played before" in again.stdout
    records = json.loads(state.read_text())["records"]
    assert records[:len(kept)] == kept and len(records) == len(kept) + 1
