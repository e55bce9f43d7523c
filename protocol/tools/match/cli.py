"""``rafle match``: play a match between two engines (Hub, Hub version 1 or DXP) and report who
is stronger.

The command line: engines, limits, openings, SPRT and files; with ``--state FILE`` (:mod:`.state`)
the same command goes on after a stop.  The games are played by
:class:`.runner.Match` in local threads or, with ``--ray``, by :mod:`.ray_runner` on Ray
actors; both import the runner, and nothing here is imported back.

A DXP engine on another host, run by its operator, is given by its address in place of a
command: ``--protocol hub,dxp --engine2 dxp://HOST:PORT``.  The runner connects to it for
its games and never starts or stops it; a refused connection or a silent peer forfeits the
game, named with the address, and the next game connects again.
"""
from __future__ import annotations

import argparse
import sys

from engine import install_command

from ...about import summary
from .live import Live
from .ray_runner import run_on_ray
from .runner import TC_FORMS, Match, concurrency


def _option(text: str) -> tuple[str, str]:
    name, eq, value = text.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError(f"option {text!r} must be NAME=VALUE")
    return name, value


def add_engine_guards(p: argparse.ArgumentParser) -> None:
    """The limits past which an engine loses or is given up (rafle match and tournament)."""
    p.add_argument("--time-margin", type=float, default=0.0,
                   help="seconds an engine may overstep its clock before losing (default 0)")
    p.add_argument("--hang-timeout", type=float, default=30.0,
                   help="seconds past its limit after which a silent engine has hung, and that "
                        "a DXP engine may take to accept a game (default 30)")
    p.add_argument("--init-timeout", type=float, default=120.0,
                   help="seconds an engine may take to start, hub ... ready, or to accept the "
                        "connection if it is on another host (default 120)")


def add_live(p: argparse.ArgumentParser) -> None:
    """``--live FILE`` (rafle match and tournament): the live state for ``rafle gui --watch``."""
    p.add_argument("--live", metavar="FILE",
                   help="keep a live state of the games in FILE (JSON, rewritten as they are "
                        "played), to follow them in the browser with: rafle gui --watch FILE")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle match", description=summary(__doc__))
    p.add_argument("--engine1", default="rafle hub",
                   help="command of engine 1 (default: rafle hub), or dxp://HOST:PORT: the "
                        "address of a DXP engine on another host, which its operator runs")
    p.add_argument("--engine2", default="rafle hub",
                   help="command of engine 2, or dxp://HOST:PORT (as --engine1)")
    p.add_argument("--protocol", default="hub",
                   help="hub (the default), hub1 (Hub version 1: Scan 2.0) or dxp (the command "
                        "listens on {port}, a free port, or the engine is an address "
                        "dxp://HOST:PORT); 'a,b' for engine 1 and engine 2")
    p.add_argument("--name1", help="engine 1's name (default: its id name)")
    p.add_argument("--name2", help="engine 2's name")
    p.add_argument("--option", action="append", type=_option, default=[], metavar="NAME=VALUE",
                   help="Hub parameter for both engines (set-param before init)")
    p.add_argument("--option1", action="append", type=_option, default=[], metavar="NAME=VALUE",
                   help="Hub parameter for engine 1 only")
    p.add_argument("--option2", action="append", type=_option, default=[], metavar="NAME=VALUE",
                   help="Hub parameter for engine 2 only")
    p.add_argument("--games", type=int, default=2, help="number of games (default 2)")
    p.add_argument("--tc", help=f"clock {TC_FORMS} (default 10+0.1 when no other limit is "
                                "given); 'a,b' for different clocks")
    p.add_argument("--movetime", help="seconds per move, or with a unit: 2s, 1m ('a,b': per engine)")
    p.add_argument("--depth", help="depth per move ('a,b': per engine)")
    p.add_argument("--nodes", help="nodes per move ('a,b': per engine)")
    add_engine_guards(p)
    p.add_argument("--concurrency", type=concurrency, default=1,
                   help="games played at a time, each by its own two engines (default 1, at most "
                        "the number of cores)")
    p.add_argument("--variant", default="international",
                   help="variant (sent to both engines as the Hub 'variant' parameter)")
    p.add_argument("--openings",
                   help="file of openings (FEN or moves per line), 'builtin' (the default: "
                        "the variant's balanced openings, shipped for every variant) or 'startpos'")
    p.add_argument("--first-opening", type=int, default=1, metavar="N",
                   help="start from the Nth opening of the set (default 1), going round: to go "
                        "on where another match left off")
    p.add_argument("--max-plies", type=int, default=0,
                   help="adjudicate a draw after this many plies (default: never)")
    p.add_argument("--sprt", help="elo0,elo1[,alpha,beta]: stop when the SPRT decides")
    p.add_argument("--pdn", "--pgn", dest="pdn", help="write every game to this PDN file")
    p.add_argument("--state", metavar="FILE",
                   help="keep the finished games in FILE (JSON, rewritten after each game): the "
                        "same command goes on after a stop, playing only the games it lacks")
    p.add_argument("--log", help="write the Hub traffic to this file")
    add_live(p)
    p.add_argument("--event", default="rafle match", help="PDN Event tag")
    add_ray(p, "each with its two engines")
    return p


def add_ray(p: argparse.ArgumentParser, actors: str) -> None:
    """``--ray [ADDRESS]`` (rafle match and tournament); ``actors`` says what each keeps."""
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help=f"play the games on Ray actors (one per CPU, {actors}): on a local Ray "
                        "instance without ADDRESS, or on the cluster at ADDRESS ('auto', "
                        "'HOST:PORT', 'ray://host:port'); needs Ray: " + install_command("cluster"))


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.live and args.ray is not None:
        parser.error("--live follows games played here: not with --ray")
    if args.first_opening < 1:
        parser.error("--first-opening must be at least 1")
    try:
        match = Match(args)
        if args.live:
            match.live = Live(args.live, "match", args.event, match.variant.name, args.games)
    except (ValueError, OSError) as e:       # BadInput is a ValueError
        print(f"rafle match: {e}", file=sys.stderr)
        return 2
    if args.ray is not None:
        return run_on_ray(match, args.ray or None)
    return match.run()
