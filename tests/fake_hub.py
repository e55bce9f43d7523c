"""A Hub engine that misbehaves on purpose, for the board's tests.

``python tests/fake_hub.py MODE``: it speaks the handshake, then on ``go``:

* ``crash``: exits with code 3;
* ``silent``: never answers (not even ``stop``);
* ``illegal``: answers a move that is not legal (``done move=1-2``);
* ``slowstart``: never finishes the handshake.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "crash"
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
    elif word == "go":
        if mode == "crash":
            sys.exit(3)
        if mode == "illegal":
            print("info depth=1 score=0.50", flush=True)
            print("done move=1-2", flush=True)
