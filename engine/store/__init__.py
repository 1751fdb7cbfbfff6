"""The table's records: hash-chained journal, projections, statistics, history and users (SQLite/PostgreSQL).

Start with `open_store(url, table=…)` (engine.store.db) and its `journal` (engine.store.journal).
"""

# The layers of engine.store, bottom up, are the import-linter contract in pyproject.toml (and the
# table in docs/architecture.md): records < database < migrate, floor_sign < journal < db (Store,
# open_store) < projections < verify < forward. A lower layer never imports a higher one. The
# projections register themselves with the journal below them when imported (what every append runs
# in its transaction); the journal loads them before its first append (engine.store.journal
# `_projections`), so no append runs without them. Importing the package itself loads nothing more:
# the pure records (the table fold's, the entry registry's) come without SQLAlchemy, as the croupier
# station's first frame wants them (issue 28); `Store` and `open_store` load engine.store.db when named.
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.store.db import Store, open_store

__all__ = ["Store", "open_store"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from engine.store import db

        return getattr(db, name)
    raise AttributeError(f"module 'engine.store' has no attribute {name!r}")
