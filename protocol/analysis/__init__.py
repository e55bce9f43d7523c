"""Game analysis, as lidraughts does it: each move searched, judged by the win probability it
loses, annotated (PDN comments, NAGs, better lines) and summed up per player (accuracy).

The pieces: :mod:`.winprob` (the score -> win probability curve, fitted to self-play, and
accuracy), :mod:`.game` (the analysis of one game), :mod:`.annotate` (the annotated PDN),
:mod:`.report` (the text summary and the HTML page), :mod:`.source` (PDN files cut into games,
each read on its own so that a bad one is refused alone), :mod:`.shots` (forced winning
combinations) and :mod:`.puzzles` (missed shots as puzzles, their files).  No printing here: the board can use
it as ``rafle analyse`` does (:mod:`protocol.tools.analyse`).
"""
