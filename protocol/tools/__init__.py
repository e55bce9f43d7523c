"""The tools, beside the front ends: programs that drive the engine (or other engines) to measure,
tune and prepare rather than to play a person.  ``match`` (``rafle match`` and ``rafle tournament``:
games between Hub or DXP engines, Elo, SPRT, ratings, the opening sets), ``selfplay`` (training
positions), ``train`` (fit the learned evaluation), ``book`` (build an opening book), ``egdb``
(build and probe endgame databases) and ``bench`` (the node signature)."""
