"""The alerts list (time, table, severity, kind, what) with acknowledgement by a logged-in person."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.auth import User
from engine.errors import DrrError
from engine.floor.alerts import Alert, acknowledge_alert, list_alerts
from engine.store.db import Store
from gui import theme

SEVERITY_COLOUR = {"critical": theme.DANGER, "warning": theme.WARN, "info": theme.BONUS}
COLUMNS = ("UTC", "Table", "Sev.", "What", "Ack.")
SHORT = {"critical": "CRIT", "warning": "WARN", "info": "INFO"}


class AlertsPanel(QWidget):
    def __init__(
        self,
        store: Store,
        current_user: Callable[[], User | None],
        sign_off: Callable[[Alert], tuple[User, str] | None] | None = None,
    ) -> None:
        """`sign_off` (the pit-boss station) asks for the reason and PIN of each acknowledgement;
        without it the logged-in user acknowledges (the surveillance station)."""
        super().__init__()
        self.store = store
        self.current_user = current_user
        self.sign_off = sign_off
        self.alerts: list[Alert] = []
        title = QLabel("Alerts")
        title.setObjectName("title")
        self.count = QLabel()
        self.count.setObjectName("dim")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.open_only = QCheckBox("Open only")
        self.open_only.toggled.connect(lambda _on: self.refresh())
        self.ack = QPushButton("Acknowledge")
        self.ack.clicked.connect(self.acknowledge_selected)
        self.message = QLabel()
        self.message.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addWidget(self.count)
        top.addSpacing(12)
        top.addWidget(self.open_only)
        top.addStretch(1)
        top.addWidget(self.ack)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        self.setMinimumWidth(520)
        self.update_permissions()

    def update_permissions(self) -> None:
        user = self.current_user()
        allowed = user is not None and user.may("acknowledge_alert")
        self.ack.setEnabled(allowed)
        self.ack.setToolTip("" if allowed else "log in as surveillance, pit boss or admin to acknowledge")

    def refresh(self) -> None:
        latest = list_alerts(self.store, limit=300)
        open_count = sum(1 for a in latest if not a.acknowledged)
        self.count.setText(f"{open_count} open of {len(latest)}")
        self.alerts = [a for a in latest if not a.acknowledged] if self.open_only.isChecked() else latest
        self.table.setRowCount(len(self.alerts))
        for row, a in enumerate(self.alerts):
            ack = f"✓ {a.acknowledged_by}" if a.acknowledged_at else ""
            when = (a.at or a.time)[11:19]
            values = (when, a.table, SHORT.get(a.severity, a.severity), f"{a.kind}: {a.message}", ack)
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                if col == 2:
                    item.setForeground(SEVERITY_COLOUR.get(a.severity, theme.TEXT))
                if a.acknowledged:
                    item.setForeground(QColor(theme.TEXT_DIM))
                item.setToolTip(
                    f"{(a.at or a.time)[:19]} UTC · {a.message}"
                    + (
                        f"\nacknowledged by {a.acknowledged_by} at {a.acknowledged_at}"
                        if a.acknowledged_at
                        else ""
                    )
                )
                self.table.setItem(row, col, item)

    def selected(self) -> Alert | None:
        rows = self.table.selectionModel().selectedRows()
        return self.alerts[rows[0].row()] if rows else None

    def acknowledge_selected(self) -> None:
        user, alert = self.current_user(), self.selected()
        if alert is None:
            self.message.setText("select an alert first")
            return
        if user is None:
            self.message.setText("log in to acknowledge")
            return
        note = ""
        if self.sign_off is not None:
            signed = self.sign_off(alert)
            if signed is None:
                return
            user, note = signed
        try:
            acknowledge_alert(self.store, alert.alert_id, user, note)
        except DrrError as exc:
            self.message.setText(exc.message)
            return
        self.message.setText(f"acknowledged by {user.name}")
        self.refresh()
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)
