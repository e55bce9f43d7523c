"""``rafle bench --profile``: the perf map names the kernels' compiled functions, and the
table counts perf's samples by those names."""
import shutil
import subprocess
import sys
import weakref

import numpy as np
import pytest
from numba import njit
from numba.core.dispatcher import Dispatcher

from engine import jit_functions
from engine.profiling import readable
from protocol.tools import profile


def test_numba_names_are_made_readable():
    assert readable("_ZN6engine7negamax11search_rootB4v239B48c8tJTIeFIjxB2IKSgIE5ArrayIxE") == (
        "engine.negamax.search_root")
    assert readable("_ZN7cpython6engine4eval13windows_afterB4v478B48c8tJTI") == (
        "cpython.engine.eval.windows_after")
    assert readable("NRT_incref") == "NRT_incref"
    assert readable("_ZNX") == "_ZNX"


def test_the_map_lists_a_kernel_compiled_here_at_its_address():
    @njit(nogil=True, _nrt=False)          # not cached: compiled in this process
    def summed_by_the_profiler_test(a):
        s = 0
        for x in a:
            s += x
        return s

    assert summed_by_the_profiler_test(np.arange(4)) == 6
    library = next(iter(summed_by_the_profiler_test.overloads.values())).library
    symbol = next(fn.name for fn in library.get_defined_functions()
                  if readable(fn.name).endswith(".summed_by_the_profiler_test")
                  and not fn.name.startswith("_ZN7cpython"))
    rows = jit_functions()
    starts = [a for a, _, _ in rows]
    assert starts == sorted(starts) and all(size > 0 for _, size, _ in rows)
    named = {a: name for a, _, name in rows}
    assert named[library.get_pointer_to_function(symbol)] == readable(symbol)
    assert {"NRT_incref", "NRT_decref"} <= set(named.values())


def test_a_dead_weak_proxy_among_the_objects_is_passed_over():
    class Gone:
        pass

    proxy = weakref.proxy(Gone())          # its referent is freed at once: the proxy is dead
    with pytest.raises(ReferenceError):
        isinstance(proxy, Dispatcher)
    rows = jit_functions()                 # the dead proxy is among gc's objects meanwhile
    assert all(size > 0 for _, size, _ in rows)
    del proxy


def test_the_table_counts_the_kernels_samples_by_name():
    script = ("    7f661b261a8c engine.negamax.search_root\n"
              "    7f661b261a90 engine.negamax.search_root\n"
              "    7f661b27e31d engine.eval.windows_after\n"
              "    7f69c6056240 _PyEval_EvalFrameDefault\n"
              "    7f8b6f9f6059 NRT_incref\n"
              "    7f8b6f9f6000 [unknown]\n\n")
    counts, total = profile.kernel_shares(script)
    assert total == 4
    assert counts == {"engine.negamax.search_root": 2, "engine.eval.windows_after": 1,
                      "NRT_incref": 1}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("perf") is None, reason="Linux perf is not installed")
def test_bench_profile_prints_each_kernel_functions_share():
    out = subprocess.run([sys.executable, "-m", "protocol.cli", "bench", "--profile", "--depth",
                          "9"], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert any(line.startswith("bench: ") for line in lines)
    at = next(i for i, line in enumerate(lines) if line.startswith("profile: "))
    rows = [line.split() for line in lines[at + 1:]]
    assert rows and all(r[0].endswith("%") for r in rows)
    assert "engine.negamax.search_root" in {r[1] for r in rows}
    assert 99.0 <= sum(float(r[0][:-1]) for r in rows) <= 100.1 or len(rows) == profile.SHOWN
