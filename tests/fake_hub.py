"""A Hub engine that misbehaves on purpose, for the board's tests, or plays the first legal
move, for the match runner's.

``python tests/fake_hub.py MODE``: it speaks the handshake, then on ``go``:

* ``crash``: exits with code 3;
* ``silent``: never answers (not even ``stop``);
* ``illegal``: answers a move that is not legal (``done move=1-2``);
* ``slowstart``: never finishes the handshake;
* ``first``: answers ``info depth=1 score=0.50`` and the first legal move of the position it
  was given (``first SECONDS``: after that long, so that a watched game shows its moves one by
  one).
"""
import shlex
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "crash"
delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
if mode == "first":               # load the rules before the handshake: moves come at once
    from engine import legal_moves, move_from_hub, move_to_hub, play, pos_from_hub, start_position
    legal_moves(start_position())
pos = None
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "hub":
        print("id name=fake version=1", flush=True)
        if mode != "slowstart":
            print("wait", flush=True)
    elif word == "init":
        print("ready", flush=True)
    elif word == "ping":
        print("pong", flush=True)
    elif word == "quit":
        break
    elif word == "pos" and mode == "first":
        args = dict(w.split("=", 1) for w in shlex.split(line)[1:])
        pos = pos_from_hub(args["pos"])
        for text in args.get("moves", "").split():
            pos = play(pos, move_from_hub(pos, text))
    elif word == "go":
        if mode == "crash":
            sys.exit(3)
        if mode == "illegal":
            print("info depth=1 score=0.50", flush=True)
            print("done move=1-2", flush=True)
        if mode == "first":
            time.sleep(delay)
            print("info depth=1 score=0.50", flush=True)
            print(f"done move={move_to_hub(legal_moves(pos)[0])}", flush=True)
