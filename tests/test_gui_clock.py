"""The board's clocks (``protocol/gui/clock.py``): the four Hub kinds, with the time given
as numbers (no waiting), the engine's ``level`` lines, saving and bad input."""
from __future__ import annotations

import pytest

from engine import BLACK, WHITE, BadInput
from protocol.gui.clock import Clocks, TimeControl


def play_turn(clocks: Clocks, side: int, ply: int, start: float, used: float) -> None:
    clocks.start(side, ply, now=start)
    clocks.stop(now=start + used, moved=True)


def test_fischer_gives_the_increment_before_each_move():
    c = Clocks(TimeControl.from_message({"kind": "fischer", "base": 60, "inc": 2}))
    c.start(WHITE, 0, now=100.0)
    assert c.time_left(WHITE, now=100.0) == 62.0          # the increment comes with the turn
    assert c.level_lines(WHITE) == ["time=60.000 inc=2"]   # the Hub way: time + inc
    c.stop(now=105.0, moved=True)
    assert c.left[WHITE] == 57.0 and c.ticking is None
    play_turn(c, BLACK, 1, 105.0, 1.0)
    assert c.left[BLACK] == 61.0
    assert c.control.describe() == "60+2"


def test_a_paused_turn_is_credited_once():
    c = Clocks(TimeControl.from_message({"kind": "fischer", "base": 10, "inc": 1}))
    c.start(WHITE, 4, now=0.0)
    c.stop(now=2.0)                      # paused, not a move
    c.start(WHITE, 4, now=50.0)          # the same turn again: no second increment
    assert c.time_left(WHITE, now=51.0) == 8.0


def test_sudden_death_falls():
    c = Clocks(TimeControl.from_message({"kind": "sudden", "base": 2}))
    c.start(WHITE, 0, now=0.0)
    assert c.expires_in(now=0.5) == 1.5
    c.stop(now=2.5)
    assert c.flagged == WHITE and c.left[WHITE] == 0
    c.start(BLACK, 1, now=3.0)           # a fallen clock starts nothing
    assert c.ticking is None
    assert c.view()["flagged"] == "white"


def test_moves_in_time_repeats_the_period():
    c = Clocks(TimeControl.from_message({"kind": "moves", "moves": 3, "base": 30}))
    assert c.control.describe() == "3/30"
    ply = 0
    for turn in range(3):
        assert c.level_lines(WHITE) == [f"moves={3 - turn} time={c.left[WHITE]:.3f}"]
        play_turn(c, WHITE, ply, 0.0, 5.0)
        play_turn(c, BLACK, ply + 1, 0.0, 1.0)
        ply += 2
    assert c.left[WHITE] == 15.0 + 30.0          # three moves: a new period
    assert c.left[BLACK] == 27.0 + 30.0
    assert c.level_lines(WHITE) == ["moves=3 time=45.000"]


def test_a_fixed_time_per_move_is_not_carried_over():
    c = Clocks(TimeControl.from_message({"kind": "movetime", "movetime": 5}))
    play_turn(c, WHITE, 0, 0.0, 1.0)
    c.start(WHITE, 2, now=10.0)
    assert c.time_left(WHITE, now=10.0) == 5.0
    assert c.level_lines(WHITE) == ["move-time=5"]
    c.stop(now=16.0)
    assert c.flagged == WHITE


def test_no_clock_never_runs():
    c = Clocks()
    c.start(WHITE, 0, now=0.0)
    assert c.ticking is None and c.expires_in() is None and c.control.describe() == ""


def test_saved_clocks_come_back_stopped():
    c = Clocks(TimeControl.from_message({"kind": "moves", "moves": 40, "base": 300, "inc": 1}))
    play_turn(c, WHITE, 0, 0.0, 10.0)
    c.start(BLACK, 1, now=20.0)
    saved = c.snapshot(now=23.0)
    back = Clocks.restore(saved)
    assert back.ticking is None and back.control == c.control
    assert back.left == {WHITE: 291.0, BLACK: 298.0} and back.made == {WHITE: 1, BLACK: 0}


@pytest.mark.parametrize("data, says", [
    ({"kind": "hourglass"}, "one of none"),
    ("fischer", "an object"),
    ({"kind": "fischer", "base": -1}, "base time"),
    ({"kind": "fischer", "base": 10, "inc": "2"}, "increment"),
    ({"kind": "sudden", "base": float("nan")}, "base time"),
    ({"kind": "sudden", "base": True}, "base time"),
    ({"kind": "moves", "base": 60}, "moves per period"),
    ({"kind": "moves", "base": 60, "moves": 0}, "moves per period"),
    ({"kind": "movetime", "movetime": 1e9}, "time per move"),
])
def test_bad_clocks_are_refused(data, says):
    with pytest.raises(BadInput, match=says):
        TimeControl.from_message(data)


@pytest.mark.parametrize("saved", [
    None, [], {"control": {"kind": "sudden", "base": 5}},
    {"control": {"kind": "sudden", "base": 5}, "left": [1, -2], "made": [0, 0]},
    {"control": {"kind": "sudden", "base": 5}, "left": [1, 2], "made": [0, "1"]},
    {"control": {"kind": "sudden", "base": 5}, "left": [1, 2], "made": [0, 0], "flagged": "red"},
])
def test_bad_saved_clocks_are_refused(saved):
    with pytest.raises(BadInput):
        Clocks.restore(saved)
