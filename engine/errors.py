"""The one exception Rafle raises for bad input: positions, FENs, moves, commands."""


class BadInput(ValueError):
    """Input that cannot be understood or is illegal; the message says what and where."""
