"""Every variant through ``rafle hub``: the ``variant`` parameter, and complete games
driven by pydraughts' ``HubEngine`` (what lidraughts-bot uses) for each variant it plays.

pydraughts keeps the board: each ``done`` move must be one of its legal moves (its
``HubEngine`` raises otherwise, and the test checks it too), in pydraughts' own square
conventions for the variant.  One Rafle process plays both sides, switching variants
with ``set-param name=variant``; games run until pydraughts says they are over or for
MAX_PLIES plies, at depth 2 so that CI stays quick.
"""
from __future__ import annotations

import os
import queue
import shutil
import threading

import pytest

from engine import get_variant, legal_moves, move_to_hub, start_position
from protocol.hub.server import Hub, Output
from protocol.hub.wire import tokenize
from hub_transcript import HubTranscript
from test_hub import hub  # noqa: F401  (the module-scoped fixture)

draughts = pytest.importorskip("draughts")
from draughts import Board  # noqa: E402
from draughts.engine import HubEngine, Limit  # noqa: E402

MAX_PLIES = 150
# Hub name -> pydraughts' name, for every variant pydraughts 0.6.7 plays.
PYDRAUGHTS = {"normal": "standard", "english": "english", "italian": "italian",
              "russian": "russian", "brazilian": "brazilian", "frisian": "frisian",
              "frysk": "frysk!", "losing": "antidraughts", "bt": "breakthrough",
              "turkish": "turkish"}
# The Hub names Scan and lidraughts tooling use, in the order Rafle declares them.
HUB_VARIANTS = ("normal killer bt frisian losing frysk russian brazilian english italian "
                "spanish czech thai pool turkish")


@pytest.fixture(scope="module")
def rafle():
    engine = HubEngine([shutil.which("rafle"), "hub"])
    engine.init()
    yield engine
    engine.quit()
    engine.p.wait(timeout=30)
    engine.p.stdin.close()
    engine.p.stdout.close()
    assert engine.p.returncode == 0


@pytest.mark.parametrize("hub_name", list(PYDRAUGHTS))
def test_complete_game_every_move_legal_in_pydraughts(rafle, hub_name):
    rafle.setoption("variant", hub_name)
    board = Board(variant=PYDRAUGHTS[hub_name])
    for _ in range(MAX_PLIES):
        if board.is_over():
            break
        legal = {m.hub_move for m in board.legal_moves()}
        result = rafle.play(board, Limit(depth=2), False)   # raises on an illegal move
        assert result.move.hub_move in legal
        board.push(result.move)
    assert board.is_over() or len(board.move_stack) == MAX_PLIES
    assert len(board.move_stack) > 10


def test_variant_param_lists_exactly_the_implemented_variants():
    engine = HubTranscript()
    engine.send("hub")
    lines = engine.read_until("wait")
    engine.send("quit")
    assert engine.close() == 0
    assert lines[1] == f'param name=variant value=normal type=enum values="{HUB_VARIANTS}"'
    assert {get_variant(name).hub_name for name in HUB_VARIANTS.split()} == set(HUB_VARIANTS.split())


def perft_moves(hub: HubTranscript) -> set[str]:
    hub.send("perft depth=1")
    return {x.split()[1][len("move="):] for x in hub.read_until("perft ")[:-1]}


@pytest.mark.parametrize("alias, name", [("breakthrough", "breakthrough"), ("bt", "breakthrough"),
                                         ("antidraughts", "antidraughts"), ("losing", "antidraughts"),
                                         ("checkers", "english"), ("Frysk!", "frysk"),
                                         ("shashki", "russian"), ("standard", "international")])
def test_set_param_variant_takes_names_and_aliases(alias, name):
    hub = Hub(Output(os.open(os.devnull, os.O_WRONLY)), queue.Queue(), threading.Event())
    assert hub.execute(tokenize(f"set-param name=variant value={alias}")) is None
    assert hub.variant.name == name
    assert hub.positions == [start_position(get_variant(name))]
    hub.execute(tokenize("set-param name=variant value=shogi"))     # unknown: ignored
    assert hub.variant.name == name


@pytest.mark.parametrize("alias, name", [("checkers", "english"), ("Frysk!", "frysk"),
                                         ("shashki", "russian")])
def test_set_param_alias_switches_the_rules_of_the_process(hub, alias, name):
    variant = get_variant(name)
    hub.send(f"set-param name=variant value={alias}", "pos start")
    expected = {move_to_hub(m, variant) for m in legal_moves(start_position(variant))}
    assert perft_moves(hub) == expected
    hub.send("set-param name=variant value=normal")


def test_every_variant_plays_its_shipped_weights_and_init_names_them(hub):
    # Each variant ships learned weights of its own (Turkish's for its full board); they
    # load, and init names the version in play.
    from engine import VARIANTS, weights
    for name in HUB_VARIANTS.split():
        variant = get_variant(name)
        expected = weights.load(weights.shipped(variant), variant).name
        assert expected.startswith(f"{variant.name}-"), expected
        hub.send(f"set-param name=variant value={name}", "init")
        assert hub.read_until("ready")[-2].startswith(f"init eval={expected} "), name
    assert len(VARIANTS) == 15
    hub.send("set-param name=variant value=normal", "init")
    hub.read_until("ready")
