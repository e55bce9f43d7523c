"""Starting the engine behind ``rafle hub`` without keeping the GUI waiting.

Importing numba and the engine takes longer than the 0.5 s a client should wait between
``hub`` and ``wait``.  So the engine is imported, and its ``Searcher`` built, in a background
thread (``EngineLoader``), and the ``param`` declarations it produces (the variant enum and
``Searcher.options()``) are cached in a small text file beside numba's own cache, keyed by
the package version and the sizes and mtimes of the engine's and this front end's sources.
A warm start answers ``hub`` from that file; any edit to the engine invalidates it.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
import traceback
from pathlib import Path

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


def param_lines(loaded: EngineLoader) -> list[str]:
    """The ``param`` declarations: the variant enum first, then the searcher's options."""
    engine = loaded.engine
    names = " ".join(v.hub_name for v in engine.VARIANTS.values())
    # values is always quoted, as the spec's examples show (pydraughts strips the quotes).
    lines = [line("param", ("name", "variant"), ("value", engine.INTERNATIONAL.hub_name),
                  ("type", "enum")) + f' values="{names}"']
    for opt in loaded.searcher.options():
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


def cache_path(version: str) -> Path | None:
    """Where the ``param`` lines of this exact build are cached, or None if unknown."""
    try:
        spec = importlib.util.find_spec("engine")  # finds the package without running it
        engine_dir = Path(spec.submodule_search_locations[0])
        parts = [version]
        here = Path(__file__).resolve().parent
        front = [here / name for name in ("hub.py", "hubstart.py", "hubwire.py")]
        for path in [*sorted(engine_dir.glob("*.py")), *front]:
            st = path.stat()
            parts.append(f"{path.parent.name}/{path.name}:{st.st_size}:{st.st_mtime_ns}")
        digest = hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]
        base = os.environ.get("NUMBA_CACHE_DIR") or str(engine_dir / "__pycache__")
        return Path(base) / f"rafle-hub-params-{digest}.txt"
    except Exception:
        return None


def cached_params(path: Path | None) -> list[str] | None:
    if path is None:
        return None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    return lines if lines and all(x.startswith("param name=") for x in lines) else None


def store_params(path: Path | None, lines: list[str]) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.replace(tmp, path)  # atomic: two engines starting together never see half a file
        for old in path.parent.glob("rafle-hub-params-*.txt"):
            if old != path:
                old.unlink(missing_ok=True)  # left by an earlier build
    except OSError:
        pass
