"""``rafle match --state FILE``: a match that goes on after a stop.

The file holds the match's signature (engines, protocols, options, limits, variant, openings,
games, SPRT) and every finished game: its number, colours, result, reason, opening, the
engines' names and its PDN text, with each engine's figures so far.  It is replaced at once
after every game, so a stop (Ctrl-C, a lost Ray head, a lost machine) loses only the games in
progress.  The same command with the same file plays only the games the file lacks, writes
the PDN again from the games it holds, and reports the whole match.  A file that holds
another match is refused.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

from engine import read_pdn

from .score import EngineStats, GameResult


def signature(args, limits) -> dict:
    """What makes a match the same match, as JSON keeps it (tuples become lists)."""
    keys = ("engine1", "engine2", "protocol", "name1", "name2", "option", "option1", "option2",
            "games", "variant", "openings", "first_opening", "max_plies", "sprt")
    sign = {key: getattr(args, key) for key in keys}
    sign["limits"] = [asdict(limit) for limit in limits]
    return json.loads(json.dumps(sign))


class MatchState:
    """The state file of one match: read once at the start, replaced after every game."""

    def __init__(self, path: str, sign: dict):
        self.path = Path(path)
        self.signature = sign
        self.games: dict[int, dict] = {}         # game number -> its record
        self.names: list[str | None] = [None, None]
        self.stats: list[dict] | None = None

    def load(self) -> None:
        """Read the file if there is one; ValueError if it cannot be read or holds another
        match."""
        if not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            games, sign = data["games"], data["signature"]
            self.games = {int(g["number"]): g for g in games}
            self.names = list(data["names"])
            self.stats = data["stats"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"cannot read the match state {self.path}: {exc}") from None
        if sign != self.signature:
            differ = sorted(k for k in self.signature if sign.get(k) != self.signature[k])
            raise ValueError(f"{self.path} holds another match (other {', '.join(differ)}): "
                             f"give another --state file to start a new one")

    def results(self) -> list[GameResult]:
        """The finished games, replayed from their PDN (every move checked again)."""
        found = []
        for number in sorted(self.games):
            g = self.games[number]
            game = read_pdn(g["pdn"])[0].game()
            found.append(GameResult(number, g["white"], game, g["result"], g["reason"],
                                    g["opening"]))
        return found

    def engine_stats(self) -> list[EngineStats] | None:
        if self.stats is None:
            return None
        return [EngineStats(**s) for s in self.stats]

    def pdn(self) -> str:
        return "".join(self.games[n]["pdn"] for n in sorted(self.games))

    def add(self, r: GameResult, pdn: str, names: list, stats: list[EngineStats]) -> None:
        """Keep game ``r`` (its PDN text ``pdn``) and the figures so far; rewrite the file."""
        self.games[r.number] = {"number": r.number, "white": r.white, "result": r.result,
                                "reason": r.reason, "opening": r.opening, "pdn": pdn}
        self.names = list(names)
        self.stats = [asdict(s) for s in stats]
        data = {"signature": self.signature, "names": self.names, "stats": self.stats,
                "games": [self.games[n] for n in sorted(self.games)]}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)
