"""The game store (``protocol/tools/gamestore.py``): self-play games kept as start, move indices
and scores replay to exactly the positions and labels that ``rafle selfplay`` keeps; a chunk that
does not read back whole is refused by name, and a directory's other chunks are still read."""
from __future__ import annotations

import random

import numpy as np
import pytest

from engine import BadInput, Position, get_variant, legal_moves, play, pos_to_fen, start_position
from protocol.cli import main as cli
from protocol.tools import gamestore, selfplay, train
from protocol.tools.gamestore import FIELDS, GameRecord, Store

SETTINGS = ["--nodes", "200", "--jobs", "1", "--eval", "hand", "--seed", "5", "--quiet"]


@pytest.fixture(scope="module")
def played():
    """Four games of seed 5 at 200 nodes a move, played here as a selfplay task plays them:
    (the positions ``--out`` keeps, the games the store keeps)."""
    selfplay._setup("hand", None)
    openings = [line.split("#", 1)[0].strip() for line in selfplay.builtin(
        get_variant("international")).read_text(encoding="utf-8").splitlines()]
    part = selfplay.play_games("international", 0, 4, 5, 200, 4, [o for o in openings if o])
    return selfplay._arrays([part]), part["records"]


def same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in FIELDS)


def test_replay_gives_the_positions_and_labels_selfplay_keeps(played):
    arrays, records = played
    assert len(arrays["white"]) > 50 and sum(len(r.moves) for r in records) > len(arrays["white"])
    assert same(gamestore.replay(records, "international"), arrays)


def test_selfplay_store_writes_resumable_chunks_that_replay_to_the_npz_positions(
        played, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(selfplay, "STORE_CHUNK", 2)
    monkeypatch.setattr(selfplay, "CHUNK", 1)
    store = tmp_path / "international"
    assert cli(["selfplay", "--store", str(store), "--games", "3", *SETTINGS]) == 0
    assert sorted(p.name for p in store.iterdir()) == ["chunk-5-0000000.rgs", "chunk-5-0000002.rgs"]
    first = (store / "chunk-5-0000000.rgs").read_bytes()
    capsys.readouterr()
    assert cli(["selfplay", "--store", str(store), "--games", "4", *SETTINGS]) == 0   # game 3 only
    assert "from 1 game of seed 5 played now; 3 chunk files, 4 games" in capsys.readouterr().out
    assert (store / "chunk-5-0000000.rgs").read_bytes() == first
    header = gamestore.read_header(str(store / "chunk-5-0000003.rgs"))
    assert header["command"] == ("rafle selfplay --store " + str(store) + " --games 4 "
                                 + " ".join(SETTINGS))
    assert (header["seed"], header["first"], header["games"], header["nodes"]) == (5, 3, 1, 200)
    assert header["build"]["commit"] or header["build"]["version"]
    assert len(header["sha256"]) == 64 and header["variant"] == "international"
    # Replayed, the store's games are the positions --out writes for the same seed.
    npz = tmp_path / "sp.npz"
    assert cli(["selfplay", "--out", str(npz), "--games", "4", *SETTINGS]) == 0
    variant, data = train.load([str(store)])
    with np.load(npz) as d:
        assert variant == "international" and np.array_equal(data["white"], d["white"])
        assert np.array_equal(data["score"], d["score"]) and same(d, played[0])
    parts = [gamestore.load_chunk(str(p))[1] for p in sorted(store.iterdir())]
    assert same({k: np.concatenate([p[k] for p in parts]) for k in FIELDS}, played[0])
    assert sum(gamestore.read_header(str(p))["positions"] for p in store.iterdir()) == len(
        played[0]["white"])
    # The same seed with other settings is refused; --seed next starts seed 6.
    other = ["--nodes", "300", *SETTINGS[2:]]
    assert cli(["selfplay", "--store", str(store), "--games", "4", *other]) == 2
    assert "other settings (nodes 200)" in capsys.readouterr().err
    next_seed = [a if a != "5" else "next" for a in SETTINGS]
    assert cli(["selfplay", "--store", str(store), "--games", "1", *next_seed]) == 0
    assert (store / "chunk-6-0000000.rgs").is_file()


def test_an_interrupted_store_run_counts_only_the_chunks_it_wrote(played, tmp_path, capsys,
                                                                  monkeypatch):
    """Stopped after one game of a two-game chunk: nothing is written, and the last line says
    so (it used to count the games asked for and the positions of the part played)."""
    monkeypatch.setattr(selfplay, "STORE_CHUNK", 2)
    monkeypatch.setattr(selfplay, "CHUNK", 1)

    def one_then_stop(args, chunks):
        yield selfplay.play_games(*chunks[0])
        raise KeyboardInterrupt

    monkeypatch.setattr(selfplay, "_on_processes", one_then_stop)
    store = tmp_path / "international"
    assert cli(["selfplay", "--store", str(store), "--games", "4", *SETTINGS]) == 0
    out, err = capsys.readouterr()
    assert "interrupted; the chunks finished are on disk: run it again with --seed 5" in err
    assert "0 positions from 0 games of seed 5 played now; 0 chunk files, 0 games" in out
    assert not list(store.glob("*.rgs"))


@pytest.fixture
def store(played, tmp_path):
    """A store of the four games in two chunks (seed 5: games 0-1 and 2-3)."""
    _, records = played
    s = Store(str(tmp_path / "store"))
    for first in (0, 2):
        s.write(records[first:first + 2], {"variant": "international", "seed": 5, "first": first})
    return s


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "checksum mismatch"),
    (lambda b: b[:len(b) - 40], "truncated"),
    (lambda b: b.replace(b'"layout": [["game"', b'"layout": [["gam"'), "bad header"),
    (lambda b: b.replace(b"RAFLE-GAMES 1", b"RAFLE-GAMES 9"), "not a Rafle game store chunk"),
    (lambda b: b[:30], "bad header"),
])
def test_a_corrupt_chunk_is_refused_by_name_and_the_others_are_read(store, capsys, damage,
                                                                    message, played):
    bad = store.path(5, 2)
    with open(bad, "rb") as f:
        data = f.read()
    with open(bad, "wb") as f:
        f.write(damage(data))
    with pytest.raises(BadInput, match=message) as refused:
        gamestore.load_chunk(bad)
    assert bad in str(refused.value)
    read = list(gamestore.read_store(store.dir))
    assert [path for path, _, _ in read] == [store.path(5, 0)]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and bad in err and message in err
    # Training from the directory reads the rest; a corrupt file named alone is an error.
    variant, data = train.load([store.dir])
    assert len(data["white"]) == int((played[0]["game"] < 2).sum())
    with pytest.raises(BadInput, match=message):
        train.load([bad])


@pytest.fixture
def replay_cache(tmp_path, monkeypatch):
    """The replay cache under a cache directory of this test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    gamestore._cache_dir.cache_clear()
    yield tmp_path / "cache" / "rafle"
    gamestore._cache_dir.cache_clear()


def test_a_chunk_replayed_once_is_read_from_the_cache_and_still_checked(store, replay_cache,
                                                                       played, monkeypatch):
    path = store.path(5, 0)
    variant, first = gamestore.load_chunk(path)
    entries = list(replay_cache.glob("replay-*/*.npz"))
    assert len(entries) == 1 and entries[0].stem == gamestore.read_header(path)["sha256"]
    assert same(first, {k: played[0][k][played[0]["game"] < 2] for k in FIELDS})

    def no_replay(*args):
        raise AssertionError("replayed again")
    with monkeypatch.context() as m:
        m.setattr(gamestore, "replay", no_replay)
        assert gamestore.load_chunk(path)[0] == variant
        assert same(gamestore.load_chunk(path)[1], first)
        # The chunk itself is still checked: damaged on disk, it is refused by name.
        data = open(path, "rb").read()
        with open(path, "wb") as f:
            f.write(data[:-1] + bytes([data[-1] ^ 1]))
        with pytest.raises(BadInput, match="checksum mismatch"):
            gamestore.load_chunk(path)
        with open(path, "wb") as f:
            f.write(data)
    # A cache entry that does not read back is replayed again and rewritten.
    entries[0].write_bytes(b"not an npz")
    assert same(gamestore.load_chunk(path)[1], first)
    assert same(gamestore._cached(gamestore.read_header(path)), first)


def test_a_move_index_out_of_range_is_refused_by_name(tmp_path):
    record = GameRecord(0, pos_to_fen(start_position()), 0, (3, 200), (10, 20), 1)
    path = str(tmp_path / "chunk-1-0000000.rgs")
    with open(path, "wb") as f:
        f.write(gamestore.encode([record], {"variant": "international", "seed": 1, "first": 0}))
    with pytest.raises(BadInput, match=r"chunk-1-0000000.rgs: game 0: move 200 at ply 1"):
        gamestore.load_chunk(path)


def random_records(variant, rng, games=12, plies=80):
    """Random games from the start (moves as indices) with random scores, some missing."""
    records = []
    for number in range(games):
        pos, moves, lead = start_position(variant), [], rng.randrange(0, 6)
        for _ in range(rng.randrange(lead, plies)):
            legal = legal_moves(pos)
            if not legal:
                break
            moves.append(rng.randrange(len(legal)))
            pos = play(pos, legal[moves[-1]])
        lead = min(lead, len(moves))
        scores = tuple(None if rng.random() < 0.2 else rng.randint(-2000, 2000)
                       for _ in range(len(moves) - lead))
        records.append(GameRecord(number * 3, pos_to_fen(start_position(variant)), lead,
                                  tuple(moves), scores, rng.randrange(3)))
    return records


def slow_replay(records, variant):
    """The positions the games' labels belong to, walked without the store's code."""
    rows = []
    for r in records:
        pos = start_position(variant)
        for ply, index in enumerate(r.moves):
            legal = legal_moves(pos)
            score = r.scores[ply - r.lead] if ply >= r.lead else None
            other = Position(pos.white, pos.black, pos.kings, 1 - pos.turn, variant)
            captures = [m for m in legal + legal_moves(other) if m.captured]
            if score is not None and not captures:
                rows.append((*pos.words, score, r.result, ply, r.number))
            pos = play(pos, legal[index])
    return {k: np.array([row[i] for row in rows], dtype=np.int64) for i, k in enumerate(FIELDS)}


@pytest.mark.parametrize("name", ["international", "frisian", "russian", "turkish"])
def test_move_indices_round_trip_on_random_games(name, tmp_path):
    variant = get_variant(name)
    records = random_records(variant, random.Random(name))
    path = str(tmp_path / "chunk-2-0000000.rgs")
    with open(path, "wb") as f:
        f.write(gamestore.encode(records, {"variant": name, "seed": 2, "first": 0}))
    header, back = gamestore.read_chunk(path)
    assert back == records and header["games"] == len(records)
    assert same(gamestore.load_chunk(path)[1], slow_replay(records, variant))


@pytest.mark.parametrize("name", ["international", "frisian", "turkish", "english"])
def test_the_replay_kernel_is_the_slow_walk_through_long_games_with_kings(name):
    """Games long enough for kings and their captures: the kernel keeps the positions the
    walk over ``legal_moves`` keeps, kings among them."""
    variant = get_variant(name)
    records = random_records(variant, random.Random(name + "-long"), games=6, plies=300)
    fast = gamestore.replay(records, name)
    assert same(fast, slow_replay(records, variant))
    assert (fast["kings"] != 0).any()


def test_wide_move_indices_and_the_blocks_of_a_resumed_seed(tmp_path):
    record = GameRecord(7, "startpos", 1, (300, 2), (None,), 2)
    path = str(tmp_path / "chunk-1-0000007.rgs")
    with open(path, "wb") as f:
        f.write(gamestore.encode([record], {"variant": "international", "seed": 1, "first": 7}))
    header, back = gamestore.read_chunk(path)
    assert back == [record] and ["moves", "<u2", 2] in header["layout"]
    assert selfplay._missing(250, set(range(0, 50)) | {120}) == [(50, 50), (100, 20), (121, 79),
                                                                 (200, 50)]
    assert Store(str(tmp_path)).next_seed() == 2
