"""DXP (DamExchange) over TCP: ``wire`` (the message codec and NUL framing), ``session``
(one connection's dialogue and the game on it) and ``cli`` (``rafle dxp``: sockets, options)."""
