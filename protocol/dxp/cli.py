"""``rafle dxp``: play international draughts over DXP (DamExchange) on TCP.

Owns the command line and the listening or connecting socket.  The dialogue of a
connection (state machine, clock) is :mod:`protocol.dxp.session`, its reads and writes
:mod:`protocol.dxp.link`, the message layout and NUL framing :mod:`protocol.dxp.wire`;
rules and search are ``engine``'s.

Roles (``spec/protocols.md`` §3.1): TCP server (``--listen``, default) or client
(``--connect``), DXP follower (default) or ``--initiator``.  Choices made here:

* One connection per process by default, like Scan: the process exits when the peer
  sends stop code 1 or closes the connection.  pydraughts launches a new engine per game
  and kills it afterwards, so this is what its tests need.  ``--forever`` keeps listening.
* Never two messages back to back: a send waits until ``link.PAUSE`` has passed since our
  previous one unless the peer has spoken in between.  pydraughts glues two messages
  that arrive in one read and loses the second (pitfall P1); this covers GAMEACC + first
  MOVE, BACKACC + MOVE, MOVE + GAMEEND and CHAT + GAMEEND.
* Games that the rules (the engine's ``Game``) end are ended, in both roles, on either
  side's turn: on ours with a GAMEEND in place of a MOVE, and when the peer is left
  without a move, at once too (it cannot answer with anything else); a draw reached on
  the peer's turn is claimed on our next turn.  The initiator claims at once; a follower
  first gives the peer ``CLAIM_GRACE`` (1 s) to end the game itself, because pydraughts
  judges games itself and hangs on a GAMEEND it did not expect (P2), while Scan ends
  games only on its own turn and would otherwise leave a lost game hanging.
  ``--claim-end`` makes the follower claim at once.  The initiator also claims the move
  limit.
* One game at a time: a second connection while a game runs gets a prompt GAMEACC
  refusal (code 2, with a CHAT saying why) and is closed; a client that connects and says
  nothing is dropped after ``--handshake-timeout`` seconds (10), so it cannot block others.
* The server socket is listening before the engine (numba) is imported and warmed up:
  pydraughts connects after a fixed delay and never retries; a connection made early
  waits in the backlog.
* Bad input never ends the process: a malformed or out-of-turn message or an illegal
  move gets a CHAT naming it and, during a game, a GAMEEND.  A silent peer times out.
"""
from __future__ import annotations

import argparse
import socket
import threading

import engine
from perft.progress import compiling

from .link import Link, PeerGone, PeerSilent
from .session import NAME, Config, SearchPlayer, Session
from .wire import Chat, GameAcc

REFUSE_WAIT = 5.0       # seconds a refused client has to send its GAMEREQ
DEFAULT_PORT = 27531


# ----- command line ---------------------------------------------------------------------

def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rafle dxp", description="Play over DXP (DamExchange) on TCP.")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--listen", type=_address, metavar="HOST:PORT",
                       help=f"wait for a connection (default 127.0.0.1:{DEFAULT_PORT}; port 0 = any free)")
    where.add_argument("--connect", type=_address, metavar="HOST:PORT", help="connect to a DXP server")
    p.add_argument("--initiator", action="store_true", help="send the game requests (default: follower)")
    p.add_argument("--games", type=int, default=2, help="initiator: games to play (default 2)")
    p.add_argument("--minutes", type=float, default=1.0,
                   help="initiator: minutes per side for the game, may be fractional (default 1)")
    p.add_argument("--moves", type=int, default=0, help="initiator: move limit per side, 0 = none")
    starts = p.add_mutually_exclusive_group()
    starts.add_argument("--fen", help="initiator: start position (default: the normal start)")
    starts.add_argument("--fens", metavar="FILE", help="initiator: file of start positions, one FEN a line")
    p.add_argument("--claim-end", action="store_true",
                   help="follower: claim a game the rules ended at once (default: after 1 s, "
                        "so that a peer that ends games itself can do it first)")
    p.add_argument("--handshake-timeout", type=float, default=10.0,
                   help="seconds a new connection may stay silent (default 10)")
    p.add_argument("--forever", action="store_true",
                   help="server: wait for the next connection instead of exiting")
    p.add_argument("--once", dest="forever", action="store_false", help="exit after one connection (default)")
    p.add_argument("--variant", default="international",
                   help="international only (normal, standard): DXP messages carry a 10x10 board")
    p.add_argument("--name", default=NAME, help=f"name sent to the peer (default {NAME})")
    p.add_argument("--depth", type=int, help="limit every search to this depth")
    p.add_argument("--movetime", type=float, help="seconds per move at most (also the budget for 000 minutes)")
    p.add_argument("--peer-timeout", type=float, default=300.0,
                   help="seconds to wait for a silent peer before giving up (default 300)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing")
    p.add_argument("-v", "--verbose", action="store_true", help="also print every message sent and received")
    return p


def _check_variant(name: str, parser) -> None:
    """Refuse any variant but international: the protocol's board fields are 10x10 and
    its moves international.  The engine is imported only for a name other than the
    default, so that the socket still listens before numba loads."""
    if name.strip().lower() in ("international", "normal"):
        return
    try:
        variant = engine.get_variant(name)
    except engine.BadInput as exc:
        parser.error(str(exc))
    if variant.name != "international":
        size = f"{variant.width}x{variant.width}"
        parser.error(f"DXP plays international draughts only (its messages carry a 10x10 "
                     f"board and international moves); {variant.name} ({size}) cannot be "
                     "played over it: use rafle hub")


def _start_texts(args, parser) -> list[str]:
    """The start positions asked for, as text (checked once the engine is loaded)."""
    if not args.fens:
        return [args.fen] if args.fen else []
    try:
        with open(args.fens, encoding="utf-8") as f:
            texts = [ln.strip() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
    except OSError as exc:
        parser.error(f"cannot read {args.fens}: {exc}")
    if not texts:
        parser.error(f"{args.fens} holds no position")
    return texts


def _parse_starts(texts: list[str], parser):
    starts = []
    for text in texts:
        try:
            pos = engine.parse_position(text)
        except engine.BadInput as exc:
            parser.error(f"bad start position {text!r}: {exc}")
        if not engine.legal_moves(pos):
            parser.error(f"start position {text!r} has no legal move")
        starts.append(pos)
    return starts or [engine.start_position()]


def _logger(quiet: bool):
    def log(line: str) -> None:
        if quiet:
            return
        try:
            print(line, flush=True)
        except (OSError, ValueError):
            pass   # whoever read our stdout went away; the game goes on
    return log


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.games < 1 or args.moves < 0 or not 0 <= args.minutes <= 999:
        parser.error("--games must be >= 1, --moves >= 0 and --minutes in 0..999")
    _check_variant(args.variant, parser)
    texts = _start_texts(args, parser)
    log = _logger(args.quiet)
    server = None
    if not args.connect:
        host, port = args.listen or ("127.0.0.1", DEFAULT_PORT)
        try:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            server = socket.create_server((host, port), family=family, backlog=8)   # SO_REUSEADDR
        except OSError as exc:
            log(f"cannot listen on {host}:{port}: {exc}")
            return 1
        log(f"listening on {host}:{server.getsockname()[1]}")
    try:
        return _serve(args, parser, texts, server, log)
    except KeyboardInterrupt:
        return 130
    finally:
        if server is not None:
            server.close()


def _serve(args, parser, texts, server, log) -> int:
    # the engine's kernels load only now (engine.X is read on first use): the socket above
    # must listen before numba loads (see the top)
    config = Config(name=args.name, initiator=args.initiator, games=args.games, minutes=args.minutes,
                    moves=args.moves, starts=_parse_starts(texts, parser), claim_end=args.claim_end,
                    movetime=args.movetime, peer_timeout=args.peer_timeout,
                    handshake_timeout=args.handshake_timeout)
    sock = None
    if server is None:   # connect first, so that a wrong address is reported at once
        try:
            sock = socket.create_connection(args.connect, timeout=10)
        except OSError as exc:
            log(f"cannot connect to {args.connect[0]}:{args.connect[1]}: {exc}")
            return 1
        log(f"connected to {args.connect[0]}:{args.connect[1]}")
    searcher = engine.Searcher()
    with compiling("the search"):
        searcher.warm_up()
    player = SearchPlayer(searcher, args.depth)
    trace = log if args.verbose else None
    if server is None:
        with sock:
            Session(Link(sock, trace), player, config, log).run()
        log("connection closed")
        return 0
    server.settimeout(0.2)
    running: threading.Thread | None = None
    served = 0
    while True:
        if running is not None and not running.is_alive():
            running = None
            log("connection closed")
            if not args.forever:
                return 0
        try:
            sock, peer = server.accept()
        except (TimeoutError, socket.timeout):
            continue
        if running is not None:
            running.join(0.5)            # a game whose connection has just closed is ending
        if running is not None and running.is_alive():
            log(f"refused a connection from {peer[0]}:{peer[1]}: a game is running")
            threading.Thread(target=_refuse, args=(sock, config.name, trace), daemon=True).start()
            continue
        if running is not None:
            log("connection closed")
            if not args.forever:
                sock.close()
                return 0
        log(f"connection from {peer[0]}:{peer[1]}")
        served += 1
        running = threading.Thread(target=_session, args=(sock, player, config, log, trace),
                                   name=f"dxp-connection-{served}", daemon=True)
        running.start()


def _session(sock, player, config, log, trace) -> None:
    with sock:
        sock.settimeout(None)
        Session(Link(sock, trace), player, config, log).run()


def _refuse(sock, name: str, trace) -> None:
    """Turn away a second client while a game runs: its GAMEREQ gets GAMEACC code 2
    ("not this game, maybe another"), with a CHAT saying why, then the connection closes."""
    link = Link(sock, trace)
    try:
        text = link.receive(REFUSE_WAIT)
        if text[:1] == "R":
            link.send(Chat("busy: Rafle is playing a game on another connection"))
            link.send(GameAcc(name, 2))
    except (PeerGone, PeerSilent):
        pass
    finally:
        link.close()
