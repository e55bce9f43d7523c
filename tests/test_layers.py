"""Layers point one way: the front ends and tools (``protocol/``) and ``perft/`` use the engine
only through its face (``engine/__init__.py``) and never import numba; ``engine/`` does no I/O
(no ``print``, console streams or sockets); no two modules, and no two packages, import each
other, directly or round a cycle.  Read from the sources (their AST), so a lazy import inside a
function counts as much as one at the top."""
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


# ----- engine/ does no I/O --------------------------------------------------------------------

ENGINE_FILES = sorted((ROOT / "engine").glob("*.py"))
CONSOLE = {"stdout", "stdin", "stderr", "__stdout__", "__stdin__", "__stderr__"}


def io_faults(source: str) -> list[str]:
    """Each place in ``source`` that talks to the console or the network: a call of ``print``
    or ``input``, ``sys.stdout``/``stdin``/``stderr``, an import of ``socket``."""
    faults = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("print", "input"):
            faults.append(f"line {node.lineno}: {node.func.id}()")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "sys" and node.attr in CONSOLE:
            faults.append(f"line {node.lineno}: sys.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "sys" \
                and CONSOLE & {alias.name for alias in node.names}:
            faults.append(f"line {node.lineno}: from sys import {node.names[0].name}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            faults += [f"line {node.lineno}: {name}" for name in names
                       if name.partition(".")[0] == "socket"]
    return faults


def test_the_io_checker_sees_each_kind_of_fault():
    assert io_faults("import sys\nsys.modules.get('numba')\nx = open\n") == []
    assert io_faults("print('x')") == ["line 1: print()"]
    assert io_faults("def f():\n    return input()\n") == ["line 2: input()"]
    assert io_faults("import sys\nsys.stdout.write('x')") == ["line 2: sys.stdout"]
    assert io_faults("import sys\nline = sys.stdin.readline()") == ["line 2: sys.stdin"]
    assert io_faults("from sys import stderr") == ["line 1: from sys import stderr"]
    assert io_faults("import socket") == ["line 1: socket"]
    assert io_faults("from socket import create_connection") == ["line 1: socket"]


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_engine_does_no_io(path):
    assert io_faults(path.read_text(encoding="utf-8")) == []


# ----- kernels count no references -----------------------------------------------------------
# A numba kernel compiled with its runtime's reference counting takes a reference to each array it
# is passed and each view it makes, and drops it again: an atomic add each, a quarter of the search's
# time when profiled (docs/speed.md).  Kernels write into arrays their callers own, so they are
# compiled with ``_nrt=False``; a kernel that allocates needs the runtime and keeps it.  (A kernel
# inlined into its callers takes their flags.)
ALLOCATORS = {"empty", "zeros", "ones", "full", "array", "copy", "empty_like", "zeros_like"}


def kernel_flag_faults(source: str) -> list[str]:
    """Each ``@njit`` kernel whose ``_nrt`` flag does not match whether it allocates."""
    faults = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            if not (isinstance(dec, ast.Call) and getattr(dec.func, "id", None) == "njit"):
                continue
            keywords = {k.arg: k.value for k in dec.keywords}
            inline = keywords.get("inline")
            if isinstance(inline, ast.Constant) and inline.value == "always":
                continue          # compiled into its callers, with their flags
            flag = keywords.get("_nrt")
            off = isinstance(flag, ast.Constant) and flag.value is False
            allocates = any(isinstance(n, ast.Attribute) and n.attr in ALLOCATORS
                            and isinstance(n.value, ast.Name) and n.value.id == "np"
                            for n in ast.walk(node))
            if off and allocates:
                faults.append(f"line {node.lineno}: {node.name} allocates with _nrt=False")
            elif not off and not allocates:
                faults.append(f"line {node.lineno}: {node.name} counts references")
    return faults


def test_the_kernel_flag_checker_sees_each_kind_of_fault():
    ok = ("@njit(cache=True, nogil=True, _nrt=False)\ndef f(a):\n    return a[0]\n"
          "@njit(cache=True, nogil=True)\ndef g(n):\n    return np.zeros(n)\n")
    assert kernel_flag_faults(ok) == []
    assert kernel_flag_faults("@njit(nogil=True, inline='always')\ndef f(a):\n    return a[0]\n") == []
    assert kernel_flag_faults("@njit(cache=True, nogil=True)\ndef f(a):\n    return a[0]\n") == [
        "line 2: f counts references"]
    assert kernel_flag_faults("@njit(_nrt=False)\ndef g(n):\n    return np.empty(n)\n") == [
        "line 2: g allocates with _nrt=False"]


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_kernels_count_no_references_unless_they_allocate(path):
    assert kernel_flag_faults(path.read_text(encoding="utf-8")) == []


# ----- no import cycles ----------------------------------------------------------------------

PACKAGES = ("engine", "protocol", "perft")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


ENTRY = "protocol.cli"     # the ``rafle`` command


def package_of(module: str, path: Path) -> str:
    """The package a module belongs to: itself for an ``__init__``, else its parent
    (``protocol.levels`` is in ``protocol``, ``protocol.tools.match.runner`` in
    ``protocol.tools.match``).  The ``rafle`` command imports every front end and tool to
    run it, so it stands above them all, a package of its own: shared helpers at the top of
    ``protocol`` (``protocol.levels``) are below the front ends that use them."""
    if module == ENTRY:
        return ENTRY
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imports_of(source: str, module: str, package: str, known: set[str]) -> set[str]:
    """The modules of ours that ``source`` imports, lazily or not; ``from P import x`` is an
    import of ``P.x`` where that is a module, else of ``P``."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in known else origin
                       for a in node.names]
        else:
            continue
        for name in targets:
            while name and name not in known:        # import a.b.c names the module a.b.c
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


def import_graph() -> tuple[dict[str, set[str]], dict[str, str]]:
    """Module -> the modules of ours it imports, and module -> its package.  The ``rafle``
    dispatcher imports its subcommands by name (``importlib``): they count as imports."""
    paths = {module_name(p): p for top in PACKAGES for p in (ROOT / top).rglob("*.py")
             if "data" not in p.relative_to(ROOT).parts}
    known = set(paths)
    package = {m: package_of(m, p) for m, p in paths.items()}
    graph = {m: imports_of(p.read_text(encoding="utf-8"), m, package[m], known)
             for m, p in paths.items()}
    from protocol.cli import COMMANDS
    graph[ENTRY] |= {module for module, _ in COMMANDS.values()}
    return graph, package


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one node (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def package_graph(graph: dict[str, set[str]], package: dict[str, str]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {p: set() for p in package.values()}
    for module, targets in graph.items():
        edges[package[module]] |= {package[t] for t in targets} - {package[module]}
    return edges


def test_the_cycle_finder_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}) == [["a", "b"], ["c", "d"]]


def test_the_import_graph_resolves_each_kind_of_import():
    known = {"protocol", "protocol.hub", "protocol.hub.client", "protocol.tools",
             "protocol.tools.match", "protocol.tools.match.runner", "engine", "perft.raylink"}
    source = ("import engine\nfrom ...hub.client import HubClient\nfrom . import runner\n"
              "from protocol.tools import match\ndef f():\n    from perft.raylink import connect\n"
              "import json\n")
    assert imports_of(source, "protocol.tools.match.cli", "protocol.tools.match", known) == {
        "engine", "protocol.hub.client", "protocol.tools.match.runner", "protocol.tools.match",
        "perft.raylink"}


def test_no_import_cycle_between_modules():
    graph, _ = import_graph()
    assert "perft.runner" in graph[ENTRY] and graph["protocol.tools.match.ray_runner"]
    assert cycles(graph) == []


def test_no_import_cycle_between_packages():
    """``engine`` <- ``perft`` <- ``protocol`` and its subpackages (``protocol.hub``,
    ``protocol.tools.match``, ...; the modules at the top of ``protocol`` are package
    ``protocol``) <- the ``rafle`` command: each dependency points one way."""
    graph, package = import_graph()
    packages = package_graph(graph, package)
    assert {"engine", "perft", "protocol", "protocol.hub", "protocol.tools",
            "protocol.tools.match", "protocol.gui", "protocol.text", ENTRY} <= set(packages)
    assert "perft" in packages[ENTRY] and "perft" in packages["protocol.tools"]
    assert cycles(packages) == []


def test_no_import_cycle_between_engine_perft_and_protocol():
    """The same at the top: ``rafle perft`` is dispatched from ``protocol/``, so ``perft/``
    never imports ``protocol/`` (a helper both need, such as Ray's, lives in ``perft/``)."""
    graph, package = import_graph()
    top = {module: module.partition(".")[0] for module in graph}
    assert cycles(package_graph(graph, top)) == []
    assert package_graph(graph, top) == {"engine": set(), "perft": {"engine"},
                                         "protocol": {"engine", "perft"}}
