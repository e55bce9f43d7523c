"""MkDocs hooks: the two pages written from the code, never by hand.

* ``options.md``: the engine's options, from the table ``engine.options.OPTIONS`` that the Hub,
  ``--help`` and the search kernel read too.
* ``api.md``: the engine's public face (``engine.__all__``), each name with its signature and
  docstring; a constant's docstring is the string literal after its assignment, as Sphinx and
  griffe read it.

``tests/test_docs.py`` loads this file to check both pages against the code.
"""
from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:                  # mkdocs run from a checkout that is not installed
    sys.path.insert(0, str(ROOT))

OPTIONS_INTRO = """# Engine options

Every option Rafle has, generated from the option table (`engine/options.py`) that the Hub's
`param` lines, `set-param`, `rafle hub --help`, `rafle bench`'s flags and the search kernel
read. Set one from a GUI with `set-param name=NAME value=VALUE`, on the command line as
`rafle hub --NAME=VALUE`, in a match with `--option NAME=VALUE`, and in a tournament with
`option.NAME=VALUE`. Unknown names and bad values are ignored, never fatal.

`tt-size` is at most what fits in half the machine's memory. The options marked *search* are
slots of the search kernel's parameters: changing one changes the tree (and `rafle bench`'s
signature).

| option | values | default | what it does |
|---|---|---|---|
"""


def _values(option) -> str:
    if option.type == "int":
        return f"{option.min}-{option.max}"
    if option.type == "bool":
        return "true, false"
    if option.type == "enum":
        return ", ".join(option.values)
    return "a path" if "path" in option.name or "file" in option.name or option.name == "weights" else "text"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def options_page() -> str:
    """The Markdown of the options page."""
    from engine.options import OPTIONS
    rows = []
    for o in OPTIONS:
        kind = " (*search*)" if o.kernel else ""
        rows.append(f"| `{o.name}` | {_cell(_values(o))} | `{o.default or '(empty)'}` | "
                    f"{_cell(o.help)}{kind} |")
    return OPTIONS_INTRO + "\n".join(rows) + "\n"


API_INTRO = """# Python API

The engine's public face: the names of `engine/__init__.py`, the only ones that `protocol/` and
`perft/` may use (a test reads their imports). Each is loaded on first use, so reading a
numba-free name (variants, options) does not import numba. Generated from the docstrings.

```python
import engine
pos = engine.pos_from_fen("W:W31-50:B1-20")
moves = engine.legal_moves(pos)
print(len(moves), engine.move_to_hub(moves[0]))
print(engine.perft(pos, 6))
```
"""


def constant_doc(module, name: str) -> str | None:
    """The string literal right after ``name``'s assignment at the top level of ``module``."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return None
    body = tree.body
    for node, after in zip(body, body[1:]):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        names |= {e.id for t in targets if isinstance(t, ast.Tuple) for e in t.elts
                  if isinstance(e, ast.Name)}
        if name in names and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) \
                and isinstance(after.value.value, str):
            return inspect.cleandoc(after.value.value)
    return None


def docstring(name: str) -> str | None:
    """The docstring of the engine's public ``name``: its own, or a constant's literal."""
    import importlib

    import engine
    obj = getattr(engine, name)
    if inspect.isclass(obj) or inspect.isroutine(obj):
        return inspect.getdoc(obj)
    return constant_doc(importlib.import_module(f"engine.{engine._WHERE[name]}"), name)


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def _members(cls) -> list[str]:
    """A class's public methods and properties with docstrings of their own, as list items."""
    items = []
    for key, value in vars(cls).items():
        if key.startswith("_"):
            continue
        func = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        if not callable(func) or not func.__doc__:
            continue
        head = key if isinstance(value, property) else f"{key}{_signature(func)}"
        first = inspect.getdoc(func).split("\n\n")[0].replace("\n", " ")
        items.append(f"- `{head}`: {first}")
    return items


def api_page() -> str:
    """The Markdown of the API page: one section a public name, grouped by module."""
    import engine
    out = [API_INTRO]
    by_module: dict[str, list[str]] = {}
    for name in engine.__all__:
        by_module.setdefault(engine._WHERE[name], []).append(name)
    for module in sorted(by_module):
        out.append(f"## `engine.{module}`\n")
        for name in by_module[module]:
            obj = getattr(engine, name)
            doc = docstring(name) or ""
            if inspect.isclass(obj):
                out.append(f"### `{name}`\n\nclass `{name}{_signature(obj)}`\n\n{doc}\n")
                members = _members(obj)
                if members:
                    out.append("\n".join(members) + "\n")
            elif inspect.isroutine(obj):
                out.append(f"### `{name}`\n\n`{name}{_signature(obj)}`\n\n{doc}\n")
            else:
                out.append(f"### `{name}`\n\n{type(obj).__name__} constant.\n\n{doc}\n")
    return "\n".join(out)


GENERATED = {"options.md": options_page, "api.md": api_page}


def on_files(files, config):
    """Add the generated pages to the site (the nav names them)."""
    from mkdocs.structure.files import File
    for path, make in GENERATED.items():
        files.append(File.generated(config, path, content=make()))
    return files
