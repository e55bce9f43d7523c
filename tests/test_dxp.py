"""DXP: the message codec, NUL framing over real sockets, the session state machine
against a scripted peer, and Rafle against itself over loopback.

Layouts and examples are those of spec/protocols.md §3.3 and §3.8.
"""
from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future

import pytest

from engine import legal_moves, parse_position
from engine import Limits, Result
from protocol.dxp import game as dxp_game
from protocol.dxp import link as dxp_link
from protocol.dxp import session as dxp
from protocol.dxp.wire import (START_BOARD, BackAcc, BackReq, Chat, DxpError, DxpVersionError, Framer,
                              GameAcc, GameEnd, GameReq, MoveMsg, decode, encode, format_minutes,
                              parse_minutes)

PAD = " " * 26   # "PyTest" padded to 32

# ----- codec ----------------------------------------------------------------------------

ROUND_TRIPS = [
    (f"R01PyTest{PAD}W001000A", GameReq("PyTest", True, 1.0, 0)),
    (f"R01PyTest{PAD}Z000100BW{START_BOARD}", GameReq("PyTest", False, 0.0, 100, START_BOARD, True)),
    (f"R01Scan 3.1{' ' * 24}Z003075A", GameReq("Scan 3.1", False, 3.0, 75)),
    (f"R01PyTest{PAD}W0.5000BZ{'e' * 10}wzWZe{'e' * 35}",
     GameReq("PyTest", True, 0.5, 0, "e" * 10 + "wzWZe" + "e" * 35, False)),
    (f"R01PyTest{PAD}W.25000A", GameReq("PyTest", True, 0.25, 0)),
    ("ATornado voor Windows 4.0        0", GameAcc("Tornado voor Windows 4.0", 0)),
    (f"ARafle{' ' * 27}2", GameAcc("Rafle", 2)),
    ("M0012061100", MoveMsg(12, 6, 11)),
    ("M001205250422122320", MoveMsg(12, 5, 25, (22, 12, 23, 20))),
    ("M000028190123", MoveMsg(0, 28, 19, (23,))),
    ("E00", GameEnd(0, 0)),
    ("E31", GameEnd(3, 1)),
    ("CWhat do you think about move 35?", Chat("What do you think about move 35?")),
    ("B005Z", BackReq(5, False)),
    ("B001W", BackReq(1, True)),
    ("K0", BackAcc(0)),
    ("K2", BackAcc(2)),
]


@pytest.mark.parametrize("text,msg", ROUND_TRIPS, ids=[t[:12] for t, _ in ROUND_TRIPS])
def test_round_trip(text, msg):
    assert decode(text) == msg
    assert encode(msg) == text


def test_every_message_type_is_covered():
    assert {text[0] for text, _ in ROUND_TRIPS} == set("RAMECBK")


BAD = [
    ("", "empty"),
    ("X12", "unknown message type"),
    ("M" + "0" * 130, "longer than 127"),
    ("Cna\xefve", "not ASCII"),
    (f"R01PyTest{PAD}X001000A", "follower colour"),
    (f"R01PyTest{PAD}W0a1000A", "time"),
    (f"R01PyTest{PAD}W...000A", "time"),
    (f"R01PyTest{PAD}W00110xA", "number of moves"),
    (f"R01PyTest{PAD}W001000C", "starting position"),
    (f"R01PyTest{PAD}W001000A ", "GAMEREQ with start position A must be 43"),
    (f"R01PyTest{PAD}W001000BW{START_BOARD[:-1]}", "GAMEREQ with start position B must be 94"),
    (f"R01PyTest{PAD}W001000BX{START_BOARD}", "colour to move"),
    (f"R01PyTest{PAD}W001000BW{'e' * 6}x{'e' * 43}", "square 7"),
    ("R1x", "version must be 2 digits"),
    ("R01short", "43 or 94"),
    ("ARafle 0", "GAMEACC must be 34"),
    (f"ARafle{' ' * 27}4", "GAMEACC code"),
    ("M00120611", "at least 11"),
    ("M0012061101", "MOVE with 1 captured pieces must be 13"),
    ("M00120611001", "MOVE with 0 captured pieces must be 11"),
    ("M0012511100", "from square"),
    ("M0012060000", "to square"),
    ("M00x2061100", "MOVE time"),
    ("M0012061121" + "01" * 21, "number of captured pieces"),
    ("M00120611020505", "twice"),
    ("M0012061101x5", "captured square 1"),
    ("E0", "GAMEEND must be 3"),
    ("E40", "GAMEEND reason"),
    ("E02", "stop code"),
    ("B000W", "move number"),
    ("B05W", "BACKREQ must be 5"),
    ("B005X", "colour to move"),
    ("K3", "BACKACC code"),
    ("K", "BACKACC must be 2"),
]


@pytest.mark.parametrize("text,words", BAD, ids=[w for _, w in BAD])
def test_decode_errors_name_the_field(text, words):
    with pytest.raises(DxpError, match=re.escape(words)):
        decode(text)


def test_other_gamereq_version_is_its_own_error():
    with pytest.raises(DxpVersionError) as err:
        decode(f"R02PyTest{PAD}W001000A")
    assert err.value.version == "02"


@pytest.mark.parametrize("field,minutes", [("000", 0.0), ("005", 5.0), ("0.5", 0.5), (".05", 0.05),
                                           ("1.5", 1.5), ("999", 999.0), ("05.", 5.0)])
def test_minutes_field(field, minutes):
    assert parse_minutes(field) == minutes


@pytest.mark.parametrize("minutes,field", [(0, "000"), (3, "003"), (0.5, "0.5"), (0.25, ".25"),
                                           (1.5, "1.5"), (0.001, "000"), (0.999, "001"), (12.4, "012")])
def test_minutes_are_written_in_three_characters(minutes, field):
    assert format_minutes(minutes) == field


def test_encode_refuses_what_does_not_fit():
    for msg in (GameReq("x", True, 1000, 0), GameReq("x", True, 1, 1000), MoveMsg(0, 0, 5),
                MoveMsg(0, 1, 51), MoveMsg(0, 1, 5, tuple(range(1, 22))), GameEnd(4, 0), BackReq(0, True)):
        with pytest.raises(DxpError):
            encode(msg)


def test_encode_pads_and_cleans_names_and_chat():
    assert encode(GameAcc("  a very long engine name that does not fit", 0)) == \
        "A" + "a very long engine name that doe" + "0"
    assert encode(Chat("line\nbreak\0")) == "Cline?break?"
    assert encode(MoveMsg(12345, 6, 11)) == "M9999061100"


# ----- framing ----------------------------------------------------------------------------

def test_framer_splits_and_joins():
    f = Framer()
    assert f.feed(b"AScan 3.1                        0\0M00003430") == ["AScan 3.1                        0"]
    assert f.pending == 9
    assert f.feed(b"00\0\0E00\0K") == ["M0000343000", "E00"]   # an empty frame is skipped
    assert f.feed(b"0\0") == ["K0"]


def test_framer_bounds_a_message_without_nul():
    f = Framer()
    assert f.feed(b"C" + b"x" * 5000) == []
    assert f.pending == 128
    [long] = f.feed(b"yyy\0E00\0")[:1]
    with pytest.raises(DxpError, match="longer than 127"):
        decode(long)
    assert f.feed(b"K0\0") == ["K0"]


MESSAGES = ["R01PyTest" + PAD + "W000100BW" + START_BOARD, "M0000322800", "CHello", "E01"]


@pytest.mark.parametrize("chunking", ["whole", "one-chunk", "byte-by-byte", "split-7"])
def test_link_reads_messages_however_they_arrive(chunking):
    a, b = socket.socketpair()
    with a, b:
        data = b"".join(m.encode() + b"\0" for m in MESSAGES)
        if chunking == "whole":
            pieces = [m.encode() + b"\0" for m in MESSAGES]
        elif chunking == "one-chunk":
            pieces = [data]
        elif chunking == "byte-by-byte":
            pieces = [data[i:i + 1] for i in range(len(data))]
        else:
            pieces = [data[i:i + 7] for i in range(0, len(data), 7)]
        sender = threading.Thread(target=lambda: [a.sendall(p) for p in pieces])
        sender.start()
        link = dxp_link.Link(b)
        got = [link.receive(5) for _ in MESSAGES]
        sender.join()
        assert got == MESSAGES
        a.close()
        with pytest.raises(dxp_link.PeerGone):
            link.receive(5)


def test_link_times_out_on_silence():
    a, b = socket.socketpair()
    with a, b, pytest.raises(dxp_link.PeerSilent):
        dxp_link.Link(b).receive(0.05)


def test_link_sends_exact_bytes_and_pauses_between_unanswered_messages():
    a, b = socket.socketpair()
    with a, b:
        link = dxp_link.Link(a)
        link.send(GameAcc("Rafle", 0))
        link.send(MoveMsg(0, 32, 28))
        assert link.pauses == 1
        b.settimeout(5)
        data = b""
        while data.count(b"\0") < 2:
            data += b.recv(100)
        assert data == b"ARafle" + b" " * 27 + b"0\0M0000322800\0"


# ----- the state machine against a scripted peer --------------------------------------------

class FirstMove:
    """Plays the first legal move at once."""

    def __init__(self):
        self.games = 0

    def new_game(self):
        self.games += 1

    def think(self, pos, history, limits):
        move = legal_moves(pos)[0]
        return Result(move, None, 0, 1, 1, 0.0, (move,))

    def start(self, pos, history, limits) -> Future:
        """``think`` in a thread, answered through a future, as ``Searcher.start`` does."""
        future = Future()
        threading.Thread(target=lambda: future.set_result(self.think(pos, history, limits)),
                         daemon=True).start()
        return future

    def stop(self):
        pass


class Thinker(FirstMove):
    """Thinks until told to stop (then still answers, as a search does)."""

    def __init__(self):
        super().__init__()
        self.stopped = threading.Event()

    def think(self, pos, history, limits):
        self.stopped.wait(10)
        return super().think(pos, history, limits)

    def stop(self):
        self.stopped.set()


class Peer:
    """The other end of the connection, driven by the test."""

    def __init__(self, sock):
        self.sock, self.framer, self.inbox = sock, Framer(), deque()
        sock.settimeout(10)

    def send(self, text):
        self.sock.sendall(text.encode("ascii") + b"\0")

    def expect(self) -> str:
        while not self.inbox:
            data = self.sock.recv(4096)
            if not data:
                raise EOFError("the session closed the connection")
            self.inbox.extend(self.framer.feed(data))
        return self.inbox.popleft()

    def closed(self) -> bool:
        return not self.inbox and self.sock.recv(4096) == b""


def start_session(player=None, **config):
    ours, theirs = socket.socketpair()
    log: list[str] = []
    session = dxp.Session(dxp_link.Link(ours), player or FirstMove(), dxp.Config(**config), log.append)
    thread = threading.Thread(target=session.run, daemon=True)
    thread.start()
    return Peer(theirs), session, thread, log


def finish(peer, thread):
    peer.sock.close()
    thread.join(10)
    assert not thread.is_alive()


ACC = "ARafle" + " " * 27


def gamereq(follower="W", minutes="000", moves="000", start="A"):
    return f"R01PyTest{PAD}{follower}{minutes}{moves}{start}"


def test_follower_accepts_and_moves_first_as_white_after_a_pause():
    peer, session, thread, log = start_session()
    sent, send = [], session.link.send          # when each message left (the session waits)

    def timed(msg, *args, **kwargs):
        send(msg, *args, **kwargs)
        sent.append(time.monotonic())

    session.link.send = timed
    peer.send(gamereq("W"))
    assert peer.expect() == ACC + "0"
    assert peer.expect() == "M0000312600"          # first legal move of the start: 31-26
    # GAMEACC and MOVE were not sent together: PAUSE apart, whether the link waited for it
    # (link.pauses) or the move took that long to find on a loaded machine.
    deadline = time.monotonic() + 10
    while len(sent) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)            # the session notes the time just after the peer reads
    assert sent[1] - sent[0] >= dxp_link.PAUSE - 0.005
    assert session.link.pauses <= 1
    peer.send("M0000192300")
    assert peer.expect() == "M0000322700"
    peer.send("E01")
    assert peer.expect() == "E01"                    # confirmation: reason 0, stop code echoed
    assert peer.closed()
    thread.join(10)
    [record] = session.records
    assert (record.result, record.plies) == ("*", 3)
    assert session.state is dxp.State.CLOSED


def test_follower_as_black_from_a_b_position_waits_for_the_move():
    peer, session, thread, log = start_session()
    peer.send(gamereq("Z", start="BW" + START_BOARD))
    assert peer.expect() == ACC + "0"
    peer.send("M0001322800")
    assert peer.expect() == "M0000172100"            # the first legal black move, 17-21
    finish(peer, thread)


def test_bad_message_in_a_game_gets_chat_and_gameend_then_next_game():
    peer, session, thread, log = start_session()
    peer.send(gamereq("Z"))
    assert peer.expect() == ACC + "0"
    peer.send("M00003228")                           # too short
    chat = peer.expect()
    assert chat.startswith("Cerror: bad message") and "at least 11" in chat
    assert peer.expect() == "E00"
    peer.send("E00")                                 # we confirm; the follower waits for a new game
    peer.send(gamereq("W"))
    assert peer.expect() == ACC + "0"
    assert peer.expect() == "M0000312600"
    assert [r.result for r in session.records] == ["*", "*"]
    assert "protocol error" in session.records[0].reason
    finish(peer, thread)


def test_illegal_move_gets_chat_and_gameend():
    peer, session, thread, log = start_session()
    peer.send(gamereq("Z"))
    assert peer.expect() == ACC + "0"
    peer.send("M0000464100")                         # 46-41: square 41 is occupied
    chat = peer.expect()
    assert chat.startswith("Cerror: illegal move M0000464100")
    assert peer.expect() == "E00"
    finish(peer, thread)


def test_move_out_of_turn_stops_the_search_and_ends_the_game():
    player = Thinker()
    peer, session, thread, log = start_session(player)
    peer.send(gamereq("W"))
    assert peer.expect() == ACC + "0"
    peer.send("M0000192300")                         # while we are thinking
    assert "out of turn" in peer.expect()
    assert peer.expect() == "E00"
    assert player.stopped.is_set()
    peer.send("E00")
    peer.send("K0")                                  # an unrequested BACKACC is ignored
    peer.send("M0000192300")                         # a move outside any game: CHAT only
    assert "outside a game" in peer.expect()
    finish(peer, thread)


def test_chat_during_the_search_does_not_stop_it():
    player = Thinker()
    peer, session, thread, log = start_session(player)
    peer.send(gamereq("W"))
    assert peer.expect() == ACC + "0"
    peer.send("CHello")
    peer.send("E11")                                 # the peer gives up
    assert peer.expect() == "E01"
    thread.join(10)
    assert "chat: Hello" in log
    assert (session.records[0].result, session.records[0].reason) == ("2-0", "the peer conceded")


def test_backreq_rewinds_and_moves_again():
    peer, session, thread, log = start_session()
    peer.send(gamereq("W"))
    assert peer.expect() == ACC + "0"
    assert peer.expect() == "M0000312600"
    peer.send("M0000192300")
    assert peer.expect() == "M0000322700"
    peer.send("M0000141900")
    assert peer.expect() == "M0000272100"
    peer.send("B002W")                               # back to move 2, white to move: ply 2
    assert peer.expect() == "K0"
    assert peer.expect() == "M0000322700"            # same position, same move again
    assert len(session.game.moves) == 3
    peer.send("B001W")
    assert peer.expect() == "K0"
    assert peer.expect() == "M0000312600"
    peer.send("B001Z")                               # back to move 1 black: our move stays
    assert peer.expect() == "K0"
    assert len(session.game.moves) == 1
    peer.send("B009W")                               # not reached yet
    assert peer.expect() == "K2"
    peer.send("E01")
    assert peer.expect() == "E01"
    thread.join(10)


def test_backreq_from_a_black_start_counts_plies_from_there():
    peer, session, thread, log = start_session()
    black_to_move = "BZ" + START_BOARD
    peer.send(gamereq("W", start=black_to_move))
    assert peer.expect() == ACC + "0"
    peer.send("M0000172100")                         # black 17-21 is ply 0 (move 1, black)
    assert peer.expect() == "M0000312600"
    peer.send("B002W")                               # move 2 white = ply 1: our move again
    assert peer.expect() == "K0"
    assert peer.expect() == "M0000312600"
    peer.send("B001Z")                               # move 1 black = ply 0: their move
    assert peer.expect() == "K0"
    assert session.game.moves == []
    peer.send("B001W")                               # move 1 white does not exist here
    assert peer.expect() == "K2"
    finish(peer, thread)


def test_gamereq_edge_cases():
    peer, session, thread, log = start_session()
    peer.send("R02PyTest" + PAD + "W001000A")
    assert peer.expect() == ACC + "1"                # protocol version not supported
    peer.send(gamereq("W", start="BW" + "e" * 10 + "w" + "e" * 39))   # a white man on square 11 ok
    assert peer.expect() == ACC + "0"
    assert peer.expect() == "M0000110600"
    peer.send(gamereq("W"))                          # during a game: refused, game goes on
    assert peer.expect() == ACC + "2"
    peer.send("E00")
    assert peer.expect() == "E00"
    peer.send(gamereq("W", start="BW" + "w" * 5 + "e" * 45))  # white men on their crowning row
    assert peer.expect().startswith("Cerror: GAMEREQ position")
    assert peer.expect() == ACC + "2"
    peer.send(gamereq("W", start="BZ" + "e" * 10 + "w" + "e" * 39))  # black to move, no piece
    assert peer.expect() == ACC + "2"
    peer.send(gamereq("W", start="BQ" + START_BOARD))
    assert "colour to move" in peer.expect()
    assert peer.expect() == ACC + "2"
    finish(peer, thread)


def test_connection_closed_mid_game_ends_the_session():
    peer, session, thread, log = start_session()
    peer.send(gamereq("Z"))
    assert peer.expect() == ACC + "0"
    finish(peer, thread)
    assert session.records[0].reason == "connection closed"


def test_silent_peer_times_out():
    peer, session, thread, log = start_session(peer_timeout=0.2, confirm_timeout=0.2)
    peer.send(gamereq("Z"))
    assert peer.expect() == ACC + "0"
    assert "no message" in peer.expect()
    assert peer.expect() == "E01"
    thread.join(10)    # no confirmation either: the session gives up after CONFIRM_TIMEOUT
    assert session.state is dxp.State.CLOSED


WON = "BW" + "e" * 17 + "z" + "e" * 4 + "w" + "e" * 27     # black 18, white 23: 23x12 wins


def test_follower_lets_a_peer_that_judges_games_end_them_first():
    # pydraughts ends a game itself right after the move that decides it (and hangs on a
    # GAMEEND it did not expect): within the grace, its GAMEEND is confirmed.
    peer, session, thread, log = start_session(claim_grace=5.0)
    peer.send(gamereq("W", start=WON))
    assert peer.expect() == ACC + "0"
    assert peer.expect() == "M000023120118"
    peer.send("CYour move")
    peer.send("E11")                                 # "I lose", stop
    assert peer.expect() == "E01"
    thread.join(10)
    assert (session.records[0].result, session.records[0].reason) == ("2-0", "no legal move")


def test_follower_claims_a_decided_game_the_peer_does_not_end():
    # Scan ends games only on its own turn: left without a move, it says nothing.  We
    # claim after the grace (not after --peer-timeout), with the right result.
    peer, session, thread, log = start_session(claim_grace=0.3, peer_timeout=300)
    peer.send(gamereq("W", start=WON))
    assert peer.expect() == ACC + "0"
    started = time.monotonic()
    assert peer.expect() == "M000023120118"
    assert peer.expect() == "E30"                    # black has no move: we claim the win
    assert time.monotonic() - started < 5
    peer.send("E00")
    peer.send("E01")                                 # a GAMEEND outside a game: stop
    thread.join(10)
    assert (session.records[0].result, session.records[0].reason) == ("2-0", "no legal move")
    assert session.state is dxp.State.CLOSED


def test_follower_left_without_a_move_concedes():
    peer, session, thread, log = start_session(claim_grace=0.3)
    peer.send(gamereq("Z", start=WON))              # we are Black; White's capture wins
    assert peer.expect() == ACC + "0"
    peer.send("M000023120118")                       # White's capture leaves us nothing
    assert peer.expect() == "E10"                    # "I lose", not a wait for ever
    peer.send("E01")
    thread.join(10)
    assert (session.records[0].result, session.records[0].reason) == ("2-0", "no legal move")


def test_follower_with_claim_end_claims_at_once():
    peer, session, thread, log = start_session(claim_end=True, claim_grace=60)
    peer.send(gamereq("W", start=WON))
    assert peer.expect() == ACC + "0"
    assert peer.expect() == "M000023120118"
    assert peer.expect() == "E30"
    peer.send("E01")
    thread.join(10)
    assert session.state is dxp.State.CLOSED


def test_a_silent_client_is_dropped_after_the_handshake_timeout():
    peer, session, thread, log = start_session(handshake_timeout=0.3, peer_timeout=300)
    thread.join(5)
    assert not thread.is_alive() and session.state is dxp.State.CLOSED


def test_initiator_requests_plays_and_claims():
    starts = [parse_position("W:W28:B23")]
    peer, session, thread, log = start_session(initiator=True, games=2, minutes=0.5, moves=40, starts=starts)
    req = decode(peer.expect())
    assert req == GameReq("Rafle", False, 0.5, 40, "e" * 22 + "z" + "e" * 4 + "w" + "e" * 22, True)
    peer.send("AFollower" + " " * 24 + "0")
    assert peer.expect() == "M000028190123"          # the only move, and it wins
    assert peer.expect() == "E30"                    # claimed at once, another game welcome
    peer.send("E00")
    req = decode(peer.expect())                      # game 2: colours swapped
    assert req.follower_white and req.minutes == 0.5
    peer.send("AFollower" + " " * 24 + "0")
    peer.send("M000028190123")
    assert peer.expect() == "E11"                    # we lost, last game: stop code 1
    peer.send("E01")
    thread.join(10)
    assert [(r.result, r.reason) for r in session.records] == [("2-0", "no legal move")] * 2
    assert session.state is dxp.State.CLOSED


def test_initiator_stops_when_refused():
    peer, session, thread, log = start_session(initiator=True, games=3)
    assert decode(peer.expect()).board is None       # normal start: 'A'
    peer.send("AFollower" + " " * 24 + "2")          # not this one
    assert decode(peer.expect()).follower_white       # next game
    peer.send("AFollower" + " " * 24 + "3")          # no game at all
    thread.join(10)
    assert session.records == [] and session.state is dxp.State.CLOSED


def test_initiator_adjudicates_the_move_limit():
    peer, session, thread, log = start_session(initiator=True, games=1, moves=1)
    decode(peer.expect())
    peer.send("AFollower" + " " * 24 + "0")
    assert peer.expect() == "M0000312600"
    peer.send("M0000192300")
    assert peer.expect() == "E01"                    # score 0: no result claimed, stop
    peer.send("E01")
    thread.join(10)
    assert session.records[0].reason.startswith("move limit")


def test_clock_budgets():
    clock = dxp_game.Clock(0, None)
    assert clock.limits(None) == Limits(movetime=dxp_game.ZERO_TIME_MOVETIME)
    clock = dxp_game.Clock(1, None)
    limits = clock.limits(10)
    assert limits.moves == 10 and 0 < limits.time < 60 and limits.ends   # the game ends there
    assert not clock.limits(None).ends
    clock.charge(61.0, limits)
    assert clock.remaining == -1.0 and clock.overshoot == 1.0
    assert clock.limits(None).time > 0               # never a budget of zero or less


# ----- command line ----------------------------------------------------------------------------

@pytest.mark.parametrize("argv,words", [
    (["--listen", "localhost"], "expected HOST:PORT"),
    (["--connect", "127.0.0.1:99999"], "expected HOST:PORT"),
    (["--listen", "127.0.0.1:0", "--connect", "127.0.0.1:1"], "not allowed with"),
    (["--initiator", "--games", "0"], "--games must be >= 1"),
    (["--initiator", "--fen", "W:W31", "--fens", "x"], "not allowed with"),
    (["--connect", "127.0.0.1:1", "--initiator", "--fens", "/nonexistent/fens.txt"], "cannot read"),
    (["--connect", "127.0.0.1:1", "--initiator", "--fen", "W:Wxx"], "bad start position"),
    (["--connect", "127.0.0.1:1", "--initiator", "--fen", "W:B1"], "has no legal move"),
    (["--variant", "russian"], "russian (8x8) cannot be played"),
    (["--variant", "english", "--connect", "127.0.0.1:1"], "DXP plays international draughts only"),
    (["--variant", "frisian"], "frisian (10x10) cannot be played"),
    (["--variant", "bt"], "breakthrough (10x10) cannot be played"),
    (["--variant", "turkish"], "turkish (8x8) cannot be played"),
    (["--variant", "shogi"], "unknown variant"),
])
def test_command_line_errors(argv, words, capsys):
    from protocol.dxp import cli as front
    with pytest.raises(SystemExit) as exit_:
        front.main(argv)
    assert exit_.value.code == 2
    assert words in capsys.readouterr().err


def test_dxp_variant_refused_by_the_executable():
    run = subprocess.run([shutil.which("rafle"), "dxp", "--variant", "czech", "--listen",
                          "127.0.0.1:0"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "DXP plays international draughts only" in run.stderr
    assert "listening" not in run.stdout


@pytest.mark.parametrize("name", ["international", "Normal", "standard", "fmjd"])
def test_dxp_variant_international_names_are_accepted(name):
    from protocol.dxp import cli as front
    front._check_variant(name, front.build_parser())     # no SystemExit


def test_connect_failure_is_reported_not_raised(capsys):
    from protocol.dxp import cli as front
    with socket.socket() as s:          # a port that was free a moment ago: nobody listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert front.main(["--connect", f"127.0.0.1:{port}", "--depth", "1"]) == 1
    assert "cannot connect" in capsys.readouterr().out


# ----- Rafle against Rafle over loopback ------------------------------------------------------

RULES = {"no legal move", "threefold repetition", "25-move rule", "16-move rule", "5-move rule"}
RESULT = re.compile(r"^game (\d+) result (\S+) \(([^)]*)\), (\d+) plies")


def test_rafle_initiator_against_rafle_follower(tmp_path):
    rafle = shutil.which("rafle") or pytest.skip("the rafle script is not installed")
    # a lone black king against three white pieces: the 16-move rule or a win ends it
    follower = subprocess.Popen([rafle, "dxp", "--listen", "127.0.0.1:0", "--depth", "3"],
                                stdout=subprocess.PIPE, text=True)
    try:
        first = follower.stdout.readline()
        port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", first).group(1))
        initiator = subprocess.run(
            [rafle, "dxp", "--connect", f"127.0.0.1:{port}", "--initiator", "--games", "2",
             "--minutes", "0.5", "--moves", "60", "--depth", "3", "--fen", "W:W30,35,K49:BK3"],
            capture_output=True, text=True, timeout=120)
        out, _ = follower.communicate(timeout=30)
    finally:
        follower.kill()
    results = [RESULT.match(line) for line in initiator.stdout.splitlines()]
    results = [m.groups() for m in results if m]
    assert initiator.returncode == 0 and follower.returncode == 0, initiator.stdout + out
    assert [r[0] for r in results] == ["1", "2"], initiator.stdout
    assert all(r[2] in RULES for r in results), initiator.stdout
    theirs = [m.groups() for m in map(RESULT.match, out.splitlines()) if m]
    assert [r[1] for r in theirs] == [r[1] for r in results], out
    assert "error" not in initiator.stdout + out
    print(initiator.stdout, out, file=sys.stderr)


def test_a_second_client_is_refused_and_a_silent_one_cannot_block_the_server():
    rafle = shutil.which("rafle") or pytest.skip("the rafle script is not installed")
    server = subprocess.Popen([rafle, "dxp", "--listen", "127.0.0.1:0", "--depth", "1",
                               "--forever", "--handshake-timeout", "2"],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(re.search(r":(\d+)$", server.stdout.readline().strip()).group(1))
        silent = socket.create_connection(("127.0.0.1", port), timeout=60)
        time.sleep(0.5)
        second = Peer(socket.create_connection(("127.0.0.1", port), timeout=60))
        second.sock.settimeout(60)      # the first connection waits for the engine to load
        asked = time.monotonic()
        second.send(gamereq("Z"))
        replies = [second.expect(), second.expect()]
        assert replies[0].startswith("Cbusy") and replies[1] == ACC + "2"
        assert second.closed()
        silent.settimeout(30)
        assert silent.recv(100) == b""                # dropped after the handshake timeout
        assert time.monotonic() - asked < 30
        third = Peer(socket.create_connection(("127.0.0.1", port), timeout=10))
        third.send(gamereq("Z"))
        assert third.expect() == ACC + "0"           # the server goes on serving
        third.send("E01")
        third.sock.close()
    finally:
        server.kill()
        server.wait(10)
