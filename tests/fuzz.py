"""Fuzz Rafle's real processes with mutated input, outside CI.

    python -m tests.fuzz --surface hub|dxp|text|fen|pdn|gui --count 100000 [--seed 1]

Each surface starts the installed ``rafle`` the way a client does and feeds it inputs
made by mutating a corpus of valid ones (bytes flipped, inserted, deleted, repeated,
spliced; huge numbers; long lines; NUL and non-UTF-8 bytes), in batches.  After every
batch it checks that the process is alive and answering:

* ``hub``: Hub lines on stdin; then ``stop`` and ``ping``, which must get ``pong``;
* ``fen``: the same process, fed ``pos pos="..."`` lines with mutated FEN and Hub
  position strings (and move lists);
* ``dxp``: a follower listening on loopback; each batch is one connection of mutated
  DXP messages, then a fresh connection's GAMEREQ must get a GAMEACC;
* ``text``: text-mode lines (two human players, so the engine thinks only when asked);
  then ``fen`` must print the position;
* ``pdn``: mutated PDN files loaded in text mode, then ``fen`` as above;
* ``gui``: the board's WebSocket (``rafle gui``), see :mod:`tests.fuzz_gui`.

A process that exits, writes to stderr (Hub mode must never), reports an internal error,
or does not answer within ``--timeout`` seconds is counted (crash, stderr, internal
error, hang) and restarted.  The last line is the summary; the exit code is 1 if
anything was counted.  Inputs that would end the session on purpose (``quit``) or
write files outside the scratch folder are not sent.
"""
from __future__ import annotations

import argparse
import os
import queue
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

HUB_CORPUS = [
    "hub", "init", "ping", "new-game", "level depth=2", "level depth=1", "level move-time=0.01",
    "level nodes=2000", "level time=0.5 inc=0.01 moves=20", "level infinite", "level depth=3",
    "pos", 'pos pos="Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww"',
    'pos start moves="32-28 19-23 28x19 14x23"', 'pos pos="W:W31,32,K45:B1,2,3"',
    "go think", "go ponder", "go analyze", "stop", "ponder-hit", "go",
    "set-param name=variant value=russian", "set-param name=variant value=normal",
    "set-param name=tt-size value=18", "set-param name=threshold value=true",
    "perft depth=3", "perft depth=2", 'pos pos="W:W31-50:B1-20" moves="31-27"',
    "level move-time=1e10", "level nodes=1e19", "go think", "stop",
]
FEN_CORPUS = [
    "W:W31-50:B1-20", "B:W31,32,33,K45:B1,2,K7", "W:WK46:BK5", "W:W31-50:B1-20:H0:F1",
    "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww", "W:W21-32:B1-12", "startpos",
    "B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29", "W:Wa1,c1,e1:Bh8,f8",
]
MOVE_CORPUS = ["32-28 19-23 28x19 14x23", "31-27", "32x23", "46-41 5-10", "28x19x10", ""]
TEXT_CORPUS = [
    "32-28", "19-23", "28x19", "14x23", "3228", "28x", "undo", "redo", "moves", "hint",
    "level easy", "level depth 2", "setup W:W31-50:B1-20", "setup W:WK46:BK5", "fen", "flip",
    "goto 3", "goto 0", "replay", "save fuzz-game.pdn", "load fuzz-game.pdn", "draw", "new",
    "help", "board", "variant russian", "variant international", "analyse depth 2",
    "analyse 0.05", "stop", "",
    "resign", "hint", "depth", "time 0.01",
]
DXP_CORPUS = [
    "R01" + "Fuzzer".ljust(32) + "Z005075A",
    "R01" + "Fuzzer".ljust(32) + "W001000B" + "W" + "z" * 20 + "e" * 10 + "w" * 20,
    "M0010321800", "M00103328", "M002019230122", "E00", "E20", "CHello there", "B0012W",
    "K0", "K1", "A01Fuzzer" + " " * 26 + "0",
]
PDN_CORPUS = [
    '[Event "x"]\n[GameType "20"]\n1. 32-28 19-23 2. 28x19 14x23 *\n',
    '[GameType "20"]\n[FEN "W:W31-50:B1-20"]\n1. 31-27 {a comment} 16-21 (1... 17-21) 2. 27-22 2-0\n',
    '[GameType "25"]\n1. c3-d4 f6-g5 2. b2-c3 1-1\n',
    "1. 32-28 $1 19-23! 2. 28x19 ?? 14x23 % line comment\n; another\n0-2\n",
    '[Event "a"]\n*\n\n[Event "b"]\n1. 34-30 *\n',
]
THINKING = ("level", "depth", "time", "nodes", "analyse", "analyze", "replay", "hint")
NUMBER = re.compile(r"\d+(?:\.\d*)?(?:[eE][+-]?\d+)?")
FEN_LINE = re.compile(r"^[WB]:[WB][^:]*:[WB]")   # what text mode's ``fen`` prints
SPECIALS = ["\x00", "\xff", "\"", "=", " ", "\t", "\\", "1e19", "-1", str(2 ** 64), "nan",
            "inf", "9" * 40, "é", "\r", "x", "-", ":", "K", "W", "B"]


@dataclass
class Tally:
    surface: str
    inputs: int = 0
    batches: int = 0
    crashes: int = 0
    hangs: int = 0
    stderr_bytes: int = 0
    internal_errors: int = 0
    worst_answer: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def failures(self) -> int:
        return self.crashes + self.hangs + self.internal_errors + (self.stderr_bytes > 0)

    def liveness(self, ok: bool, proc: "Piped", sent: float, missing: str) -> bool:
        """Count one liveness check; True if the process must be restarted."""
        if ok:
            self.worst_answer = max(self.worst_answer, time.monotonic() - sent)
            return False
        if proc.proc.poll() is not None:
            self.crashes += 1
            self.note(f"exited with {proc.proc.returncode} in batch {self.batches}")
        else:
            self.hangs += 1
            self.note(f"{missing} after batch {self.batches}")
        return True

    def note(self, text: str) -> None:
        if len(self.notes) < 20:
            self.notes.append(text)


def mutate(rng: random.Random, corpus: list[str]) -> str:
    """One input: a corpus entry changed a few times, now and then left valid."""
    text = rng.choice(corpus)
    for _ in range(rng.choice((0, 1, 1, 2, 3, 5))):
        op = rng.randrange(8)
        i = rng.randrange(len(text) + 1)
        if op == 0 and text:                       # flip a character
            text = text[:i - 1] + chr(rng.randrange(1, 256)) + text[i:] if i else text
        elif op == 1:                              # insert a special token
            text = text[:i] + rng.choice(SPECIALS) + text[i:]
        elif op == 2 and text:                     # delete a span
            j = min(len(text), i + rng.randint(1, 8))
            text = text[:i] + text[j:]
        elif op == 3 and text:                     # repeat a span
            j = min(len(text), i + rng.randint(1, 12))
            text = text[:j] + text[i:j] * rng.randint(2, 50) + text[j:]
        elif op == 4:                              # splice another entry
            other = rng.choice(corpus)
            text = text[:i] + other[rng.randrange(len(other) + 1):]
        elif op == 5:                              # a number out of range
            text = text[:i] + rng.choice(["0", "-5", "1e300", str(2 ** 63), "999999999"]) + text[i:]
        elif op == 6 and rng.random() < 0.02:      # a very long input
            text = text + "x" * rng.choice((4096, 70000, 1_000_000))
        elif op == 7:                              # a random short string
            text = text[:i] + "".join(chr(rng.randrange(1, 128)) for _ in range(rng.randint(1, 6)))
    return text


def encoded(text: str) -> bytes:
    """As a client would send it: UTF-8, or raw bytes for characters 128-255 now and then."""
    try:
        return text.encode("latin-1") if random.random() < 0.3 else text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8")


# ----- a process on pipes -------------------------------------------------------------------

class Piped:
    """A child process fed on stdin; stdout lines gathered by a thread; stderr to a file."""

    def __init__(self, argv: list[str], cwd: str, env: dict | None = None):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, cwd=cwd, env=env)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        self.lines.put(None)

    def send(self, data: bytes) -> bool:
        """Write ``data`` from a thread: a child that stops reading (a full pipe) must show
        up as a missing answer, not block the fuzzer."""
        def write():
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass
        threading.Thread(target=write, daemon=True).start()
        return self.proc.poll() is None

    def wait_for(self, match, timeout: float) -> tuple[bool, list[str]]:
        """Read lines until one satisfies ``match``; (found, lines read)."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False, seen
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return False, seen
            if line is None:
                return False, seen
            seen.append(line)
            if match(line):
                return True, seen

    def stderr_bytes(self) -> int:
        self.err.seek(0, os.SEEK_END)
        return self.err.tell()

    def close(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait(5)
        except OSError:
            pass


def rafle() -> list[str]:
    exe = shutil.which("rafle")
    return [exe] if exe else [sys.executable, "-m", "protocol.cli"]


# ----- surfaces -----------------------------------------------------------------------------

def hub_inputs(rng, n, fen_only=False):
    for _ in range(n):
        if fen_only:
            pos = mutate(rng, FEN_CORPUS)
            line = f'pos pos="{pos}"' if rng.random() < 0.7 else \
                f'pos pos="{pos}" moves="{mutate(rng, MOVE_CORPUS)}"'
            if rng.random() < 0.05:
                line = rng.choice(["go think", "perft depth=2", "level depth=1"])
        else:
            line = mutate(rng, HUB_CORPUS)
        words = line.replace("\x00", " ").split()
        if words and words[0].strip().lower() == "quit":
            continue
        yield line


def fuzz_hub(args, tally: Tally, fen_only: bool) -> None:
    rng = random.Random(args.seed)
    scratch = tempfile.mkdtemp(prefix="rafle-fuzz-")
    proc = None

    def start():
        p = Piped(rafle() + ["hub"], scratch)
        p.send(b"hub\nset-param name=tt-size value=16\ninit\nlevel depth=2\n")
        ok, _ = p.wait_for(lambda s: s == "ready", 120)
        if not ok:
            raise SystemExit("rafle hub did not get ready")
        return p

    proc = start()
    inputs = hub_inputs(rng, args.count, fen_only)
    while tally.inputs < args.count:
        batch = [next(inputs, None) for _ in range(args.batch)]
        batch = [b for b in batch if b is not None]
        if not batch:
            break
        data = b"".join(encoded(line).replace(b"\n", b" ") + b"\n" for line in batch)
        alive = proc.send(data)
        tally.inputs += len(batch)
        tally.batches += 1
        sent = time.monotonic()
        alive = alive and proc.send(b"stop\nping\n")
        ok, seen = proc.wait_for(lambda s: s == "pong", args.timeout) if alive else (False, [])
        if ok:
            tally.worst_answer = max(tally.worst_answer, time.monotonic() - sent)
        errors = proc.stderr_bytes()
        if errors:
            tally.stderr_bytes += errors
            tally.note(f"stderr after batch {tally.batches}")
        if not ok or errors:
            if proc.proc.poll() is not None:
                tally.crashes += 1
                tally.note(f"exited with {proc.proc.returncode} in batch {tally.batches}")
            elif not ok:
                tally.hangs += 1
                tally.note(f"no pong in {args.timeout} s after batch {tally.batches}: "
                           f"{batch[-3:]!r}")
            proc.close()
            proc = start()
        progress(tally, args)
    proc.send(b"quit\n")
    proc.close()
    shutil.rmtree(scratch, ignore_errors=True)


def text_inputs(rng, n, pdn):
    sent = 0
    while sent < n:
        if pdn:
            sent += 1
            yield mutate(rng, PDN_CORPUS)
            continue
        line = mutate(rng, TEXT_CORPUS)
        word = line.strip().split()[0].lower() if line.strip() else ""
        if word in ("quit", "exit", "q") or (word in ("save", "load") and
                                             ("/" in line or "\\" in line or ".." in line)):
            continue
        if word in THINKING and any(float(n) > 2 for n in NUMBER.findall(line)):
            continue      # Rafle would rightly think (or wait) that long: not a hang
        sent += 1
        yield line


def fuzz_text(args, tally: Tally, pdn: bool) -> None:
    rng = random.Random(args.seed)
    scratch = tempfile.mkdtemp(prefix="rafle-fuzz-")
    env = dict(os.environ, NO_COLOR="1")

    def start():
        return Piped(rafle() + ["play", "--play", "both"], scratch, env)

    proc = start()
    inputs = text_inputs(rng, args.count, pdn)
    while tally.inputs < args.count:
        batch = [next(inputs, None) for _ in range(args.batch)]
        batch = [b for b in batch if b is not None]
        if not batch:
            break
        if pdn:
            lines = []
            for i, text in enumerate(batch):
                with open(os.path.join(scratch, f"in{i}.pdn"), "wb") as f:
                    f.write(encoded(text))
                lines.append(f"load in{i}.pdn")
        else:
            lines = batch
        data = b"".join(encoded(line).replace(b"\n", b" ") + b"\n" for line in lines)
        alive = proc.send(b"level depth 1\n" + data)   # each batch starts with quick hints
        tally.inputs += len(batch)
        tally.batches += 1
        sent = time.monotonic()
        alive = alive and proc.send(b"stop\nnew\nfen\n")
        ok, seen = proc.wait_for(lambda s: FEN_LINE.match(s) is not None, args.timeout) \
            if alive else (False, [])
        internal = [s for s in seen if "Internal error" in s]
        if internal:
            tally.internal_errors += len(internal)
            tally.note(internal[0][:200])
        if tally.liveness(ok, proc, sent, f"no answer to fen ({batch[-3:]!r})"):
            proc.close()
            proc = start()
        progress(tally, args)
    proc.close()
    shutil.rmtree(scratch, ignore_errors=True)


def frame(text: str) -> bytes:
    return encoded(text).replace(b"\x00", b"?") + b"\x00"


def fuzz_dxp(args, tally: Tally) -> None:
    rng = random.Random(args.seed)
    scratch = tempfile.mkdtemp(prefix="rafle-fuzz-")

    def start():
        p = Piped(rafle() + ["dxp", "--listen", "127.0.0.1:0", "--forever", "--depth", "1",
                             "--peer-timeout", "5"], scratch)
        ok, seen = p.wait_for(lambda s: s.startswith("listening on "), 60)
        if not ok:
            raise SystemExit(f"rafle dxp did not listen: {seen}")
        host, port = seen[-1].split()[-1].rsplit(":", 1)
        return p, (host, int(port))

    proc, address = start()
    valid = "R01" + "Liveness".ljust(32) + "Z005075A"
    while tally.inputs < args.count:
        n = min(args.batch, args.count - tally.inputs)
        batch = [mutate(rng, DXP_CORPUS) for _ in range(n)]
        try:
            with socket.create_connection(address, timeout=args.timeout) as s:
                s.sendall(b"".join(frame(m) for m in batch))
                s.shutdown(socket.SHUT_WR)
                s.settimeout(0.5)
                try:
                    while s.recv(65536):
                        pass
                except OSError:
                    pass
        except OSError as exc:
            tally.note(f"connect failed in batch {tally.batches}: {exc}")
        tally.inputs += n
        tally.batches += 1
        sent = time.monotonic()
        ok = False
        try:
            with socket.create_connection(address, timeout=args.timeout) as s:
                s.sendall(frame(valid))
                s.settimeout(args.timeout)
                got = b""
                while b"\x00" not in got:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    got += chunk
                ok = got.startswith(b"A")
                s.sendall(frame("E00"))
        except OSError:
            ok = False
        if tally.liveness(ok, proc, sent, "no GAMEACC"):
            proc.close()
            proc, address = start()
        progress(tally, args)
    proc.close()
    shutil.rmtree(scratch, ignore_errors=True)


def progress(tally: Tally, args) -> None:
    if not args.quiet and tally.batches % 10 == 0:
        print(f"  {tally.surface}: {tally.inputs}/{args.count} inputs, "
              f"{tally.failures} failures", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--surface", required=True, choices=["hub", "dxp", "text", "fen", "pdn", "gui"])
    p.add_argument("--count", type=int, default=10000, help="inputs to send (default 10000)")
    p.add_argument("--batch", type=int, default=200, help="inputs between liveness checks")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=20.0,
                   help="seconds a liveness answer may take (default 20)")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--engine", help="gui: the board's engine command (default: Rafle)")
    args = p.parse_args(argv)
    random.seed(args.seed)
    tally = Tally(args.surface)
    start = time.monotonic()
    if args.surface in ("hub", "fen"):
        fuzz_hub(args, tally, fen_only=args.surface == "fen")
    elif args.surface == "gui":
        from tests.fuzz_gui import fuzz_gui
        fuzz_gui(args, tally)
    elif args.surface in ("text", "pdn"):
        fuzz_text(args, tally, pdn=args.surface == "pdn")
    else:
        fuzz_dxp(args, tally)
    for note in tally.notes:
        print(f"  note: {note}")
    print(f"fuzz {tally.surface}: {tally.inputs} inputs in {tally.batches} batches, "
          f"{tally.crashes} crashes, {tally.hangs} hangs, {tally.internal_errors} internal errors, "
          f"{tally.stderr_bytes} stderr bytes, worst answer {tally.worst_answer * 1000:.0f} ms, "
          f"{time.monotonic() - start:.0f} s")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
