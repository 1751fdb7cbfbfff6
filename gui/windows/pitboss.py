"""The pit-boss station: history of every round with recall, signed-off actions, reports, rules.

It reads the store only. Every action goes through `engine.floor.actions` with the reason and the
pit boss's PIN (`gui.floor.signoff.SignOffDialog`), so the engine — not this window — decides who
may void a round, correct a result, approve a payout, acknowledge an alert, change table settings
or load a new Rules Submission; the window only hides what the logged-in role may not do.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path

from PySide6.QtCore import QDateTime, QItemSelection, QSize, Qt, Signal
from PySide6.QtGui import QFont, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.auth import User
from engine.errors import DrrError
from engine.exact import money
from engine.floor import actions
from engine.floor.describe import number_or_none
from engine.floor.history_page import HistoryQuery, dealers
from engine.floor.recall import recall_round
from engine.floor.settings_in_force import settings_in_force
from engine.floor.started import started_text
from engine.floor.surveillance import floor_tables
from engine.floor.windows import shift_bounds
from engine.store.db import Store
from engine.store.history import RoundRecord
from gui import theme
from gui.floor.history_model import HistoryModel
from gui.floor.recall_view import RecallView
from gui.floor.reports_view import ReportsView
from gui.floor.signoff import FloorWindow
from gui.floor.watch import StoreWatch

ALL_TABLES = "All tables"
PERIODS = ("Any time", "Today", "Current shift", "Last 24 hours", "Custom…")
TRI = ("Any", "Yes", "No")


def _tri(box: QComboBox) -> bool | None:
    return (None, True, False)[box.currentIndex()]


class HistoryFilters(QWidget):
    """The filter bar of the history browser; `query()` reads it into a HistoryQuery."""

    applied = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.table = QComboBox()
        self.period = QComboBox()
        self.period.addItems(PERIODS)
        now = QDateTime.currentDateTimeUtc()
        self.since = QDateTimeEdit(now.addDays(-1))
        self.until = QDateTimeEdit(now)
        for edit in (self.since, self.until):
            edit.setDisplayFormat("yyyy-MM-dd HH:mm")
            edit.setCalendarPopup(True)
            edit.setVisible(False)
        self.period.currentIndexChanged.connect(self._period_changed)
        self.dealer = QComboBox()
        self.dealer.addItem("Any dealer")
        self.result = QSpinBox()
        self.result.setRange(-1, 36)
        self.result.setSpecialValueText("any")
        self.result.setValue(-1)
        self.lucky = QComboBox()
        self.lucky.addItems(TRI)
        self.bonus = QComboBox()
        self.bonus.addItems(TRI)
        self.min_paid = QLineEdit()
        self.min_paid.setPlaceholderText("min paid")
        self.min_paid.setMaximumWidth(110)
        self.irregular = QCheckBox("Irregular only")
        self.round_id = QLineEdit()
        self.round_id.setPlaceholderText("round id")
        self.round_id.setMaximumWidth(150)
        self.round_id.returnPressed.connect(self.applied.emit)
        apply = QPushButton("Apply")
        apply.clicked.connect(self.applied.emit)
        # Two halves side by side, or one over the other on a narrow screen (in one row the bar was
        # 1,138 px wide: on a 1024-pixel screen the window ran off it).
        self.halves = (QWidget(), QWidget())
        self.rows = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.rows.setContentsMargins(0, 0, 0, 0)
        parts: tuple[tuple[tuple[str | None, QWidget], ...], ...] = (
            ((None, self.table), (None, self.period), (None, self.since), (None, self.until),
             (None, self.dealer), ("Result", self.result)),
            (("Lucky hit", self.lucky), ("Bonus hit", self.bonus), (None, self.min_paid),
             (None, self.irregular), (None, self.round_id), (None, apply)),
        )  # fmt: skip
        for half, widgets in zip(self.halves, parts, strict=True):
            row = QHBoxLayout(half)
            row.setContentsMargins(0, 0, 0, 0)
            for label, w in widgets:
                if label:
                    row.addWidget(QLabel(label))
                row.addWidget(w)
            row.addStretch(1)
            self.rows.addWidget(half)
        self.rows.addStretch(1)

    def _one_row_width(self) -> int:
        return sum(h.sizeHint().width() for h in self.halves) + self.rows.spacing()

    def minimumSizeHint(self) -> QSize:
        """As narrow as its wider half: below the width of one row the halves stack."""
        width = max(h.minimumSizeHint().width() for h in self.halves)
        return QSize(width, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        wanted = (
            QBoxLayout.Direction.LeftToRight
            if self.width() >= self._one_row_width()
            else QBoxLayout.Direction.TopToBottom
        )
        if self.rows.direction() != wanted:
            self.rows.setDirection(wanted)

    def _period_changed(self, index: int) -> None:
        custom = PERIODS[index] == "Custom…"
        self.since.setVisible(custom)
        self.until.setVisible(custom)

    def set_tables(self, names: list[str]) -> None:
        current = self.table.currentText()
        self.table.blockSignals(True)
        self.table.clear()
        self.table.addItems([*names, ALL_TABLES])
        if current:
            self.table.setCurrentText(current)
        self.table.blockSignals(False)

    def set_dealers(self, names: list[str]) -> None:
        current = self.dealer.currentText()
        self.dealer.clear()
        self.dealer.addItems(["Any dealer", *names])
        self.dealer.setCurrentText(current)

    def query(self, base: HistoryQuery) -> HistoryQuery:
        now = datetime.now(UTC)
        since = until = None
        period = PERIODS[self.period.currentIndex()]
        if period == "Today":
            since = now.replace(hour=0, minute=0, second=0, microsecond=0)
        elif period == "Current shift":
            since, until = shift_bounds(now)
        elif period == "Last 24 hours":
            since = now - timedelta(days=1)
        elif period == "Custom…":
            since = datetime.fromtimestamp(self.since.dateTime().toSecsSinceEpoch(), UTC)
            until = datetime.fromtimestamp(self.until.dateTime().toSecsSinceEpoch(), UTC)
        min_paid = None
        if self.min_paid.text().strip():
            try:
                min_paid = Decimal(self.min_paid.text().strip())
            except InvalidOperation:
                raise DrrError(f"minimum payout {self.min_paid.text()!r} is not an amount") from None
        table = self.table.currentText()
        return replace(
            base,
            table=None if table in ("", ALL_TABLES) else table,
            since=since,
            until=until,
            dealer=None if self.dealer.currentIndex() <= 0 else self.dealer.currentText(),
            result=None if self.result.value() < 0 else self.result.value(),
            lucky_hit=_tri(self.lucky),
            bonus_hit=_tri(self.bonus),
            min_paid=min_paid,
            irregular=self.irregular.isChecked(),
            round_id=self.round_id.text().strip() or None,
        )


class PitBossWindow(FloorWindow):
    """History with recall and actions, reports, the Rules Submission and table settings, alerts."""

    station = "pitboss"

    def __init__(self, store: Store, *, user: User | None = None, page: int = 200, live: bool = True) -> None:
        super().__init__(store, user)
        self.setWindowTitle("Diamond Rush Roulette — Pit boss")
        self.status = QLabel()
        self.status.setWordWrap(True)

        # History + recall
        self.filters = HistoryFilters()
        self.filters.applied.connect(self.apply_filters)
        self.filters.table.currentTextChanged.connect(lambda _t: self._table_changed())
        self.model = HistoryModel(store, page=page)
        self.model.failed.connect(self.status.setText)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSortingEnabled(False)  # sorting by header click goes through the model (re-query)
        self.view.horizontalHeader().setSectionsClickable(True)
        self.view.horizontalHeader().sectionClicked.connect(self._header_clicked)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(26)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.horizontalHeader().setStretchLastSection(True)
        for col, w in enumerate((185, 60, 95, 75, 65, 90, 65, 95, 95, 95, 70)):
            self.view.setColumnWidth(col, w)
        self.view.selectionModel().selectionChanged.connect(self._row_selected)
        self.recall = RecallView()
        self.void_button = QPushButton("Void round…")
        self.void_button.clicked.connect(self.void_selected)
        self.correct_button = QPushButton("Correct result…")
        self.correct_button.clicked.connect(self.correct_selected)
        self.approve_button = QPushButton("Approve payout…")
        self.approve_button.clicked.connect(self.approve_selected)
        buttons = QHBoxLayout()
        for b in (self.void_button, self.correct_button, self.approve_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        # The recalled round scrolls: its summary, felt and tabs grow with what the round holds (a bonus
        # game, a correction), and the window must still fit a 720-pixel screen with a round selected.
        recall_scroll = QScrollArea()
        recall_scroll.setWidget(self.recall)
        recall_scroll.setWidgetResizable(True)
        recall_scroll.setFrameShape(QFrame.Shape.NoFrame)
        rl.addWidget(recall_scroll, 1)
        rl.addLayout(buttons)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(right)
        split.setSizes([900, 800])
        history = QWidget()
        hl = QVBoxLayout(history)
        hl.addWidget(self.filters)
        hl.addWidget(split, 1)

        # Reports, rules, settings, alerts
        self.reports = ReportsView(store)
        self.rules_tab = self._build_rules_tab()
        self.settings_tab = self._build_settings_tab()
        self.tabs = QTabWidget()
        self.tabs.addTab(history, "History")
        self.tabs.addTab(self.reports, "Reports")
        self.tabs.addTab(self.rules_tab, "Rules Submission")
        self.tabs.addTab(self.settings_tab, "Table settings")
        self.tabs.addTab(self.alerts, "Alerts")
        self.tabs.currentChanged.connect(self._tab_changed)

        top = QHBoxLayout()
        heading = QLabel("PIT BOSS")
        heading.setObjectName("title")
        top.addWidget(heading)
        top.addStretch(1)
        top.addWidget(self.who)
        top.addWidget(self.login_button)
        body = QWidget()
        bl = QVBoxLayout(body)
        bl.addLayout(top)
        bl.addWidget(self.tabs, 1)
        bl.addWidget(self.status)
        self.setCentralWidget(body)

        self.open_ms = 0.0
        started = time.perf_counter()
        tables = floor_tables(store)
        self.filters.set_tables(tables)
        self.apply_filters()
        self.open_ms = (time.perf_counter() - started) * 1000
        self._show_user()
        # New journal entries: the alerts refresh, and the history says there is more to see (a
        # history that re-sorted itself under the pit boss's eyes would lose the row being read).
        self.watch = StoreWatch(store, self)
        self.watch.changed.connect(self.on_store_changed)
        if live:
            self.watch.start()

    def on_store_changed(self, tables: set[str]) -> None:
        from engine.store.users import FLOOR

        if FLOOR in tables and self.tabs.currentWidget() is self.alerts:
            self.alerts.refresh()
        shown = self.model.query.table
        moved = sorted(t for t in tables if t != FLOOR and (shown is None or t == shown))
        if moved:
            self.status.setText(
                f"new journal entries on table {', '.join(moved)}: Apply to see the latest rounds"
            )
            self.status.setStyleSheet(f"color: {theme.BONUS.name()}")

    def closeEvent(self, event: object) -> None:
        self.watch.stop()
        super().closeEvent(event)  # type: ignore[arg-type]

    # --- users and permissions --------------------------------------------------------------

    def _may(self, permission: str) -> bool:
        return self.user is not None and self.user.may(permission)

    def _show_user(self) -> None:
        super()._show_user()
        for button, permission in (
            (self.void_button, "void_round"),
            (self.correct_button, "correct_result"),
            (self.approve_button, "approve_payout"),
            (self.load_rules_button, "load_rules"),
            (self.apply_settings_button, "change_settings"),
        ):
            button.setVisible(self._may(permission))

    # --- history -------------------------------------------------------------------------------

    def _table_changed(self) -> None:
        table = self.filters.table.currentText()
        try:
            self.filters.set_dealers(dealers(self.store, None if table == ALL_TABLES else table))
        except DrrError as exc:
            self.status.setText(exc.message)

    def apply_filters(self) -> None:
        try:
            self.filters.set_tables(floor_tables(self.store))  # tables that started since the last look
            query = self.filters.query(self.model.query)
        except DrrError as exc:
            self.status.setText(exc.message)
            return
        self.model.set_query(query)
        if query.round_id and self.model.rowCount():
            self.view.selectRow(0)
        self.status.setText("" if self.model.rowCount() else "no rounds match these filters")

    def _header_clicked(self, column: int) -> None:
        q = self.model.query
        from gui.floor.history_model import COLUMNS

        key = COLUMNS[column][1]
        if key is None:
            return
        descending = not q.descending if q.sort == key else True
        self.model.sort(column, Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder)
        self.view.horizontalHeader().setSortIndicatorShown(True)
        self.view.horizontalHeader().setSortIndicator(
            column, Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
        )

    def selected_row(self) -> RoundRecord | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def _row_selected(self, _sel: QItemSelection, _old: QItemSelection) -> None:
        row = self.selected_row()
        if row is not None:
            self.show_round(row.round_id, row.table)

    def show_round(self, round_id: str, table: str) -> None:
        try:
            self.recall.show_recall(recall_round(self.store, round_id, table))
        except DrrError as exc:
            self.status.setText(exc.message)

    def _after_action(self, message: str) -> None:
        self.status.setText(message)
        self.status.setStyleSheet(f"color: {theme.WIN.name()}")
        row = self.selected_row()
        self.model.set_query(self.model.query)
        if row is not None:
            self.show_round(row.round_id, row.table)

    def _refused(self, message: str) -> None:
        self.status.setText(message)
        self.status.setStyleSheet(f"color: {theme.DANGER.name()}")

    def void_selected(self) -> None:
        row = self.selected_row()
        if row is None:
            self.status.setText("select a round first")
            return
        with self._refusals():
            stakes = recall_round(self.store, row.round_id, row.table).stakes_text()
            signed = self.sign_off(
                "void_round",
                "Void round",
                f"Round {row.round_id} on table {row.table} ({row.status}, wagered {money(row.wagered)}): "
                f"every wager is returned — {stakes}. This is journaled with your name and reason.",
            )
            if signed is None:
                return
            actions.void(self.store, row.round_id, signed[1], signed[0], table=row.table)
            self._after_action(f"round {row.round_id} voided by {signed[0].name}")

    def correct_selected(self) -> None:
        row = self.selected_row()
        if row is None:
            self.status.setText("select a round first")
            return
        with self._refusals():
            actions.check_correctable(self.store, row.round_id, row.table)  # before reason and PIN
            number = QSpinBox()
            number.setRange(0, 36)
            number.setPrefix("new result ")
            number.setValue(row.result if row.result is not None else 0)

            def check() -> None:
                if number.value() == row.result:
                    raise DrrError(f"the result is already {row.result}: choose the right number")

            signed = self.sign_off(
                "correct_result",
                "Correct the result",
                f"Round {row.round_id} on table {row.table}: result {number_or_none(row.result)}. Both the"
                " old and the new result are kept in the journal.",
                extra=number,
                check=check,
            )
            if signed is None:
                return
            new = number.value()
            old = actions.correct_result(self.store, row.round_id, new, signed[1], signed[0], table=row.table)
            self._after_action(f"round {row.round_id}: result {old} corrected to {new} by {signed[0].name}")

    def approve_selected(self) -> None:
        row = self.selected_row()
        if row is None:
            self.status.setText("select a round first")
            return
        with self._refusals():
            # What the approval signs off: the payout the table will make (a round waiting for its
            # approval has paid nothing yet: issue 25 point 6 showed "paid 0.00" for a 290.00 payout).
            _row, winners, amount = actions.payout_to_approve(self.store, row.round_id, row.table)
            done = "paid" if row.status == "settled" else "pays"
            signed = self.sign_off(
                "approve_payout",
                "Approve payout",
                f"Round {row.round_id} on table {row.table} {done} {money(amount)} "
                f"on {len(winners)} winning wager{'' if len(winners) == 1 else 's'}.",
            )
            if signed is None:
                return
            amount = actions.approve_payout(self.store, row.round_id, signed[1], signed[0], table=row.table)
            self._after_action(f"payout {money(amount)} of round {row.round_id} approved by {signed[0].name}")

    # --- rules ---------------------------------------------------------------------------------

    def _build_rules_tab(self) -> QWidget:
        tab = QWidget()
        self.rules_table = QComboBox()
        self.rules_table.currentTextChanged.connect(lambda _t: self.show_rules())
        self.rules_text = QPlainTextEdit()
        self.rules_text.setReadOnly(True)
        mono = QFont("Monospace")
        mono.setStyleHint(QFont.StyleHint.TypeWriter)
        self.rules_text.setFont(mono)
        self.load_rules_button = QPushButton("Load a new Rules Submission…")
        self.load_rules_button.clicked.connect(lambda: self.load_rules_file())
        row = QHBoxLayout()
        row.addWidget(QLabel("Table"))
        row.addWidget(self.rules_table)
        row.addStretch(1)
        row.addWidget(self.load_rules_button)
        layout = QVBoxLayout(tab)
        layout.addLayout(row)
        layout.addWidget(self.rules_text, 1)
        return tab

    def current_rules_text(self, table: str) -> tuple[str, str]:
        """(where it comes from, the math report) of the table's Rules Submission in force."""
        from engine.rules import load_default_rules, parse_rules

        loaded = actions.latest_rules(self.store, table)
        if loaded is None:
            return "the shipped Rules Submission", actions.math_report(load_default_rules())
        source = loaded.source or loaded.name or "the table's Rules Submission"
        rules = parse_rules(loaded.text.encode("utf-8"), source)
        by = f" (loaded by {loaded.by}: {loaded.reason})" if loaded.by else ""
        return f"{source}{by}", actions.math_report(rules)

    def show_rules(self) -> None:
        table = self.rules_table.currentText()
        if not table:
            return
        try:
            where, report = self.current_rules_text(table)
        except DrrError as exc:
            self.rules_text.setPlainText(exc.message)
            return
        self.rules_text.setPlainText(f"Table {table}: {where}\n{started_text(self.store, table)}\n\n{report}")

    def load_rules_file(self, path: Path | None = None) -> bool:
        table = self.rules_table.currentText()
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(
                self, "Rules Submission", "", "Rules (*.toml);;All files (*)"
            )
            if not chosen:
                return False
            path = Path(chosen)
        try:
            candidate = actions.read_rules_candidate(path)
        except DrrError as exc:
            self._refused(exc.message)
            self.rules_text.setPlainText(f"{path} was refused:\n\n{exc.message}")
            return False
        report = QPlainTextEdit(candidate.report)
        report.setReadOnly(True)
        report.setMinimumSize(640, 320)
        signed = self.sign_off(
            "load_rules",
            "Accept the new Rules Submission",
            f"{path.name} for table {table} (sha256 {candidate.rules.sha256[:16]}…). Read its math report; "
            "it takes effect from the next round.",
            extra=report,
        )
        if signed is None:
            return False
        with self._refusals():
            actions.load_rules(self.store, table, candidate, signed[1], signed[0])
            self.show_rules()
            self._after_action(
                f"{path.name} accepted for table {table} from its next round by {signed[0].name}"
            )
            return True
        return False

    # --- table settings ------------------------------------------------------------------------

    def _build_settings_tab(self) -> QWidget:
        tab = QWidget()
        self.settings_table = QComboBox()
        self.settings_table.currentTextChanged.connect(lambda _t: self.show_settings())
        self.setting_edits: dict[str, QLineEdit] = {}
        self.setting_sources: dict[str, QLabel] = {}  # where each value in force comes from
        form = QFormLayout()
        form.addRow("Table", self.settings_table)
        for key, meaning in actions.SETTINGS.items():
            edit = QLineEdit()
            edit.setPlaceholderText(meaning)
            edit.setToolTip(meaning)
            source = QLabel()
            source.setObjectName("dim")
            self.setting_edits[key] = edit
            self.setting_sources[key] = source
            row = QHBoxLayout()
            row.addWidget(edit, 1)
            row.addWidget(source, 2)
            form.addRow(key.replace("_", " "), row)
        self.apply_settings_button = QPushButton("Apply from the next round…")
        self.apply_settings_button.clicked.connect(self.apply_settings)
        form.addRow(self.apply_settings_button)
        layout = QVBoxLayout(tab)
        layout.addLayout(form)
        layout.addStretch(1)
        return tab

    def show_settings(self) -> None:
        table = self.settings_table.currentText()
        if not table:
            return
        try:
            current = settings_in_force(self.store, table)
        except DrrError as exc:
            self._refused(exc.message)
            return
        self.shown_settings = {k: v.value for k, v in current.items()}
        for key, edit in self.setting_edits.items():
            edit.setText(current[key].value if key in current else "")
            self.setting_sources[key].setText(current[key].source if key in current else "")

    def apply_settings(self) -> None:
        table = self.settings_table.currentText()
        shown = getattr(self, "shown_settings", {})
        changes = {
            k: e.text().strip() for k, e in self.setting_edits.items() if e.text().strip() != shown.get(k, "")
        }
        if not changes:
            self.status.setText("nothing changed")
            return
        with self._refusals():
            # A value that cannot be right is said before reason and PIN are asked for.
            changes = actions.check_settings(self.store, table, changes)
            listed = ", ".join(f"{k} = {v}" for k, v in changes.items())
            signed = self.sign_off(
                "change_settings", "Change table settings", f"Table {table}: {listed}, from the next round."
            )
            if signed is None:
                return
            actions.change_settings(self.store, table, changes, signed[1], signed[0])
            self.show_settings()
            self._after_action(f"table {table}: {listed} (from the next round), by {signed[0].name}")

    # --- tabs ----------------------------------------------------------------------------------

    def _tab_changed(self, index: int) -> None:
        widget = self.tabs.widget(index)
        tables = floor_tables(self.store)
        if widget is self.reports:
            self.reports.reload_tables()
        elif widget is self.rules_tab:
            self.rules_table.clear()
            self.rules_table.addItems(tables)
        elif widget is self.settings_tab:
            self.settings_table.clear()
            self.settings_table.addItems(tables)
        elif widget is self.alerts:
            self.alerts.refresh()
