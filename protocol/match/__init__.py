"""``rafle match``: ``runner`` (games between two Hub engines, adjudicated by the rules),
``openings`` (the opening book, ``data/``) and ``elo`` (ratings and SPRT)."""
