"""Text mode (``rafle play``): driven the way a person types, through pipes and a terminal.

Most tests run the text mode's loop in this process with lines on an input stream and read
the transcript it prints; the bad-input and no-argument tests run the real command
(``python -m protocol.cli``) with lines on stdin, and one drives it through a pseudo-terminal.  Positions are
checked with the ``fen`` command against positions computed here with the engine API.
The readers behind the commands (typed moves, set-up text, the board) are tested in
process as well.
"""
from __future__ import annotations

import contextlib
import io
import os
import random
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import (
    BadInput, VARIANTS, WHITE, legal_moves, move_from_hub, move_to_hub, move_to_pdn, play,
    pos_from_fen, pos_to_fen, start_position,
)
from engine.game import Game
from protocol.text import board as board_view
from protocol.text import cli as text_cli
from protocol.text.moves import parse_move
from protocol.text.study import parse_setup
from protocol.text.commands import COMMANDS
from protocol.text.session import EMPTY

ROOT = Path(__file__).resolve().parents[1]
START_FEN = pos_to_fen(start_position())


def rafle_play(lines: list[str], *args: str, process: bool = False, timeout: float = 300) -> str:
    """``rafle play`` with ``lines`` as its input; the transcript it printed.

    In this process by default (``protocol.text.cli.main`` on streams, as on a pipe: no
    terminal, so no colour and every line echoed); ``process=True`` runs the command."""
    if not process:
        typed = "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
        stdin = io.TextIOWrapper(io.BytesIO(typed), encoding="utf-8", errors="replace")
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(stderr):     # a failing thread would write there
            assert text_cli.main(list(args), stdin, stdout) == 0
        assert "Traceback" not in stdout.getvalue() + stderr.getvalue(), stderr.getvalue()
        return stdout.getvalue()
    env = dict(os.environ, NO_COLOR="1")
    typed = "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
    proc = subprocess.run([sys.executable, "-m", "protocol.cli", "play", *args], input=typed,
                          capture_output=True, timeout=timeout, cwd=ROOT, env=env)
    stdout, stderr = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stdout + stderr, stdout + stderr
    assert proc.returncode == 0, stderr
    return stdout


def answers(transcript: str, command: str) -> list[list[str]]:
    """For each time ``command`` was read, the lines printed before the next command."""
    out, current = [], None
    for line in transcript.splitlines():
        if line.startswith("> "):
            current = [] if line[2:] == command else None
            if current is not None:
                out.append(current)
        elif current is not None:
            current.append(line)
    return out


def fens(transcript: str) -> list[str]:
    return [lines[0] for lines in answers(transcript, "fen")]


def fen_after(start: str, moves: list[str]) -> str:
    pos = pos_from_fen(start)
    for text in moves:
        pos = play(pos, move_from_hub(pos, text))
    return pos_to_fen(pos)


# ----- whole sessions through a pipe ------------------------------------------------------

def test_short_game_with_undo_and_redo():
    moves = ["32-28", "19-23", "28x19", "14x23"]
    out = rafle_play(["32-28", "19-23", "28x", "14x23", "fen", "undo 3", "fen", "redo", "fen",
                      "redo 2", "fen", "undo", "undo", "fen", "quit"], "--play", "both")
    assert fens(out) == [fen_after(START_FEN, moves), fen_after(START_FEN, moves[:1]),
                         fen_after(START_FEN, moves[:2]), fen_after(START_FEN, moves),
                         fen_after(START_FEN, moves[:2])]
    assert answers(out, "undo 3")[0][0] == "Took back 19-23, 28x19, 14x23."
    assert "2. 28x19   (White)" in answers(out, "28x")[0]   # the short form was played


def test_rafle_replies_and_undo_returns_to_your_move():
    out = rafle_play(["32-28", "fen", "undo", "fen", "quit"], "--depth", "1")
    reply = [line for line in answers(out, "32-28")[0] if line.startswith("1... ")]
    assert len(reply) == 1 and "(Rafle" in reply[0], out
    assert re.search(r"\(Rafle: .* for Black, depth", reply[0]), reply    # whose score it is
    after_reply, after_undo = fens(out)
    pos = pos_from_fen(after_reply)
    assert pos.turn == WHITE
    first = play(start_position(), move_from_hub(start_position(), "32-28"))
    assert any(pos_to_fen(play(first, m)) == after_reply for m in legal_moves(first))
    assert after_undo == START_FEN          # its reply and your move both taken back


def test_save_and_load_give_the_same_position(tmp_path):
    saved = tmp_path / "game.pdn"
    out = rafle_play(["32-28", "19-23", "28x19", "14x23", "fen", f"save {saved}", "new",
                      f"load {saved}", "fen", "goto 2", "fen", "quit"], "--play", "both")
    before, reloaded, at_move_2 = fens(out)
    assert reloaded == before
    assert at_move_2 == fen_after(START_FEN, ["32-28", "19-23"])
    assert "1. 32-28 19-23 2. 28x19 14x23 *" in saved.read_text()


def test_set_up_game_is_saved_with_its_fen_and_reloads(tmp_path):
    saved = tmp_path / "study.pdn"
    setup = "W:W28,33,K46:B13,22,24"
    out = rafle_play([f"setup {setup}", "28x", "fen", f"save {saved}", "new",
                      f"load {saved}", "fen", "goto start", "fen", "quit"], "--play", "both")
    played, reloaded, start = fens(out)
    assert reloaded == played == fen_after(setup, ["28x17"])
    assert start == pos_to_fen(pos_from_fen(setup))
    assert '[FEN "W:W28,33,K46:B13,22,24"]' in saved.read_text()


def test_multi_game_file_picks_the_game_by_number(tmp_path):
    games = []
    for moves in (["32-28"], ["33-29", "19-24"], ["34-30"]):
        g = Game()
        for text in moves:
            g.push(move_from_hub(g.position, text))
        games.append(g)
    from engine.pdn import write_pdn
    path = tmp_path / "three.pdn"
    path.write_text("".join(write_pdn(g, {"White": f"W{i}"}) for i, g in enumerate(games, 1)))
    out = rafle_play([f"load {path}", "fen", f"load {path} 2", "fen", f"load {path} 4", "fen",
                      "quit"], "--play", "both")
    first, second, unchanged = fens(out)
    assert first == pos_to_fen(games[0].position)
    assert second == unchanged == pos_to_fen(games[1].position)
    assert any("holds 3 games" in line for line in answers(out, f"load {path}")[0])
    assert answers(out, f"load {path} 4")[0][0].startswith("Error:")


def test_fen_and_loose_set_ups():
    out = rafle_play(["setup B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29", "fen",
                      "setup W: 3, 32k B: 18k, 19k", "fen",
                      "setup White: 31-33, K45; Black: k4, 12 14; Black to move", "fen",
                      "clear", "put w 28 29", "put B 3", "turn black", "fen",
                      "remove 29", "fen", "fen B" + "b" * 20 + "e" * 9 + "w" + "w" * 20, "fen",
                      "quit"], "--play", "both")
    assert fens(out) == [pos_to_fen(pos_from_fen("B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29")),
                         "W:WK3,K32:BK18,K19",     # a man on its crowning row is a king
                         "B:W31,32,33,K45:BK4,12,14",
                         "B:W28,29:BK3",
                         "B:W28:BK3",
                         "B:W30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:"
                         "B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"]    # a Hub string
    notes = answers(out, "setup W: 3, 32k B: 18k, 19k")[0]
    assert any("cannot stand on 3" in line for line in notes)


def test_clear_is_a_set_up_step_that_undo_takes_back():
    out = rafle_play(["32-28", "clear", "fen", "go", "resign", "33-29", "undo", "fen", "undo", "fen",
                      "clear", "put w 28", "turn black", "fen", "undo", "undo", "fen", "undo", "fen",
                      "quit"], "--play", "both")
    cleared = answers(out, "clear")[0]
    assert not any("Game over" in line or "wins" in line for line in cleared), cleared
    assert cleared[-1].strip().startswith("Empty board: put pieces on it")
    for line in ("go", "resign", "33-29"):
        assert answers(out, line)[0] == [f"Error: {EMPTY}"]
    assert [lines[0] for lines in answers(out, "undo")] == [
        "Took back clear.", "Took back 32-28.", "Took back turn black.", "Took back put w 28.",
        "Took back clear."]
    assert fens(out) == ["B:W:B", fen_after(START_FEN, ["32-28"]), START_FEN, "B:W28:B", "W:W:B",
                         START_FEN]


def test_bad_input_gets_a_helpful_message_and_the_session_goes_on():
    bad = ["32-27-22", "28", "33-22", "99-1", "12345678901234567890", "xyzzy", "undo",
           "redo", "goto 99", "goto banana", "setup W:W99:B1", "setup hello", "put x 3",
           "put w 3", "remove 77", "level insane", "depth -3", "time soon",
           "analyse later", "play purple", "load /no/such/file.pdn",
           "save /no/such/dir/x.pdn", "turn green", "accept", "new tetris", "numbers maybe",
           "\x00\x01 \ufffd", "\udcff\udcfe32-28", "28x19x23x12x1",
           "load a\x00b", "save x\x00y", "load /dev/zero", "load /", "depth", "time", "nodes"]
    out = rafle_play(bad + ["32-28", "fen", "quit"], "--play", "both", process=True)
    for line in bad:
        echoed = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        reply = answers(out, echoed)[0]
        assert reply and reply[0].startswith("Error: "), (line, reply)
    assert fens(out) == [fen_after(START_FEN, ["32-28"])]
    illegal = answers(out, "33-22")[0][0]
    assert "legal moves:" in illegal and "32-28" in illegal and "31-26" in illegal
    ambiguous = answers(out, "28")[0][0]
    assert "ambiguous" in ambiguous and "32-28" in ambiguous and "33-28" in ambiguous
    for line, message in (("load a\x00b", "no such file"), ("load /dev/zero", "not a regular file"),
                          ("save x\x00y", "cannot write"), ("depth", "depth needs a number")):
        reply = answers(out, line)[0][0]
        assert message in reply and "Internal error" not in reply, reply


def test_a_pdn_file_over_50_mb_is_refused(tmp_path):
    big = tmp_path / "big.pdn"
    with big.open("wb") as f:
        f.truncate((50 << 20) + 1)          # sparse: costs no disk
    out = rafle_play([f"load {big}", "fen", "quit"], "--play", "both")
    assert "larger than 50 MB" in answers(out, f"load {big}")[0][0]
    assert fens(out) == [START_FEN]


def test_game_end_by_the_rules_and_by_the_players():
    repeat = ["1-6", "2-7", "6-1", "7-2"] * 2
    five = ["1-18", "2-35", "18-1", "35-2", "1-40", "2-11", "40-49", "11-6", "49-40", "6-28"]
    out = rafle_play(["setup W:W28:B23", "28x19", "19-13",
                      "setup W:WK1:BK2", *repeat, "undo", "fen",
                      "setup W:WK1:BK2", *five,
                      "new", "32-28", "draw", "accept", "new", "resign", "quit"],
                     "--play", "both")
    assert "Game over: White wins, 2-0 (no legal move)" in answers(out, "28x19")[0]
    assert answers(out, "19-13")[0][0].startswith("Error: the game is over")
    assert "Game over: draw, 1-1 (threefold repetition)" in answers(out, "7-2")[1]
    assert fens(out) == [fen_after("W:WK1:BK2", repeat[:7])]
    assert "Game over: draw, 1-1 (5-move rule)" in answers(out, "6-28")[0]
    assert "Game over: draw, 1-1 (draw agreed)" in answers(out, "accept")[0]
    assert "Game over: Black wins, 0-2 (White resigned)" in answers(out, "resign")[0]


def test_rafle_plays_itself_until_the_rules_end_the_game():
    out = rafle_play(["setup W:WK46,K50:BK1", "go", "history", "quit"], "--play", "none",
                     "--depth", "2")
    played = [line for line in answers(out, "go")[0]
              if re.match(r"\d+\.(\.\.)? \S+   \(Rafle", line)]
    assert 0 < len(played) <= 10          # the 5-move rule ends it by ply 10 at the latest
    assert answers(out, "go")[0][-1].strip().startswith("Game over: draw, 1-1")
    moves = answers(out, "history")[0][0].split()
    assert len([w for w in moves if not w.endswith(".")]) == len(played)


def test_rafle_accepts_a_draw_only_when_it_stands_no_better():
    # Rafle plays Black: a king and five men against a lone man, then the reverse.
    out = rafle_play(["setup W:W48:BK3,11,12,13,14,15", "draw",
                      "setup W:W31,32,33,34,K48:B5", "draw", "quit"], "--depth", "2")
    declined, accepted = answers(out, "draw")
    assert any("Rafle declines" in line for line in declined), declined
    assert any("Rafle accepts the draw" in line for line in accepted), accepted


def test_rafle_alone_starts_play_lists_commands_and_draws_every_variant():
    lines = ["help"]
    for name in VARIANTS:
        lines += [f"new {name}", "moves"]
    proc = subprocess.run([sys.executable, "-m", "protocol.cli"], input="\n".join(lines + ["quit"]),
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=dict(os.environ, NO_COLOR="1"))
    assert proc.returncode == 0 and "Traceback" not in proc.stdout + proc.stderr
    out = proc.stdout
    assert out.startswith("Rafle: international draughts.")
    for name, variant in VARIANTS.items():
        start = start_position(variant)
        count = answers(out, "moves")[list(VARIANTS).index(name)][0]
        assert count.startswith(f"{len(legal_moves(start))} legal move"), (name, count)
    assert "\x1b[" not in out
    listed = answers(out, "help")[0]
    for command in COMMANDS:      # one line each
        assert sum(line.split()[0] == command.names[0] for line in listed
                   if line.startswith("  ")) == 1, command.names[0]


def test_analyse_with_a_limit_prints_lines_and_a_best_move():
    out = rafle_play(["setup W:W28,33,K46:B13,22,24", "analyse depth 3", "quit"])
    reply = answers(out, "analyse depth 3")[0]
    assert reply[0].startswith("Analysing for White")
    best = [line for line in reply if line.startswith("Best: ")]
    assert len(best) == 1 and best[0].split()[1] == "28x17"   # the only legal move


# ----- a person at a terminal ---------------------------------------------------------------

class Pty:
    """``rafle play`` on a pseudo-terminal: type lines, read until a pattern shows."""

    def __init__(self, *args: str, env: dict):
        import pty
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "protocol.cli", "play", *args],
                                     stdin=slave, stdout=slave, stderr=slave, cwd=ROOT,
                                     env=env, start_new_session=True)
        os.close(slave)
        self.text = ""
        self.seen = 0

    def expect(self, pattern: str, timeout: float = 240) -> str:
        """Wait for ``pattern`` in the output that follows the previous match."""
        deadline = time.monotonic() + timeout
        while not (found := re.compile(pattern).search(self.text, self.seen)):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in:\n{self.text[-2000:]}"
            ready, _, _ = select.select([self.master], [], [], min(left, 1.0))
            if ready:
                try:
                    self.text += os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:        # the child closed the terminal
                    break
        self.seen = found.end() if found else self.seen
        return self.text

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\r").encode())

    def close(self) -> int:
        code = self.proc.wait(timeout=60)
        os.close(self.master)
        return code


@pytest.mark.skipif(sys.platform == "win32", reason="needs a Unix pseudo-terminal")
def test_a_person_at_a_terminal_plays_takes_back_and_stops_analysis():
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm-256color"
    term = Pty("--play", "both", env=env)
    try:
        term.expect(r"rafle 1\. White> ")
        term.type("32-28")
        term.expect(r"rafle 1\.\.\. Black> ")
        term.type("19-23")
        term.expect(r"rafle 2\. White> ")
        term.type("28x19")
        term.expect(r"rafle 2\.\.\. Black> ")
        term.type("undo 2")
        term.expect(r"Took back 19-23, 28x19\.[\s\S]*rafle 1\.\.\. Black> ")
        term.type("redo")
        term.expect(r"Replayed 19-23\.[\s\S]*rafle 2\. White> ")
        term.type("fen")
        term.expect(re.escape(fen_after(START_FEN, ["32-28", "19-23"])))
        term.type("bogus")
        term.expect(r"Error: unknown command 'bogus'")
        term.type("analyse")
        term.expect(r"Analysing for White \(until you press Enter or type stop\)")
        time.sleep(0.5)
        term.type("")
        text = term.expect(r"Best: \S+[\s\S]*rafle 2\. White> ")
        term.type("quit")
        assert term.close() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert "\x1b[48;5;" in text           # a colour terminal without NO_COLOR gets colour
    assert "Traceback" not in text


# ----- the readers behind the commands, in process ----------------------------------------

def test_every_legal_move_is_read_back_from_its_pdn_and_hub_forms():
    rng = random.Random(6)
    checked = 0
    for _ in range(12):
        pos = start_position()
        for _ in range(80):
            moves = legal_moves(pos)
            if not moves:
                break
            for move in moves:
                assert parse_move(pos, move_to_pdn(pos, move)) == move
                assert parse_move(pos, move_to_hub(move)) == move
                checked += 1
            pos = play(pos, rng.choice(moves))
    assert checked > 500


def test_short_forms_and_their_errors():
    start = start_position()
    assert move_to_hub(parse_move(start, "3228")) == "32-28"
    assert move_to_hub(parse_move(start, "35")) == "35-30"        # the only move from 35
    assert move_to_hub(parse_move(start, "26")) == "31-26"        # the only move to 26
    pos = pos_from_fen("W:W28,33,K46:B13,22,24")
    assert move_to_hub(parse_move(pos, "28x")) == "28x17x22"
    assert move_to_hub(parse_move(pos, "x17")) == "28x17x22"
    with pytest.raises(BadInput, match="ambiguous"):
        parse_move(start, "31")
    with pytest.raises(BadInput, match="legal moves: 31-26"):
        parse_move(start, "32-23")


def test_loose_form_reads_sides_kings_ranges_and_side_to_move():
    v = start_position().variant
    pos, notes = parse_setup("B W: 31-33, K45 B: 4k, 12", v)
    assert pos_to_fen(pos) == "B:W31,32,33,K45:BK4,12" and notes == []
    pos, notes = parse_setup("W: 3, 32k B: 18k, 19k", v)
    assert pos_to_fen(pos) == "W:WK3,K32:BK18,K19" and len(notes) == 2
    pos, _ = parse_setup("W:W27,28:B12,13 Black to move", v)     # a FEN with a clause
    assert pos_to_fen(pos) == "B:W27,28:B12,13"
    for bad in ("18 W: 3", "W: 3x", "W: 51", "W: 30 B: 30", "W:"):
        with pytest.raises(BadInput):
            parse_setup(bad, v)


def test_board_shows_pieces_numbers_last_move_and_flips():
    start = start_position()
    move = move_from_hub(start, "32-28")
    pos = play(start, move)
    plain = board_view.render(pos, last=move, numbers=True).splitlines()
    assert plain[1].split()[0] == "+" + "-" * 30 + "+"
    assert plain[2] == "  |    b     b     b     b     b |   |     1     2     3     4     5|"
    assert "[w]" in plain[7] and "[.]" in plain[8]        # 28 and 32, the last move
    flipped = board_view.render(pos, flipped=True, numbers=True).splitlines()
    assert flipped[0].strip() == "White"       # seen from Black's side: square 50 top left
    assert flipped[2] == "  |    w     w     w     w     w |   |    50    49    48    47    46|"
    assert flipped[11] == "  | b     b     b     b     b    |   |  5     4     3     2     1   |"
    coloured = board_view.render(pos, last=move, color=True)
    assert "\x1b[" in coloured and "\x1b[" not in "\n".join(plain)


def test_colour_only_on_a_terminal_without_no_color():
    class Tty:
        def isatty(self):
            return True

    assert board_view.wants_color(Tty(), {"TERM": "xterm"})
    assert not board_view.wants_color(Tty(), {"TERM": "xterm", "NO_COLOR": "1"})
    assert not board_view.wants_color(Tty(), {"TERM": "dumb"})
    assert not board_view.wants_color(sys.stdin if not sys.stdin.isatty() else object(), {})


def test_eight_by_eight_boards_follow_their_variant():
    italian = start_position(VARIANTS["italian"])      # square 1 is a8, a dark corner
    assert board_view.render(italian).splitlines()[2].startswith("  | b     b")
    russian = start_position(VARIANTS["russian"])      # algebraic: ranks and files shown
    lines = board_view.render(russian, numbers=False).splitlines()
    assert lines[2].startswith(" 8|    b") and lines[11].split() == list("abcdefgh")
    assert move_to_hub(parse_move(russian, "c3-d4")) == "22-18"
    assert move_to_hub(parse_move(russian, "c3d4")) == "22-18"
    with pytest.raises(BadInput, match="b3 is not a square"):
        parse_move(russian, "b3")


def test_random_games_typed_in_every_variant_end_by_its_rules():
    from protocol.text.commands import execute
    from protocol.text.session import Session

    rng = random.Random(2)
    for variant in VARIANTS.values():
        printed: list[str] = []
        s = Session(printed.append, variant)
        s.set_players("both")
        for _ in range(400):
            if s.outcome() is not None:
                break
            move = rng.choice(legal_moves(s.pos))
            execute(s, move_to_pdn(s.pos, move))       # typed as the board shows it
            assert s.game.moves[-1] == move
        assert s.outcome() is not None, variant.name
        assert printed[-1].endswith(s.status())       # the board's last line says why
        assert s.status().startswith("Game over: ")


def test_replay_takes_a_finite_delay():
    out = rafle_play(["32-28", "19-23", "replay x", "replay nan", "replay 0", "fen", "quit"],
                     "--play", "both")
    for typed in ("replay x", "replay nan"):
        word = typed.split()[1]
        assert answers(out, typed)[0] == [f"Error: replay takes a delay in seconds, got {word!r}"]
    assert fens(out) == [fen_after(START_FEN, ["32-28", "19-23"])]   # replayed to the end
