"""Geometry and rule switches of each variant, as data the kernels read.

A board is described by its width (10 or 8).  Internally the dark squares are laid
out row by row from the top-left, as in FMJD notation (square 1 = b10 on 10x10, b8
on 8x8): the square at row r, index i of that row (0-based) lives at bit
``k + k // width`` with ``k = r * width/2 + i``.  Every pair of rows is followed by
one unused "ghost" bit, so that every diagonal step is a single shift (by width/2 or
width/2+1) and steps off the board land on a ghost bit or fall off the word.

A variant's own square numbers map onto that layout through ``square_bit`` /
``bit_square``.  They are the layout's numbers except in the Italian orientation
(Italian, Spanish), where the board is turned so that the lower-left corner is a
light square and square 1 is a8: that is the standard layout mirrored left-right,
which the kernels do not need to know (every rule is mirror-symmetric).

Everything a kernel needs about a variant is packed in two int64 arrays:

* ``table`` (``V_*`` indices): board masks, shift amounts and rule switches;
* ``steps`` (``NDIRS x 64``): the neighbouring bit in each direction, or -1.

Directions: 0 up-left, 1 up-right, 2 down-left, 3 down-right (diagonals, "up" is
towards square 1, White's forward), then 4 left, 5 right, 6 up, 7 down (orthogonal
captures of Frisian: the next square of the same colour on that line).

Turkish draughts plays on all 64 squares with orthogonal moves, which the layout above
cannot hold (it has no light squares).  It gets the plain 8x8 layout
(``full_board``): square ``s`` (1 = a8 .. 8 = h8, 9 = a7 .. 64 = h1, pydraughts'
numbering) lives at bit ``s - 1``, so White's forward step is 8 bits down and a step
left or right is one bit, masked so that it does not wrap around a row end
(``V_KEEP``).  Bit 63 (h1) is used: the kernels hold bitboards as signed int64, and
:class:`~engine.position.Position` hands them over as such (``Position.words``).
Both layouts are read through the same table entries: the step of each direction
(``V_STEP``, ``V_KEEP``), the directions of men and kings (``V_MAN_STEPS``,
``V_MAN_CAPTURES``, ``V_KING_DIRS``) and the ``steps`` table, so the move generator,
the search and the evaluation are one set of kernels for both.

The :class:`Variant` record also carries what the rest of Rafle needs to know:
who moves first and the start position, the goal (normal, breakthrough, losing), the
PDN GameType, the draw-rule parameters, and the conventions of Hub strings that
pydraughts uses for 8x8 boards (see :class:`Variant`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NDIRS = 8
REVERSE = (3, 2, 1, 0, 5, 4, 7, 6)

# Indices into a variant table.
V_BOARD = 0          # mask of the playable bits
V_PROMO_WHITE = 1    # squares where a white man is crowned (row of squares 1..)
V_PROMO_BLACK = 2    # squares where a black man is crowned
V_SHIFT_UL = 3       # shift of a step up-left (negative: right shift)
V_SHIFT_UR = 4
V_SHIFT_DL = 5
V_SHIFT_DR = 6
V_MAN_BACK_CAPTURE = 7   # men capture backwards
V_FLYING_KING = 8        # kings move and capture at any distance
V_PRECEDENCE = 9         # which captures are compulsory, see PREC_*
V_PASSING_PROMOTION = 10  # a man crowned mid-capture goes on as a king
V_HALT_BEHIND_KING = 11  # killer: a capture ending after a king stops right behind it
V_LAND_BEHIND = 12       # thai: a king lands right behind each captured piece
V_MAN_TAKES_KING = 13    # 0 in italian: men cannot capture kings
V_CAPTURE_DIRS = 14      # 4 (diagonal) or 8 (with orthogonal captures)
V_NSQUARES = 15
V_WIDTH = 16
V_PASSING_CAPTURE = 17   # thai: jumped pieces leave at once (squares free, 180-degree turns)
V_GOAL = 18              # the goal as a kernel int, see KERNEL_GOALS
# Draw rules (read by engine.drawrules, for the search and the referee alike).
V_REPETITIONS = 19       # occurrences of a position that draw (3; 4 in Italian)
V_REVERSIBLE = 20        # plies of king moves without capture that draw (0 = no such rule)
V_ENDGAME = 21           # lone-king rules, see EG_*
V_RULE_PIECES = 22       # no lone-king or material rule concerns more pieces than this
V_LONG_DIAGONAL = 23     # the long diagonal a1-h8 (Russian 7.2.7)
V_STEP = 24              # +d: the bit offset of a step in direction d (as a shift amount)
V_KEEP = 32              # +d: the bits a step in direction d may land on (no wrap-around)
V_MAN_STEPS = 40         # +turn: directions of a man's quiet steps (bit d: direction d)
V_MAN_CAPTURES = 42      # +turn: directions of a man's jumps
V_KING_STEPS = 44        # directions of a king's quiet moves
V_KING_CAPTURES = 45     # directions of a king's jumps
V_TURN_BACK = 46         # with passing capture: a king may jump back the way it came (Thai)
V_FULL_BOARD = 47        # all 64 squares are played (Turkish): the plain 8x8 layout
V_LANDINGS_APART = 48    # capture-path mode: a king going on straight from each landing
                         # square is a path of its own (kish's Turkish counts; not dctl's)
V_DUP_MIN = 49           # fewest captured pieces two paths of one capture can take
V_SIZE = 50

PREC_NONE = 0       # free choice among captures
PREC_COUNT = 1      # most pieces (kings and men alike)
PREC_FRISIAN = 2    # highest value, king worth more than a man but less than two; then king first
PREC_SPANISH = 3    # most pieces, then most kings
PREC_CZECH = 4      # a capture with a king before a capture with a man
PREC_ITALIAN = 5    # most pieces, king first, most kings, earliest king

# Goals (what ends a game besides the draw rules).
GOAL_NORMAL = "normal"              # the side to move without a legal move loses
GOAL_BREAKTHROUGH = "breakthrough"  # the first side to crown a king wins
GOAL_LOSING = "losing"              # the side to move without a legal move wins
# The goals as the search kernels read them from ``table[V_GOAL]``.
KG_NORMAL, KG_BREAKTHROUGH, KG_LOSING = 0, 1, 2
KERNEL_GOALS = {GOAL_NORMAL: KG_NORMAL, GOAL_BREAKTHROUGH: KG_BREAKTHROUGH, GOAL_LOSING: KG_LOSING}

# End-of-game draw rules beyond repetition and the reversible-move count.
ENDGAME_FMJD = "fmjd"          # 16- and 5-move rules (spec/rules.md 4.1)
ENDGAME_RUSSIAN = "russian"    # fmjd64 7.2.4-7.2.8 (spec/rules.md 4.6)
ENDGAME_FRISIAN = "frisian"    # 2 kings v 1 king: 7 moves; 1 v 1: 2 moves (lidraughts)
ENDGAME_NONE = ""
# The endgame rules as the kernels read them from ``table[V_ENDGAME]``, and the most
# pieces each concerns (FMJD: a lone king against three; Frisian: two kings against one;
# Russian 7.2.6: a 6-7 piece ending with kings on both sides).
ENDGAME_TURKISH = "turkish"    # one piece against one: 2 moves each (pydraughts)
EG_NONE, EG_FMJD, EG_FRISIAN, EG_RUSSIAN, EG_TURKISH = 0, 1, 2, 3, 4
KERNEL_ENDGAMES = {ENDGAME_NONE: (EG_NONE, 0), ENDGAME_FMJD: (EG_FMJD, 4),
                   ENDGAME_FRISIAN: (EG_FRISIAN, 3), ENDGAME_RUSSIAN: (EG_RUSSIAN, 7),
                   ENDGAME_TURKISH: (EG_TURKISH, 2)}


@dataclass(frozen=True, eq=False)
class Variant:
    """A variant's name, rules and the kernel tables built from them.

    Numbering and notation:

    * ``mirrored``: the Italian orientation (square 1 = a8, see the module docstring).
    * ``algebraic``: PDN moves are written a1-h8 (Russian, Brazilian, Czech).
    * ``hub_rotated``: the Hub position string lists the board turned 180 degrees with
      the colours swapped (pydraughts keeps English checkers that way internally and
      sends it as is: character k is square 33-k, ``w`` a black piece, side ``W``
      Black).
    * ``hub_from_a1``: Hub *moves* number the squares from a1 row by row upwards
      (pydraughts' numeric notation for Russian and Brazilian; its position string
      keeps the standard numbering).

    Draw rules: ``repetitions`` (occurrences of a position that draw),
    ``reversible_plies`` (plies of king moves without capture, that is without capture
    and man move, that draw; 0 = none) and ``endgame`` (an ``ENDGAME_*`` key).  They are
    written into ``table`` once, where the search and the referee both read them
    (:mod:`engine.drawrules`).
    ``max_same_king_moves``: Frisian's limit on consecutive quiet moves of one king
    while its side has men (0 = none); it depends on the moves played, so it reaches the
    search as the barred king of its root (:func:`engine.position.barred_square`).
    """

    name: str
    hub_name: str
    width: int
    white_starts: bool
    table: np.ndarray
    steps: np.ndarray
    aliases: tuple[str, ...] = ()
    goal: str = GOAL_NORMAL
    gametype: int = 20
    start_white: tuple[int, ...] = ()
    start_black: tuple[int, ...] = ()
    mirrored: bool = False
    algebraic: bool = False
    hub_rotated: bool = False
    hub_from_a1: bool = False
    repetitions: int = 3
    reversible_plies: int = 50
    endgame: str = ENDGAME_FMJD
    max_same_king_moves: int = 0
    square_bits: tuple[int, ...] = ()    # square number -> bit (index 0 unused)
    bit_squares: tuple[int, ...] = ()    # bit -> square number, 0 off the board
    full_board: bool = False             # all 64 squares, plain 8x8 layout (Turkish)

    @property
    def per_row(self) -> int:
        """Squares of a row: half the width, or all of it on a full board."""
        return self.width if self.full_board else self.width // 2

    @property
    def nsquares(self) -> int:
        return self.width * self.per_row

    def square_bit(self, square: int) -> int:
        """Internal bit of a 1-based square number."""
        return self.square_bits[square]

    def bit_square(self, bit: int) -> int:
        """1-based square number of an internal bit."""
        return self.bit_squares[bit]

    def coords(self, square: int) -> tuple[int, int]:
        """(row from the top, column from the left) of a square, as a player sees it."""
        if self.full_board:
            return divmod(square - 1, self.width)
        row, col = _coords(self.width, _layout_square(self, square))
        return (row, self.width - 1 - col) if self.mirrored else (row, col)

    def square_at(self, row: int, col: int) -> int | None:
        """The square at (row, column) as a player sees it, or None (light / off board)."""
        w = self.width
        if not (0 <= row < w and 0 <= col < w):
            return None
        if self.full_board:
            return row * w + col + 1
        if self.mirrored:
            col = w - 1 - col
        if (row + col) % 2 == 0:
            return None
        bit = _layout_bit(w, row * (w // 2) + col // 2 + 1)
        return self.bit_squares[bit]

    def __repr__(self) -> str:
        return f"Variant({self.name!r})"

    def __reduce__(self):
        # Variants are singletons compared by identity: unpickle to the registered one.
        return (get_variant, (self.name,))


def _coords(width: int, layout_square: int) -> tuple[int, int]:
    """(row, col) of a square of the standard layout (square 1 at row 0, col 1)."""
    half = width // 2
    row, i = divmod(layout_square - 1, half)
    col = 2 * i + 1 if row % 2 == 0 else 2 * i
    return row, col


def _layout_bit(width: int, layout_square: int) -> int:
    return (layout_square - 1) + (layout_square - 1) // width


def _layout_square(v: Variant, square: int) -> int:
    bit = v.square_bits[square]
    return bit - bit // (v.width + 1) + 1


def _build_steps(width: int) -> np.ndarray:
    half = width // 2
    by_coord = {}
    for s in range(1, width * half + 1):
        by_coord[_coords(width, s)] = _layout_bit(width, s)
    deltas = [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, -2), (0, 2), (-2, 0), (2, 0)]
    steps = np.full((NDIRS, 64), -1, dtype=np.int64)
    for (row, col), bit in by_coord.items():
        for d, (dr, dc) in enumerate(deltas):
            steps[d, bit] = by_coord.get((row + dr, col + dc), -1)
    return steps


def _numbering(width: int, mirrored: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    half = width // 2
    n = width * half
    square_bits = [0] * (n + 1)
    bit_squares = [0] * 64
    for s in range(1, n + 1):
        row, i = divmod(s - 1, half)
        layout = row * half + (half - 1 - i if mirrored else i) + 1
        bit = _layout_bit(width, layout)
        square_bits[s] = bit
        bit_squares[bit] = s
    return tuple(square_bits), tuple(bit_squares)


def _make(name, hub_name, width, *, man_back_capture, flying_king, precedence,
          passing_promotion=False, halt_behind_king=False, land_behind=False,
          passing_capture=False, man_takes_king=True, orthogonal=False,
          white_starts=True, start_rows=None, **record) -> Variant:
    half = width // 2
    n = width * half
    bit = lambda s: _layout_bit(width, s)
    table = np.zeros(V_SIZE, dtype=np.int64)
    table[V_BOARD] = sum(1 << bit(s) for s in range(1, n + 1))
    table[V_PROMO_WHITE] = sum(1 << bit(s) for s in range(1, half + 1))
    table[V_PROMO_BLACK] = sum(1 << bit(s) for s in range(n - half + 1, n + 1))
    table[V_SHIFT_UL] = -(half + 1)
    table[V_SHIFT_UR] = -half
    table[V_SHIFT_DL] = half
    table[V_SHIFT_DR] = half + 1
    table[V_MAN_BACK_CAPTURE] = man_back_capture
    table[V_FLYING_KING] = flying_king
    table[V_PRECEDENCE] = precedence
    table[V_PASSING_PROMOTION] = passing_promotion
    table[V_HALT_BEHIND_KING] = halt_behind_king
    table[V_LAND_BEHIND] = land_behind
    table[V_PASSING_CAPTURE] = passing_capture
    table[V_MAN_TAKES_KING] = man_takes_king
    table[V_CAPTURE_DIRS] = 8 if orthogonal else 4
    table[V_NSQUARES] = n
    table[V_WIDTH] = width
    table[V_GOAL] = KERNEL_GOALS[record.get("goal", GOAL_NORMAL)]
    rule = lambda name: record.get(name, Variant.__dataclass_fields__[name].default)
    table[V_REPETITIONS] = rule("repetitions")
    table[V_REVERSIBLE] = rule("reversible_plies")
    table[V_ENDGAME], table[V_RULE_PIECES] = KERNEL_ENDGAMES[rule("endgame")]
    table[V_LONG_DIAGONAL] = sum(1 << bit(s) for s in range(1, n + 1)
                                 if sum(_coords(width, s)) == width - 1)
    # The same steps as directions: diagonals by the shifts above, the orthogonal
    # neighbours of the same colour (Frisian) one bit along a row, two rows up or down.
    table[V_STEP:V_STEP + 8] = (-(half + 1), -half, half, half + 1, -1, 1, -(width + 1), width + 1)
    table[V_KEEP:V_KEEP + 8] = -1
    all_dirs = (1 << table[V_CAPTURE_DIRS]) - 1
    table[V_MAN_STEPS], table[V_MAN_STEPS + 1] = 0b0011, 0b1100
    table[V_MAN_CAPTURES] = all_dirs if man_back_capture else 0b0011
    table[V_MAN_CAPTURES + 1] = all_dirs if man_back_capture else 0b1100
    table[V_KING_STEPS] = 0b1111
    table[V_KING_CAPTURES] = all_dirs
    table[V_TURN_BACK] = passing_capture
    table[V_DUP_MIN] = 3
    table.flags.writeable = False
    steps = _build_steps(width)
    steps.flags.writeable = False
    rows = start_rows if start_rows is not None else (4 if width == 10 else 3)
    record.setdefault("start_black", tuple(range(1, rows * half + 1)))
    record.setdefault("start_white", tuple(range(n - rows * half + 1, n + 1)))
    square_bits, bit_squares = _numbering(width, record.get("mirrored", False))
    return Variant(name, hub_name, width, white_starts, table, steps,
                   square_bits=square_bits, bit_squares=bit_squares, **record)


def _signed(x: int) -> int:
    """A 64-bit mask as the signed int64 the kernels hold."""
    return x - (1 << 64) if x >> 63 else x


def _make_full(name, hub_name, *, precedence, reversible_plies, endgame, **record) -> Variant:
    """A variant of the plain 8x8 layout (all 64 squares, see the module docstring):
    men step and jump forward, left and right; kings fly orthogonally; jumped pieces leave
    the board at once and a capture may not turn back (Turkish)."""
    width = 8
    table = np.zeros(V_SIZE, dtype=np.int64)
    table[V_BOARD] = -1
    table[V_PROMO_WHITE] = 0xFF                       # row 8 (a8..h8)
    table[V_PROMO_BLACK] = _signed(0xFF << 56)         # row 1 (a1..h1)
    table[V_MAN_BACK_CAPTURE] = 0
    table[V_FLYING_KING] = 1
    table[V_PRECEDENCE] = precedence
    table[V_PASSING_CAPTURE] = 1
    table[V_MAN_TAKES_KING] = 1
    table[V_CAPTURE_DIRS] = 8
    table[V_NSQUARES] = 64
    table[V_WIDTH] = width
    table[V_GOAL] = KG_NORMAL
    table[V_REPETITIONS] = record.get("repetitions", 3)
    table[V_REVERSIBLE] = reversible_plies
    table[V_ENDGAME], table[V_RULE_PIECES] = KERNEL_ENDGAMES[endgame]
    # left, right, up, down: one bit along a row, a row's 8 bits up or down; a step
    # left may not land on column h (it wrapped), right not on column a, and up keeps
    # the top byte clear (the sign bit an arithmetic shift would copy).
    table[V_STEP + 4:V_STEP + 8] = (-1, 1, -8, 8)
    table[V_KEEP:V_KEEP + 4] = 0
    table[V_KEEP + 4] = 0x7F7F7F7F7F7F7F7F
    table[V_KEEP + 5] = _signed(0xFEFEFEFEFEFEFEFE)
    table[V_KEEP + 6] = 0x00FFFFFFFFFFFFFF
    table[V_KEEP + 7] = -1
    table[V_MAN_STEPS] = table[V_MAN_CAPTURES] = 0b0111_0000           # left, right, up
    table[V_MAN_STEPS + 1] = table[V_MAN_CAPTURES + 1] = 0b1011_0000   # left, right, down
    table[V_KING_STEPS] = table[V_KING_CAPTURES] = 0b1111_0000
    table[V_TURN_BACK] = 0
    table[V_FULL_BOARD] = 1
    table[V_LANDINGS_APART] = 1
    table[V_DUP_MIN] = 2
    table.flags.writeable = False
    steps = np.full((NDIRS, 64), -1, dtype=np.int64)
    for b in range(64):
        row, col = divmod(b, width)
        for d, (dr, dc) in ((4, (0, -1)), (5, (0, 1)), (6, (-1, 0)), (7, (1, 0))):
            if 0 <= row + dr < width and 0 <= col + dc < width:
                steps[d, b] = (row + dr) * width + col + dc
    steps.flags.writeable = False
    return Variant(name, hub_name, width, True, table, steps,
                   square_bits=(0, *range(64)), bit_squares=tuple(range(1, 65)),
                   full_board=True, reversible_plies=reversible_plies, endgame=endgame,
                   **record)


# ----- 10x10 ---------------------------------------------------------------------

INTERNATIONAL = _make("international", "normal", 10, man_back_capture=True,
                      flying_king=True, precedence=PREC_COUNT,
                      aliases=("standard", "fmjd", "from position"))
"""International draughts (FMJD rules, 10x10): the default variant everywhere."""
KILLER = _make("killer", "killer", 10, man_back_capture=True, flying_king=True,
               precedence=PREC_COUNT, halt_behind_king=True)
FRISIAN = _make("frisian", "frisian", 10, man_back_capture=True, flying_king=True,
                precedence=PREC_FRISIAN, orthogonal=True, gametype=40,
                endgame=ENDGAME_FRISIAN, max_same_king_moves=3, reversible_plies=0)
FRYSK = _make("frysk", "frysk", 10, man_back_capture=True, flying_king=True,
              precedence=PREC_FRISIAN, orthogonal=True, gametype=40,
              endgame=ENDGAME_FRISIAN, max_same_king_moves=3, reversible_plies=0, start_rows=1,
              aliases=("frysk!",))
BREAKTHROUGH = _make("breakthrough", "bt", 10, man_back_capture=True, flying_king=True,
                     precedence=PREC_COUNT, goal=GOAL_BREAKTHROUGH)
LOSING = _make("antidraughts", "losing", 10, man_back_capture=True, flying_king=True,
               precedence=PREC_COUNT, goal=GOAL_LOSING,
               aliases=("losing", "giveaway", "antidraughts"))

# ----- 8x8 -----------------------------------------------------------------------

ENGLISH = _make("english", "english", 8, man_back_capture=False, flying_king=False,
                precedence=PREC_NONE, white_starts=False, gametype=21,
                reversible_plies=80, endgame=ENDGAME_NONE, hub_rotated=True,
                aliases=("checkers", "american"))
RUSSIAN = _make("russian", "russian", 8, man_back_capture=True, flying_king=True,
                precedence=PREC_NONE, passing_promotion=True, gametype=25,
                algebraic=True, hub_from_a1=True, reversible_plies=30,
                endgame=ENDGAME_RUSSIAN, aliases=("shashki",))
BRAZILIAN = _make("brazilian", "brazilian", 8, man_back_capture=True, flying_king=True,
                  precedence=PREC_COUNT, gametype=26, algebraic=True, hub_from_a1=True,
                  reversible_plies=30, endgame=ENDGAME_RUSSIAN)
POOL = _make("pool", "pool", 8, man_back_capture=True, flying_king=True,
             precedence=PREC_NONE, white_starts=False, gametype=23, reversible_plies=30,
             endgame=ENDGAME_NONE, aliases=("american pool",))
ITALIAN = _make("italian", "italian", 8, man_back_capture=False, flying_king=False,
                precedence=PREC_ITALIAN, man_takes_king=False, gametype=22, mirrored=True,
                repetitions=4, reversible_plies=80, endgame=ENDGAME_NONE)
SPANISH = _make("spanish", "spanish", 8, man_back_capture=False, flying_king=True,
                precedence=PREC_SPANISH, gametype=24, mirrored=True, endgame=ENDGAME_NONE)
CZECH = _make("czech", "czech", 8, man_back_capture=False, flying_king=True,
              precedence=PREC_CZECH, gametype=29, algebraic=True, reversible_plies=30,
              endgame=ENDGAME_NONE)
THAI = _make("thai", "thai", 8, man_back_capture=False, flying_king=True,
             precedence=PREC_NONE, land_behind=True, passing_capture=True, gametype=31,
             start_rows=2, endgame=ENDGAME_NONE)

# ----- 8x8, all 64 squares ---------------------------------------------------------

# Turkish draughts (spec/rules.md 4.12).  Squares 1..64 from a8, row by row (pydraughts'
# numbering); White on rows 2-3 (squares 41-56), Black on rows 6-7 (9-24).  Draws:
# threefold repetition; one piece against one after 2 moves each (pydraughts); 150 plies
# of reversible moves (kings, men stepping sideways) without capture (kish's limit).
TURKISH = _make_full("turkish", "turkish", precedence=PREC_COUNT, reversible_plies=150,
                     endgame=ENDGAME_TURKISH, gametype=30, algebraic=True, hub_from_a1=True,
                     start_white=tuple(range(41, 57)), start_black=tuple(range(9, 25)),
                     aliases=("dama",))

ALL = (INTERNATIONAL, KILLER, BREAKTHROUGH, FRISIAN, LOSING, FRYSK,
       RUSSIAN, BRAZILIAN, ENGLISH, ITALIAN, SPANISH, CZECH, THAI, POOL, TURKISH)
VARIANTS = {v.name: v for v in ALL}
"""Every variant by its own name (``international``, ``russian``, ...); :func:`get_variant` also
reads Hub names and aliases."""
HUB_NAMES = {v.hub_name: v for v in ALL}
ALIASES = {alias: v for v in ALL for alias in v.aliases}


def get_variant(name: str) -> Variant:
    """The variant called ``name``: its own name, its Hub name or an alias."""
    from .errors import BadInput

    if isinstance(name, Variant):
        return name
    key = str(name).strip().lower()
    for table in (VARIANTS, HUB_NAMES, ALIASES):
        if key in table:
            return table[key]
    raise BadInput(f"unknown variant {name!r} (known: {', '.join(v.hub_name for v in ALL)})")
