"""Transcripts of ``rafle hub``: lines in, exact lines out.

Most tests share one in-process Hub (``hub_transcript.HubTranscript``: the real protocol loop
on pipes, started once, past ``init``), and leave it idle; a few start their own.  The tests
of the process itself (end of input, ``quit``, nothing on stderr, the handshake with an empty
numba cache) drive the executable as a subprocess (``HubProcess``).  Waits have generous
time-outs only so that a hang fails instead of blocking CI; no test asserts a duration.
The position reached by ``pos`` is observed through the ``perft`` extension, whose root
moves are compared with the engine's own ``legal_moves``.
"""
from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from importlib.metadata import version
from pathlib import Path

import pytest

from engine import (
    OPTIONS, VARIANTS, egdb_dirs, egdb_load, get_variant, shipped_book, legal_moves, move_from_hub, move_to_hub, parse_position, play,
    pos_to_fen, pos_to_hub, start_position,
)
from engine import weights
from engine.search import Limits, Searcher
from perft.suite import load_reference
from hub_transcript import HubTranscript, Lines
from protocol.hub.wire import Level, score_text, tokenize

START = pos_to_hub(start_position())
WAIT = 60.0  # seconds before a missing line counts as a hang
# The first `init` may compile every kernel: CI installs the package, so the subprocess has
# its own (empty) numba cache, beside the installed sources.
INIT_WAIT = 900.0
# The weights international draughts plays with: the shipped file's version.
SHIPPED_EVAL = weights.check(weights.shipped(get_variant("international")))


def egdb_found(variant: str) -> int:
    """The most pieces of the endgame databases a search of ``variant`` finds (0: none)."""
    tables = egdb_load(egdb_dirs(), get_variant(variant))
    return 0 if tables is None else tables.pieces


INIT = f"init eval={SHIPPED_EVAL} egdb={egdb_found('international')}"

INFO = re.compile(r'info depth=\d+ mean-depth=\d+\.\d score=-?\d+\.\d\d nodes=\d+'
                  r'( time=\d+\.\d{3})?( nps=\d+\.\d)? pv="[^"]+"')


class HubProcess(Lines):
    """``rafle hub`` under test: write lines, read lines, with a reader thread."""

    def __init__(self, *, stderr=subprocess.DEVNULL, env=None):
        self.proc = subprocess.Popen([shutil.which("rafle"), "hub"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=stderr, env=env)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            self.lines.put(raw.decode())
        self.lines.put(None)

    def send(self, *lines: str, raw: bytes | None = None) -> None:
        data = raw if raw is not None else "".join(x + "\n" for x in lines).encode()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close(self) -> int:
        if self.proc.poll() is None:
            self.proc.stdin.close()
        return self.proc.wait(timeout=WAIT)


@pytest.fixture(scope="module")
def hub():
    engine = HubTranscript()
    engine.send("hub")
    engine.read_until("wait")
    engine.send("init")
    assert engine.read_until("ready", INIT_WAIT) == [INIT, "ready"]
    yield engine
    engine.send("quit")
    assert engine.close() == 0


def root_moves(hub: HubTranscript | HubProcess) -> set[str]:
    """The legal moves of the current ``pos``, through the perft extension."""
    hub.send("perft depth=1")
    lines = hub.read_until("perft ")
    assert re.fullmatch(r"perft nodes=\d+ time=\d+\.\d{3}", lines[-1]), lines[-1]
    moves = [re.fullmatch(r"info move=(\S+) nodes=1", x).group(1) for x in lines[:-1]]
    assert lines[-1].split()[1] == f"nodes={len(moves)}"
    return set(moves)


def hub_moves(pos) -> set[str]:
    return {move_to_hub(m, pos.variant) for m in legal_moves(pos)}


def after(start, *moves: str):
    pos = start
    for text in moves:
        pos = play(pos, move_from_hub(pos, text))
    return pos


def check_done(line: str, pos) -> None:
    """``done move=X [ponder=Y]`` with X legal in ``pos`` and Y legal after X."""
    m = re.fullmatch(r"done move=(\S+)( ponder=(\S+))?", line)
    assert m, line
    assert m.group(1) in hub_moves(pos), line
    best = move_from_hub(pos, m.group(1))
    assert move_to_hub(best, pos.variant) == m.group(1)  # full captured list, ascending
    if m.group(3):
        assert m.group(3) in hub_moves(play(pos, best)), line


# ----- handshake and parameters -----------------------------------------------------------

def test_handshake_declares_id_variants_and_searcher_options():
    lines = handshake(in_process=True)
    assert lines[0] == (f'id name=Rafle version={version("rafle")} author="Rafle authors" '
                        "country=International")
    names = " ".join(v.hub_name for v in VARIANTS.values())
    assert lines[1] == f'param name=variant value=normal type=enum values="{names}"'
    assert lines[-1] == "wait"
    declared = {}
    for text in lines[1:-1]:
        cmd = tokenize(text)
        assert cmd.name == "param" and cmd.error is None and cmd.args[0][0] == "name"
        # pydraughts splits each space-separated argument on "=" into exactly two parts.
        for arg in re.split(r' +(?![^"]*"(?:(?:[^"]*"){2})*[^"]*$)', text.split(None, 1)[1]):
            assert len(arg.split("=")) == 2, arg
        declared[cmd.get("name")] = (cmd.get("value"), cmd.get("type"))
    options = {o.name: (o.default, o.type) for o in Searcher().options()}
    assert declared == {"variant": ("normal", "enum"), **options}


def handshake(env=None, in_process=False) -> list[str]:
    engine = HubTranscript() if in_process else HubProcess(env=env)
    engine.send("hub")
    lines = engine.read_until("wait")
    engine.send("quit")
    assert engine.close() == 0
    return lines


def test_handshake_needs_no_numba(tmp_path):
    """`hub` is answered without importing numba, so `wait` comes fast even on a first run."""
    code = ("import sys; from protocol.hub.server import param_lines; lines = param_lines(); "
            "print(len(lines), 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], check=True).stdout.split()
    assert out == [str(1 + len(Searcher().options())), "False"]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))  # an empty numba cache
    assert handshake(env) == handshake() == handshake(in_process=True)


def test_set_param_is_silent_before_and_after_init():
    engine = HubTranscript()
    engine.send("hub")
    engine.read_until("wait")
    params = [o for o in Searcher().options()]
    wrong = ["set-param name=no-such-param value=1", "set-param name=variant value=killer",
             "set-param name=variant value=none", "set-param name=initial-time value=300",
             "set-param value=3", "set-param name=variant", "set-param",
             'set-param name = "variant" value = normal']
    for o in params:
        wrong += [f"set-param name={o.name} value=None", f"set-param name={o.name} value=x!y",
                  f'set-param name={o.name} value="{o.default}"']  # back to the default
    engine.send(*wrong, "init")
    assert engine.read_until("ready", INIT_WAIT) == [INIT, "ready"]
    assert engine.exchange(*wrong) == []
    assert engine.exchange("new-game") == []
    engine.send("pos start")
    assert root_moves(engine) == hub_moves(start_position())
    engine.send("quit")
    assert engine.close() == 0


def _another_value(cmd, files: dict[str, str]) -> str:
    """A valid value of a declared ``param`` other than its current one."""
    kind, value = cmd.get("type"), cmd.get("value")
    if kind == "int":
        lo = int(cmd.get("min"))
        return str(lo if int(value) != lo else lo + 1)
    if kind == "bool":
        return "false" if value == "true" else "true"
    if kind == "enum":
        return next(v for v in cmd.get("values").split() if v != value)
    return files[cmd.get("name")]


def test_every_param_line_round_trips_through_set_param(tmp_path):
    """Each declared parameter takes another valid value through set-param, the next `hub`
    declares it with that value, and the first values set back give the first lines."""
    engine = HubTranscript()
    engine.send("hub")
    first = engine.read_until("wait")[1:-1]
    declared = {tokenize(text).get("name"): tokenize(text) for text in first}
    assert set(declared) == {"variant"} | {o.name for o in OPTIONS}
    files = {"weights": str(weights.shipped(get_variant("international"))),
             "book-file": str(shipped_book(get_variant("international"))),
             "egdb-path": str(tmp_path)}
    changed = {name: _another_value(cmd, files) for name, cmd in declared.items()}
    engine.send(*[f'set-param name={n} value="{v}"' for n, v in changed.items()], "hub")
    second = engine.read_until("wait")[1:-1]
    assert {tokenize(t).get("name"): tokenize(t).get("value") for t in second} == changed
    engine.send(*[f'set-param name={n} value="{c.get("value")}"' for n, c in declared.items()],
                "hub")
    assert engine.read_until("wait")[1:-1] == first
    engine.send("quit")
    assert engine.close() == 0


def test_every_option_is_in_the_help():
    """(The documentation's options page is checked in tests/test_docs.py.)"""
    usage = subprocess.run(["rafle", "hub", "--help"], capture_output=True, text=True,
                           timeout=60).stdout
    for option in OPTIONS:
        assert re.search(rf"^  {re.escape(option.name)} ", usage, re.M), option.name


# ----- pos --------------------------------------------------------------------------------

def test_pos_hub_string_fen_and_start(hub):
    pos = after(start_position(), "32-28", "19-23")
    assert hub.exchange(f"pos pos={pos_to_hub(pos)}") == []
    assert root_moves(hub) == hub_moves(pos)
    assert hub.exchange(f"pos pos={pos_to_fen(pos)}") == []
    assert root_moves(hub) == hub_moves(pos)
    assert hub.exchange("pos start") == []
    assert root_moves(hub) == hub_moves(start_position())
    assert hub.exchange("pos") == []
    assert root_moves(hub) == hub_moves(start_position())


def test_pos_moves_full_short_and_any_order_captures(hub):
    # After 32-28 19-23 White must take 28x19 (captures 23); Black retakes 14x23 (takes 19).
    played = ["32-28", "19-23", "28x19x23", "14x23x19"]
    expect = after(start_position(), *played)
    assert hub.exchange(f'pos pos={START} moves="{" ".join(played)}"') == []
    assert root_moves(hub) == hub_moves(expect)
    assert hub.exchange(f'pos pos={START} moves="32-28 19-23 28x19 14x23"') == []
    assert root_moves(hub) == hub_moves(expect)
    # A multiple capture written with its captured squares in several orders.
    fen = "W:W33,34:B28,19,18"
    pos = parse_position(fen)
    [multi] = legal_moves(pos)
    assert len(multi.captured) == 3
    expect = play(pos, multi)
    caps = list(multi.captured)
    for order in (caps, caps[::-1], caps[1:] + caps[:1]):
        text = "x".join(str(s) for s in (multi.frm, multi.to, *order))
        assert hub.exchange(f'pos pos="{fen}" moves="{text}"') == []
        assert root_moves(hub) == hub_moves(expect)


def test_pos_quotes_blanks_around_equals_and_crlf(hub):
    expect = after(start_position(), "32-28", "19-23")
    assert hub.exchange(f'pos  pos = "{START}"   moves =  " 32-28   19-23 "') == []
    assert root_moves(hub) == hub_moves(expect)
    assert hub.exchange(f'pos pos={START} moves=""') == []  # GWD quotes an empty list
    assert root_moves(hub) == hub_moves(start_position())
    hub.send(raw=f'pos pos={START} moves="32-28 19-23"\r\nperft depth=1\r\n'.encode())
    lines = hub.read_until("perft ")
    assert {x.split()[1][5:] for x in lines[:-1]} == hub_moves(expect)
    assert hub.exchange("", "   ", "\t") == []


def test_bad_position_keeps_the_previous_game(hub):
    expect = after(start_position(), "34-29")
    assert hub.exchange(f'pos pos={START} moves="34-29"') == []
    for bad, reason in [("XYZ", "hub position must have 51 characters, got 3"),
                        ("W" + "w" * 50, "white man on square 1, its promotion row"),
                        ("W:W31,31:B1", "FEN lists square 31 twice")]:
        assert hub.exchange(f"pos pos={bad}") == [f'error message="bad position: {reason}"']
        assert root_moves(hub) == hub_moves(expect)
    lines = hub.exchange(f'pos pos="{START}')
    assert lines == ['error message="bad position: missing closing quote after column 9"']
    assert root_moves(hub) == hub_moves(expect)


def test_an_illegal_move_refuses_the_whole_pos_and_keeps_the_previous_game(hub):
    """A `pos` whose moves do not all play is refused whole, like a bad position: a `go`
    after it searches the game Rafle had, never a prefix the GUI did not mean."""
    kept = after(start_position(), "32-28", "19-23")
    assert hub.exchange(f'pos pos={START} moves="32-28 19-23"') == []
    lines = hub.exchange(f'pos pos={START} moves="32-28 19-23 35-29 28x19x23"')
    assert len(lines) == 1 and lines[0].startswith('error message="illegal move 35-29 (ply 3): ')
    assert root_moves(hub) == hub_moves(kept)
    lines = hub.exchange(f'pos pos={START} moves="32-28 19-23 28x19x22"')
    assert len(lines) == 1 and lines[0].startswith('error message="illegal move 28x19x22 (ply 3)')
    assert root_moves(hub) == hub_moves(kept)
    lines = hub.exchange(f'pos pos={START} moves="31-27 banana"')
    assert lines[0].startswith('error message="illegal move banana (ply 2): bad move')
    assert root_moves(hub) == hub_moves(kept)


def test_unknown_commands_and_idle_stop_are_silent(hub):
    assert hub.exchange("foo bar=1", "stop", "ponder-hit", "stop", "xyzzy", "=", '"') == []


def test_variant_parameter_switches_the_rules(hub):
    for name in ("russian", "english", "frisian"):
        pos = start_position(get_variant(name))
        assert hub.exchange(f"set-param name=variant value={name}", "pos start") == []
        assert root_moves(hub) == hub_moves(pos)
        hub.send("level depth=2", "go think")
        check_done(hub.read_until("done")[-1], pos)
    assert hub.exchange("set-param name=variant value=normal", "pos start") == []
    assert root_moves(hub) == hub_moves(start_position())


# ----- level ------------------------------------------------------------------------------

def level(*lines: str, analyze: bool = False) -> Limits:
    acc = Level()
    for text in lines:
        acc.update(tokenize(text))
    return acc.limits(Limits, analyze)


def test_level_forms_accumulate_and_parse_leniently():
    assert level("level depth=7") == Limits(depth=7)
    assert level("level nodes=1e4") == Limits(nodes=10000)
    assert level("level move-time=0.3") == Limits(movetime=0.3)
    assert level("level moves=37 time=254") == Limits(moves=37, time=254.0)
    assert level("level time=4.8 inc=0.2") == Limits(time=4.8, inc=0.2)
    assert level("level moves=10 time=60 inc=1") == Limits(moves=10, time=60.0, inc=1.0)
    assert level("level infinite") == Limits(infinite=True)
    assert level("level depth=3", "level handicap=2 ply=9", "level nodes=500") == \
        Limits(depth=3, nodes=500)
    assert level("level depth=abc move-time=nan time=inf", "level move-time=1.000") == \
        Limits(movetime=1.0)
    assert level("level moves=0 time=3") == Limits(time=3.0)
    assert level() == Limits()
    assert level(analyze=True) == Limits(infinite=True)
    assert level("level depth=4", analyze=True) == Limits(depth=4)


def test_level_negative_values_mean_move_now():
    assert level("level time=-2") == Limits(time=0.0)
    assert level("level move-time=-1") == Limits(movetime=0.0)
    assert level("level depth=-3 nodes=0") == Limits(depth=1, nodes=1)
    # pydraughts sends time - inc; what is left is time + inc, which must not grow.
    assert level("level time=-0.1 inc=0.3") == Limits(time=0.0, inc=pytest.approx(0.2))
    assert level("level time=-1 inc=0.3") == Limits(time=0.0, inc=0.0)


def test_score_text_is_exact_hundredths():
    assert [score_text(s) for s in (0, -2, 15, -100, 9990, -9995)] == \
        ["0.00", "-0.02", "0.15", "-1.00", "99.90", "-99.95"]


# ----- go ---------------------------------------------------------------------------------

def test_go_think_with_depth_prints_infos_then_a_legal_done(hub):
    pos = after(start_position(), "32-28", "20-24")
    hub.send(f'pos pos={START} moves="32-28 20-24"', "level depth=4", "go think")
    lines = hub.read_until("done")
    infos = lines[:-1]
    assert infos and all(INFO.fullmatch(x) for x in infos), infos
    assert max(int(x.split()[1][6:]) for x in infos) == 4
    for text in infos:
        pv = re.search(r'pv="([^"]+)"', text).group(1).split()
        after(pos, *pv)  # every PV is a legal line of play
    check_done(lines[-1], pos)
    assert hub.exchange() == []


def test_multipv_extension_numbers_its_lines_and_is_off_by_default(hub):
    pos = after(start_position(), "32-28")
    hub.send("set-param name=multipv value=3", f'pos pos={START} moves="32-28"',
             "level depth=3", "go think")
    lines = hub.read_until("done")
    hub.send("set-param name=multipv value=1")
    infos = lines[:-1]
    numbered = [re.fullmatch(r"info multipv=(\d) (.*)", x) for x in infos]
    assert all(numbered), infos
    assert all(INFO.fullmatch("info " + m.group(2)) for m in numbered), infos
    assert [int(m.group(1)) for m in numbered] == [1, 2, 3] * 3
    firsts = [re.search(r'pv="(\S+)', x).group(1) for x in infos[-3:]]
    assert len(set(firsts)) == 3 and set(firsts) <= hub_moves(pos)
    check_done(lines[-1], pos)
    hub.send(f'pos pos={START} moves="32-28"', "level depth=2", "go think")
    lines = hub.read_until("done")
    assert len(lines) == 3 and all(INFO.fullmatch(x) for x in lines[:-1]), lines


def test_multipv_analysis_stops_at_once(hub):
    hub.send("set-param name=multipv value=3", "pos start", "go analyze")
    line = hub.read()
    while not line.startswith("info multipv=3 depth=4 "):
        line = hub.read()
    hub.send("stop")
    lines = hub.read_until("done")
    hub.send("set-param name=multipv value=1")
    check_done(lines[-1], start_position())
    assert hub.exchange() == []


def test_single_legal_move_and_no_legal_move(hub):
    pos = after(start_position(), "32-28", "19-23")
    hub.send(f'pos pos={START} moves="32-28 19-23"', "level depth=3", "go think")
    done = hub.read_until("done")[-1]
    check_done(done, pos)
    assert done.split()[1] == "move=28x19x23"
    hub.send("pos pos=W:W:B1", "level depth=3", "go think")
    assert hub.read_until("done")[-1] == "done"


def test_level_resets_after_pos_and_after_each_search(hub):
    # With the depth limit forgotten, go analyze runs until stop.
    hub.send("level depth=1", "pos start", "go analyze")
    assert INFO.fullmatch(hub.read())
    hub.send("ping")
    lines = hub.read_until("pong")
    assert all(INFO.fullmatch(x) for x in lines[:-1])
    hub.send("stop")
    check_done(hub.read_until("done")[-1], start_position())
    hub.send("level depth=1", "go think")
    hub.read_until("done")
    hub.send("go analyze")  # no level now: analysis until stop
    assert INFO.fullmatch(hub.read())
    assert hub.exchange("stop")[-1].startswith("done move=")


def test_ping_during_a_long_search_is_answered_before_done(hub):
    hub.send("pos start", "level infinite", "go think")
    assert INFO.fullmatch(hub.read())
    hub.send("ping")
    lines = hub.read_until("pong")
    assert not any(x.startswith("done") for x in lines)
    hub.send("stop")
    check_done(hub.read_until("done")[-1], start_position())
    assert hub.exchange() == []


def test_another_command_ends_the_search_then_runs(hub):
    hub.send("pos start", "go analyze")
    assert INFO.fullmatch(hub.read())
    pos = after(start_position(), "31-27")
    hub.send(f'pos pos={START} moves="31-27"', "perft depth=1")
    lines = hub.read_until("perft ")
    dones = [i for i, x in enumerate(lines) if x.startswith("done")]
    assert len(dones) == 1
    check_done(lines[dones[0]], start_position())
    assert {x.split()[1][5:] for x in lines[dones[0] + 1:-1]} == hub_moves(pos)


def test_ponder_then_ponder_hit(hub):
    pos = after(start_position(), "32-28")
    hub.send(f'pos pos={START} moves="32-28"', "level time=2 inc=0", "go ponder")
    assert INFO.fullmatch(hub.read())
    hub.send("ponder-hit")
    check_done(hub.read_until("done")[-1], pos)
    assert hub.exchange("ponder-hit") == []


def test_ponder_hit_right_after_go_ponder(hub):
    pos = after(start_position(), "32-28")
    for _ in range(3):
        hub.send(f'pos pos={START} moves="32-28"', "level time=1", "go ponder", "ponder-hit")
        check_done(hub.read_until("done")[-1], pos)


def test_ponder_then_stop(hub):
    pos = after(start_position(), "32-28")
    hub.send(f'pos pos={START} moves="32-28"', "level time=60 inc=1", "go ponder")
    assert INFO.fullmatch(hub.read())
    hub.send("stop")
    check_done(hub.read_until("done")[-1], pos)
    assert hub.exchange("stop") == []


def test_threshold_parameters_change_a_fixed_depth_search():
    engine = HubTranscript()
    engine.send("hub")
    engine.read_until("wait")
    engine.send("init")
    engine.read_until("ready", INIT_WAIT)
    pos = after(start_position(), "32-28", "19-23", "28x19", "14x23")
    settings = {
        "off": ["threshold value=false"],
        "plain 300": ["threshold value=true", "threshold-form value=plain", "threshold-margin value=300"],
        "plain 150": ["threshold-margin value=150"],
        "verified 40+10": ["threshold-form value=verified", "threshold-margin value=40",
                           "threshold-slope value=10", "threshold-interval value=1",
                           "threshold-from value=3"],
        "... tried from depth 2": ["threshold-from value=2"],
        "... verified to 9 tenths of the depth": ["threshold-share value=9"],
        "verified 40+30": ["threshold-share value=4", "threshold-slope value=30"],
        "... every node (Scan's form)": ["threshold-from value=3", "threshold-share value=4",
                                         "threshold-gate value=false"],
        "quiescence searches threats": ["threshold-gate value=true", "qs-threats value=true"],
        "history malus": ["qs-threats value=false", "history-rate value=0",
                          "history-malus value=true"],
        "counter-moves too": ["counter-moves value=true"],
        "the history as a rate (Scan's)": ["history-malus value=false",
                                           "counter-moves value=false", "history-rate value=1"],
        "... without the killers": ["history-rate value=2"],
        "no late-move reductions": ["history-rate value=1", "lmr-depth value=0"],
        "late-move reductions after 4 moves": ["lmr-depth value=3", "lmr-moves value=4"],
        "... after 2 at a null window": ["lmr-moves value=2"],
        "... after 3 at an open window": ["lmr-pv-moves value=3"],
        "... by two after 6": ["lmr-two-moves value=6"],
        "... killers too": ["lmr-killers value=true"],
        "... by ln(depth) ln(moves)": ["lmr-killers value=false", "lmr-log value=100"],
        "futility pruning at depth 1": ["lmr-log value=0", "futility value=50"],
        "... to depth 2": ["futility-depth value=2"],
        "singular extensions from depth 4": ["futility value=0", "singular-depth value=4"],
        "... margin 10 a ply": ["singular-margin value=10"],
        "no internal iterative reduction": ["singular-depth value=0", "iir-depth value=0"],
        "late moves that offer a capture unreduced": ["iir-depth value=3", "lmr-offers value=true"],
        "late moves of little history reduced more": ["lmr-offers value=false",
                                                      "lmr-history value=1024"],
        "quiescence tries promotions and exchanges": ["lmr-history value=0",
                                                      "qs-exchanges value=1"],
        "... within 4 plies of the leaves": ["qs-exchanges value=4"],
        "late moves reduced at the root too": ["qs-exchanges value=0", "lmr-root value=true"],
        "the table keeps deeper entries": ["lmr-root value=false", "tt-keep-deeper value=1"],
    }
    nodes = {}
    for name, params in settings.items():
        engine.send(*[f"set-param name={p}" for p in params], "new-game",
                    f'pos pos={START} moves="32-28 19-23 28x19 14x23"', "level depth=8", "go think")
        lines = engine.read_until("done")
        check_done(lines[-1], pos)
        nodes[name] = int(re.search(r"nodes=(\d+)", lines[-2]).group(1))
    # Every setting is applied: each changes the search from the one before it. (Two settings
    # far apart may meet at one count: with international-4 two of them search 13,519 nodes.)
    counts = list(nodes.values())
    assert all(a != b for a, b in zip(counts, counts[1:])), nodes
    # Verification searches reach a depth where they verify in turn from depth 10 or so
    # (ungated: a gated verification inside another is rare).
    # So does the verification tried after the table's probe (at depth 8 it changed nothing).
    deep = {}
    for nested, tt_first in (("true", "false"), ("false", "false"), ("true", "true")):
        engine.send("set-param name=threshold-gate value=false", "set-param name=lmr-depth value=3", "set-param name=lmr-moves value=2",
                    "set-param name=lmr-pv-moves value=2", "set-param name=lmr-two-moves value=0",
                    "set-param name=lmr-killers value=false", "set-param name=lmr-log value=0",
                    "set-param name=futility value=0", "set-param name=singular-depth value=0",
                    "set-param name=iir-depth value=0", "set-param name=lmr-offers value=false",
                    "set-param name=lmr-history value=0", "set-param name=qs-exchanges value=0",
                    "set-param name=lmr-root value=false", "set-param name=tt-keep-deeper value=0",
                    f"set-param name=threshold-tt-first value={tt_first}",
                    f"set-param name=threshold-nested value={nested}", "new-game",
                    f'pos pos={START} moves="32-28 19-23 28x19 14x23"', "level depth=11", "go think")
        lines = engine.read_until("done")
        deep[nested, tt_first] = int(re.search(r"nodes=(\d+)", lines[-2]).group(1))
    assert len(set(deep.values())) == 3, deep
    engine.send("quit")
    assert engine.close() == 0


def test_two_threads_answer_every_level_form_ponder_analyze_and_stop():
    engine = HubTranscript()
    engine.send("hub")
    engine.read_until("wait")
    engine.send("set-param name=threads value=2", "init")
    assert engine.read_until("ready", INIT_WAIT)[-1] == "ready"
    pos = after(start_position(), "32-28", "19-23")
    position = f'pos pos={START} moves="32-28 19-23"'
    for level in ("level depth=6", "level move-time=0.2", "level time=3 inc=0.05",
                  "level moves=20 time=5", "level nodes=20000"):
        engine.send(position, level, "go think")
        check_done(engine.read_until("done")[-1], pos)
    for mode in ("go ponder", "go analyze"):
        engine.send(position, "level time=60 inc=1", mode)
        assert INFO.fullmatch(engine.read())
        engine.send("stop")
        check_done(engine.read_until("done")[-1], pos)
    engine.send("ping")
    assert engine.read_until("pong") == ["pong"]
    engine.send("quit")
    assert engine.close() == 0


# ----- perft extension ----------------------------------------------------------------------

def perft_cases():
    data = load_reference()
    seen, cases = set(), []
    for entry in data:
        key = (entry["fen"], entry["depth"])
        if (entry["variant"] == "international" and entry.get("dup_captures_once")
                and entry["nodes"] <= 50_000 and key not in seen):
            seen.add(key)
            cases.append(pytest.param(entry["fen"], entry["depth"], entry["nodes"],
                                      id=f'{entry["position"]}-d{entry["depth"]}'))
    return cases


@pytest.mark.parametrize("fen,depth,nodes", perft_cases())
def test_perft_extension_matches_reference_counts(hub, fen, depth, nodes):
    hub.send(f'pos pos="{fen}"', f"perft depth={depth}")
    lines = hub.read_until("perft ")
    total = int(re.fullmatch(r"perft nodes=(\d+) time=\d+\.\d{3}", lines[-1]).group(1))
    assert total == nodes
    counts = {}
    for text in lines[:-1]:
        m = re.fullmatch(r"info move=(\S+) nodes=(\d+)", text)
        counts[m.group(1)] = int(m.group(2))
    assert set(counts) == hub_moves(parse_position(fen))
    assert sum(counts.values()) == nodes


def test_perft_needs_a_depth(hub):
    needs = 'error message="perft needs depth=N with 0 <= N <= 64"'
    assert hub.exchange("pos start", "perft") == [needs]
    assert hub.exchange("perft depth=-1") == [needs]
    assert hub.exchange("perft depth=65") == [needs]
    assert hub.exchange("perft depth=1e19") == [needs]
    hub.send("perft depth=0")
    lines = hub.read_until("perft ")
    assert len(lines) == 1 and re.fullmatch(r"perft nodes=1 time=\d+\.\d{3}", lines[0])


def test_random_junk_never_stops_the_engine(hub):
    """Seeded fuzz: fragments of real commands in random order, then a clean game."""
    import random
    rng = random.Random(20261121)
    words = ["pos", "pos=", f"pos={START}", "pos=W:W31:B1", 'moves="32-28 19-23"', "moves=",
             '"', "=", "start", "level", "depth=1", "nodes=50", "move-time=0.01", "time=-1",
             "inc=x", "go", "think", "ponder", "analyze", "stop", "ping", "ponder-hit",
             "set-param", "name=tt-size", "value=99", "name=variant", "value=frisian",
             "perft", "depth=1", "new-game", "\t", "é", "x" * 300, "32-28", "28x19x23"]
    allowed = ('info ', 'done', 'pong', 'perft ', 'error message="bad position',
               'error message="illegal move', 'error message="perft needs')
    pings = 1
    for _ in range(300):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 5)))
        pings += text.split()[:1] == ["ping"]
        hub.send(text)
    hub.send("stop", "set-param name=variant value=normal", "ping")
    for _ in range(pings):
        for text in hub.read_until("pong")[:-1]:
            assert text.startswith(allowed), text
    assert hub.exchange("stop", "pos start") == []
    assert root_moves(hub) == hub_moves(start_position())


def test_a_long_perft_answers_ping_and_ends_on_stop(hub):
    hub.send("pos start", "perft depth=15")
    time.sleep(0.3)
    asked = time.monotonic()
    assert hub.exchange() == []                      # ping is answered during the count
    hub.send("stop")
    assert hub.read_until("error") == ['error message="perft stopped after 0 of 9 root moves"']
    assert time.monotonic() - asked < 5              # (not hours: the count polls its flag)
    assert hub.exchange("pos start") == []
    assert root_moves(hub) == hub_moves(start_position())


# ----- process life -------------------------------------------------------------------------

def test_help_is_a_usage_text_and_a_closed_pipe_ends_quietly():
    run = subprocess.run("rafle hub --help | head -1", shell=True, capture_output=True,
                         text=True, timeout=60)
    assert run.stdout == "usage: rafle hub\n" and run.stderr == ""
    full = subprocess.run(["rafle", "hub", "--help"], capture_output=True, text=True, timeout=60)
    assert "set-param" in full.stdout and "§" not in full.stdout and "spec" not in full.stdout


def test_end_of_input_ends_a_long_perft_at_once():
    engine = HubProcess()
    engine.send("hub", "init", "pos start", "perft depth=15")
    engine.read_until("ready", INIT_WAIT)
    time.sleep(0.3)
    started = time.monotonic()
    assert engine.close() == 0 and time.monotonic() - started < 10

def test_end_of_input_exits_while_idle_and_while_searching():
    idle = HubProcess()
    idle.send("hub")
    idle.read_until("wait")
    assert idle.close() == 0
    busy = HubProcess()
    busy.send("hub", "init", "pos start", "level infinite", "go think")
    busy.read_until("info", INIT_WAIT)
    assert busy.close() == 0


def test_quit_exits_and_nothing_reaches_stderr():
    engine = HubProcess(stderr=subprocess.PIPE)
    engine.send("hub", "set-param name=bogus value=1", "init", "pos pos=nonsense", "foo",
                "pos start", "level depth=2", "go think")
    lines = engine.read_until("done", INIT_WAIT)
    assert lines[0].startswith("id ") and "ready" in lines
    engine.send("quit")
    assert engine.read() is None
    assert engine.proc.wait(timeout=WAIT) == 0
    assert engine.proc.stderr.read() == b""


# ----- the Hub's own check of its move ------------------------------------------------------

def test_done_is_checked_against_the_moves_the_game_allows():
    """Frisian: after three quiet moves of the king on 5 (now on 9) it may not move again."""
    from protocol.hub.jobs import allowed_moves, done_line
    frisian = get_variant("frisian")
    positions = [parse_position("W:WK5,47:B16", frisian)]
    for text in "5-10 16-21 10-14 21-27 14-9 27-32".split():
        positions.append(play(positions[-1], move_from_hub(positions[-1], text)))
    pos = positions[-1]
    board = legal_moves(pos)
    assert {m.frm for m in board} == {9, 47}
    assert {m.frm for m in allowed_moves(positions[:-1], pos)} == {47}
    assert allowed_moves(positions[-3:-1], pos) == board              # too few plies known
    barred = [m for m in board if m.frm == 9][0]
    never = type("Log", (), {"note": lambda self, text: None})()
    assert done_line(never, positions, barred, None).startswith("done move=47-")
    assert done_line(never, [start_position()], None, None).startswith("done move=")


def test_levels_beyond_a_clock_or_the_node_counter_are_clamped_not_refused(hub):
    # level nodes=1e19 used to answer at once with no search; move-time=1e10 used to kill
    # the timer thread.  Both now search, and stop still ends them.
    hub.send("set-param name=book value=false")     # the start is in the book: search it
    for level in ("level nodes=1e19", "level nodes=9223372036854775807", "level move-time=1e10"):
        hub.send("pos start", level, "go think")
        assert hub.read_until("info")[-1].startswith("info depth=")
        hub.send("stop")
        assert hub.read_until("done")[-1].startswith("done move=")
    hub.send("set-param name=book value=true")


def test_the_largest_table_fits_in_memory():
    import os
    tt = next(o for o in OPTIONS if o.name == "tt-size")
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 16 << int(tt.max) <= memory // 2 and int(tt.max) >= 22


def test_name_value_arguments_are_initial_parameters():
    """lidraughts-bot passes its engine_options as `--name=value` arguments: they set the
    parameters (declared with those values), unknown ones are ignored, and the client's own
    set-param still comes after them."""
    run = subprocess.run([shutil.which("rafle"), "hub", "--threads=2", "--eval=hand",
                          "--book-ply=20", "--variant=russian", "--no-such=1", "--tt-size=x",
                          "stray"],
                         input="hub\nset-param name=book-ply value=12\nhub\ninit\nquit\n",
                         capture_output=True, text=True, timeout=INIT_WAIT)
    assert run.returncode == 0 and run.stderr == ""
    out = run.stdout.splitlines()
    first, rest = out[:out.index("wait") + 1], out[out.index("wait") + 1:]
    second = rest[:rest.index("wait") + 1]

    def declared(lines):
        return {tokenize(t).get("name"): tokenize(t).get("value") for t in lines if t.startswith("param")}
    for lines in (first, second):
        values = declared(lines)
        assert (values["threads"], values["eval"], values["variant"]) == ("2", "hand", "russian")
        assert values["tt-size"] == str(next(o for o in OPTIONS if o.name == "tt-size").default)
    assert declared(first)["book-ply"] == "20" and declared(second)["book-ply"] == "12"
    assert rest[-2:] == [f"init eval=hand egdb={egdb_found('russian')}", "ready"]
