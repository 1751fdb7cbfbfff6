"""The table's records: hash-chained journal, projections, statistics, history and users (SQLite/PostgreSQL).

Start with `open_store(url, table=…)` (engine.store.db) and its `journal` (engine.store.journal).
"""

# The layers of engine.store, bottom up, are the import-linter contract in pyproject.toml (and the
# table in docs/architecture.md): records < database < migrate, floor_sign < journal < db (Store,
# open_store) < projections < verify < forward. A lower layer never imports a higher one. The
# projections register themselves with the journal below them when imported here (what every append
# runs in its transaction), so importing any part of engine.store wires the whole.
from engine.store import projections as _projections  # noqa: F401  (registers the append's projections)
from engine.store.db import Store, open_store

__all__ = ["Store", "open_store"]
