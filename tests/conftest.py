"""Shared test fixtures: where ``../shared`` is, and its perft reference counts.

CI checks the project out with ``shared/`` beside it; the tests read reference data
from there and never copy it.  A missing folder is an error, not a skip: a test that
silently skips its reference data cannot fail.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REFERENCE = SHARED / "perft" / "reference.json"


def load_reference() -> list[dict]:
    """The entries of ``shared/perft/reference.json``."""
    if not REFERENCE.is_file():
        raise FileNotFoundError(f"perft reference counts not found at {REFERENCE} "
                                "(CI puts ../shared beside the checkout)")
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"{SHARED} is missing (CI puts ../shared beside the checkout)")
    return SHARED


@pytest.fixture(scope="session")
def reference() -> list[dict]:
    return load_reference()
