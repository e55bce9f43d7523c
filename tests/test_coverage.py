"""``rafle train --coverage``: how often the training positions held the window contents of
other games' positions.  The data here are random games written as ``rafle selfplay`` writes
positions; the games checked are written as PDN."""
from __future__ import annotations

import numpy as np

import test_pdn as random_games
from engine import Game, start_position, write_pdn
from protocol.cli import main as cli
from protocol.tools import coverage, train
from protocol.tools.gamestore import quiet

DATA = "cov.npz"


def random_game(seed: int) -> Game:
    return random_games.random_game(seed, 70)


def quiet_positions(game: Game, first: int = 0, last: int = 999):
    """The quiet positions of ``game`` at plies ``first``-``last``, square by square."""
    return [(ply, p) for ply, p in enumerate(game.positions[:-1])
            if first <= ply <= last and quiet(p)]


def write_data(path, games: list[Game]) -> None:
    rows = [(p, number, ply) for number, g in enumerate(games) for ply, p in quiet_positions(g)]
    np.savez(path, white=np.array([p.white for p, _, _ in rows]),
             black=np.array([p.black for p, _, _ in rows]),
             kings=np.array([p.kings for p, _, _ in rows]),
             turn=np.array([p.turn for p, _, _ in rows]),
             score=np.zeros(len(rows), dtype=np.int64), result=np.ones(len(rows), dtype=np.int64),
             game=np.array([n for _, n, _ in rows]), ply=np.array([ply for _, _, ply in rows]),
             variant="international")


def run(capsys, tmp_path, games, pdn_games, *extra) -> tuple[int, list[str], str]:
    write_data(tmp_path / DATA, games)
    paths = []
    for i, g in enumerate(pdn_games):
        paths.append(str(tmp_path / f"g{i}.pdn"))
        (tmp_path / f"g{i}.pdn").write_text(write_pdn(g))
    code = cli(["train", "--data", str(tmp_path / DATA), "--coverage", *paths, *extra])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def test_a_training_games_contents_were_all_seen_and_the_plies_choose_the_positions(tmp_path,
                                                                                    capsys):
    games = [random_game(s) for s in range(40)]
    held = train.held_out(train.game_keys(DATA, np.arange(40)), 1, 0.05, one=False)
    trained = games[int(np.flatnonzero(~held)[0])]
    stranger = random_game(1000)
    code, lines, err = run(capsys, tmp_path, games, [trained, stranger],
                           "--coverage-plies", "10-50")
    assert code == 0, err
    counted = sum(len(quiet_positions(g)) for i, g in enumerate(games) if not held[i])
    assert f"counted over {counted:,} training positions ({int((~held).sum())} games)" in lines[0]
    mine, other = (line.split() for line in lines[3:5])
    assert mine[0] == "g0.pdn" and int(mine[1]) == len(quiet_positions(trained, 10, 50))
    assert mine[2] == "0.00%"                        # none of its readings unseen
    assert other[0] == "g1.pdn" and int(other[1]) == len(quiet_positions(stranger, 10, 50))
    held_count = sum(len(quiet_positions(g, 10, 50)) for i, g in enumerate(games) if held[i])
    assert lines[2].startswith(f"held-out games ({int(held.sum())})")
    assert int(lines[2].split()[3]) == held_count


def test_the_counts_hold_every_reading_of_every_training_position(tmp_path):
    games = [random_game(s) for s in range(6)]
    write_data(tmp_path / DATA, games)
    parts = list(train._parts([str(tmp_path / DATA)]))
    cov = coverage.report(parts, train.game_keys, lambda keys: np.zeros(len(keys), bool),
                          start_position().variant, [], (0, 999), emit=lambda line: None)
    positions = sum(len(quiet_positions(g)) for g in games)
    assert cov.positions == positions and cov.nw == 28
    assert int(cov.counts.sum()) == 2 * 28 * positions
    # the start is a training position (ply 0 of each game): each of its readings was seen
    r = cov.readings({k: np.array([v]) for k, v in zip(coverage.WORDS, start_position().words)})
    assert (cov.seen(r) >= 1).all()


def test_bad_coverage_input_is_one_line_and_exit_2(tmp_path, capsys):
    write_data(tmp_path / DATA, [random_game(s) for s in range(4)])
    data = ["train", "--data", str(tmp_path / DATA)]
    for extra, said in ((["--coverage", str(tmp_path / "none.pdn")], "cannot read"),
                        (["--coverage", str(tmp_path / DATA), "--coverage-plies", "9-2"],
                         "not a range of plies"),
                        (["--coverage", str(tmp_path / DATA), "--coverage-plies", "x"],
                         "takes a range A-B"),
                        ([], "--out is required")):
        assert cli(data + extra) == 2
        err = capsys.readouterr().err
        assert err.startswith("rafle train: ") and said in err and len(err.splitlines()) == 1
