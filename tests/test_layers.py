"""Layers point one way: the front ends (``protocol/``) and ``perft/`` use the engine only
through its face (``engine/__init__.py``) and never import numba.  Read from the sources'
imports, so a lazy import inside a function counts as much as one at the top."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parent.parent
ENGINE_MODULES = {p.stem for p in (ROOT / "engine").glob("*.py") if p.stem != "__init__"}
FRONT_FILES = sorted(p for package in ("protocol", "perft") for p in (ROOT / package).rglob("*.py"))


def layer_faults(source: str) -> list[str]:
    """Each import in ``source`` that walks around the engine face or loads numba."""
    faults = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "engine":
                names += [f"engine.{alias.name}" for alias in node.names
                          if alias.name in ENGINE_MODULES]
        else:
            continue
        for name in names:
            top, _, rest = name.partition(".")
            if top == "numba" or (top == "engine" and rest):
                faults.append(f"line {node.lineno}: {name}")
    return faults


def test_the_checker_sees_each_kind_of_fault():
    assert layer_faults("import engine\nfrom engine import Searcher, BLACK\n") == []
    assert layer_faults("import numba") == ["line 1: numba"]
    assert layer_faults("from numba import njit") == ["line 1: numba"]
    assert layer_faults("import engine.search") == ["line 1: engine.search"]
    assert layer_faults("def f():\n    from engine.game import Game\n") == ["line 2: engine.game"]
    assert layer_faults("from engine import search") == ["line 1: engine.search"]


def test_the_engine_modules_are_known():
    assert {"search", "game", "position", "notation", "options"} <= ENGINE_MODULES
    assert not ENGINE_MODULES & set(engine.__all__)   # no export shadows a module name


@pytest.mark.parametrize("path", FRONT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_front_ends_use_only_the_engine_face(path):
    assert layer_faults(path.read_text(encoding="utf-8")) == []


def test_the_front_ends_that_must_start_fast_load_without_numba():
    """``rafle hub`` answers ``wait`` and ``rafle dxp`` listens before the kernels load: their
    modules read kernel-backed names (``engine.Searcher``, ...) only when they use them."""
    code = ("import sys, protocol.cli, protocol.hub.server, protocol.dxp.cli; "
            "print(sorted(m for m in sys.modules if m == 'numba' or m.startswith('engine.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.split("\n")[0]
    assert "numba" not in out and "engine.search" not in out and "engine.position" not in out, out
