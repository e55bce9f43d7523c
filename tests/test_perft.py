"""Perft against the published counts of perft/data/reference.json, and ``rafle perft``.

Every international entry that merges duplicate captures (``dup_captures_once`` true)
or does not say (null: py-draughts' depth-1 data) is a case; the counts are read from
the file.  Cases over CI_NODES leaf nodes are marked slow (``pytest -m slow``).
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
import threading

import pytest

import slow_rules
from engine import (get_variant, legal_moves, move_to_hub, new_perft_table, parse_position, perft,
                    perft_divide, play)
from engine.divide import split
from perft.suite import count, load_reference
from protocol.cli import main as cli

ENTRIES = load_reference()
CI_NODES = 50_000_000      # bulk counts up to here run in CI
FULL_NODES = 2_000_000     # making every leaf: up to here in CI,
FULL_SLOW_NODES = 100_000_000   # and up to here with -m slow


def international(entries=ENTRIES):
    """(label, fen, depth, nodes) of each distinct international case Rafle must match."""
    seen = {}
    for e in entries:
        if e["variant"] == "international" and e["dup_captures_once"] is not False:
            seen.setdefault((e["fen"], e["depth"], e["nodes"]), e["position"])
    return [(label, fen, depth, nodes) for (fen, depth, nodes), label in seen.items()]


CASES = international()


def params(limit, most=None):
    out = []
    for i, (label, fen, depth, nodes) in enumerate(CASES):
        if most is not None and nodes > most:
            continue
        marks = [pytest.mark.slow] if nodes > limit else []
        name = f"{label.split()[0]}-{i}-d{depth}" if "test position" in label else f"{label}-d{depth}"
        out.append(pytest.param(fen, depth, nodes, id=name, marks=marks))
    return out


def test_reference_file_has_the_cases_this_module_relies_on():
    # If the file or our filter changed so that nothing is left, the parametrized
    # tests below would silently vanish.
    labels = {label for label, *_ in CASES}
    assert {"initial", "Woldouby"} <= labels
    assert sum(1 for c in CASES if c[3] <= CI_NODES) >= 30
    assert any(c[0] == "initial" and c[3] > CI_NODES for c in CASES)


@pytest.mark.parametrize("fen, depth, nodes", params(CI_NODES))
def test_reference_bulk(fen, depth, nodes):
    assert perft(parse_position(fen), depth) == nodes


@pytest.mark.parametrize("fen, depth, nodes", params(FULL_NODES, FULL_SLOW_NODES))
def test_reference_every_leaf(fen, depth, nodes):
    assert perft(parse_position(fen), depth, bulk=False) == nodes


@pytest.mark.parametrize("label, fen, depth, nodes",
                         [c for c in CASES if "py-draughts" in c[0]])
def test_low_authority_counts_agree_with_the_slow_twin(label, fen, depth, nodes):
    """py-draughts' depth-1 counts (duplicate handling unknown): both our generators agree."""
    pos = parse_position(fen)
    board = {sq: p for sq in range(1, 51) if (p := pos.piece_at(sq)) != "e"}
    assert slow_rules.perft(board, "W" if pos.turn == 0 else "B", depth) == nodes
    assert perft(pos, depth) == nodes


@pytest.mark.parametrize("fen, depth", [("startpos", 4), (CASES[-1][1], 3)]
                         + [(fen, 6) for label, fen, d, n in CASES if label == "Woldouby"][:1])
def test_divide_sums_to_perft(fen, depth):
    pos = parse_position(fen)
    divide = perft_divide(pos, depth).counts
    assert [m for m, _ in divide] == legal_moves(pos)
    assert sum(n for _, n in divide) == perft(pos, depth) == perft(pos, depth, bulk=False)
    for move, n in divide:
        assert perft(play(pos, move), depth - 1) == n


def test_bulk_equals_every_leaf_on_random_positions():
    rng = random.Random(11)
    pos = parse_position("startpos")
    checked = 0
    for _ in range(120):
        moves = legal_moves(pos)
        if not moves:
            break
        if rng.random() < 0.3:
            assert perft(pos, 3) == perft(pos, 3, bulk=False)
            checked += 1
        pos = play(pos, rng.choice(moves))
    assert checked >= 10


def test_edges_depth_zero_and_no_moves():
    assert perft(parse_position("startpos"), 0) == 1
    blocked = parse_position("W:W46:B41,37")    # the white man cannot move or capture
    no_pieces = parse_position("B:W10:B")
    for pos in (blocked, no_pieces):
        assert legal_moves(pos) == []
        for depth in (1, 2, 3):
            assert perft(pos, depth) == perft(pos, depth, bulk=False) == 0


# ----- the command ------------------------------------------------------------------

def counts(fen, depth):
    """Published count of ``fen`` at ``depth``."""
    return next(n for _, f, d, n in CASES if f == fen and d == depth)


START_FEN = next(fen for label, fen, *_ in CASES if label == "initial")
WOLDOUBY = next(fen for label, fen, *_ in CASES if label == "Woldouby")


def test_cli_depths(capsys):
    assert cli(["perft", "--depth", "4"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [int(r[0]) for r in rows] == [1, 2, 3, 4]
    assert [int(r[1].replace(",", "")) for r in rows] == [counts(START_FEN, d) for d in range(1, 5)]


def test_cli_json_every_leaf(capsys):
    assert cli(["perft", "--fen", WOLDOUBY, "--depth", "5", "--json", "--no-bulk"]) == 0
    objs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(o["depth"], o["nodes"]) for o in objs] == [(d, counts(WOLDOUBY, d)) for d in range(1, 6)]
    assert all(set(o) == {"depth", "nodes", "seconds"} and o["seconds"] >= 0 for o in objs)


def test_cli_divide(capsys):
    assert cli(["perft", "--fen", WOLDOUBY, "--depth", "4", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    pos = parse_position(WOLDOUBY)
    moves = [move_to_hub(m) for m in legal_moves(pos)]
    body = [line.split(": ") for line in lines[:-1]]
    assert [m for m, _ in body] == moves
    assert sum(int(n) for _, n in body) == counts(WOLDOUBY, 4)
    assert lines[-1].startswith(f"total: {counts(WOLDOUBY, 4)} nodes, {len(moves)} moves")


def test_cli_divide_hub_position_string(capsys):
    hub = "W" + "b" * 20 + "e" * 10 + "w" * 20
    assert cli(["perft", "--fen", hub, "--depth", "2", "--divide", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["nodes"] == counts(START_FEN, 2) and len(obj["divide"]) == counts(START_FEN, 1)


def write_suite(tmp_path, entries):
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(entries))
    return str(path)


def pick(variant, label, depth, dup):
    return next(e for e in ENTRIES if (e["variant"], e["position"], e["depth"],
                                       e["dup_captures_once"]) == (variant, label, depth, dup))


def test_cli_suite_ok_and_skips(tmp_path, capsys):
    entries = [pick("international", "initial", d, True) for d in (1, 2, 3, 4)]
    entries += [pick("international", "Woldouby", d, True) for d in (5, 11)]
    entries.append(pick("international", "initial", 5, False))      # keeps duplicates
    entries.append(pick("international", "initial", 8, False))      # keeps them, over budget
    entries.append(dict(entries[0], variant="martian"))              # a variant nobody knows
    suite = write_suite(tmp_path, entries)
    assert cli(["perft", "--suite", suite, "--max-nodes", "100k"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nok ") + out.startswith("ok ") == 6
    assert "suite: 6 ok, 0 mismatches (1 of the cases counted every capture path)" in out
    assert "international initial d5 (every capture path): 27,117 nodes" in out
    assert "martian (1)" in out
    assert "2 entries over --max-nodes 100,000" in out         # Woldouby d11, initial d8


@pytest.mark.parametrize("variant, fen, depth, paths", [
    ("international", "startpos", 5, False),
    ("international", WOLDOUBY, 5, False),
    ("frisian", "startpos", 5, True),
    ("russian", "startpos", 7, False),
])
def test_threads_count_exactly_as_one_thread(variant, fen, depth, paths):
    pos = parse_position(fen, get_variant(variant))
    one = count(pos, depth, paths=paths, threads=1)
    seen = []
    two = count(pos, depth, paths=paths, threads=2,
                progress=lambda done, total, move, nodes, s: seen.append((done, total, nodes)))
    assert two.nodes == one.nodes == perft(pos, depth, paths=paths)
    assert two.divide == one.divide                     # same moves, same order, same counts
    assert seen[-1] == (len(one.divide), len(one.divide), one.nodes)
    assert [n for _, _, n in seen] == sorted(n for _, _, n in seen)


@pytest.mark.parametrize("variant, fen, depth, paths, plies", [
    ("international", "startpos", 6, False, 1),
    ("international", WOLDOUBY, 6, False, 4),
    ("frisian", "startpos", 5, True, 3),
    ("russian", "startpos", 7, False, 5),
    ("international", "W:W46:B5", 6, False, 3),      # lines that end early make no task
])
def test_any_split_counts_exactly(variant, fen, depth, paths, plies):
    pos = parse_position(fen, get_variant(variant))
    one = count(pos, depth, paths=paths, threads=1)
    moves, tasks = split(pos, depth, paths, plies)
    assert all(len(task.name.split()) == plies and task.depth == depth - plies for task in tasks)
    cut = count(pos, depth, paths=paths, threads=2, plies=plies)
    assert cut.nodes == one.nodes == perft(pos, depth, paths=paths)
    assert cut.divide == one.divide


def test_cli_split(capsys):
    assert cli(["perft", "--fen", WOLDOUBY, "--depth", "6", "--divide", "--json", "--split", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["nodes"] == counts(WOLDOUBY, 6)
    assert cli(["perft", "--split", "0"]) == 2
    assert "--split must be 1-8 plies" in capsys.readouterr().err


@pytest.mark.parametrize("variant, fen, depth, paths, bulk", [
    ("international", "startpos", 7, False, True),
    ("international", WOLDOUBY, 6, False, False),
    ("frisian", "startpos", 7, True, True),
    ("russian", "startpos", 9, False, True),
    ("english", "startpos", 9, True, False),
])
def test_a_hash_table_counts_exactly(variant, fen, depth, paths, bulk):
    pos = parse_position(fen, get_variant(variant))
    plain = perft(pos, depth, bulk, paths=paths)
    table = new_perft_table(1)
    assert perft(pos, depth, bulk, paths=paths, table=table) == plain
    assert perft(pos, depth, bulk, paths=paths, table=table) == plain      # from a full table
    assert count(pos, depth, bulk, paths=paths, threads=2, table=new_perft_table(1)).nodes == plain


def test_a_torn_hash_entry_reads_as_a_miss():
    pos = parse_position("startpos")
    table = new_perft_table(1)
    assert perft(pos, 6, table=table) == 167140
    used = table[:, 3] != 0
    assert used.sum() > 100
    table[used, 4] += 1              # every count changed, its check not: as if torn by a thread
    assert perft(pos, 6, table=table) == 167140


def test_cli_threads(capsys):
    assert cli(["perft", "--fen", WOLDOUBY, "--depth", "5", "--divide", "--json", "--threads", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert cli(["perft", "--fen", WOLDOUBY, "--depth", "5", "--divide", "--json", "--threads", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["divide"] == two["divide"]
    assert two["nodes"] == counts(WOLDOUBY, 5)
    assert cli(["perft", "--threads", "0"]) == 2
    assert "--threads must be at least 1" in capsys.readouterr().err
    assert cli(["perft", "--fen", WOLDOUBY, "--depth", "5", "--divide", "--json", "--hash", "4"]) == 0
    assert json.loads(capsys.readouterr().out)["divide"] == two["divide"]
    assert cli(["perft", "--depth", "6", "--hash", "4"]) == 0
    out = capsys.readouterr().out
    assert "hash table 4 MB" in out and "167,140" in out
    assert cli(["perft", "--hash", "-1"]) == 2
    assert "--hash must be between 0 and" in capsys.readouterr().err


def test_a_threaded_count_stops_on_ctrl_c():
    # KeyboardInterrupt raised by the progress callback (as Ctrl-C would be) ends every thread.
    pos = parse_position("startpos")
    calls = []

    def interrupt(done, total, move, nodes, seconds):
        calls.append(nodes)
        raise KeyboardInterrupt

    before = set(threading.enumerate())
    with pytest.raises(KeyboardInterrupt):
        count(pos, 9, progress=interrupt, threads=2)
    assert len(calls) == 1
    assert [t for t in threading.enumerate() if t not in before] == []   # no thread left running


def test_cli_count_paths(capsys):
    # Frisian's start at depth 4: published 3,874 merging duplicate captures, 3,880 keeping them.
    args = ["perft", "--variant", "frisian", "--depth", "4", "--json", "--quiet"]
    assert cli(args) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["nodes"] == 3874
    assert cli(args + ["--count-paths"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["nodes"] == 3880
    assert cli(args + ["--count-paths", "--divide"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 3880
    assert cli(["perft", "--suite", "--count-paths"]) == 2         # a suite's entries decide
    assert "not --fen, --divide or --count-paths" in capsys.readouterr().err


def test_cli_suite_mismatch_prints_a_divide(tmp_path, capsys):
    wrong = dict(pick("international", "Woldouby", 4, True))
    wrong["nodes"] += 1                                        # a deliberately wrong count
    right = pick("international", "Woldouby", 3, True)
    assert cli(["perft", "--suite", write_suite(tmp_path, [right, wrong])]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and f"expected {wrong['nodes']:,}" in out
    divide = [line for line in out.splitlines() if ": " in line and line[0].isdigit()]
    assert len(divide) == counts(WOLDOUBY, 1)
    assert sum(int(line.split(": ")[1]) for line in divide) == counts(WOLDOUBY, 4)
    assert "suite: 1 ok, 1 mismatch" in out


@pytest.mark.parametrize("args, message", [
    (["--fen", "W:W60:B1", "--depth", "1"], "square 60"),
    (["--fen", "X:W31:B1"], "side to move"),
    (["--fen", "Wbbb"], "51 characters"),
    (["--depth", "x"], "--depth"),
    (["--depth", "0"], "--depth must be"),
    (["--depth", "65"], "--depth must be between 1 and 64"),
    (["--fen", "W:W31-50:B1-20\x00", "--depth", "1"], "bad FEN square"),
    (["--bogus"], "--bogus"),
    (["--variant", "martian"], "unknown variant"),
    (["--max-nodes", "5"], "--suite"),
    (["--suite", "/nonexistent/suite.json"], "cannot read suite"),
])
def test_cli_bad_input(args, message, capsys):
    assert cli(["perft", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and err[0].startswith("rafle perft:")


def test_cli_bad_suite_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"variant\": \"international\"}]")
    assert cli(["perft", "--suite", str(bad)]) == 2
    assert "needs 'fen'" in capsys.readouterr().err
    # Not UTF-8, too deep: one line, exit 2 (not a traceback, not 1 = a mismatch).
    bad.write_bytes(b"\xff\xfe[")
    assert cli(["perft", "--suite", str(bad)]) == 2
    assert "is not UTF-8 text" in capsys.readouterr().err
    bad.write_text('[{"variant": "international", "fen": "startpos", "depth": 200, "nodes": 1}]')
    assert cli(["perft", "--suite", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "depth must be between 0 and 64, got 200" in err[0]


def test_real_process_bad_fen_and_json():
    """The installed entry point: no traceback on bad input, JSON lines on good input."""
    run = [sys.executable, "-m", "protocol.cli", "perft"]
    bad = subprocess.run(run + ["--fen", "W:W31-50:B1-20x"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("rafle perft: bad FEN square '1-20x'")
    good = subprocess.run(run + ["--depth", "3", "--json"], capture_output=True, text=True,
                          timeout=120)
    assert good.returncode == 0, good.stderr
    assert [json.loads(line)["nodes"] for line in good.stdout.splitlines()] == \
        [counts(START_FEN, d) for d in (1, 2, 3)]


def test_cli_builtin_suite_without_a_file(capsys):
    # `--suite` alone runs the suite shipped in the package (a fresh install has it).
    assert cli(["perft", "--suite", "--variant", "russian", "--max-nodes", "20k", "--quiet"]) == 0
    out = capsys.readouterr().out
    ok = int(out.split("suite: ")[1].split(" ok")[0])
    assert ok >= 5 and "0 mismatches" in out
