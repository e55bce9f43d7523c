"""``rafle gui``: a board in the browser (the optional extra ``gui``)."""
