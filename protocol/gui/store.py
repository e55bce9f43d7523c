"""Where the board's games are kept, so that nothing is lost: a reload, a lost connection or a
restarted server finds the game again by its id.

Every page holds one game, named by an id in its address (``/?game=<id>``).  The game is
saved after every change as one JSON file per id under the state directory (default
``~/.cache/rafle/gui/``, or ``$XDG_CACHE_HOME/rafle/gui/``), written atomically (a temporary
file, then a rename; the :data:`KEEP` latest games are kept), and the page keeps a copy in
the browser's localStorage: a server whose state directory does not know the id is sent
the page's copy (``restore``).

What is saved (:func:`game_snapshot`): the variant, the start position, the whole record
(the moves ahead of the shown one too) and the shown ply, the players and names, the
clocks (times left: a saved clock does not run), how the game ended, the evaluations, and
whether the engines play and analysis runs.  :func:`read_game` checks a saved game from
disk or from a page move by move against Rafle's rules; anything it cannot use raises
:class:`BadInput` with what was wrong, and the page gets a fresh game and the reason.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

from engine import (BLACK, WHITE, BadInput, Game, get_variant, move_from_pdn, move_to_pdn,
                    parse_position, play, pos_to_fen)

FORMAT = "rafle-board-game"
VERSION = 1
GAME_ID = re.compile(r"[A-Za-z0-9_-]{4,64}")
MOST_PLIES = 5000
MOST_BYTES = 4_000_000
KEEP = 500                # saved games kept, the latest changed ones
_SIDES = {"white": WHITE, "black": BLACK}


def new_game_id() -> str:
    return secrets.token_urlsafe(9)


def valid_game_id(text) -> bool:
    return isinstance(text, str) and GAME_ID.fullmatch(text) is not None


def default_state_dir() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "rafle" / "gui"


class GameStore:
    """One JSON file per game id in ``folder`` (made when first needed)."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)

    def _path(self, game_id: str) -> Path:
        if not valid_game_id(game_id):
            raise BadInput(f"not a game id: {str(game_id)[:70]!r}")
        return self.folder / f"{game_id}.json"

    def load(self, game_id: str) -> dict | None:
        """The saved game, None if there is none; :class:`BadInput` if it cannot be read."""
        path = self._path(game_id)
        try:
            if path.stat().st_size > MOST_BYTES:
                raise BadInput(f"the saved game {path} is too big")
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise BadInput(f"the saved game {path} cannot be read: {e}") from None
        return data

    def prune(self, keep: int = KEEP) -> int:
        """Delete all but the ``keep`` latest saved games (every page makes one); how many
        were deleted."""
        try:
            files = sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
        except OSError:
            return 0
        gone = 0
        for path in files[:max(len(files) - keep, 0)]:
            try:
                path.unlink()
                gone += 1
            except OSError:
                pass
        return gone

    def save(self, game_id: str, data: dict) -> None:
        """Write atomically: a reader sees the old file or the new one, never half of one."""
        path = self._path(game_id)
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{game_id}.", suffix=".tmp", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, separators=(",", ":"))
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise


def game_snapshot(session) -> dict:
    """A session's game as saved (a plain JSON object)."""
    game = session.game
    whole = game.moves + game.redo_moves
    pos, texts = game.start, []
    for move in whole:
        texts.append(move_to_pdn(pos, move))
        pos = play(pos, move)
    return {"format": FORMAT, "version": VERSION, "variant": game.variant.name,
            "start": pos_to_fen(game.start), "moves": texts, "ply": len(game.moves),
            "players": {key: session.players[side].as_dict() for key, side in _SIDES.items()},
            "running": session.running, "analysing": session.analysing, "delay": session.delay,
            "evals": {str(k): v for k, v in sorted(session.evals.items())},
            "table": session.table.snapshot()}


@dataclass
class SavedGame:
    """A saved game, checked: the game at its shown ply, with the moves ahead to redo."""

    game: Game
    whole: list                  # every move of the record
    players: dict
    running: bool
    analysing: bool
    delay: float
    evals: dict[int, float]
    table: dict


def read_game(data) -> SavedGame:
    """Check a saved game (from disk or from a page); :class:`BadInput` says what is wrong."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadInput("not a saved game of Rafle's board")
    if data.get("version") != VERSION:
        raise BadInput(f"a saved game of another version ({str(data.get('version'))[:10]}; "
                       f"this board reads {VERSION})")
    name = data.get("variant")
    try:
        variant = get_variant(name) if isinstance(name, str) else None
    except (KeyError, ValueError, BadInput):
        variant = None
    if variant is None:
        raise BadInput(f"the saved game's variant {str(name)[:30]!r} is unknown")
    start, moves, ply = data.get("start"), data.get("moves"), data.get("ply")
    if not isinstance(start, str) or len(start) > 2000:
        raise BadInput("the saved game's start position is not a FEN")
    if not isinstance(moves, list) or len(moves) > MOST_PLIES or \
            not all(isinstance(m, str) and len(m) <= 200 for m in moves):
        raise BadInput("the saved game's moves are not a list of moves")
    game = Game(parse_position(start, variant), variant)
    for i, text in enumerate(moves):
        try:
            game.push(move_from_pdn(game.position, text))
        except BadInput as e:
            raise BadInput(f"the saved game's move {i + 1} ({text[:20]!r}): {e}") from None
    whole = list(game.moves)
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(whole):
        raise BadInput("the saved game's shown ply is not in its record")
    game.goto(ply)
    flags = [data.get(k, False) for k in ("running", "analysing")]
    delay = data.get("delay", 0.5)
    if not all(isinstance(f, bool) for f in flags) or isinstance(delay, bool) or \
            not isinstance(delay, (int, float)) or not 0 <= delay <= 10:
        raise BadInput("the saved game's settings are not valid")
    evals = data.get("evals", {})
    if not isinstance(evals, dict) or not all(
            isinstance(k, str) and k.isdigit() and int(k) <= len(whole) and
            isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e6
            for k, v in evals.items()):
        raise BadInput("the saved game's evaluations are not valid")
    players = data.get("players")
    if not isinstance(players, dict):
        raise BadInput("the saved game's players are not valid")
    return SavedGame(game, whole, players, flags[0], flags[1], float(delay),
                     {int(k): float(v) for k, v in evals.items()}, data.get("table") or {})
