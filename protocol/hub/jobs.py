"""What the Hub runs in the background while it keeps reading its input: the engine's load,
``init``'s warm-up, a search and a perft.  Each is a ``concurrent.futures.Future``, done once
its last line is written; the Hub waits on it, or stops it through the searcher."""
from __future__ import annotations

import threading
import time
import traceback
from concurrent.futures import Future

import engine

from .stdio import Output
from .wire import error_line, info_line, line


def in_background(work, name: str) -> Future:
    """Run ``work()`` in a daemon thread; its result (or exception) arrives in the future.

    Not a ``ThreadPoolExecutor``: its threads are joined at exit, and end of input must not
    wait for a compile or a perft to finish.
    """
    future: Future = Future()
    future.set_running_or_notify_cancel()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as exc:   # handed to whoever waits on the future
            future.set_exception(exc)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


def load_searcher(out: Output) -> Future:
    """Import the engine's kernels and build a ``Searcher``, in the background (numba loads
    while the GUI sends ``set-param`` and ``init``); load failures go to the log."""
    def load():
        try:
            engine.load()
            return engine.Searcher()
        except BaseException:
            out.note(traceback.format_exc())
            raise
    return in_background(load, "engine-loader")


def allowed_moves(history: list, pos) -> list:
    """The moves the game allows in ``pos`` after the positions ``history``: the legal moves,
    less (Frisian) those of a king barred from a fourth quiet move in a row."""
    return engine.allowed_moves(history, pos)


def start_search(searcher, out: Output, positions: list, limits, ponder: bool, analyze: bool,
                 started: float) -> Future:
    """Start a search of ``positions[-1]`` (the game's positions before it: the rest), its
    ``info`` lines written as they come; the future is done once its ``done`` line is written."""
    pos = positions[-1]

    def on_info(info) -> None:   # called in the search thread
        try:
            pv = [engine.move_to_hub(m, pos.variant) for m in info.pv]
            out.send(info_line(info.depth, info.mean_depth, info.score, info.nodes,
                               info.time, pv, info.line))
        except Exception:  # a report must never abort the search that makes the move
            out.note(traceback.format_exc())

    finished: Future = Future()
    finished.set_running_or_notify_cancel()

    def report(search: Future) -> None:   # in the search thread, once it has ended
        try:
            result = search.result()
            move, reply = result.move, result.ponder
        except BaseException:
            out.note(traceback.format_exc())
            move = reply = None
        try:
            out.send(done_line(out, positions, move, reply))
        finally:
            finished.set_result(None)

    searcher.start(pos, positions[:-1], limits, on_info=on_info, ponder=ponder,
                   analyze=analyze, started=started).add_done_callback(report)
    return finished


def done_line(out: Output, positions: list, move, reply) -> str:
    """``done move=X [ponder=Y]``; a bare ``done`` only when the game allows no move."""
    pos = positions[-1]
    allowed = allowed_moves(positions[:-1], pos)
    if move not in allowed:
        if move is not None:
            out.note(f"search returned an illegal move {move}")
        # Never lose a game to a fault: any legal move beats none.
        move = allowed[0] if allowed else None
    if move is None:
        return "done"
    text = f"done move={engine.move_to_hub(move, pos.variant)}"
    if reply is not None and reply in allowed_moves(positions, engine.play(pos, move)):
        text += f" ponder={engine.move_to_hub(reply, pos.variant)}"
    return text


def start_perft(out: Output, pos, depth: int, stop) -> Future:
    """Count the ``depth``-ply move sequences from ``pos``: an ``info`` line per root move,
    then the ``perft`` line; the future is done after it.  ``engine.set_stop(stop)`` ends
    the count within milliseconds with an ``error`` line saying how far it got."""
    def run() -> None:
        try:
            _perft(out, pos, depth, stop)
        except BaseException:   # to the log; the Hub goes on
            out.note(traceback.format_exc())
            raise
    return in_background(run, "hub-perft")


def _perft(out: Output, pos, depth: int, stop) -> None:
    start = time.perf_counter()

    def counted(tally, root: int) -> None:   # one line per move as soon as it is counted
        if tally.finished(root):
            out.send(line("info", ("move", engine.move_to_hub(tally.moves[root], pos.variant)),
                          ("nodes", str(tally.per_root[root]))))

    # One subtree per root move, counted in order: the lines come in generation order.
    result = engine.perft_divide(pos, depth, stop=stop, plies=1, on_count=counted)
    if result.stopped:
        out.send(error_line(f"perft stopped after {result.done} of {len(result.counts)} "
                            "root moves"))
        return
    elapsed = time.perf_counter() - start
    out.send(line("perft", ("nodes", str(result.nodes)), ("time", f"{elapsed:.3f}")))
