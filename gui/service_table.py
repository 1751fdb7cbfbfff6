"""The old name of the one table adapter: `ServiceTable` is `gui.table_model.TableModel`.

Kept so the GUI tests, demos and benchmarks written against `ServiceTable(service, user, players,
authenticate=..., history=...)` run unchanged; new code imports `gui.table_model`.
"""

from __future__ import annotations

from gui.table_model import HISTORY_KEPT, TableModel, journal_history

ServiceTable = TableModel

__all__ = ["HISTORY_KEPT", "ServiceTable", "journal_history"]
