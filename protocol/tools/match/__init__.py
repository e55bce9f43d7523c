"""``rafle match``, ``rafle tournament`` and ``rafle tune``: ``runner`` (games between two engines, adjudicated
by the rules), ``ray_runner`` (the same games on Ray actors), ``tournament`` (round robin or gauntlet
of many engines, resumable) with ``ratings`` (one Elo scale for all) and ``ray_tournament`` (its games on
Ray actors), ``tune`` (SPSA tuning of the engine's options from mini-matches, resumable) with ``spsa`` (its
arithmetic), ``engines`` (each protocol's client and the clock it can carry), ``dxp_client`` (an engine
that speaks DXP instead of Hub), ``adjudicate`` (scoring a game a DXP engine ends itself), ``score`` (the
tally and report), ``openings`` (the opening sets, ``data/``) and ``elo`` (Elo and SPRT)."""
