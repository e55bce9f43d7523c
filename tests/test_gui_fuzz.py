"""The board's WebSocket fuzzed at a small count (``tests/fuzz_gui.py``; the long run is
``python -m tests.fuzz --surface gui --count 100000``): no crash, hang, traceback or
internal error, and the game is kept, also across a server restart."""
from __future__ import annotations

import random

from tests import fuzz
from tests.fuzz_gui import message


def test_a_few_hundred_fuzzed_requests_leave_the_server_serving_and_the_game_kept(capsys):
    assert fuzz.main(["--surface", "gui", "--count", "300", "--batch", "100", "--seed", "3",
                      "--quiet"]) == 0
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert summary.startswith("fuzz gui: 300 inputs in 3 batches, 0 crashes, 0 hangs")


def test_the_fuzzer_makes_every_kind_of_bad_message():
    rng = random.Random(5)
    made = [message(rng) for _ in range(3000)]
    assert any(isinstance(m, bytes) for m in made)                    # binary frames
    assert any(isinstance(m, str) and len(m) > 2_000_000 for m in made)   # oversized
    assert any(isinstance(m, str) and m.startswith("[[[[") for m in made)  # deep nesting
    assert any(isinstance(m, str) and '"type": "move"' in m for m in made)
