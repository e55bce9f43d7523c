"""Perft on a CUDA GPU: the subtrees of a divide counted by a numba.cuda kernel.

Only ``rafle perft --gpu`` imports this module (through the face's :func:`gpu_counter`;
:func:`engine.load` leaves it out), so a plain install never loads ``numba.cuda``.

One set of rules for both: the kernel's threads walk their subtrees with
:func:`engine.counting.walk`, the CPU perft's own walk on an explicit stack (no recursion),
and the move generator, copy-make and bulk counts under it, which numba.cuda compiles for
the device (an ``@njit`` function called from a kernel becomes a device function).  So the
GPU counts what the CPU counts, in every variant and in both capture conventions.

A count: :func:`engine.divide.perft_divide` cuts the tree into a few subtrees (Python
objects, which the divide adds up by root move) and hands them to the counter made here.
The counter cuts them further on the CPU into a frontier of positions, rows of an array
(:func:`engine.counting.children`), until there are several rows per GPU thread, and
launches :func:`_count_rows`: each thread takes rows from a shared queue (an atomic
counter), those with most moves first, and walks each on its own scratch in device memory
(move lists, the capture search's stack, the walk's stack).  The host adds the rows'
counts, each times the paths that lead to its row, up by subtree.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, as the tests run it) the kernel
runs on Python threads, and :func:`_plain` hands the jitted rules the numpy arrays under
the simulator's wrappers, which jitted code cannot take.
"""
from __future__ import annotations

import warnings
from itertools import groupby

import numpy as np
from numba import config

from . import counting
from .divide import Subtree, SubtreeCounter
from .errors import NoGpu
from .movegen import _PATHS, MAX_MOVES, STATE_SIZE, new_move_buffer, new_state
from .position import start_position

# numba-cuda 0.30 registers overloads of numpy names that numpy 2.5 removed (np.row_stack
# at import, seen on a GPU machine with numba-cuda 0.30.4 and numpy 2.5.2): give them their
# successors' functions so that the CUDA target loads.
for _old, _new in (("row_stack", "vstack"), ("trapz", "trapezoid"), ("in1d", "isin")):
    with warnings.catch_warnings():   # numpy 2.0-2.4 warn on their deprecated names
        warnings.simplefilter("ignore")
        if not hasattr(np, _old) and hasattr(np, _new):
            setattr(np, _old, getattr(np, _new))

try:
    from numba import cuda
except Exception as exc:     # no CUDA target in numba nor numba-cuda; a bad NUMBA_CUDA_DRIVER...
    cuda = None
    _NO_CUDA = "numba.cuda cannot be loaded: " + " ".join(str(exc).split())

SIMULATED = bool(config.ENABLE_CUDASIM)
BLOCK = 8 if SIMULATED else 64        # threads per block (the simulator runs each as a thread)
THREADS_PER_SM = 256                  # threads launched per multiprocessor, at most
ROWS_PER_THREAD = 8                   # rows per thread in a launch: the queue balances them
MEMORY_SHARE = 0.5                    # of the device's free memory, for the threads' scratch


def _plain_sim(a):
    return a._item._ary


def _plain_gpu(a):
    return a


if cuda is None:
    _plain = _plain_gpu
elif SIMULATED:
    _plain = _plain_sim
else:
    _plain = cuda.jit(device=True)(_plain_gpu)


def _count_rows(rows, depth, bulk, paths, V, S, bufs, states, stacks, stop, queue, counts):
    """Each thread takes the next row from ``queue`` and counts it, until none is left."""
    t = cuda.grid(1)
    if t >= bufs.shape[0]:
        return
    buf = _plain(bufs[t])
    state = _plain(states[t])
    stack = _plain(stacks[t])
    V = _plain(V)
    S = _plain(S)
    stop = _plain(stop)
    state[_PATHS] = paths
    i = cuda.atomic.add(queue, 0, 1)
    while i < rows.shape[0]:
        counts[i] = counting.walk(rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3], depth, bulk,
                                  V, S, buf, state, stop, stack)
        i = cuda.atomic.add(queue, 0, 1)


_COUNT_ROWS = None if cuda is None else cuda.jit(cache=not SIMULATED)(_count_rows)


def gpu_name() -> str:
    """The GPU that counts (NoGpu if none can)."""
    device = _device()
    name = getattr(device, "name", b"CUDA simulator")
    return name.decode() if isinstance(name, bytes) else str(name)


def _device():
    if cuda is None:
        raise NoGpu(_NO_CUDA)
    try:
        return cuda.current_context().device   # raises without a driver or a device
    except Exception as exc:          # numba's CudaSupportError, CudaDriverError...
        raise NoGpu(" ".join(str(exc).split()).rstrip(" :") or type(exc).__name__) from None


def _scratch_bytes(depth: int) -> int:
    """Device memory one thread walks a subtree of ``depth`` plies with."""
    return 8 * (depth * MAX_MOVES * 4 + STATE_SIZE + depth * counting.WALK_STACK)


def _most_threads(device) -> int:
    if SIMULATED:
        return BLOCK
    return getattr(device, "MULTIPROCESSOR_COUNT", 1) * THREADS_PER_SM


def new_scratch(depth: int, rows: int, most: int) -> tuple:
    """Scratch in device memory for the threads of launches that walk ``rows`` rows of
    ``depth`` plies: per thread, its move lists, capture-search state and walk stack.  As
    many threads as there are rows, at most ``most`` and what half the free memory holds."""
    depth = max(depth, 1)
    free = cuda.current_context().get_memory_info()[0]
    fit = int(min(free * MEMORY_SHARE, 1 << 62) // _scratch_bytes(depth))
    n = min(most, fit, -(-rows // BLOCK) * BLOCK)
    if n < 1:
        raise NoGpu(f"too little device memory for a walk of {depth} plies")
    return (cuda.device_array((n, depth, MAX_MOVES, 4), dtype=np.int64),
            cuda.device_array((n, STATE_SIZE), dtype=np.int64),
            cuda.device_array((n, depth, counting.WALK_STACK), dtype=np.int64))


def launch(rows: np.ndarray, depth: int, bulk: bool, paths: bool, variant,
           scratch: tuple) -> np.ndarray:
    """The count of each row's subtree of ``depth`` plies (``rows`` as in
    :func:`engine.counting.children`; their paths are not applied), one launch on the
    threads of ``scratch`` (:func:`new_scratch`)."""
    n = scratch[0].shape[0]
    d_rows = cuda.to_device(np.ascontiguousarray(rows[:, :4]))
    counts = cuda.device_array(len(rows), dtype=np.int64)
    queue = cuda.to_device(np.zeros(1, dtype=np.int64))
    stop = cuda.to_device(np.zeros(1, dtype=np.int64))
    V, S = cuda.to_device(variant.table), cuda.to_device(variant.steps)
    with warnings.catch_warnings():   # a small count's few blocks: numba warns on stderr
        warnings.filterwarnings("ignore", message=".*under-utilization")
        _COUNT_ROWS[-(-n // BLOCK), BLOCK](d_rows, depth, bool(bulk), int(paths), V, S,
                                          *scratch, stop, queue, counts)
    out = counts.copy_to_host()
    if (out < 0).any():
        raise RuntimeError("a GPU walk stopped before its end")
    return out


def gpu_counter(bulk: bool = True, paths: bool = False,
                threads: int | None = None) -> SubtreeCounter:
    """A counter of subtrees on the GPU, for :func:`engine.perft_divide`'s
    ``count_subtrees``.  Raises NoGpu (the reason in its message) where no CUDA GPU can
    count.  Compiles the kernel now (the first time tens of seconds; numba caches it).
    ``threads``: GPU threads per launch (default: as many as the device holds well)."""
    device = _device()
    most = threads or _most_threads(device)
    for _ in _count_group([Subtree(0, 1, start_position(), 2, "")], bulk, paths, BLOCK):
        pass                          # compiles (or loads) every kernel on the way

    def count(tasks: list[Subtree]):
        for _, group in groupby(tasks, key=lambda t: (id(t.pos.variant), t.depth)):
            yield from _count_group(list(group), bulk, paths, most)
    return count


def _count_group(tasks: list[Subtree], bulk: bool, paths: bool, most: int):
    """Subtrees of one variant and depth: cut into rows, counted a launch at a time, each
    launch a run of consecutive subtrees with enough rows for every thread."""
    variant, depth = tasks[0].pos.variant, tasks[0].depth
    buf, state = new_move_buffer(1)[0], new_state(paths)
    rows = np.array([[*t.pos.words, 1, i] for i, t in enumerate(tasks)], dtype=np.int64)
    want = ROWS_PER_THREAD * most
    while depth > 1 and 0 < len(rows) < want:
        rows = counting.children(rows, variant.table, variant.steps, buf, state)
        depth -= 1
    # Subtree j's rows are starts[j]:starts[j + 1] (the rows keep their subtrees' order).
    starts = np.searchsorted(rows[:, 5], np.arange(len(tasks) + 1))
    scratch = new_scratch(depth, len(rows), most) if len(rows) else None
    first = 0
    while first < len(tasks):
        last = first + 1
        while last < len(tasks) and starts[last] - starts[first] < want:
            last += 1
        sums = _count_slice(rows[starts[first]:starts[last]], depth, bulk, paths, variant,
                            scratch, buf, state, first, last - first)
        for j in range(first, last):
            yield tasks[j], int(sums[j - first])
        first = last


def _count_slice(rows, depth, bulk, paths, variant, scratch, buf, state, first, n):
    """The counts of subtrees ``first`` .. ``first + n - 1`` from their rows: one launch,
    the rows with most moves first (they tend to have the largest subtrees)."""
    sums = np.zeros(n, dtype=np.int64)
    if len(rows) == 0:
        return sums
    moves = counting.move_counts(rows, variant.table, variant.steps, buf, state)
    order = np.argsort(-moves, kind="stable")
    counts = np.empty(len(rows), dtype=np.int64)
    counts[order] = launch(rows[order], depth, bulk, paths, variant, scratch)
    np.add.at(sums, rows[:, 5] - first, counts * rows[:, 4])
    return sums
