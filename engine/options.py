"""Every option of the engine, declared once: :data:`OPTIONS`.

Each :class:`Option` gives its Hub name, type, default, bounds, a line of help, the
attribute of :class:`Settings` that holds its value, whether the search kernel reads it
(``kernel``: a slot of the kernel's parameter array, :func:`kernel_slot`) and what
applying it does (``apply``: the dotted name of a method reached from the ``Searcher``,
called with the new value; it may refuse it by raising :class:`OptionRefused`).
Everyone reads this table: the Hub's ``param`` lines and ``set-param``, ``rafle hub
--help``, ``rafle bench``'s flags, the kernel's parameter array and the documentation's
options page, which ``docs/hooks.py`` writes from it.  Adding a tunable of the search is one
line here plus its use in the kernel.

The module loads no kernel: the Hub front end declares the options before numba is
imported (clients expect ``wait`` within about half a second of launch).
"""
from __future__ import annotations

import math
import os
import textwrap
from dataclasses import dataclass, field, replace


class OptionRefused(Exception):
    """Raised by an option's ``apply`` action: the value is not taken (the message says why)."""


@dataclass(frozen=True)
class Option:
    """One option, declared to GUIs as a Hub ``param``.  ``default`` is its value as text."""

    name: str
    type: str                                    # int, bool, enum or string
    default: str
    help: str
    min: str | None = None
    max: str | None = None
    values: tuple[str, ...] = ()
    attr: str = ""                               # the Settings attribute; default: name with _
    kernel: bool = False                         # a slot of the search kernel's parameters
    apply: str | None = None                     # the Searcher's method called with a new value

    @property
    def key(self) -> str:
        return self.attr or self.name.replace("-", "_")

    def parse(self, text) -> tuple[bool, object]:
        """``(True, value)`` for a valid text, ``(False, None)`` otherwise.  Enums ignore case;
        an empty string is None (no file)."""
        if self.type == "int":
            n = parse_int(text, int(self.min), int(self.max))
            return (n is not None, n)
        if self.type == "bool":
            flag = parse_bool(text)
            return (flag is not None, flag)
        if self.type == "enum":
            choice = str(text).strip().lower()
            return (choice in self.values, choice if choice in self.values else None)
        return (True, str(text).strip() or None)

    def show(self, value) -> str:
        """The value as a Hub ``param`` shows it."""
        if self.type == "bool":
            return "true" if value else "false"
        return "" if value is None else str(value)

    def as_int(self, value) -> int:
        """The value in the kernel's parameter array (an enum by its place in ``values``)."""
        return self.values.index(value) if self.type == "enum" else int(value)


TT_ENTRY_BYTES = 16


def _largest_table_log2(most: int = 30) -> int:
    """The largest table (log2 of entries) that fits in half of this machine's memory."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = 4 << 30
    n = most
    while n > 16 and TT_ENTRY_BYTES << n > memory // 2:
        n -= 1
    return n


TT_MIN_LOG2, TT_MAX_LOG2, TT_DEFAULT_LOG2 = 16, _largest_table_log2(), 22
FORMS = ("plain", "verified")   # threshold pruning: engine.negamax FORM_PLAIN, FORM_VERIFIED


def _int(name, default, lo, hi, help, **kw) -> Option:
    return Option(name, "int", str(default), help, str(lo), str(hi), **kw)


def _bool(name, default, help, **kw) -> Option:
    return Option(name, "bool", "true" if default else "false", help, **kw)


# The order is the order GUIs show them.  Threshold pruning is on, in its verified form,
# margin 40 + 10 a ply, checked at every ply: +315 =445 -240 (Elo +26 +- 16) over 1,000
# games against off (docs/search.md).  Late-move reductions from the third
# move beat the fourth (+49 +- 38, 200 games); off lost (-85 +- 53).  Internal iterative
# reduction from depth 3 against off: +175 =724 -115 (Elo +21 +- 11) over 1,014 games,
# SPRT(0,10) accepted at game 860 (docs/strength.md).  Then reductions from the second
# move at null-window nodes (lmr-moves 1) with the verified pruning from depth 2
# (threshold-from 2), together against 2 and 3: +174 =925 -131 (Elo +12.2 +- 9.7) over
# 1,230 games at 75 moves in 6 s, SPRT(0,10) accepted; at 75 moves in 60 s against the
# issue's start +92.3 +- 27.9 over 158 games, as the defaults before.  A sudden-death clock planned over
# 15 moves + the pieces on the board against 30 moves: +117 =605 -79 (Elo +16.5 +- 11.9)
# over 801 games of 12 s (docs/search.md).
OPTIONS: tuple[Option, ...] = (
    _int("tt-size", TT_DEFAULT_LOG2, TT_MIN_LOG2, TT_MAX_LOG2,
         "transposition table, log2 of its entries (16 bytes each)", attr="tt_log2",
         apply="resize_table"),
    _int("threads", 1, 1, 16, "search threads (Lazy SMP)"),
    _int("multipv", 1, 1, 5, "analysis lines reported, each with a different first move (more "
         "than 1: extra info lines carry multipv=N; engine.multipv)"),
    Option("eval", "enum", "learned", "the evaluation: learned (the variant's shipped pattern "
           "weights where it has them, else hand) or hand", values=("learned", "hand"),
           attr="evaluation"),
    Option("weights", "string", "", "a weight file of one's own (rafle train)",
           attr="weights_file", apply="resources.use_weights"),
    _int("drawish-kings", 0, 0, 64, "N: a side ahead where both sides have as many kings "
         "and the men differ by at most one keeps 1/N of its score (2 halves it, as Scan "
         "2.0; 0: off)"),
    _bool("threshold", True, "threshold pruning on or off", kernel=True),
    Option("threshold-form", "enum", "verified", "threshold pruning: verified (a shallower "
           "search confirms each cut) or plain", values=FORMS, kernel=True),
    _int("threshold-margin", 40, 0, 5000, "threshold pruning's margin (hundredths of a man)",
         kernel=True),
    _int("threshold-interval", 1, 1, 32, "threshold pruning is tried every this many plies",
         kernel=True),
    _int("threshold-slope", 20, 0, 1000, "verified threshold pruning: margin added per ply "
         "of depth", kernel=True),
    _bool("threshold-gate", True, "verified threshold pruning tries only the nodes whose "
          "static evaluation is beyond the window by the margin, with no capture for either "
          "side (false: every null-window node, above beta: Scan's form)", kernel=True),
    _bool("threshold-below", False, "verified threshold pruning with the gate also cuts nodes "
          "whose evaluation lies below alpha (false, the default: only above beta, as Scan; a "
          "side behind in the middle of a combination is then searched in full)", kernel=True),
    _int("threshold-below-margin", 0, 0, 5000, "with threshold-below: a node is tried below "
         "alpha only where its static evaluation lies this much further below (hundredths of a "
         "man; the verification's bound is unchanged)", kernel=True),
    _int("threshold-from", 2, 2, 64, "verified threshold pruning is tried from this depth",
         kernel=True),
    _int("threshold-share", 4, 1, 9, "verified threshold pruning: the verification searches "
         "this many tenths of the node's depth (at least one ply)", kernel=True),
    _bool("threshold-nested", True, "verification searches may prune in turn (false: no "
          "threshold pruning inside a verification search, as Scan)", kernel=True),
    _bool("threshold-tt-first", False, "the verified form is tried after the transposition "
          "table's probe: a node the table's entry settles is not verified (as Scan)",
          kernel=True),
    _bool("qs-threats", False, "a quiescence leaf where the opponent threatens a capture is "
          "searched one ply deeper (as Scan)", kernel=True),
    _int("qs-exchanges", 0, 0, 64, "quiescence at a quiet node below the evaluation's beta also "
         "searches its promotions and, with no king on the board, the man moves that offer an "
         "exchange (the opponent must capture, and every capture it has can be taken back), "
         "within this many plies of the search's leaves (0: off; as Scan)", kernel=True),
    _int("lmr-depth", 3, 0, 64, "late-move reductions from this depth (0: off)", kernel=True),
    _int("lmr-moves", 1, 0, 64, "late-move reductions after this many moves", kernel=True),
    _int("lmr-pv-moves", 2, 0, 64, "late-move reductions after this many moves at nodes with "
         "an open window (principal variation)", kernel=True),
    _int("lmr-two-moves", 0, 0, 64, "reduce by two plies after this many moves at null-window "
         "nodes (0: after 2 x lmr-moves + 2 moves, from twice lmr-depth)", kernel=True),
    _bool("lmr-killers", False, "killer moves are reduced too", kernel=True),
    _int("lmr-log", 0, 0, 400, "late-move reductions grow with depth and move number: "
         "ln(depth) x ln(moves tried + 1) x this / 100 plies, one less at an open window "
         "(0: the one-or-two-ply rule of lmr-two-moves)", kernel=True),
    _int("lmr-history", 0, 0, 1 << 20, "late quiet moves whose history is below this are "
         "reduced a ply more at null-window nodes (history: the squared depths of the cuts "
         "the move made; 0: off)", kernel=True),
    _bool("lmr-offers", False, "late quiet moves that offer the opponent a capture (its men, "
          "or its kings read as men, have a jump after them) are not reduced", kernel=True),
    _bool("lmr-root", False, "late-move reductions at the root too (as Scan; a reduced root "
          "move that beats alpha is searched again in full)", kernel=True),
    _int("futility", 0, 0, 5000, "futility pruning: at a null-window node of at most "
         "futility-depth plies whose static evaluation plus this many hundredths a ply is at "
         "most alpha, the late quiet moves that offer the opponent no capture are not searched "
         "(0: off)", kernel=True),
    _int("futility-depth", 1, 1, 8, "futility pruning up to this depth", kernel=True),
    _bool("history-malus", False, "at a cut, the quiet moves searched before the refutation "
          "lose history (as Scan's bad moves)", kernel=True),
    _int("history-rate", 0, 0, 2, "the history as each quiet move's running rate of being "
         "its node's best (Scan's): the best move of a node that beats alpha gains 1/64 of its "
         "distance to the top, the quiet moves searched before it lose 1/64 of theirs, and "
         "history-malus is not used (0: off, the squared depths of the cuts; 1: with the "
         "killers; 2: without them, as Scan)",
         kernel=True),
    _bool("counter-moves", False, "a quiet move that refuted the opponent's last move is "
          "tried after the killers when that move comes again", kernel=True),
    _int("singular-depth", 0, 0, 64, "singular extensions from this depth (0: off): where "
         "every other move, searched to half the depth, falls short of the TT move's score less "
         "singular-margin a ply, the TT move is searched a ply deeper; where one reaches it and "
         "that bar is at least beta, the node is cut (multi-cut)", kernel=True),
    _int("singular-margin", 4, 0, 1000, "singular extensions: the margin below the TT score, "
         "hundredths of a man a ply of depth", kernel=True),
    _int("iir-depth", 3, 0, 64, "internal iterative reduction from this depth (0: off): a node "
         "below the root that the transposition table knows nothing of is searched a ply "
         "shallower", kernel=True),
    _int("tt-keep-deeper", 0, 0, 64, "a search result does not replace its position's entry "
         "in the transposition table from the same search when that entry is this many plies "
         "deeper or more (0: it always does; 1: as Scan)", kernel=True),
    _bool("eval-cache", False, "the search keeps the static evaluations of recent positions in "
          "a small table of its own (65,536 entries a thread)", kernel=True),
    _bool("eval-check", False, "debug: the search checks every evaluation it updates move "
          "by move against one computed from the position (slower)", kernel=True),
    _int("time-horizon", 30, 0, 200, "a control of moves is planned as if it came after at most "
         "this many more moves (0: at the control; Scan plans over 30 to 10)"),
    _bool("time-game-ends", False, "the game ends at the control of moves (a match at 75 "
          "moves in 60 s that stops at move 75): the clock is planned to be spent by then"),
    _int("time-pieces", 15, 0, 200, "a sudden-death clock with no increment is planned over "
         "this many moves plus one a piece on the board (0: over 30 moves)"),
    _bool("book", True, "play from the opening book"),
    _int("book-ply", 8, 0, 1000, "the book plays the game's first this many plies"),
    _int("book-margin", 10, 0, 10000, "book moves within this many hundredths of the best"),
    Option("book-file", "string", "", "a book of one's own (rafle book build)",
           apply="resources.use_book"),
    _int("egdb-size", 7, 0, 7, "the most pieces of the endgame databases probed (0: off)",
         apply="resources.forget_databases"),
    Option("egdb-path", "string", "", "where the endgame databases are (empty: the user's "
           "cache directory, where rafle egdb build writes)", apply="resources.forget_databases"),
)
"""Every option of the engine, in the order the Hub declares them (its ``param`` lines)."""
BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}
KERNEL_OPTIONS: tuple[Option, ...] = tuple(o for o in OPTIONS if o.kernel)


def kernel_slot(name: str) -> int:
    """The slot of a kernel option in the search kernel's parameter array."""
    return KERNEL_OPTIONS.index(BY_NAME[name])


def default(name: str):
    """The parsed default value of an option."""
    return BY_NAME[name].parse(BY_NAME[name].default)[1]


@dataclass
class Settings:
    """The current value of every option, as attributes named by :attr:`Option.key`
    (``settings.threshold_margin``, ``settings.evaluation``, ``settings.tt_log2``)."""

    values: dict[str, object] = field(default_factory=lambda: {o.key: default(o.name)
                                                               for o in OPTIONS})

    def __getattr__(self, key: str):
        try:
            return self.__dict__["values"][key]
        except KeyError:
            raise AttributeError(key) from None

    def get(self, name: str):
        return self.values[BY_NAME[name].key]

    def put(self, name: str, value) -> None:
        self.values[BY_NAME[name].key] = value
        self.__dict__.pop("_kernel_row", None)

    def declared(self) -> list[Option]:
        """The options with their current values as defaults, as Hub ``param`` lines show them."""
        return [replace(o, default=o.show(self.values[o.key])) for o in OPTIONS]

    def fill_kernel(self, params) -> None:
        """Write the kernel options' values into their slots of the parameter array."""
        row = self.__dict__.get("_kernel_row")
        if row is None:       # computed again after each put
            row = self.__dict__["_kernel_row"] = [o.as_int(self.values[o.key])
                                                  for o in KERNEL_OPTIONS]
        params[:len(row)] = row


def default_options() -> list[Option]:
    """The options with their defaults."""
    return list(OPTIONS)


def options_usage() -> str:
    """One line per option (name, type and range, default, help), for ``--help`` texts."""
    rows = []
    width = max(20, max(len(o.name) for o in OPTIONS) + 2)
    for o in OPTIONS:
        kind = (f"{o.min}-{o.max}" if o.type == "int" else "|".join(o.values) if o.values
                else "true|false" if o.type == "bool" else "text")
        head = f"  {o.name:<{width}}{kind:<16}{o.default or '(empty)':<10}"
        rows.append(textwrap.fill(o.help, 100, initial_indent=head,
                                  subsequent_indent=" " * len(head)))
    return "\n".join(rows)


# ----- parsing a value: the one place where option and level values are read ----------------

def parse_bool(text: str) -> bool | None:
    """``true/false``, ``1/0``, ``on/off``, ``yes/no`` (any case); None for anything else."""
    v = str(text).strip().lower()
    return True if v in ("true", "1", "on", "yes") else False if v in ("false", "0", "off", "no") else None


def parse_float(text: str) -> float | None:
    """A finite decimal number (``1.5``, ``2``, ``1e3``); None for anything else (nan, inf too)."""
    try:
        value = float(str(text).strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_int(text: str, lo: int, hi: int) -> int | None:
    """A whole number within ``[lo, hi]`` (``12``; ``1e3`` and ``12.0`` too); None otherwise."""
    value = parse_float(text)
    if value is None or value != int(value):
        try:
            value = int(str(text).strip())     # exact for integers too large for a float
        except ValueError:
            return None
    n = int(value)
    return n if lo <= n <= hi else None
