"""``rafle match`` and ``rafle tournament``: ``runner`` (games between two Hub engines, adjudicated
by the rules), ``ray_runner`` (the same games on Ray actors), ``tournament`` (round robin or gauntlet
of many engines, resumable) with ``ratings`` (one Elo scale for all), ``dxp_client`` (an engine
that speaks DXP instead of Hub), ``score`` (the tally and report), ``openings`` (the opening sets,
``data/``) and ``elo`` (Elo and SPRT)."""
