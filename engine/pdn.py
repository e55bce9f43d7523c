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

Comments and variations are kept as a tree beside the main line (``PdnGame.notes``): the
:class:`Note` of ply ``p`` holds the comment after the p-th move and the variations that
replace it (each a list of :class:`Step`, a move with a note of its own, so variations
nest); ply 0's comment comes before the first move.  The moves of a variation are checked
like the main line's.  Writing puts them back (``write_pdn(..., notes=...)``) with the
move numbers PDN asks for (``12...`` after a comment or a variation).  A move's
annotations are kept in its note as written (``Note.nags``: ``!``, ``?!``, ``$14``; a
strength in brackets, ``(!)``, as ``!``) and written back after it, suffixes glued to the
move (``28x19!?``), NAGs apart (``28x19 $14``); an annotation before any move of its line
says nothing and is dropped.  A ``;`` comment is kept as a comment; a ``%`` line (an escape
for other programs) is dropped.
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
  | (?P<move>(?:\d+|[a-l]\d{1,2})(?:[-x:*](?:\d+|[a-l]\d{1,2}))+)(?P<glued>[!?+#]*)
  | (?P<suffix>[!?]+)
""", re.VERBOSE | re.MULTILINE)


@dataclass
class Note:
    """What the record says at one move: its annotations (``!``, ``?!``, ``$14``), the
    comment after it and the variations that replace it (each from the position before it)."""

    comment: str = ""
    variations: list[list["Step"]] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)   # variations with a move not legal: as written
    nags: list[str] = field(default_factory=list)     # suffixes and NAGs, as written

    def __bool__(self) -> bool:
        return bool(self.comment or self.variations or self.unread or self.nags)


@dataclass
class Step:
    """A move of a variation, with its own note (comment, nested variations)."""

    move: Move
    note: Note = field(default_factory=Note)


@dataclass
class PdnGame:
    """One game read from a PDN file; ``notes``: ply -> :class:`Note` (only where there is
    one; 0: the comment before the first move)."""

    tags: dict[str, str]
    start: Position
    moves: list[Move] = field(default_factory=list)
    result: str = "*"
    notes: dict[int, Note] = field(default_factory=dict)

    def game(self) -> Game:
        """The game as a :class:`Game` record (moves replayed, so rules can be judged)."""
        g = Game(self.start)
        for move in self.moves:
            g.push(move)
        return g


def _tokens(text: str):
    """(kind, text, line, start, end) for every meaningful token: tags, moves, results,
    comments (their text) and the brackets of variations (checked to pair up)."""
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
        kind = "move" if m.group("move") else m.lastgroup     # (its suffix closes last)
        if kind == "line_comment" and m.group().startswith(";"):
            yield "comment", " ".join(m.group()[1:].split()), at, m.start(), m.end()
            continue
        if kind in ("space", "line_comment", "number"):
            continue
        if kind == "open":
            depth += 1
        elif kind == "close":
            if depth == 0:
                raise BadInput(f"line {at}: ')' without '('")
            depth -= 1
        if kind == "tag":
            if depth:
                continue                  # not the place of a tag: dropped, as before
            value = re.sub(r"\\(.)", r"\1", m.group("value"))
            yield "tag", (m.group("name"), value), at, m.start(), m.end()
        elif kind == "comment":
            yield kind, " ".join(m.group()[1:-1].split()), at, m.start(), m.end()
        elif kind in ("open", "close"):
            yield kind, m.group(), at, m.start(), m.end()
        elif kind == "strength":
            yield "nag", m.group()[1:-1], at, m.start(), m.end()
        elif kind == "move":
            yield kind, m.group(kind), at, m.start(), m.end()
            glyph = "".join(c for c in m.group("glued") if c in "!?")
            if glyph:
                yield "nag", glyph, at, m.start(), m.end()
        else:
            yield "nag" if kind == "suffix" else kind, m.group(kind), at, m.start(), m.end()
    if depth:
        raise BadInput("a variation '(' is never closed")


class _Line:
    """The reading of one line of moves: the main line or a variation."""

    def __init__(self, pos: Position, ply: int, note: Note, steps: list[Step] | None):
        self.pos = pos                  # after the line's last move
        self.ply = ply                  # the plies from the game's start to ``pos``
        self.before: Position | None = None   # before it (a variation starts there)
        self.note = note                # where a comment now goes
        self.steps = steps              # a variation's steps (None: the main line)
        self.lead = ""                  # a variation's comment before its first move
        self.opened = 0                 # where its '(' is in the text
        self.broken = False             # a move of it is not legal: kept as text


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
    lines: list[_Line] = []             # the main line, then the variations open in it

    def begin() -> PdnGame:
        g = PdnGame(dict(tags), _start(tags, len(games) + 1))
        g.result = RESULTS.get(tags.get("Result", "*").strip(), "*")
        games.append(g)
        return g

    for kind, value, line, at, end in _tokens(text):
        if kind == "tag":
            if current is None and value[0] in tags:
                begin()                 # a game of tags only, then the next game's tags
                tags = {}
            if current is not None:     # a tag after movetext starts the next game
                current, tags = None, {}
            tags[value[0]] = value[1]
            continue
        if current is None:
            if kind == "close":
                raise BadInput(f"line {line}: ')' without '('")
            current = begin()
            lines = [_Line(current.start, 0, current.notes.setdefault(0, Note()), None)]
        here = lines[-1]
        if here.broken and kind not in ("open", "close"):
            continue
        if kind == "result":
            if len(lines) > 1:
                continue                # a result inside a variation says nothing
            current.result = RESULTS[value]
            current, tags = None, {}
            continue
        if kind == "nag":
            if here.before is not None:     # after a move of this line: that move's
                here.note.nags.append(value)
            continue
        if kind == "comment":
            if here.steps is not None and not here.steps:
                here.lead = f"{here.lead} {value}".strip()
            else:
                here.note.comment = f"{here.note.comment} {value}".strip()
            continue
        if kind == "open":
            if here.before is None and not here.broken:
                raise BadInput(f"game {len(games)}, line {line}: a variation before any move")
            lines.append(_Line(here.before if here.before is not None else here.pos,
                               here.ply - 1, Note(), []))
            lines[-1].opened, lines[-1].broken = at, here.broken
            continue
        if kind == "close":
            done = lines.pop()
            if done.broken:
                if not lines[-1].broken:
                    lines[-1].note.unread.append(" ".join(text[done.opened + 1:at].split()))
            elif done.steps:
                if done.lead:
                    done.steps[0].note.comment = f"{done.lead} {done.steps[0].note.comment}".strip()
                lines[-1].note.variations.append(done.steps)
            continue
        try:
            _read_move(current, here, value, line, len(games), len(lines) > 1)
        except BadInput:
            if here.steps is None:
                raise
            here.broken = True          # a variation found in the wild: kept as written
    if tags and current is None:        # tags with no movetext at all: an empty game
        begin()
    for g in games:
        g.notes = {ply: note for ply, note in g.notes.items() if note}
    return games


def _read_move(game: PdnGame, here: _Line, text: str, line: int, number: int,
               variation: bool) -> None:
    """Resolve ``text`` in the line being read and add it there (main line or variation)."""
    try:
        move = move_from_pdn(here.pos, text)
    except BadInput as e:
        plies = here.ply + (game.start.turn != _first_mover(game.start.variant))
        where = "a variation at move" if variation else "move"
        raise BadInput(f"game {number}, {where} {plies // 2 + 1} ({text}), "
                       f"line {line}: {e}") from None
    if here.steps is None:
        game.moves.append(move)
        here.note = game.notes.setdefault(len(game.moves), Note())
    else:
        here.steps.append(Step(move))
        here.note = here.steps[-1].note
    here.before, here.pos, here.ply = here.pos, play(here.pos, move), here.ply + 1


def _first_mover(variant: Variant) -> int:
    """The side whose move is the first half of a numbered move: the side that starts
    the game (Black in English checkers and pool, so ``1. 11-15 23-19``)."""
    return WHITE if variant.white_starts else BLACK


def _comment_words(comment: str) -> list[str]:
    return ("{" + comment.replace("}", ")") + "}").split() if comment else []


def _line_words(pos: Position, moves: list[Move], note_of, ply: int, first: int,
                late: int) -> list[str]:
    """The words of a line of ``moves`` from ``pos`` (``ply`` plies into the game), each
    move followed by its note (``note_of(i)``: comment, variations).  A move number stays
    on the line of its move; the second mover's move is numbered (``12...``) when it opens
    the line or follows a comment or a variation."""
    words: list[str] = []
    numbered = True
    for i, move in enumerate(moves):
        number = (ply + i + late) // 2 + 1
        prefix = f"{number}. " if pos.turn == first else f"{number}... " if numbered else ""
        note = note_of(i)
        nags = note.nags if note else []
        glued = 1 if nags and not nags[0].startswith("$") else 0     # "28x19!?", then " $14"
        words.append(prefix + move_to_pdn(pos, move) + "".join(nags[:glued]))
        words += nags[glued:]
        numbered = False
        if note and (note.comment or note.variations or note.unread):
            words += _comment_words(note.comment)
            for line in note.variations:
                inner = _line_words(pos, [step.move for step in line],
                                    lambda j, line=line: line[j].note, ply + i, first, late)
                words += ["(" + inner[0]] + inner[1:-1] + [inner[-1] + ")"] if len(inner) > 1 \
                    else ["(" + inner[0] + ")"]
            words += [w for raw in note.unread for w in ("(" + raw + ")").split()]
            numbered = True
        pos = play(pos, move)
    return words


def _tag(name: str, value: str) -> str:
    return f'[{name} "{value.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]'


def write_pdn(game: Game, tags: dict[str, str] | None = None, comment: str | None = None,
              notes: dict[int, Note] | None = None) -> str:
    """PDN text of ``game``; ``tags`` adds or overrides tag pairs, ``comment`` goes
    before the result (e.g. why the game ended), ``notes`` (as ``PdnGame.notes``) puts
    comments and variations after their moves.  Ends with a blank line."""
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

    notes = notes or {}
    first = _first_mover(variant)
    late = int(game.start.turn != first)       # the record begins with the second mover
    words = _comment_words(notes[0].comment) if 0 in notes else []
    words += _line_words(game.start, game.moves, lambda i: notes.get(i + 1), 0, first, late)
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
