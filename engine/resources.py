"""What a search reads and never writes, loaded once and shared by its threads: the opening
books, the learned weights and the endgame databases, one of each per variant.

Each is loaded on first use for a variant and kept; the options that name them
(``weights``, ``book-file``, ``egdb-size``, ``egdb-path``) clear what they change through the
apply actions below (:data:`engine.options.OPTIONS`).  A file that cannot be read is left out
with a note (``notes``), and the search plays on without it.
"""
from __future__ import annotations

import random

from . import book as books
from . import egdb
from . import weights
from .eval import DRAW_KINGS, WEIGHTS
from .options import OptionRefused, Settings
from .position import Move, Position
from .weights import Evaluation


class Resources:
    """The books, weights and databases the searches of one ``Searcher`` read."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.hand = WEIGHTS                 # hand evaluation weights (engine.eval), for tuning
        self.notes: list[str] = []          # weight and book files that failed to load
        self.no_egdb = egdb.empty_tables()  # what the kernel reads when no database applies
        self._books: dict[str, books.Book | None] = {}
        self._learned: dict[str, Evaluation] = {}
        self._egdb: dict[str, egdb.Tables | None] = {}
        self._scaled = (None, 0, None)      # drawish-kings: (the weights, divisor, their copy)
        self._rng = random.Random()         # the book's choices: games differ on purpose

    # ----- apply actions of the options ----------------------------------------------
    def use_weights(self, path: str | None) -> None:
        """Play with the learned weights in ``path`` (None: the shipped ones)."""
        if path is not None:
            try:
                weights.check(path)
            except weights.WeightsError as exc:
                raise OptionRefused(str(exc)) from None
        self.settings.put("weights", path)
        self._learned.clear()

    def use_book(self, path: str | None) -> None:
        """Play from the book in ``path`` (None: the shipped one)."""
        if path is not None:
            try:
                books.check_book(path)
            except books.BookError as exc:
                raise OptionRefused(str(exc)) from None
        self._books.clear()

    def forget_databases(self, _value=None) -> None:
        self._egdb.clear()

    # ----- what a search of a variant reads ---------------------------------------------
    def evaluation_for(self, variant) -> Evaluation:
        """The hand weights or, with ``eval`` learned, the variant's shipped weights (or the
        ``weights`` file) where it has them, with ``drawish-kings`` in them."""
        if self.settings.evaluation == "hand":
            return self._drawish_kings(Evaluation(self.hand, "hand"))
        if variant.name not in self._learned:
            found, note = weights.default(variant, self.settings.weights_file)
            if note:
                self.notes.append(note)
            self._learned[variant.name] = found
        found = self._learned[variant.name]
        found = found if found.name != "hand" else Evaluation(self.hand, "hand")
        return self._drawish_kings(found)

    def _drawish_kings(self, found: Evaluation) -> Evaluation:
        """``found`` with the option ``drawish-kings`` in its weights (a copy, kept)."""
        div = self.settings.drawish_kings
        if div == found.weights[DRAW_KINGS]:
            return found
        source, was, scaled = self._scaled
        if source is not found.weights or was != div:
            weights = found.weights.copy()
            weights[DRAW_KINGS] = div
            scaled = Evaluation(weights, found.name)
            self._scaled = (found.weights, div, scaled)
        return scaled

    def egdb_for(self, variant) -> "egdb.Tables | None":
        """The endgame databases of ``variant`` the search probes (None: none found, or
        ``egdb-size`` 0).  Missing or unreadable files are left out quietly."""
        if self.settings.egdb_size < 2:
            return None
        if variant.name not in self._egdb:
            roots = [self.settings.egdb_path] if self.settings.egdb_path else egdb.default_dirs()
            self._egdb[variant.name] = egdb.load(roots, variant, self.settings.egdb_size)
        return self._egdb[variant.name]

    def book_for(self, variant) -> "books.Book | None":
        """The book used for ``variant`` (``book-file`` or the shipped one), or None."""
        if variant.name not in self._books:
            own = self.settings.book_file
            path = books.shipped_book(variant) if own is None else own
            found = None
            try:
                found = books.read_book(path, variant)
            except books.BookError as exc:
                if own is not None or books.shipped_book(variant).exists():
                    self.notes.append(f"{exc}; playing without a book")
            self._books[variant.name] = found
        return self._books[variant.name]

    def book_move(self, pos: Position) -> Move | None:
        """A book move for ``pos`` (random within ``book-margin`` of the best), or None."""
        found = self.book_for(pos.variant)
        return None if found is None else found.choose(pos, self.settings.book_margin, self._rng)
