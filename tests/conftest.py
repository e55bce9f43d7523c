"""Shared test fixtures.

The perft reference counts are project data (``perft/data/reference.json``, each entry
with its source), so the suite runs in a fresh clone with nothing beside it.
"""
from __future__ import annotations

import pytest

from perft.suite import load_reference


@pytest.fixture(scope="session")
def reference() -> list[dict]:
    return load_reference()
