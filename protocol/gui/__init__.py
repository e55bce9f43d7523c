"""``rafle gui``: a board in the browser (optional extra ``rafle[gui]``)."""
