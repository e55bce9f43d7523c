"""Starting the engine behind ``rafle hub`` without keeping the GUI waiting.

Importing numba and the engine takes longer than the 0.5 s a client should wait between
``hub`` and ``wait``.  So the engine is imported, and its ``Searcher`` built, in a background
thread (``EngineLoader``) started after ``wait``; the ``param`` declarations (the variant enum
and the searcher's options) come from ``engine.variants`` and ``engine.options``, which load
without numba.
"""
from __future__ import annotations

import threading
import traceback

from .hubwire import line


class EngineLoader:
    """Imports the engine and builds a ``Searcher`` in a thread; ``get()`` waits for it."""

    def __init__(self, out):  # out.note(text) records load failures in the log
        self.out = out
        self.thread: threading.Thread | None = None
        self.error: str | None = None
        self.engine = self.search = self.searcher = None

    def start(self) -> None:
        if self.thread is None:
            self.thread = threading.Thread(target=self._load, name="engine-loader", daemon=True)
            self.thread.start()

    def get(self) -> "EngineLoader":
        self.start()
        self.thread.join()
        if self.error:
            raise RuntimeError(f"engine failed to load: {self.error}")
        return self

    def _load(self) -> None:
        try:
            import engine
            from engine import search
            self.engine, self.search = engine, search
            self.searcher = search.Searcher()
        except BaseException as exc:  # reported by get(); the protocol keeps serving
            self.error = f"{type(exc).__name__}: {exc}"
            self.out.note(traceback.format_exc())


def param_lines() -> list[str]:
    """The ``param`` declarations: the variant enum first, then the searcher's options."""
    from engine.options import default_options  # numba-free, like engine.variants
    from engine.variants import INTERNATIONAL, VARIANTS

    names = " ".join(v.hub_name for v in VARIANTS.values())
    # values is always quoted, as the spec's examples show (pydraughts strips the quotes).
    lines = [line("param", ("name", "variant"), ("value", INTERNATIONAL.hub_name),
                  ("type", "enum")) + f' values="{names}"']
    for opt in default_options():
        pairs = [("name", opt.name), ("value", opt.default), ("type", opt.type)]
        if opt.min is not None:
            pairs.append(("min", opt.min))
        if opt.max is not None:
            pairs.append(("max", opt.max))
        text = line("param", *pairs)
        if opt.values:
            text += ' values="' + " ".join(opt.values) + '"'
        lines.append(text)
    return lines
