"""``rafle bench --profile``: where the search's time goes, function by function.

The bench runs again under Linux ``perf record`` (about 2,000 samples a second), with an empty
numba cache so that its kernels are compiled in that process and their functions can be named
(:func:`engine.jit_functions`); it leaves ``/tmp/perf-<pid>.map``, which ``perf script`` reads to
name each sample.  The table counts only the samples taken in the kernels (the compile's and
Python's are left out): each function's share, callees that numba inlined counted in their
caller, and numba's reference counting (``NRT_incref``, ``NRT_decref``) on lines of their own.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from engine import jit_functions

RATE = 1999               # samples a second
SHOWN = 25                # the table's rows


def write_map() -> Path:
    """Write this process's ``perf`` map of the compiled kernels; its path."""
    path = Path(tempfile.gettempdir()) / f"perf-{os.getpid()}.map"
    with path.open("w", encoding="ascii", errors="replace") as fh:
        for address, size, name in jit_functions():
            fh.write(f"{address:x} {size:x} {name}\n")
    return path


def kernel_shares(script: str) -> tuple[Counter, int]:
    """The samples of each kernel function in ``perf script -F ip,sym`` output (a sample a
    line: its address, then the function's name), and their total."""
    counts = Counter()
    for line in script.splitlines():
        name = line.split(maxsplit=1)[-1] if line.strip() else ""
        if name.startswith(("engine.", "NRT_")):
            counts[name] += 1
    return counts, sum(counts.values())


def report(depth: int, flags: list[str]) -> int:
    """Profile ``rafle bench --depth DEPTH FLAGS...`` and print the table; the exit status."""
    perf = shutil.which("perf")
    if perf is None:
        print("rafle bench --profile needs Linux perf (Debian: apt-get install linux-perf)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / "numba"))
        bench = [sys.executable, "-m", "protocol.cli", "bench", "--depth", str(depth),
                 "--perf-map", *flags]
        record = subprocess.run([perf, "record", "-q", "-F", str(RATE), "-o", str(data), "--",
                                 *bench], env=env, stdout=subprocess.PIPE, text=True)
        maps = []                 # the bench's map, named on its last line
        for line in record.stdout.splitlines():
            if line.startswith("perf map "):
                maps.append(line.split()[-1])
            else:
                print(line)
        if record.returncode != 0:
            print(f"rafle bench --profile: perf record ended with status {record.returncode}")
            return 1
        script = subprocess.run([perf, "script", "-i", str(data), "-F", "ip,sym"],
                                capture_output=True, text=True).stdout
        for path in maps:
            Path(path).unlink(missing_ok=True)
    counts, total = kernel_shares(script)
    if total == 0:
        print("rafle bench --profile: no sample named in the kernels")
        return 1
    print(f"profile: {total} samples in the kernels ({RATE} a second), by function:")
    for name, n in counts.most_common(SHOWN):
        print(f"{100 * n / total:6.1f}%  {name}")
    return 0
