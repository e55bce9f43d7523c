"""Text mode (``rafle play``): ``cli`` (the terminal loop), ``commands`` (the command table),
``session`` (the game being played or studied), ``thinking`` (levels and the search the
keyboard can stop), ``moves`` (typed moves), ``study`` (board editing) and ``board`` (drawing)."""
