"""The alerts list (time, table, severity, what, how many events, acknowledged), the selected alert's
detail (every event of its fact, in full), and acknowledgement of one or many at once by a logged-in
person (engine.floor.alerts.acknowledge_alerts: one journaled acknowledgement each)."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from engine.auth import User
from engine.errors import DrrError
from engine.floor.alerts import Alert, AlertBook, FloorRow, acknowledge_alerts
from engine.store.db import Store
from gui import theme

SEVERITY_COLOUR = {"critical": theme.DANGER, "warning": theme.WARN, "info": theme.BONUS}
COLUMNS = ("UTC", "Table", "Sev.", "What", "Events", "Ack.")
SHORT = {"critical": "CRIT", "warning": "WARN", "info": "INFO"}


class AlertsPanel(QWidget):
    def __init__(
        self,
        store: Store,
        current_user: Callable[[], User | None],
        sign_off: Callable[[list[Alert]], tuple[User, str] | None] | None = None,
    ) -> None:
        """`sign_off` (the pit-boss station) asks for the reason and PIN of an acknowledgement (of the
        alerts selected); without it the logged-in user acknowledges (the surveillance station)."""
        super().__init__()
        self.store = store
        self.current_user = current_user
        self.sign_off = sign_off
        self.alerts: list[Alert] = []  # the lines shown, in order
        self.book = AlertBook(limit=300)
        title = QLabel("Alerts")
        title.setObjectName("title")
        self.count = QLabel()
        self.count.setObjectName("dim")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        # The What column wraps, each row as tall as its words (issue 25: the text was cut), and the
        # whole alert is on hover and in the detail pane below.
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.open_only = QCheckBox("Open only")
        self.open_only.toggled.connect(lambda _on: self.redraw())
        self.ack = QPushButton("Acknowledge selected")
        self.ack.clicked.connect(self.acknowledge_selected)
        self.select_open = QPushButton("Select all open")
        self.select_open.clicked.connect(self.select_all_open)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.detail = QTextBrowser()  # the selected alert in full: every event of its fact
        self.detail.setMinimumHeight(150)
        self.table.itemSelectionChanged.connect(self.show_detail)
        top = QHBoxLayout()
        top.addWidget(title)
        top.addWidget(self.count)
        top.addStretch(1)
        # The filter and the bulk actions on a row of their own: beside the title, in the panel's
        # width on the surveillance screen, Qt squeezed the buttons until their words were cut.
        actions = QHBoxLayout()
        actions.addWidget(self.open_only)
        actions.addStretch(1)
        actions.addWidget(self.select_open)
        actions.addWidget(self.ack)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setSizes([400, 200])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(actions)
        layout.addWidget(split, 1)
        layout.addWidget(self.message)
        self.update_permissions()

    def update_permissions(self) -> None:
        user = self.current_user()
        allowed = user is not None and user.may("acknowledge_alert")
        self.ack.setEnabled(allowed)
        self.ack.setToolTip("" if allowed else "log in as surveillance, pit boss or admin to acknowledge")

    def refresh(self) -> None:
        """Bring the list up to date: the first time read, then only the floor entries since folded in."""
        if self.book.last_seq < 0:
            self.book.load(self.store)
            self.redraw()
        else:
            self.apply(self.book.news(self.store))

    def apply(self, rows: list[FloorRow]) -> None:
        """Fold floor entries read elsewhere (the station's reader thread) in; redraw what changed."""
        if self.book.fold(rows):
            self.redraw()

    def redraw(self) -> None:
        """Draw the book: a line whose alert is unchanged stays as it is, only new and changed ones are
        (re)written and moved (inserted where they now belong)."""
        chosen = {a.alert_id for a in self.selected_alerts()}
        latest = self.book.latest()
        open_count = sum(1 for a in latest if not a.acknowledged)
        self.count.setText(f"{open_count} open of {len(latest)}")
        shown = [a for a in latest if not a.acknowledged] if self.open_only.isChecked() else latest
        self.table.blockSignals(True)
        keep = {id(a) for a in shown}
        old = self.alerts
        for row in range(len(old) - 1, -1, -1):  # bottom up: the rows above keep their numbers
            if id(old[row]) not in keep:
                self.table.removeRow(row)
        kept = [id(a) for a in old if id(a) in keep]
        place = set(kept)
        if kept != [id(a) for a in shown if id(a) in place]:  # unchanged lines out of order: redraw all
            self.table.setRowCount(0)
            place = set()
        for row, a in enumerate(shown):
            if id(a) not in place:
                self.table.insertRow(row)
                self._write_row(row, a)
        self.alerts = shown
        self.table.clearSelection()
        mode = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for row, a in enumerate(self.alerts):
            if a.alert_id in chosen:
                self.table.selectionModel().select(self.table.model().index(row, 0), mode)
        self.table.blockSignals(False)
        self.show_detail()

    def _write_row(self, row: int, a: Alert) -> None:
        ack = f"✓ {a.acknowledged_by}" if a.acknowledged_at else ""
        if a.since_acknowledged:
            ack += f" (+{a.since_acknowledged} since)"
        when = (a.at or a.time)[11:19]
        values = (when, a.table, SHORT.get(a.severity, a.severity), f"{a.kind}: {a.message}",
                  str(a.count), ack)  # fmt: skip
        for col, text in enumerate(values):
            item = QTableWidgetItem(text)
            if col == 2:
                item.setForeground(SEVERITY_COLOUR.get(a.severity, theme.TEXT))
            if a.acknowledged:
                item.setForeground(QColor(theme.TEXT_DIM))
            item.setToolTip(f"{(a.at or a.time)[:19]} UTC · {a.message}")
            self.table.setItem(row, col, item)

    def selected_alerts(self) -> list[Alert]:
        rows = sorted(i.row() for i in self.table.selectionModel().selectedRows())
        return [self.alerts[r] for r in rows if r < len(self.alerts)]

    def selected(self) -> Alert | None:
        chosen = self.selected_alerts()
        return chosen[0] if chosen else None

    def select_all_open(self) -> None:
        self.table.clearSelection()
        mode = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for row, a in enumerate(self.alerts):
            if not a.acknowledged:
                self.table.selectionModel().select(self.table.model().index(row, 0), mode)

    def show_detail(self) -> None:
        chosen = self.selected_alerts()
        if len(chosen) != 1:
            self.detail.setHtml(
                f"{len(chosen)} alerts selected" if chosen else "Select an alert to read it in full."
            )
            return
        self.detail.setHtml(detail_html(chosen[0]))

    def acknowledge_selected(self) -> None:
        user, chosen = self.current_user(), self.selected_alerts()
        if not chosen:
            self.message.setText("select an alert first")
            return
        if user is None:
            self.message.setText("log in to acknowledge")
            return
        done = [a for a in chosen if a.acknowledged]
        chosen = [a for a in chosen if not a.acknowledged]
        if not chosen:
            self.message.setText(f"already acknowledged by {done[0].acknowledged_by}")
            return
        note = ""
        if self.sign_off is not None:
            signed = self.sign_off(chosen)
            if signed is None:
                return
            user, note = signed
        try:
            count = acknowledge_alerts(self.store, [a.alert_id for a in chosen], user, note)
        except DrrError as exc:
            self.message.setText(exc.message)
            return
        self.message.setText(
            f"{count} alert{'s' if count != 1 else ''} acknowledged by {user.name}"
            + (f" ({len(done)} selected were acknowledged before)" if done else "")
        )
        self.refresh()
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)


def ack_summary(alerts: list[Alert]) -> tuple[str, str]:
    """(title, what) of an acknowledgement's sign-off: one alert in full, or how many — and how many
    critical — with each named, so a bulk acknowledgement says what it covers and is asked once."""
    if len(alerts) == 1:
        a = alerts[0]
        what = (
            f"{a.severity.upper()} on table {a.table} at {(a.at or a.time)[:19]} UTC: {a.kind} — {a.message}"
        )
        return "Acknowledge alert", what
    critical = sum(1 for a in alerts if a.severity == "critical")
    what = (
        f"{len(alerts)} alerts, {critical} critical: "
        + "; ".join(f"{a.severity.upper()} {a.table} {a.kind}" for a in alerts[:8])
        + (f"; … and {len(alerts) - 8} more" if len(alerts) > 8 else "")
    )
    return f"Acknowledge {len(alerts)} alerts ({critical} critical)", what


def detail_html(a: Alert) -> str:
    """One alert in full: what, where, since when, every event of its fact, who acknowledged it."""
    colour = SEVERITY_COLOUR.get(a.severity, theme.TEXT).name()
    head = (
        f"<b style='color:{colour}'>{a.severity.upper()}</b> · <b>{html.escape(a.kind)}</b> · table "
        f"{html.escape(a.table)}" + (f" · round {html.escape(a.round_id)}" if a.round_id else "")
    )
    first, latest = (t[:19].replace("T", " ") for t in (a.first_at, a.at or a.time))
    span = f"first {first} UTC, latest {latest} UTC"
    ack = (
        f"Acknowledged by {html.escape(a.acknowledged_by or '')} at {(a.acknowledged_at or '')[:19]} UTC"
        + (f"; {a.since_acknowledged} more event(s) since" if a.since_acknowledged else "")
        if a.acknowledged
        else "<b>Not acknowledged yet.</b>"
    )
    events = "".join(
        f"<li>{when[11:19]} <span style='color:{SEVERITY_COLOUR.get(sev, theme.TEXT).name()}'>"
        f"{sev}</span> {html.escape(text)}</li>"
        for when, sev, text in reversed(a.events)
    )
    return (
        f"<p>{head}</p><p>{html.escape(a.message)}</p><p>{a.count} event(s): {span}</p><p>{ack}</p>"
        f"<ol reversed>{events}</ol>"
    )
