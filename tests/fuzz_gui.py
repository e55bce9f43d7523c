"""Fuzz the board's WebSocket (``rafle gui``), the ``gui`` surface of :mod:`tests.fuzz`:

    python -m tests.fuzz --surface gui --count 100000 [--seed 1] [--engine "scan hub"]

A real ``rafle gui`` (its own scratch ``--state-dir``) is sent, in batches on one game id,
requests made from a corpus of valid ones: values of the wrong type, keys dropped or added,
unknown types, requests out of order (moves while the engine thinks, undo at the start,
``stop`` with nothing running, answers to draw offers nobody made), JSON broken as text,
deeply nested JSON, binary frames and oversized messages.  After each batch:

* liveness: a marker request must be answered (within ``--timeout``);
* no traceback or internal error: the server's stderr stays empty of them, no ``error``
  message says "internal error", the connection was not dropped;
* the game is kept: the engines are paused, and the state the page sees must be the state a
  fresh connection to the same id gets (the saved game), with a record legal by Rafle's rules.

At the end the server is restarted on the same state directory and must give the same game.
"""
from __future__ import annotations

import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from engine import BadInput, Game, get_variant, move_from_pdn, parse_position

PDN = '[White "A"]\n[Black "B"]\n\n1. 32-28 19-23 2. 28x19 14x23 3. 33-29 *\n'
HUMANS = {"white": {"kind": "human"}, "black": {"kind": "human"}}
CORPUS: list[dict] = [
    {"type": "hello"}, {"type": "new", **HUMANS},
    {"type": "new", "white": {"kind": "human"}, "black": {"kind": "engine", "level": "easy"}},
    {"type": "new", "variant": "russian", "fen": "W:Wc3,e3:Bd6,f6", **HUMANS},
    {"type": "new", "clock": {"kind": "fischer", "base": 60, "inc": 1}, **HUMANS},
    {"type": "new", "clock": {"kind": "sudden", "base": 0.3}, **HUMANS},
    {"type": "new", "clock": {"kind": "moves", "moves": 3, "base": 5},
     "white": {"kind": "engine", "level": "easy"}, "black": {"kind": "engine", "level": "easy"}},
    {"type": "new", "clock": {"kind": "movetime", "movetime": 0.5}, "names": {"white": "Ann"}},
    {"type": "move", "text": "32-28"}, {"type": "move", "text": "19-23"},
    {"type": "move", "text": "28x19"}, {"type": "move", "from": 33, "to": 28},
    {"type": "move", "from": 42, "to": 48, "path": [29, 12, 26, 48]},
    {"type": "undo"}, {"type": "undo", "single": True}, {"type": "redo"}, {"type": "goto", "ply": 1},
    {"type": "goto", "ply": 0}, {"type": "play", "on": True}, {"type": "play", "on": False},
    {"type": "go"}, {"type": "stop"}, {"type": "analyze", "on": True}, {"type": "analyze", "on": False},
    {"type": "speed", "delay": 0}, {"type": "speed", "delay": 0.2},
    {"type": "fen", "fen": "W:W31-50:B1-20"}, {"type": "fen", "fen": "W:WK47:BK4"},
    {"type": "load", "text": PDN}, {"type": "save"}, {"type": "restart"},
    {"type": "load", "text": "1. 32-28! (1. 33-29 $1 18-23) 19-23 $14 2. 28x19 (2. 37-32?) 14x23 *"},
    {"type": "peek", "ply": 0, "moves": ["33-29"]}, {"type": "promote", "ply": 0, "moves": ["33-29"]},
    {"type": "promote", "ply": 2, "moves": ["28x19", "14x23"]}, {"type": "lines", "count": 2},
    {"type": "resign"}, {"type": "resign", "side": "black"}, {"type": "draw"},
    {"type": "draw", "action": "accept"}, {"type": "draw", "action": "decline"},
    {"type": "names", "white": "Ann", "black": "Bob"},
    {"type": "players", "black": {"kind": "engine", "level": "depth 2"}},
    {"type": "players", "white": {"kind": "engine", "level": "time 0.2"}},
    {"type": "review", "on": True}, {"type": "review", "on": False}, {"type": "learn", "on": True},
    {"type": "learn", "on": False}, {"type": "puzzles", "from": "review"},
    {"type": "puzzles", "name": "p.json", "text": json.dumps([{"fen": "W:W27,31,39:B16,18,22",
                                                               "solution": ["27-21"], "gain": 1}])},
    {"type": "puzzle", "index": 0}, {"type": "puzzle", "on": False},
    {"type": "restore", "saved": {"format": "rafle-board-game", "version": 1, "variant": "international",
                                  "start": "W:W31-50:B1-20", "moves": ["32-28", "19-23"], "ply": 1,
                                  "players": HUMANS, "table": {}}},
]
VALUES = [None, True, False, 0, -1, 1, 7, 51, 2 ** 70, -1e308, 1e308, float("nan"), float("inf"),
          "", "x", "32-28", "white", "engine", "fischer", "é" * 50, "\x00", "x" * 5000, [], {},
          [1, 2, 3], [[]], {"kind": "engine"}, {"kind": "moves", "moves": 10 ** 9, "base": 1}]


def _value(rng: random.Random, depth: int = 0):
    if depth < 2 and rng.random() < 0.15:
        return ([_value(rng, depth + 1) for _ in range(rng.randint(0, 3))] if rng.random() < 0.5
                else {rng.choice(["kind", "level", "base", "x"]): _value(rng, depth + 1)})
    return rng.choice(VALUES)


def _tweak(rng: random.Random, obj: dict) -> dict:
    """One structural change: a value replaced, a key dropped or added, the type changed."""
    obj = json.loads(json.dumps(obj))
    keys = list(obj)
    op = rng.randrange(5)
    if op == 0 and keys:
        obj[rng.choice(keys)] = _value(rng)
    elif op == 1 and keys:
        obj.pop(rng.choice(keys))
    elif op == 2:
        obj[rng.choice(["from", "to", "ply", "on", "side", "action", "clock", "saved", "zz"])] = _value(rng)
    elif op == 3:
        obj["type"] = rng.choice([_value(rng), rng.choice(CORPUS)["type"] + "x", "__init__", "HANDLERS"])
    else:
        for value in obj.values():            # inside a nested object
            if isinstance(value, dict) and value:
                value[rng.choice(list(value))] = _value(rng)
                break
    return obj


def message(rng: random.Random) -> str | bytes:
    """One WebSocket message: mostly JSON requests, valid or not; now and then worse."""
    from tests.fuzz import mutate          # the text mutator the other surfaces use
    roll = rng.random()
    base = rng.choice(CORPUS)
    if roll < 0.35:
        return json.dumps(base)
    if roll < 0.75:
        obj = base
        for _ in range(rng.randint(1, 3)):
            obj = _tweak(rng, obj)
        return json.dumps(obj)
    if roll < 0.93:
        return mutate(rng, [json.dumps(base)])
    if roll < 0.96:
        return "[" * rng.choice((100, 5000, 100_000)) + "]" * rng.choice((0, 100))
    if roll < 0.99:
        return json.dumps(base).encode("utf-8") + bytes(rng.randrange(256) for _ in range(8))
    return json.dumps({"type": "load", "text": "x" * rng.choice((1_100_000, 2_100_000))})


class Server:
    """``rafle gui`` on a free port, its stderr in a file."""

    def __init__(self, state_dir: str, engine: str | None):
        self.err = tempfile.TemporaryFile()
        argv = [sys.executable, "-m", "protocol.cli", "gui", "--no-browser", "--state-dir", state_dir]
        self.proc = subprocess.Popen(argv + (["--engine", engine] if engine else []),
                                     stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if not found:
            raise SystemExit(f"rafle gui did not start: {line!r}")
        self.url = found.group(0).replace("http", "ws") + "/ws"

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read().decode("utf-8", "replace")

    def close(self) -> bool:
        """Stop the server; False if it did not stop on SIGTERM (it is killed then)."""
        self.proc.terminate()
        try:
            self.proc.wait(20)
            return True
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return False


class Connection:
    """One page: a reader thread drains the server's messages into a queue."""

    def __init__(self, url: str, game: str | None):
        from websockets.sync.client import connect
        self.ws = connect(url + (f"?game={game}" if game else ""), max_size=None,
                          open_timeout=30, close_timeout=2).__enter__()
        self.inbox: queue.Queue = queue.Queue()
        self.dropped = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self.ws:
                self.inbox.put(json.loads(raw))
        except Exception:      # noqa: BLE001 -- closed by the server (1009: too big) or by us
            self.dropped = True
        self.inbox.put(None)

    def send(self, data) -> bool:
        try:
            self.ws.send(data)
            return True
        except Exception:      # noqa: BLE001
            return False

    def until(self, test, timeout: float, seen: list | None = None) -> dict | None:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                m = self.inbox.get(timeout=left)
            except queue.Empty:
                return None
            if m is None:
                return None
            if seen is not None:
                seen.append(m)
            if test(m):
                return m
        return None

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:      # noqa: BLE001
            pass


KEPT = ("variant", "fen", "ply", "players", "player_names")


def legal(state: dict) -> bool:
    """The saved record replays by Rafle's rules."""
    try:
        variant = get_variant(state["saved"]["variant"])
        game = Game(parse_position(state["saved"]["start"], variant), variant)
        for text in state["saved"]["moves"]:
            game.push(move_from_pdn(game.position, text))
    except (BadInput, KeyError, TypeError):
        return False
    return True


def settled(conn: Connection, n: int, timeout: float, seen: list) -> dict | None:
    """Pause the engines, then the page's state after a marker (None: no answer)."""
    for m in ({"type": "play", "on": False}, {"type": "analyze", "on": False},
              {"type": f"marker-{n}"}, {"type": "hello"}):
        conn.send(json.dumps(m))
    marker = conn.until(lambda m: m["type"] == "error" and f"marker-{n}" in m["message"], timeout,
                        seen)
    if marker is None:
        return None
    return conn.until(lambda m: m["type"] == "state", timeout, seen)


def fuzz_gui(args, tally) -> None:
    rng = random.Random(args.seed)
    scratch = tempfile.mkdtemp(prefix="rafle-fuzz-gui-")
    server = Server(scratch, getattr(args, "engine", None))
    first = Connection(server.url, None)
    setup = first.until(lambda m: m["type"] == "setup", args.timeout)
    game = setup["game"] if setup else None
    first.close()
    last_state = None
    told = 0                                         # characters of stderr already counted
    try:
        while tally.inputs < args.count and game:
            n = min(args.batch, args.count - tally.inputs)
            conn = Connection(server.url, game)
            seen: list = []
            for _ in range(n):
                if not conn.send(message(rng)):
                    conn.close()                     # dropped (e.g. 1009): a new page
                    conn = Connection(server.url, game)
            tally.inputs += n
            tally.batches += 1
            sent = time.monotonic()
            state = settled(conn, tally.batches, args.timeout, seen)
            conn.until(lambda m: False, 0.2, seen)
            internal = [m for m in seen if m and m.get("type") == "error"
                        and "internal error" in m.get("message", "")]
            if internal:
                tally.internal_errors += len(internal)
                tally.note(internal[0]["message"][:200])
            conn.close()
            if state is None:
                tally.hangs += 1
                tally.note(f"no answer to the marker after batch {tally.batches}")
                if server.proc.poll() is not None:
                    tally.crashes += 1
                    server = Server(scratch, getattr(args, "engine", None))
                continue
            tally.worst_answer = max(tally.worst_answer, time.monotonic() - sent)
            check = Connection(server.url, game)     # the game as saved
            again = check.until(lambda m: m["type"] == "state", args.timeout)
            check.close()
            if again is None or any(again.get(k) != state.get(k) for k in KEPT) or \
                    [r["text"] for r in again["record"]] != [r["text"] for r in state["record"]] \
                    or not legal(again):
                tally.internal_errors += 1
                tally.note(f"the game was not kept after batch {tally.batches}")
            last_state = again or last_state
            err = server.stderr()[told:]
            told += len(err)
            if err.strip():
                tally.stderr_bytes += len(err.encode())
                tally.note(f"stderr after batch {tally.batches}: {err.strip().splitlines()[-1][:200]}")
            progress(tally, args)
        if not server.close():
            tally.hangs += 1
            tally.note("the server did not stop on SIGTERM within 20 s")
        if last_state is not None:                   # a restarted server gives the same game
            server = Server(scratch, getattr(args, "engine", None))
            check = Connection(server.url, game)
            again = check.until(lambda m: m["type"] == "state", args.timeout)
            check.close()
            if again is None or [r["text"] for r in again["record"]] != \
                    [r["text"] for r in last_state["record"]] or again["ply"] != last_state["ply"]:
                tally.internal_errors += 1
                tally.note("a restarted server did not give the same game")
    finally:
        server.close()
        err = server.stderr()
        if "Traceback" in err:
            tally.stderr_bytes = max(tally.stderr_bytes, len(err.encode()))
        shutil.rmtree(scratch, ignore_errors=True)


def progress(tally, args) -> None:
    if not args.quiet and tally.batches % 10 == 0:
        print(f"  gui: {tally.inputs}/{args.count} inputs, {tally.failures} failures",
              file=sys.stderr, flush=True)


if __name__ == "__main__":
    os.execv(sys.executable, [sys.executable, "-m", "tests.fuzz", "--surface", "gui"] + sys.argv[1:])
