"""The real DXP client: pydraughts 0.6.7 ``DXPEngine`` launches ``rafle dxp`` and plays.

pydraughts is always the TCP client and the initiator (spec/protocols.md §3.7): with
``engine-opened: False`` it starts the command, waits ``wait-to-open-time`` seconds,
connects, sends a GAMEREQ with a ``B`` position and ``000`` minutes for an initial
time of 30 s, and ends with ``quit()`` (``E01``, then a 7-second close of its own).
Its waits have no timeouts, so every game runs under a watchdog here.  Rafle's
stdout (the game log) reaches us through pydraughts' logger.
"""
from __future__ import annotations

import logging
import os
import random
import re
import shutil
import signal
import socket
import sys
import threading

import pytest

draughts = pytest.importorskip("draughts")
from draughts.engine import DXPEngine  # noqa: E402

RAFLE = shutil.which("rafle")
pytestmark = pytest.mark.skipif(RAFLE is None, reason="the rafle script is not installed")
GAME_TIMEOUT = 150   # seconds; a hang is a failure, not a stuck CI job
RESULT = re.compile(r"game \d+ result (\S+) \(([^)]*)\), (\d+) plies.*worst overshoot ([\d.]+) s")


@pytest.fixture(scope="module", autouse=True)
def compiled_search():
    """Load or compile the search kernels once here, so the engine process starts warm."""
    from engine.search import Searcher
    Searcher(tt_log2=16).warm_up()


class EngineLog(logging.Handler):
    """Collects the lines Rafle prints (pydraughts logs them at debug level)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())

    def rafle(self) -> list[str]:
        """Only the lines Rafle printed (pydraughts prefixes them with ``>>``)."""
        return [ln for ln in self.lines if " >> " in ln]

    def results(self):
        return [m.groups() for m in map(RESULT.search, self.rafle()) if m]


@pytest.fixture
def engine_log():
    handler = EngineLog()
    logger = logging.getLogger("pydraughts")
    old = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(old)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(**options) -> DXPEngine:
    # rafle dxp listens before it loads the engine, so 1 s (pydraughts: 10) is plenty
    port = free_port()
    opts = {"engine-opened": False, "ip": "127.0.0.1", "port": port, "wait-to-open-time": 1,
            "max-moves": 100, "initial-time": 30, **options}
    return DXPEngine([RAFLE, "dxp", "--listen", f"127.0.0.1:{port}"], opts)


def shut_down(engine: DXPEngine) -> int:
    """``quit()`` as a client does, then reap the engine without pydraughts' 17 s
    ``kill_process``: Rafle exits by itself on the ``E01``."""
    engine.quit()
    try:
        code = engine.p.wait(timeout=20)
    except Exception:
        os.killpg(engine.p.pid, signal.SIGKILL)
        code = None
    engine.exit = True            # lets pydraughts' stdout reader thread end
    engine.p.communicate()
    engine.engine_receive_thread.join(5)
    return code


def watchdog(engine: DXPEngine, body):
    """Run ``body()``; if it hangs (pydraughts never times out), kill Rafle and fail."""
    box = {}

    def run():
        try:
            box["value"] = body()
        except BaseException as exc:   # re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(GAME_TIMEOUT)
    if thread.is_alive():
        os.killpg(engine.p.pid, signal.SIGKILL)
        pytest.fail(f"pydraughts hung for {GAME_TIMEOUT} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def play_game(engine: DXPEngine, rafle_colour: int, seed: int, takeback_after: int = 0):
    """Rafle against a fixed-seed random mover for at most 100 plies; with
    ``takeback_after`` plies played (Rafle white), take everything back once."""
    rng = random.Random(seed)
    board = draughts.Board()
    while not board.is_over() and len(board.move_stack) < 100:
        if takeback_after and len(board.move_stack) == takeback_after:
            takeback_after = 0
            accepted, board, answer = engine.takeback(1, draughts.WHITE)
            assert accepted
            assert board.move_stack == []          # back at the start, Rafle to move...
            assert answer.move is not None         # ...and Rafle moved again at once
            board.push(answer.move)
            continue
        if board.turn == rafle_colour:
            move = engine.play(board).move
            assert move is not None, "no move from Rafle"
            assert any(move.board_move == m.board_move for m in board.legal_moves())
        else:
            move = rng.choice(board.legal_moves())
        board.push(move)
    return board


@pytest.mark.parametrize("colour", ["white", "black"])
def test_full_game_against_pydraughts(colour, engine_log):
    rafle = draughts.WHITE if colour == "white" else draughts.BLACK
    engine = launch()
    board = None
    try:
        board = watchdog(engine, lambda: play_game(engine, rafle, seed=7,
                                                   takeback_after=6 if colour == "white" else 0))
    finally:
        code = shut_down(engine)
    assert code == 0                               # Rafle exited by itself on E01
    results = engine_log.results()
    assert len(results) == 1, engine_log.lines
    result, reason, plies, overshoot = results[0]
    assert int(plies) == len(board.move_stack)     # both sides saw the same game
    assert any("time 000, 100 move limit" in ln for ln in engine_log.rafle())   # 30 s -> 000
    if colour == "white":
        assert any("took back to move 1, white to move" in ln for ln in engine_log.rafle())
    assert not [ln for ln in engine_log.rafle() if "error" in ln], engine_log.lines
    print(f"\nRafle {colour} vs random: {len(board.move_stack)} plies, over={board.is_over()}, "
          f"Rafle's log: {result} ({reason}), worst overshoot {overshoot} s", file=sys.stderr)
