"""Benchmarks' table keys in a scratch key directory, never the user's (one place for every bench)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def scratch_key_dir(path: Path | str) -> Iterator[Path]:
    """Point `DRR_KEY_DIR` (engine.store.keys) at `path` for the block, children included, and put
    back what was there: a benchmark's scratch stores get keys and witnesses that vanish with them,
    and a table PC's real key directory is never filled with them."""
    before = os.environ.get("DRR_KEY_DIR")
    os.environ["DRR_KEY_DIR"] = str(path)
    try:
        yield Path(path)
    finally:
        if before is None:
            os.environ.pop("DRR_KEY_DIR", None)
        else:
            os.environ["DRR_KEY_DIR"] = before
