"""DXP (DamExchange) over TCP: ``wire`` (the message codec and NUL framing), ``link`` (one
connection's reads and writes), ``game`` (the game on the connection: rules, clock, result),
``session`` (the message state machine) and ``cli`` (``rafle dxp``: sockets, options)."""
