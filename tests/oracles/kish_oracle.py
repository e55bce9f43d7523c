"""Answer questions about Turkish positions with kish, a Rust engine (run under Python 3.8).

kish (PyPI ``kish``) publishes a CPython 3.8 wheel only, so this script runs in its own
interpreter and talks JSON lines over stdin/stdout; Rafle's tests start it.  It shares no
code with Rafle.  A request is ``{"fen": ..., "op": "moves" | "perft", "depth": N}`` with
the FEN in pydraughts' Turkish form (``W:Wa2,b2:Bh7,Ka8``); the answer is the list of moves
as ``[from, to, [captured...], promotes, [path...]]`` (squares named ``a1``..``h8``), or the
perft count.  kish keeps every capture path and counts a position without moves as a leaf.
kish 1.1.7 names the square of a capture that ends where it began ``A9`` (index 64: its
source and destination are read off the move's change of squares, which is empty); such a
move is answered with null from and to squares.
"""
import json
import sys

import kish


def board_of(fen):
    side, *sections = fen.split(":")
    squares = {"W": [], "B": []}
    kings = []
    for section in sections:
        if not section or section[0] not in "WB":
            continue
        for item in filter(None, section[1:].split(",")):
            king = item[0] == "K"
            sq = kish.Square.from_notation(item[1:] if king else item)
            squares[section[0]].append(sq)
            if king:
                kings.append(sq)
    turn = kish.Team.White if side == "W" else kish.Team.Black
    return kish.Board.from_squares(turn=turn, white_squares=squares["W"],
                                   black_squares=squares["B"], king_squares=kings)


def name(sq):
    return None if int(sq) >= 64 else sq.notation().lower()


def moves(board):
    out = []
    for a in board.actions():
        out.append([name(a.source()), name(a.destination()),
                    sorted(name(s) for s in a.captured_pieces()), bool(a.is_promotion()),
                    [name(s) for s in a.path() if int(s) < 64]])
    return out


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        board = board_of(req["fen"])
        if req["op"] == "moves":
            answer = moves(board)
        else:
            answer = board.perft(int(req["depth"]))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
