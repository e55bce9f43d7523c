"""Where numba keeps the compiled kernels: a directory keyed by a digest of the engine's sources.

numba's cache (``cache=True``) checks only the file of the function it compiled, so a kernel
that calls a kernel of another file that has changed would load stale machine code (it
happened: a search kernel kept an old evaluation).  The cache therefore lives in a directory
named by a digest of this package's sources, under the user's cache directory
(``NUMBA_CACHE_DIR``, when set, is left alone); directories of other digests unused for a day
are removed.  :func:`key_the_compile_cache` runs when the package is imported, before any
kernel is compiled: the one file work the engine does.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from functools import lru_cache
from pathlib import Path

UNUSED_FOR = 86400          # seconds after which another digest's directory is removed


@lru_cache(maxsize=1)
def source_digest() -> str:
    """A digest of the engine's sources (its rules, move order and kernels): 16 hex digits.
    Anything derived from what the engine computes (compiled kernels, replayed games) is
    kept under it."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha1()
    for path in sorted(here.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def keyed_dir(kind: str, extra: bytes = b"") -> Path:
    """``<the user's cache>/rafle/<kind>-<digest>``, made if missing: the digest of the engine's
    sources (and of ``extra``, what else decides the contents).  Directories of this kind with
    other digests, unused for a day, are removed.  OSError if it cannot be made."""
    digest = source_digest()
    if extra:
        digest = hashlib.sha1(digest.encode() + extra).hexdigest()[:16]
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rafle"
    mine = base / f"{kind}-{digest}"
    mine.mkdir(parents=True, exist_ok=True)
    os.utime(mine)
    for other in base.glob(f"{kind}-*"):
        if other != mine and time.time() - other.stat().st_mtime > UNUSED_FOR:
            shutil.rmtree(other, ignore_errors=True)
    return mine


def key_the_compile_cache() -> None:
    """Point numba's cache at this version's directory (made if missing)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    try:
        mine = keyed_dir("numba")
    except OSError:
        return                  # numba's own place (__pycache__), as before
    os.environ["NUMBA_CACHE_DIR"] = str(mine)
    numba = sys.modules.get("numba")
    if numba is not None:             # imported before us: it has read its settings
        numba.config.CACHE_DIR = str(mine)
