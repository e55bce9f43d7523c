"""``rafle hub`` driven by the real client: pydraughts' ``HubEngine`` (what lidraughts-bot uses).

pydraughts launches the executable by path, reads the handshake with its own parser, sends
``set-param`` values unquoted (``none`` for None), and turns every ``done`` into a move of its
own ``Board``, raising if the move or the ponder move is not legal there.  Games are played
Rafle against Rafle, two processes, with pydraughts' ``Board`` keeping the score.
"""
from __future__ import annotations

import shutil
import threading
import time

import pytest
from draughts import Board
from draughts.engine import HubEngine, Limit

from engine import VARIANTS
from engine.search import Searcher

MAX_PLIES = 150


def launch() -> HubEngine:
    engine = HubEngine([shutil.which("rafle"), "hub"])
    engine.configure({"tt-size": 18, "threshold": True, "initial-time": 300, "bogus": None,
                      "variant": "normal"})
    engine.init()
    return engine


def close(engine: HubEngine) -> None:
    engine.quit()
    engine.p.wait(timeout=30)  # pydraughts would SIGKILL; a clean exit is expected instead
    engine.p.stdin.close()
    engine.p.stdout.close()
    assert engine.p.returncode == 0


@pytest.fixture(scope="module")
def engines():
    pair = [launch(), launch()]
    yield pair
    for engine in pair:
        close(engine)


def test_handshake_as_pydraughts_reads_it(engines):
    engine = engines[0]
    assert engine.id["name"] == "Rafle"
    assert engine.variants == {v.hub_name for v in VARIANTS.values()}
    assert engine.options == {"variant"} | {o.name for o in Searcher().options()}
    engine.ping()


def play_game(engines, limit) -> Board:
    """Rafle against Rafle from the start until the game ends (or MAX_PLIES)."""
    board = Board()
    white, black = engines
    for _ in range(MAX_PLIES):
        if board.is_over():
            break
        engine = white if board.turn == 2 else black  # pydraughts: WHITE = 2, BLACK = 1
        legal = {m.hub_move for m in board.legal_moves()}
        result = engine.play(board, limit, False)  # raises if the move is not legal
        assert result.move.hub_move in legal
        board.push(result.move)
    return board


@pytest.mark.parametrize("limit", [Limit(movetime=0.02), Limit(depth=3)], ids=["movetime", "depth"])
def test_complete_games_with_every_move_legal(engines, limit):
    board = play_game(engines, limit)
    assert len(board.move_stack) > 10
    assert board.is_over() or len(board.move_stack) == MAX_PLIES


def test_game_on_a_clock_with_increment(engines):
    """The tournament manager's way: ``level time=<clock - inc> inc=<inc>`` every move."""
    board = Board()
    clocks = {2: 3.0, 1: 3.0}
    for _ in range(40):
        if board.is_over():
            break
        side = board.turn
        start = time.perf_counter()
        result = engines[0 if side == 2 else 1].play(board, Limit(time=clocks[side], inc=0.05),
                                                     False)
        clocks[side] += 0.05 - (time.perf_counter() - start)  # no assertion on it: CI is slow
        board.push(result.move)
    assert len(board.move_stack) > 10


@pytest.mark.parametrize("variant", ["russian", "english", "frisian"])
def test_other_variants_through_set_param(variant):
    """8x8 Hub moves are numbered as pydraughts numbers them (Russian from a1, English turned)."""
    engine = HubEngine([shutil.which("rafle"), "hub"])
    assert variant in engine.variants
    engine.configure({"variant": variant})
    engine.init()
    board = Board(variant=variant)
    for _ in range(40):
        if board.is_over():
            break
        legal = {m.hub_move for m in board.legal_moves()}
        result = engine.play(board, Limit(movetime=0.01), False)
        assert result.move.hub_move in legal
        board.push(result.move)
    assert len(board.move_stack) > 10
    close(engine)


def ponder_search(engine: HubEngine, board: Board, then: str):
    """``go ponder`` in one thread; ``ponder-hit`` or ``stop`` from this one (pydraughts' way)."""
    out = {}
    thread = threading.Thread(target=lambda: out.update(
        result=engine.play(board, Limit(time=2, inc=0), True)))
    thread.start()
    while engine._last_sent != "go ponder":  # as pydraughts' own ponderhit() waits
        time.sleep(0.001)
    getattr(engine, then)()
    thread.join(timeout=60)
    assert not thread.is_alive()
    return out["result"]


@pytest.mark.parametrize("then", ["ponderhit", "stop"])
def test_ponder_then_ponder_hit_or_stop(engines, then):
    board = Board()
    board.push(board.legal_moves()[0])
    result = ponder_search(engines[0], board, then)
    assert result.move.hub_move in {m.hub_move for m in board.legal_moves()}
    engines[0].ping()
