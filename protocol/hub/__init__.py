"""The Hub protocol (Scan's, version 2): ``wire`` (the line codec), ``server`` (``rafle hub``,
Rafle as a Hub engine) and ``client`` (drives another Hub engine; used by ``protocol.tools.match`` and the board)."""
