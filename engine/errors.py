"""The one exception Rafle raises for bad input: positions, FENs, moves, commands."""


class BadInput(ValueError):
    """Input that cannot be understood or is illegal; the message says what and where."""


class NoGpu(RuntimeError):
    """``--gpu`` asked for, and no CUDA GPU can count: the message says why."""
