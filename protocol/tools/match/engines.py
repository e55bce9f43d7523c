"""How the runner talks to an engine: its protocol, the client that speaks it, and the clock
that protocol can tell the engine.

* ``hub``: the Hub protocol, version 2 (:class:`~protocol.hub.client.HubClient`): every
  limit the runner knows.
* ``hub1``: Hub version 1, Scan 2.0's dialect (:class:`~protocol.hub.hub1.Hub1Client`): a
  clock or a move time, no parameters, international draughts only.
* ``dxp``: DamExchange (:class:`.dxp_client.DxpClient`): the command listens on ``{port}``,
  or the "command" is the address of an engine on another host, ``dxp://HOST:PORT``, that
  its operator runs (the runner connects to it, never starts or stops it);
  international draughts only.  A GAMEREQ tells the engine minutes for the whole game and a
  move limit, nothing else, so a DXP engine plays on a clock (``[moves/]base``): ``base``
  becomes the GAMEREQ's minutes (as its 3-character field can carry them) and ``moves`` its
  move limit.  The runner keeps that clock for it, with no increment and no second period,
  and judges its time against it.
"""
from __future__ import annotations

from dataclasses import replace

from engine import INTERNATIONAL

from ...dxp.wire import format_minutes
from ...hub.client import HubClient
from ...hub.hub1 import Hub1Client
from .dxp_client import DxpClient, gamereq_minutes, parse_address

PROTOCOLS = ("hub", "hub1", "dxp")
TITLES = {"hub": "a Hub engine", "hub1": "a Hub version 1 engine", "dxp": "a DXP engine"}


def check_command(protocol: str, command: str, who: str) -> None:
    """Refuse a protocol Rafle does not speak, a DXP command with no port to listen on, or a
    malformed address (``dxp://HOST:PORT``, for DXP only)."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"{who}: protocol must be {', '.join(PROTOCOLS[:-1])} or "
                         f"{PROTOCOLS[-1]}, not {protocol!r}")
    address = parse_address(command)
    if address and protocol != "dxp":
        raise ValueError(f"{who}: an address ({command}) is for a DXP engine (protocol dxp)")
    if protocol == "dxp" and not address and "{port}" not in command:
        raise ValueError(f"{who}: a DXP engine's command must listen on {{port}}, or be the "
                         "address of one on another host, dxp://HOST:PORT")


def remote_address(protocol: str, command: str) -> str | None:
    """``HOST:PORT`` of an engine on another host (the runner names it in what it reports)."""
    address = parse_address(command) if protocol == "dxp" else None
    return f"{address[0]}:{address[1]}" if address else None


def check_limit(protocol: str, limit, options: dict, variant, who: str) -> None:
    """Refuse what the protocol cannot tell the engine (a ValueError naming it)."""
    if protocol == "hub":
        return
    title = TITLES[protocol]
    if variant is not INTERNATIONAL:
        raise ValueError(f"{who}: {title} plays international draughts only")
    if limit.depth or limit.nodes:
        raise ValueError(f"{who}: {title} cannot be given a depth or a node limit")
    if protocol == "dxp" and not limit.clock:
        raise ValueError(f"{who}: {title} plays on a clock (tc): a GAMEREQ carries minutes "
                         "for the game, not a move time")
    if protocol == "hub1" and options:
        raise ValueError(f"{who}: {title} has no parameters to set ({', '.join(options)})")


def kept_limit(protocol: str, limit):
    """The limit the runner keeps for the engine: a DXP engine's is the clock its GAMEREQ
    gives it (no increment, no new period: the move limit ends the game)."""
    if protocol != "dxp":
        return limit
    return replace(limit, base=gamereq_minutes(limit.base) * 60.0, inc=0.0, moves=0)


def clock_note(protocol: str, limit, name: str) -> str | None:
    """What a DXP engine is told, for the match's first lines; None for the others."""
    if protocol != "dxp":
        return None
    minutes = gamereq_minutes(limit.base)
    moves = f"a move limit of {limit.moves}" if limit.moves else "no move limit"
    text = (f"{name} (DXP): GAMEREQ time field {format_minutes(minutes)} and {moves}: its clock "
            f"is {minutes * 60:g} s for the game")
    if limit.inc:
        text += f" (DXP has no increment: the {limit.inc:g} s is not given)"
    return text


def open_client(protocol: str, command: str, options: dict, limit, log, label: str,
                cwd: str | None, hang: float = 30.0):
    """The client for one engine (not started); ``limit`` as the organiser gave it; ``hang``:
    how long a DXP engine may take to accept a game."""
    if protocol == "dxp":
        return DxpClient(command, minutes=gamereq_minutes(limit.base), moves=limit.moves,
                         cwd=cwd, log=log, label=label, accept_timeout=hang)
    kind = Hub1Client if protocol == "hub1" else HubClient
    return kind(command, options, log, label=label, cwd=cwd)
