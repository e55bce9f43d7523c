"""Where the kernels' time goes: the machine code numba compiled, by function, for a sampling
profiler (``rafle bench --profile``).

Linux ``perf`` names code made at run time from a map a process leaves in ``/tmp/perf-<pid>.map``
(start address, size and name, one function a line).  Numba writes none, so :func:`jit_functions`
lists the functions of every kernel compiled in this process, callees linked into their callers
included, with numba's run-time helpers ``NRT_incref`` and ``NRT_decref`` (reference counts of
arrays, docs/speed.md).  A kernel loaded from numba's cache has no module left to read, so
a profiled run compiles afresh (an empty ``NUMBA_CACHE_DIR``).  No I/O here: the caller writes
the map.
"""
from __future__ import annotations

import gc

from numba.core.dispatcher import Dispatcher
from numba.core.runtime import rtsys

NRT_FUNCTIONS = ("NRT_incref", "NRT_decref")
LONGEST = 1 << 20         # a function's size is the gap to the next one, at most this


def readable(symbol: str) -> str:
    """``engine.negamax.search_root`` for numba's mangled ``_ZN6engine7negamax11search_rootB4v2...``;
    other names as they are."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    return ".".join(parts) if parts else symbol


def _compiled_libraries() -> list:
    """The code library of each kernel compiled (or loaded) in this process.  The test is on
    ``type(obj)``: ``isinstance`` asks a weak proxy for its class, and a dead one raises."""
    libraries = {}
    for obj in gc.get_objects():
        if issubclass(type(obj), Dispatcher):
            for result in list(obj.overloads.values()):
                libraries[id(result.library)] = result.library
    return list(libraries.values())


def jit_functions() -> list[tuple[int, int, str]]:
    """``(address, size, name)`` of each function of the kernels compiled in this process and
    of numba's reference-count helpers, by address; names made readable (:func:`readable`)."""
    found = {}
    for library in _compiled_libraries():       # (one loaded from the cache defines none)
        for name in [fn.name for fn in library.get_defined_functions()]:
            address = library.get_pointer_to_function(name)
            if address:
                found[address] = readable(name)
    runtime = getattr(rtsys, "_library", None)     # numba's run time, once initialised
    if runtime is not None:
        for name in NRT_FUNCTIONS:
            found[runtime.get_pointer_to_function(name)] = name
    starts = sorted(found)
    ends = starts[1:] + [starts[-1] + LONGEST] if starts else []
    return [(a, min(e - a, LONGEST), found[a]) for a, e in zip(starts, ends)]
