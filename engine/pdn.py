"""PDN game files: read any number of games, write one game (``protocols.md`` §5.3-§5.4).

Reading accepts what is found in the wild: tag pairs, move numbers (``12.``,
``12...``, glued to the move or not), ``{comments}``, nested ``(variations)``,
NAGs ``$n``, ``!``/``?`` suffixes, ``%`` and ``;`` line comments, and every result
form (``2-0 1-1 0-2 0-0 *`` and ``1-0 0-1 1/2-1/2``, stored as ``2-0/0-2/1-1``).
Moves are resolved against the position with :func:`engine.move_from_pdn`, so an
illegal or ambiguous move is reported with its game and move number.

Writing gives ``[GameType "20"]`` (the variant's number; a ``Variant`` tag too when
the number is shared, e.g. killer), ``[FEN]`` when the game does not start from the
initial position, numbered moves in PDN notation and lines of at most 80 characters.
A numbered move is the first mover's move then the reply: in English checkers and pool,
where Black starts, ``1. 11-15 23-19``; a record that begins with the second mover's
move starts ``1...``.
Reading takes the variant from a ``Variant`` tag, else from ``GameType``.
Both directions are pure text codecs; every failure raises :class:`BadInput`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import BadInput
from .game import Game
from .notation import move_from_pdn, move_to_pdn, pos_from_fen, pos_to_fen
from .position import BLACK, WHITE, Move, Position, play, start_position
from .variants import ALL, Variant, get_variant

RESULTS = {"2-0": "2-0", "1-1": "1-1", "0-2": "0-2", "0-0": "0-0", "*": "*",
           "1-0": "2-0", "0-1": "0-2", "1/2-1/2": "1-1"}
ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
LINE = 80

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<tag>\[\s*(?P<name>[A-Za-z0-9_]+)\s*"(?P<value>(?:[^"\\]|\\.)*)"\s*\])
  | (?P<comment>\{[^}]*\})
  | (?P<line_comment>(?:^%|;)[^\n]*)
  | (?P<strength>\([!?]+\))
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$\d+)
  | (?P<result>(?:2-0|0-2|1-1|0-0|1/2-1/2|1-0|0-1|\*)(?![-x:*\d/]))
  | (?P<number>\d+\.(?:\.\.)?)
  | (?P<move>(?:\d+|[a-l]\d{1,2})(?:[-x:*](?:\d+|[a-l]\d{1,2}))+)[!?+#]*
  | (?P<suffix>[!?]+)
""", re.VERBOSE | re.MULTILINE)


@dataclass
class PdnGame:
    """One game read from a PDN file."""

    tags: dict[str, str]
    start: Position
    moves: list[Move] = field(default_factory=list)
    result: str = "*"

    def game(self) -> Game:
        """The game as a :class:`Game` record (moves replayed, so rules can be judged)."""
        g = Game(self.start)
        for move in self.moves:
            g.push(move)
        return g


def _tokens(text: str):
    """(kind, text, line) for every meaningful token; comments and variations skipped."""
    pos, depth, line = 0, 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            if text[pos] == "{":
                raise BadInput(f"line {line}: comment '{{' is never closed")
            bad = text[pos:].split(None, 1)[0][:20]
            raise BadInput(f"line {line}: cannot read {bad!r}")
        at, pos = line, m.end()
        line += m.group().count("\n")
        kind = m.lastgroup
        if kind in ("space", "comment", "line_comment", "nag", "strength", "suffix", "number"):
            continue
        if kind == "open":
            depth += 1
        elif kind == "close":
            if depth == 0:
                raise BadInput(f"line {at}: ')' without '('")
            depth -= 1
        elif depth:
            continue                      # inside a variation: not the main line
        elif kind == "tag":
            value = re.sub(r"\\(.)", r"\1", m.group("value"))
            yield "tag", (m.group("name"), value), at
        else:
            yield kind, m.group(kind), at
    if depth:
        raise BadInput("a variation '(' is never closed")


def _variant(tags: dict[str, str], number: int) -> Variant:
    """The variant a game's tags name: a ``Variant`` tag, else the GameType number."""
    try:
        if tags.get("Variant", "").strip():
            return get_variant(tags["Variant"])
    except BadInput as e:
        raise BadInput(f"game {number}: {e}") from None
    gametype = tags.get("GameType", "20").strip()
    code = gametype.split(",")[0].strip()
    for v in ALL:
        if str(v.gametype) == code:
            return v
    raise BadInput(f"game {number}: GameType {gametype!r} is not a variant Rafle knows")


def _start(tags: dict[str, str], number: int) -> Position:
    variant = _variant(tags, number)
    fen = tags.get("FEN", "").strip()
    if not fen:
        return start_position(variant)
    try:
        return pos_from_fen(fen, variant)
    except BadInput as e:
        raise BadInput(f"game {number}: bad FEN tag: {e}") from None


def read_pdn(text: str) -> list[PdnGame]:
    """Every game in ``text`` (a PDN file's contents), in order."""
    text = text.lstrip("\ufeff")
    games: list[PdnGame] = []
    tags: dict[str, str] = {}
    current: PdnGame | None = None      # set once the movetext of a game has begun
    pos = start_position()

    def begin() -> PdnGame:
        g = PdnGame(dict(tags), _start(tags, len(games) + 1))
        g.result = RESULTS.get(tags.get("Result", "*").strip(), "*")
        games.append(g)
        return g

    for kind, value, line in _tokens(text):
        if kind == "tag":
            if current is None and value[0] in tags:
                begin()                 # a game of tags only, then the next game's tags
                tags = {}
            if current is not None:     # a tag after movetext starts the next game
                current, tags = None, {}
            tags[value[0]] = value[1]
            continue
        if current is None:
            current = begin()
            pos = current.start
        if kind == "result":
            current.result = RESULTS[value]
            current, tags = None, {}
            continue
        try:
            move = move_from_pdn(pos, value)
        except BadInput as e:
            plies = len(current.moves) + (current.start.turn != _first_mover(current.start.variant))
            raise BadInput(f"game {len(games)}, move {plies // 2 + 1} ({value}), "
                           f"line {line}: {e}") from None
        current.moves.append(move)
        pos = play(pos, move)
    if tags and current is None:        # tags with no movetext at all: an empty game
        begin()
    return games


def _first_mover(variant: Variant) -> int:
    """The side whose move is the first half of a numbered move: the side that starts
    the game (Black in English checkers and pool, so ``1. 11-15 23-19``)."""
    return WHITE if variant.white_starts else BLACK


def _tag(name: str, value: str) -> str:
    return f'[{name} "{value.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]'


def write_pdn(game: Game, tags: dict[str, str] | None = None, comment: str | None = None) -> str:
    """PDN text of ``game``; ``tags`` adds or overrides tag pairs, ``comment`` goes
    before the result (e.g. why the game ended).  Ends with a blank line."""
    tags = dict(tags or {})
    if "Result" not in tags:
        outcome = game.outcome()
        tags["Result"] = outcome.result if outcome else "*"
    variant = game.variant
    result = RESULTS.get(tags["Result"], "*")
    if variant.gametype not in (20, 40):        # the default result type: 1-0, 0-1, 1/2-1/2
        result = {"2-0": "1-0", "0-2": "0-1", "1-1": "1/2-1/2"}.get(result, result)
    tags["Result"] = result
    defaults = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?",
                "White": "?", "Black": "?"}
    lines = [_tag(k, tags.get(k, defaults.get(k, "?"))) for k in ROSTER]
    lines += [_tag(k, v) for k, v in tags.items()
              if k not in ROSTER + ("GameType", "Variant", "FEN")]
    lines.append(_tag("GameType", str(variant.gametype)))
    if next(v for v in ALL if v.gametype == variant.gametype) is not variant:
        lines.append(_tag("Variant", variant.name))   # GameType alone would say another
    if game.start != start_position(variant):
        lines.append(_tag("FEN", pos_to_fen(game.start)))
    lines.append("")

    words = []
    first = _first_mover(variant)
    late = int(game.start.turn != first)       # the record begins with the second mover
    for i, (pos, move) in enumerate(zip(game.positions, game.moves)):
        number = (i + late) // 2 + 1
        # A move number stays on the line of its move.
        prefix = f"{number}. " if pos.turn == first else f"{number}... " if i == 0 else ""
        words.append(prefix + move_to_pdn(pos, move))
    if comment:
        words += ("{" + comment.replace("}", ")") + "}").split()
    words.append(result)

    text, row = [], ""
    for w in words:
        if row and len(row) + 1 + len(w) > LINE:
            text.append(row)
            row = w
        else:
            row = f"{row} {w}" if row else w
    text.append(row)
    return "\n".join(lines + text) + "\n\n"
