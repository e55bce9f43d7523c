"""A Hub version 1 engine (Scan 2.0's dialect) for the match runner's tests: it plays the
first legal move, and exits with code 2 on any line that is not Hub-1 as the runner must
send it, so a test sees a crash instead of a game.

``python tests/fake_hub1.py``, as Scan 2.0's src/main.cpp: ``hub`` -> ``name fake-hub1``,
``author``, ``country``, ``wait``; ``init`` -> ``ready``; ``ping`` -> ``pong``; ``new``;
``pos <position>`` (which forgets the limit, as Scan's does); ``level <moves> <ms> <ms>``
(three whole numbers) or ``time <ms>``; ``go`` -> ``info ...`` and ``move <move>``; ``quit``.

A position is read as strictly as Scan 2.0's ``pos_from_hub`` (src/fen.cpp) reads it: the side
to move in lower case, ``w`` or ``b``, then 50 squares of ``w b W B e``.  Anything else is
answered ``error bad position`` and, as Scan does, the board stays the one before (a ``go``
then searches that board).  ``python tests/fake_hub1.py refuse`` refuses every position so.

``python tests/fake_hub1.py depths [N]`` is a peer for ``rafle bench --depth-times --peer``: it
also takes ``set <name> <value>`` (Scan's ``set book false``), and answers ``go`` with ``info``
lines in Scan 2.0's positional format (``info <depth> <mean depth> <score> <nodes> <time>
<speed> <pv>``, its src/search.cpp ``disp_best_move``) for depths 1 to N (default 8): depth d
at DEPTH_TIME * d seconds with d * d * 1000 nodes, and at depth 3 a second line (a new best
move) 0.1 s later, before its ``move``.  Scan's ``depth <n>`` limits the next search to n
(each ``pos`` lifts it, as Scan's does).
"""
import sys

from engine import legal_moves, move_to_hub, pos_from_hub, start_position

legal_moves(start_position())          # load the kernels before answering


def out(line: str) -> None:
    print(line, flush=True)


REFUSE = sys.argv[1:] == ["refuse"]
DEPTHS = int(sys.argv[2]) if sys.argv[1:2] == ["depths"] and len(sys.argv) > 2 else \
    8 if sys.argv[1:2] == ["depths"] else 0
DEPTH_TIME = 0.25


def scan_info(depth: int, seconds: float, nodes: int, pv: str) -> str:
    speed = 0.0 if seconds < 0.1 else nodes / seconds
    return f"info {depth} {depth:.1f} {10 * depth} {nodes} {seconds:.2f} {speed / 1e6:.1f} {pv}"


def scan_position(text: str):
    """The position, or None where Scan 2.0 would answer ``error bad position``."""
    if REFUSE or len(text) != 51 or text[0] not in "wb" or set(text[1:]) - set("wbWBe"):
        return None
    return pos_from_hub(text.upper()[0] + text[1:])


pos = None
level = None
limit = DEPTHS                     # Scan's ``depth <n>``
for line in sys.stdin:
    words = line.split()
    command, args = (words[0], words[1:]) if words else ("", [])
    if command == "hub" and not args:
        out("name fake-hub1")
        out("author nobody")
        out("country nowhere")
        out("wait")
    elif command == "init":
        out("ready")
    elif command == "ping":
        out("pong")
    elif command == "new" and not args:
        pos = level = None
    elif command == "pos" and len(args) == 1:
        taken = scan_position(args[0])
        if taken is None:
            out("error bad position")
        pos, level, limit = taken or pos, None, DEPTHS
    elif command == "level" and len(args) == 3 and all(a.isdigit() for a in args):
        level = args
    elif command == "time" and len(args) == 1 and args[0].isdigit():
        level = args
    elif command == "set" and len(args) == 2 and DEPTHS:
        pass
    elif command == "depth" and len(args) == 1 and args[0].isdigit() and DEPTHS:
        limit = int(args[0])
    elif command == "go" and not args and pos is not None and level is not None and DEPTHS:
        move = move_to_hub(legal_moves(pos)[0])
        for depth in range(1, min(limit, DEPTHS) + 1):
            out(scan_info(depth, DEPTH_TIME * depth, depth * depth * 1000, move))
            if depth == 3:
                out(scan_info(depth, DEPTH_TIME * depth + 0.1, depth * depth * 1000 + 7, move))
        out(f"move {move}")
    elif command == "go" and not args and pos is not None and level is not None:
        out(f"info depth 1 score 0 level {' '.join(level)}")
        out(f"move {move_to_hub(legal_moves(pos)[0])}")
    elif command == "stop":
        pass                       # a stop that crossed our answer
    elif command == "quit":
        break
    else:
        sys.exit(2)
