"""The table's records: hash-chained journal, projections, statistics, history and users (SQLite/PostgreSQL).

Start with `open_store(url, table=…)` (engine.store.db) and its `journal` (engine.store.journal).
"""

from engine.store.db import Store, open_store

__all__ = ["Store", "open_store"]
