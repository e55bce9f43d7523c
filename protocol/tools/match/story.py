"""``rafle story``: where an engine's games were decided, read from PDN files.

Each game an engine played (``--engine``: its name in the White/Black tags) is replayed
and its material counted after every ply from that engine's side (a man 1, a king 3).
A decided game has a *fall*: the first ply from which the loser stays behind (or the
winner ahead) for good, with the pieces then on the board.  A drawn game counts how many
plies the engine stood 2 or more ahead (not converted) or 2 or more behind (held).  The
summary gives the medians, so a match's or a tournament's PDN (``rafle match --pdn``,
``rafle tournament --pdn``) says whether its games were lost in the middle game or the
ending.  With ``--score NODES`` Rafle searches each of the engine's positions from ply
``--from`` (that many nodes, book off) and a lost game also gets its *slide*: the ply from
which that score stayed at -1.00 or worse (forced moves aside).  The *tempo* at plies 20, 40
and 60, where the men are level and no king is on the board, is the rows the engine's men
have gone from its back row less the opponent's: the summary gives its mean by result (the
kind of game: a side that keeps its men back, or one that takes the space).  ``--json``
prints one object per game instead.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict, dataclass, field

from engine import BLACK, WHITE, BadInput, Limits, Searcher, legal_moves, play, read_pdn

from ...about import summary as doc_summary

KING = 3          # a king counts as this many men
MARGIN = 2        # "ahead" / "behind": by at least this much material
LONG = 30         # a draw "held" or "not converted" after this many plies at the margin
SLIDE = -100      # --score: a lost game's slide starts where the search stays at or below this
TEMPO_PLIES = (20, 40, 60)   # the plies at which the tempo is read


@dataclass
class Story:
    """One game from the engine's side."""

    round: str
    colour: str            # white or black
    score: float           # 1, 0.5 or 0
    plies: int
    fall: int | None       # decided games: the ply from which the result's material held
    pieces: int | None     # ... pieces on the board after that ply
    ahead: int             # plies with the engine MARGIN or more ahead
    behind: int            # ... behind
    termination: str
    slide: int | None = None   # --score, lost games: the ply from which the search stayed <= SLIDE
    tempo: dict[int, int] = field(default_factory=dict)   # ply -> the engine's tempo lead there


def tempo(pos, white: bool) -> int | None:
    """The rows the men of the side ``white`` have gone from its back row, less the other
    side's; None where the men are not level or a king is on the board."""
    if pos.kings or pos.count(WHITE)[0] != pos.count(BLACK)[0]:
        return None
    v, lead = pos.variant, 0
    for square in range(1, v.nsquares + 1):
        piece = pos.piece_at(square)
        if piece in ("w", "b"):
            row = v.coords(square)[0]
            lead += (v.width - 1 - row) if piece == "w" else -row
    return lead if white else -lead


def material(pos, white: bool) -> int:
    """Material of the side ``white`` less the other's (a man 1, a king KING)."""
    (wm, wk), (bm, bk) = pos.count(WHITE), pos.count(BLACK)
    lead = wm + KING * wk - bm - KING * bk
    return lead if white else -lead


def tell(game, engine: str) -> Story | None:
    """The story of ``game`` (a PdnGame) for ``engine``; None if it did not play it or the
    game has no result."""
    white = game.tags.get("White") == engine
    if not white and game.tags.get("Black") != engine:
        return None
    points = {"2-0": 1.0, "1-1": 0.5, "0-2": 0.0}.get(game.result)
    if points is None:
        return None
    score = points if white else 1.0 - points
    pos, story, tempi = game.start, [], {}
    for ply, move in enumerate(game.moves, 1):
        pos = play(pos, move)
        story.append((material(pos, white), bin(pos.white | pos.black).count("1")))
        if ply in TEMPO_PLIES and (lead := tempo(pos, white)) is not None:
            tempi[ply] = lead
    fall = pieces = None
    if score != 0.5 and story:
        sign = 1 if score == 1.0 else -1
        level = [i for i, (m, _) in enumerate(story) if m * sign <= 0]
        at = level[-1] + 1 if level else 0        # the first ply of the lasting lead
        if at < len(story):
            fall, pieces = at + 1, story[at][1]
    return Story(game.tags.get("Round", "?"), "white" if white else "black", score,
                 len(game.moves), fall, pieces,
                 sum(1 for m, _ in story if m >= MARGIN), sum(1 for m, _ in story if m <= -MARGIN),
                 game.tags.get("Termination", ""), tempo=tempi)


def slide(game, engine: str, searcher: Searcher, nodes: int, first: int) -> int | None:
    """The ply (of the engine's moves from ``first``) from which ``searcher``'s score of
    the engine's position stayed at or below SLIDE; None if it never did.  Forced moves
    are skipped (no search)."""
    mine = WHITE if game.tags.get("White") == engine else BLACK
    pos, scores = game.start, []
    for ply, move in enumerate(game.moves, 1):
        if pos.turn == mine and ply >= first and len(legal_moves(pos)) > 1:
            searcher.new_game()
            scores.append((ply, searcher.search(pos, [], Limits(nodes=nodes)).score))
        pos = play(pos, move)
    at = None
    for ply, score in reversed(scores):
        if score is None or score > SLIDE:
            break
        at = ply
    return at


def summary(stories: list[Story], engine: str) -> list[str]:
    wins = [s for s in stories if s.score == 1.0]
    losses = [s for s in stories if s.score == 0.0]
    draws = [s for s in stories if s.score == 0.5]
    lines = [f"{engine}: {len(stories)} games, +{len(wins)} ={len(draws)} -{len(losses)}"]
    for name, group in (("losses", losses), ("wins", wins)):
        falls = [s for s in group if s.fall is not None]
        if falls:
            lines.append(
                f"{name}: decided from ply {min(s.fall for s in falls)}-{max(s.fall for s in falls)} "
                f"(median {statistics.median(s.fall for s in falls):g}) with "
                f"{min(s.pieces for s in falls)}-{max(s.pieces for s in falls)} pieces "
                f"(median {statistics.median(s.pieces for s in falls):g})")
    lines.append(f"draws: {sum(1 for s in draws if s.ahead >= LONG)} with {engine} {MARGIN} or "
                 f"more ahead for {LONG} plies or more (not converted), "
                 f"{sum(1 for s in draws if s.behind >= LONG)} behind (held)")
    lines += tempo_lines(stories, engine)
    slides = [s.slide for s in losses if s.slide is not None]
    if slides:
        lines.append(f"losses: the search at {SLIDE / 100:.2f} or worse for good from ply "
                     f"{min(slides)}-{max(slides)} (median {statistics.median(slides):g}; "
                     f"{len(slides)} of {len(losses)})")
    return lines


def tempo_lines(stories: list[Story], engine: str) -> list[str]:
    """The summary's tempo: the engine's mean lead at each of TEMPO_PLIES, by result."""
    parts = []
    for name, score in (("losses", 0.0), ("draws", 0.5), ("wins", 1.0)):
        at = [[s.tempo[p] for s in stories if s.score == score and p in s.tempo]
              for p in TEMPO_PLIES]
        if any(at):
            parts.append(f"{name} " + " / ".join(f"{statistics.mean(x):+.1f} ({len(x)})" if x
                                                 else "-" for x in at))
    if not parts:
        return []
    plies = "/".join(str(p) for p in TEMPO_PLIES)
    return [f"tempo: {engine}'s men ahead of the other side's by this many rows at ply {plies} "
            f"(mean; in brackets the games with level men and no king): {'; '.join(parts)}"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rafle story", description=doc_summary(__doc__))
    parser.add_argument("pdn", nargs="+", help="PDN files (rafle match/tournament --pdn)")
    parser.add_argument("--engine", default=None,
                        help="the engine's name in the tags (default: the first game's White)")
    parser.add_argument("--score", type=int, default=0, metavar="NODES",
                        help="search the engine's positions of lost games with this many nodes "
                             "(0: no search) to find where each began to slide")
    parser.add_argument("--from", dest="first", type=int, default=21, metavar="PLY",
                        help="--score: the first ply searched (default 21, after the openings)")
    parser.add_argument("--json", action="store_true", help="one JSON object per game")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    games = []
    for path in args.pdn:
        try:
            with open(path, encoding="utf-8") as f:
                games += read_pdn(f.read())
        except (OSError, UnicodeDecodeError, BadInput) as exc:
            print(f"rafle story: {path}: {exc}", file=sys.stderr)
            return 2
    engine = args.engine or (games[0].tags.get("White") if games else None)
    told = [(g, s) for g, s in ((g, tell(g, engine)) for g in games) if s is not None]
    if not told:
        print(f"rafle story: no finished game of {engine!r} in {', '.join(args.pdn)}",
              file=sys.stderr)
        return 2
    if args.score > 0:
        searcher = Searcher()
        searcher.set_option("book", "false")
        for game, story in told:
            if story.score == 0.0:
                story.slide = slide(game, engine, searcher, args.score, args.first)
    stories = [s for _, s in told]
    if args.json:
        for s in stories:
            print(json.dumps(asdict(s)))
    else:
        print("\n".join(summary(stories, engine)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
