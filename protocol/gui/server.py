"""``rafle gui``: a board in the browser, served by Rafle (Starlette and uvicorn).

The page (``static/``: HTML, plain JavaScript modules and SVG, no build step) talks to
the server over one WebSocket; each connection gets its own
:class:`~protocol.gui.session.BoardSession` with its own engine process (Rafle's
``rafle hub``, or any Hub engine given with ``--engine``).  Messages are JSON objects
with a ``type``; a message that is not JSON, or not an object, is answered with an
``error`` and the connection stays open.  The server listens on 127.0.0.1 unless
``--host`` says otherwise.

The page's address names its game (``/?game=<id>``), and the WebSocket carries the id
(``/ws?game=<id>``): the session opens the saved game of that id (:mod:`.store`), or starts
one under a new id that the first ``setup`` message tells the page.  A page that goes away
(closed, reloaded, cut off) while the server sends is let go quietly: the game is saved.
A game is held by one page at a time: opened in a second page (another tab, or a reload
that came before the old page left), it moves there, and the first page is closed with
code 4001 (it says so and does not reconnect).  Binary frames, deeply nested JSON and a bug
of ours in a request are answered with an ``error`` too; the game is kept.  A handshake from
another site's page (an ``Origin`` that is not the board's own) is refused with HTTP 403.

``--watch FILE`` adds the watch page (``/watch``, :mod:`.watch`): a match or tournament
followed live from the file it keeps with ``--live FILE``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import threading
import webbrowser
from pathlib import Path
from urllib.parse import urlsplit

import engine

from .session import BoardSession
from .store import GameStore, default_state_dir, new_game_id, valid_game_id
from .watch import read_live

STATIC = Path(__file__).resolve().parent / "static"
MAX_MESSAGE = 2_000_000          # bytes of one WebSocket message, at most
TAKEN = 4001                     # close code: the game was opened in another page
FOREIGN_ORIGIN = 1008            # close code (policy violation): another site's page


def read_request(text: str | None) -> tuple[object, str]:
    """A WebSocket message as a request: (the JSON value, "") or (None, what is wrong)."""
    if text is None:
        return None, "a request is JSON text, not binary data"
    if len(text) > MAX_MESSAGE:
        return None, f"message too long ({len(text)} bytes)"
    try:
        return json.loads(text), ""
    except (ValueError, RecursionError):
        return None, "a request must be JSON"


def open_game(session: BoardSession, store: GameStore | None, game_id: str | None) -> None:
    """Give ``session`` its game: the saved one of ``game_id``, or a new id.  A saved game
    that cannot be used is reported on the page, which gets a fresh game (same id)."""
    if not valid_game_id(game_id):
        game_id = new_game_id()
    session.game_id, session.store = game_id, store
    if store is None:
        return
    try:
        data = store.load(game_id)
        if data is not None:
            session.restore(data)
            session.known = True
    except engine.BadInput as e:
        session.message = f"the saved game could not be used ({e}): a new game begins"


def create_app(engine_command: str | None = None, state_dir: str | Path | None = None,
               watch: str | Path | None = None):
    """The web application (Starlette); ``engine_command`` (None: Rafle) drives every
    page's engine; games are saved under ``state_dir`` (None: in the pages only).  The web
    stack is the optional extra ``gui``: imported here, so that ``rafle gui`` without it
    says what to install.  ``watch``: the live file of a match or tournament, followed on
    ``/watch`` (:mod:`.watch`)."""
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def index(_request):
        return FileResponse(STATIC / "index.html")

    async def icon(_request):
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    async def watch_page(_request):
        return FileResponse(STATIC / "watch.html")

    async def watch_state(_request):
        if watch is None:
            return JSONResponse({"error": "nothing to watch: start rafle gui with --watch FILE"})
        return JSONResponse(await asyncio.to_thread(read_live, watch),
                            headers={"Cache-Control": "no-store"})

    async def health(_request):
        return JSONResponse({"ok": True, "engine": engine_command or "rafle"})

    store = None if state_dir is None else GameStore(state_dir)
    if store is not None:
        store.prune()
    holders: dict[str, tuple[WebSocket, asyncio.Event]] = {}    # game id -> the page holding it

    async def take_over(game_id: str) -> None:
        """The page holding ``game_id`` is let go, and its session has saved the game
        before the new page's session reads it."""
        held = holders.get(game_id)
        if held is None:
            return
        other, released = held
        try:
            await other.close(code=TAKEN, reason="the game was opened in another page")
        except Exception:            # noqa: BLE001 -- it is closing already
            pass
        try:
            await asyncio.wait_for(released.wait(), 20)
        except asyncio.TimeoutError:
            pass

    async def board(ws: WebSocket) -> None:
        if not own_origin(ws.headers.get("origin"), ws.headers.get("host")):
            await ws.close(code=FOREIGN_ORIGIN)      # before the handshake: an HTTP 403
            return
        await ws.accept()
        requested = ws.query_params.get("game")
        if valid_game_id(requested):
            await take_over(requested)
        loop = asyncio.get_running_loop()
        outbox: asyncio.Queue = asyncio.Queue()

        def emit(message: dict) -> None:        # from any thread
            if loop.is_closed():                 # the server has stopped: nobody to tell
                return
            try:
                loop.call_soon_threadsafe(outbox.put_nowait, message)
            except RuntimeError:                 # ... it stopped just now
                pass

        session = BoardSession(emit, engine_command)
        open_game(session, store, requested)
        released = asyncio.Event()
        holders[session.game_id] = (ws, released)

        async def sender() -> None:
            try:
                while True:
                    message = await outbox.get()
                    await ws.send_text(json.dumps(message))
            except Exception:        # noqa: BLE001 -- the page went away: the receiver ends too
                return

        sending = asyncio.create_task(sender())
        try:
            await asyncio.to_thread(session.hello)
            if session.known:
                await asyncio.to_thread(session.resume)
            while True:
                received = await ws.receive()
                if received["type"] == "websocket.disconnect":
                    break
                request, problem = read_request(received.get("text"))
                if problem:
                    emit({"type": "error", "message": problem})
                    continue
                try:
                    await asyncio.to_thread(session.handle, request)
                except Exception as e:      # noqa: BLE001 -- a bug of ours: said, the game kept
                    print(f"rafle gui: internal error: {type(e).__name__}: {e}", file=sys.stderr)
                    emit({"type": "error", "message": f"internal error ({type(e).__name__}: {e}); "
                                                      "the game is kept"})
        except (WebSocketDisconnect, RuntimeError):    # closed, or closed while we sent
            pass
        finally:
            sending.cancel()
            await asyncio.to_thread(session.close)
            if holders.get(session.game_id, (None,))[0] is ws:
                del holders[session.game_id]
            released.set()

    return Starlette(routes=[
        Route("/", index), Route("/health", health), Route("/favicon.ico", icon),
        Route("/watch", watch_page), Route("/watch/state", watch_state),
        WebSocketRoute("/ws", board),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])


def own_origin(origin: str | None, host: str | None) -> bool:
    """Whether a WebSocket handshake comes from the board's own page: a browser always sends
    the page's ``Origin``, which must name the host and port the request went to (``Host``).
    Any other page open in the user's browser could otherwise drive the board.  A client
    that is not a browser sends no ``Origin`` and is taken."""
    if origin is None:
        return True
    parts = urlsplit(origin.strip())
    return parts.scheme in ("http", "https") and bool(host) and \
        parts.netloc.lower() == host.strip().lower()


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)
    return sock


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rafle gui", description=(
        "Play, watch and analyse in the browser: Rafle serves a board on this machine."))
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--engine", default=None, metavar="COMMAND",
                        help='another Hub engine instead of Rafle, e.g. "scan hub"')
    parser.add_argument("--no-browser", action="store_true", help="do not open the browser")
    parser.add_argument("--state-dir", default=None, metavar="DIR",
                        help=f"where games are saved, one file per game (default {_shown_default()})")
    parser.add_argument("--watch", default=None, metavar="FILE",
                        help="follow a match or tournament started with --live FILE (page /watch)")
    return parser


def _shown_default() -> str:
    home = str(Path.home())
    path = str(default_state_dir())
    return "~" + path[len(home):] if path.startswith(home + "/") else path


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        print(f"rafle gui needs the web extra: {engine.install_command('gui')}", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        parser.error("--port must be from 0 to 65535")
    try:
        sock = _listen(args.host, args.port)
    except OSError as e:
        print(f"rafle gui: cannot listen on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    print(f"Rafle's board: {url}  (Ctrl-C to stop)", flush=True)
    if args.watch:
        url += "watch"
        print(f"watching {args.watch}: {url}", flush=True)
    if not args.no_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    state_dir = Path(args.state_dir).expanduser() if args.state_dir else default_state_dir()
    app = create_app(args.engine, state_dir, args.watch)
    config = uvicorn.Config(app, log_level="warning", ws_max_size=4 * MAX_MESSAGE)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0
