"""The history browser's lazy table model: one page of rounds at a time, fetched as the view scrolls.

Qt asks `canFetchMore`/`fetchMore` when the view nears the end of what it has; each fetch reads
the next keyset page (`engine.floor.history_page.fetch_page`), so the first page of a store with
millions of rounds shows as fast as a store with ten. Sorting re-queries in the new order.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from engine.errors import DrrError
from engine.exact import money
from engine.floor.history_page import Cursor, HistoryQuery, fetch_page
from engine.store.db import Store
from engine.store.history import RoundRecord
from gui import theme

PAGE = 200
COLUMNS: tuple[tuple[str, str | None], ...] = (
    ("Time (UTC)", "time"),
    ("Table", "table"),
    ("Round", None),
    ("Status", None),
    ("Result", "result"),
    ("Lucky", None),
    ("Bonus", None),
    ("Hits", None),
    ("Wagered", "wagered"),
    ("Paid", "paid"),
    ("Dealer", None),
    ("Flags", None),
)

Index = QModelIndex | QPersistentModelIndex


def _flags(row: RoundRecord) -> str:
    out = []
    if row.status == "void":
        out.append("VOID")
    if row.manual:
        out.append("manual")
    if row.irregularities:
        out.append(f"{row.irregularities} irreg.")
    return " ".join(out)


def _hits(row: RoundRecord) -> str:
    return " ".join(name for name, hit in (("Lucky", row.lucky_hit), ("Bonus", row.bonus_hit)) if hit)


class HistoryModel(QAbstractTableModel):
    failed = Signal(str)
    pages_fetched = Signal(int)

    def __init__(self, store: Store, query: HistoryQuery | None = None, page: int = PAGE) -> None:
        super().__init__()
        self.store = store
        self.page = page
        self.query = query or HistoryQuery()
        self.rows: list[RoundRecord] = []
        self.cursor: Cursor | None = None
        self.exhausted = False
        self.fetches = 0

    # --- querying ------------------------------------------------------------------------

    def set_query(self, query: HistoryQuery) -> None:
        self.beginResetModel()
        self.query = query
        self.rows, self.cursor, self.exhausted, self.fetches = [], None, False, 0
        self.endResetModel()
        if self.canFetchMore(QModelIndex()):
            self.fetchMore(QModelIndex())

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 - Qt's signature
        return not parent.isValid() and not self.exhausted

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid() or self.exhausted:
            return
        try:
            rows, cursor = fetch_page(self.store, self.query, self.cursor, self.page)
        except DrrError as exc:
            self.exhausted = True
            self.failed.emit(exc.message)
            return
        self.fetches += 1
        self.cursor = cursor
        self.exhausted = cursor is None
        if rows:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(rows) - 1)
            self.rows.extend(rows)
            self.endInsertRows()
        self.pages_fetched.emit(self.fetches)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMNS[column][1]
        if key is None:
            return
        self.set_query(replace(self.query, sort=key, descending=order == Qt.SortOrder.DescendingOrder))

    # --- the table -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section][0]
        return None

    def row_at(self, index: int) -> RoundRecord:
        return self.rows[index]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                row.time[:19].replace("T", " "),
                row.table,
                row.round_id,
                row.status,
                "" if row.result is None else str(row.result),
                " ".join(map(str, row.lucky_numbers)),
                "" if row.bonus_number is None else str(row.bonus_number),
                _hits(row),
                money(row.wagered),
                money(row.paid),
                row.dealer or "",
                _flags(row),
            )[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (4, 8, 9):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == 11 and row.irregular:
                return theme.WARN
            if col == 7 and (row.lucky_hit or row.bonus_hit):
                return theme.LUCKY if row.lucky_hit else theme.BONUS
            if row.status == "void":
                return theme.TEXT_DIM
        return None
