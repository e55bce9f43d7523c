"""Text mode (``rafle play``): ``cli`` (the terminal loop), ``commands`` (the command table),
``session`` (the game being played or studied), ``thinking`` (the search the keyboard can stop;
its levels are :mod:`protocol.levels`), ``moves`` (typed moves), ``study`` (board editing) and
``board`` (drawing)."""
