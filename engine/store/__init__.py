"""The table's records: hash-chained journal, projections, statistics, history and users (SQLite/PostgreSQL).

Start with `open_store(url, table=…)` (engine.store.db) and its `journal` (engine.store.journal).
"""

# The layers of engine.store, bottom up (the import-linter contract in pyproject.toml keeps them):
# records (pure entries) < db < journal < projections < forward. A lower layer never imports a
# higher one; the higher ones register themselves with the lower ones when imported here (the
# journal as `Store.journal`, the projections into every append), so importing any part of
# engine.store wires the whole.
from engine.store import journal as _journal  # noqa: F401  (registers Store.journal)
from engine.store import projections as _projections  # noqa: F401  (registers the append's projections)
from engine.store.db import Store, open_store

__all__ = ["Store", "open_store"]
