"""A DXP follower for the match runner's tests: it plays the first legal move and ends games
as a real DXP engine does, or misbehaves on purpose.

``python tests/fake_dxp.py PORT MODE [GAMEREQ_FILE] [--serve]`` listens on 127.0.0.1:PORT for
one connection (with ``--serve``: one after another, until it is killed, as an engine on
another host whose operator runs it); it prints ``listening`` once it does.  Every GAMEREQ it
gets is appended to GAMEREQ_FILE, one a line.  MODE:

* ``limit``: at its move limit (as many own moves since the GAMEREQ as the limit says) it
  sends GAMEEND with no result and a CHAT, as Scan does (``E00`` + ``Cgame ended ...``);
* ``limit-stop``: the same with stop code 1 (``E01``), then leaves once confirmed;
* ``resign``: sends ``E10`` (I lose) on its second move;
* ``early``: sends ``E00`` on its second move, before any limit;
* ``slow``: sends a CHAT, then sleeps 1.5 times its GAMEREQ clock before its first move;
* ``backreq``: sends a BACKREQ instead of its first move;
* ``silent``: accepts the connection, reads, and never answers anything;
* anything else (``first``): plays the first legal move until the game ends.

It confirms the runner's GAMEEND with ``E0<stop>`` only while a game runs (as Scan), and
leaves the connection on stop code 1 or when it closes (then exits, unless ``--serve``).
"""
import socket
import sys
import time

from engine import BLACK, WHITE, legal_moves, play, pos_from_dxp
from protocol.dxp.wire import (BackReq, Chat, Framer, GameAcc, GameEnd, GameReq, MoveMsg, decode,
                               frame)

serve = "--serve" in sys.argv
args = [a for a in sys.argv[1:] if a != "--serve"]
port, mode = int(args[0]), args[1]
requests = args[2] if len(args) > 2 else None
legal_moves(pos_from_dxp("W" + "e" * 25 + "w" + "e" * 24))      # load the kernels before listening

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(1)
print("listening", flush=True)
conn = None
game = None                       # [position, our side, own moves, limit, minutes]


def send(msg) -> None:
    conn.sendall(frame(msg))
    time.sleep(0.05)              # a gap between messages, as real followers leave


def our_turn() -> bool:
    """Move, or end the game (True)."""
    pos, side, played, limit, minutes = game
    if mode.startswith("limit") and limit and played >= limit:
        send(GameEnd(0, 1 if mode == "limit-stop" else 0))
        send(Chat(f"game ended ({played} moves played, unknown result)"))
        return True
    if mode in ("resign", "early") and played == 1:
        send(GameEnd(1 if mode == "resign" else 0, 0))
        return True
    if mode == "slow" and played == 0:
        send(Chat("thinking"))
        time.sleep(minutes * 60 * 1.5)
    if mode == "backreq" and played == 0:
        send(BackReq(1, True))
        return False
    move = legal_moves(pos)[0]
    send(MoveMsg(0, move.frm, move.to, move.captured))
    game[0], game[2] = play(pos, move), played + 1
    return False


def handle(msg) -> bool:
    """Answer one message; False to leave."""
    global game
    if mode == "silent":
        return True
    if isinstance(msg, GameEnd):
        if game is not None:
            send(GameEnd(0, msg.stop))
        game = None
        return msg.stop == 0
    if isinstance(msg, GameReq):
        if requests:
            with open(requests, "a", encoding="ascii") as f:
                f.write(f"{msg.minutes} {msg.moves} {'W' if msg.follower_white else 'Z'}\n")
        colour = "W" if msg.white_to_move else "Z"
        side = WHITE if msg.follower_white else BLACK
        game = [pos_from_dxp(colour + msg.board), side, 0, msg.moves, msg.minutes]
        send(GameAcc("fake dxp", 0))
    elif isinstance(msg, MoveMsg):
        pos = game[0]
        game[0] = play(pos, next(m for m in legal_moves(pos) if (m.frm, m.to, m.captured)
                                 == (msg.frm, msg.to, tuple(sorted(msg.captured)))))
    if game is not None and game[0].turn == game[1] and our_turn():
        game = None
    return True


while True:
    conn, _ = server.accept()
    framer, game = Framer(), None
    while True:
        try:
            data = conn.recv(4096)
        except OSError:
            break
        if not data or not all(handle(decode(text)) for text in framer.feed(data)):
            break
    conn.close()
    if not serve:
        break
