"""The ``rafle`` command: one subcommand per front end, each in its own module."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from .about import DISTRIBUTION, version

# subcommand -> (module, one-line help).  Each module has ``main(argv) -> int``.
COMMANDS = {
    "perft": ("perft.runner", "count leaf nodes (move generator check), divide, suites"),
    "hub": ("protocol.hub.server", "speak the Hub protocol on stdin/stdout (for GUIs and clients)"),
    "dxp": ("protocol.dxp.cli", "play over DXP (DamExchange) on TCP"),
    "play": ("protocol.text.cli", "play and study in the terminal"),
    "bench": ("protocol.tools.bench", "search a fixed set of positions; prints the node signature"),
    "match": ("protocol.tools.match.cli", "play a match between two engines"),
    "tournament": ("protocol.tools.match.tournament", "round robin or gauntlet of many engines, resumable"),
    "story": ("protocol.tools.match.story", "where a match's games were decided: material by ply, from PDN"),
    "tune": ("protocol.tools.match.tune", "tune search options by SPSA from self-play mini-matches, resumable"),
    "selfplay": ("protocol.tools.selfplay", "play Rafle against itself for training positions"),
    "train": ("protocol.tools.train", "fit the learned evaluation to self-play positions"),
    "analyse": ("protocol.tools.analyse", "analyse games: evaluations, mistakes, accuracy, annotated PDN"),
    "book": ("protocol.tools.book", "build an opening book by searching; show book moves"),
    "egdb": ("protocol.tools.egdb", "build endgame databases; probe and list them"),
    "warm": ("protocol.tools.warm", "compile every kernel into the cache now (first run after install)"),
    "gui": ("protocol.gui.server", "a board in the browser: play, watch, analyse (needs the gui extra)"),
}
HELP = ("-h", "--help", "help")
VERSION = ("-V", "--version", "version")


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: rafle <command> [options]", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "'rafle <command> --help' for a command's options.",
              "'rafle' alone, or with play's options ('rafle --play none'), starts 'play'.",
              "'rafle --version' prints the version."]
    return "\n".join(lines)


def build_parser(name: str) -> argparse.ArgumentParser | None:
    """The argument parser of subcommand ``name`` (its module's ``build_parser``), or None
    for one that reads its arguments itself (``hub``: --name=value parameters)."""
    make = getattr(importlib.import_module(COMMANDS[name][0]), "build_parser", None)
    return make() if make is not None else None


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or (args[0].startswith("-") and args[0] not in HELP + VERSION):
        args = ["play", *args]          # 'rafle' alone, or with play's options: text mode
    name = args[0]
    if name in HELP:
        print(usage())
        return 0
    if name in VERSION:
        print(f"{DISTRIBUTION} {version()}")
        return 0
    if name not in COMMANDS:
        print(f"rafle: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    try:
        return int(module.main(args[1:]) or 0)
    except BrokenPipeError:
        # The reader went away (``rafle perft | head``): end quietly.  Point stdout at
        # nothing so that the interpreter's final flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
