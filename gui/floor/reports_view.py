"""Reports per table and shift or day on screen, exported to CSV and to PDF (QPdfWriter) with a chart.

The figures come from `engine.floor.reports.table_report` (exact money); the CSV holds the same
figures, the PDF adds the money chart as drawn on screen.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QDate, QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import DrrError
from engine.exact import money
from engine.floor.reports import TableReport, report_csv, table_report
from engine.floor.surveillance import floor_tables
from engine.floor.windows import SHIFT_STARTS, period_bounds
from engine.store.db import Store
from gui import theme
from gui.widgets.charts.bars import CategoryBars

PERIODS = ("Whole day", *(f"Shift {h:02d}:00–{(h + 8) % 24:02d}:00" for h in SHIFT_STARTS))


class ReportsView(QWidget):
    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.report: TableReport | None = None
        self.table = QComboBox()
        self.day = QDateEdit(QDate.currentDate())
        self.day.setCalendarPopup(True)
        self.day.setDisplayFormat("yyyy-MM-dd")
        self.period = QComboBox()
        self.period.addItems(PERIODS)
        show = QPushButton("Show")
        show.clicked.connect(self.show_report)
        self.csv = QPushButton("Export CSV…")
        self.csv.clicked.connect(lambda: self.export_csv())
        self.pdf = QPushButton("Export PDF…")
        self.pdf.clicked.connect(lambda: self.export_pdf())
        self.message = QLabel()
        self.message.setObjectName("dim")
        controls = QHBoxLayout()
        for w in (QLabel("Table"), self.table, QLabel("Day (UTC)"), self.day, self.period, show):
            controls.addWidget(w)
        controls.addStretch(1)
        controls.addWidget(self.csv)
        controls.addWidget(self.pdf)
        self.figures = QFormLayout()
        self.figure_labels: dict[str, QLabel] = {}
        figures = QWidget()
        figures.setLayout(self.figures)
        self.largest = QTableWidget(0, 4)
        self.largest.setHorizontalHeaderLabels(("Round", "Time (UTC)", "Result", "Paid"))
        self.largest.verticalHeader().setVisible(False)
        self.largest.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.chart = CategoryBars(
            "Money in the period (gold: theoretical win)", left="amount", fill=theme.BONUS
        )
        # The figures scroll on a short screen: a report grows a row with each figure (the wheel's games
        # per hour, its reconciliations), and the pit-boss window must still fit 720 pixels.
        scroll = QScrollArea()
        scroll.setWidget(figures)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setMinimumWidth(figures.sizeHint().width() + 24)
        grid = QGridLayout()
        grid.addWidget(scroll, 0, 0, 2, 1)
        grid.addWidget(self.chart, 0, 1)
        grid.addWidget(self.largest, 1, 1)
        grid.setColumnStretch(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addLayout(grid, 1)
        layout.addWidget(self.message)
        self.reload_tables()

    def reload_tables(self) -> None:
        current = self.table.currentText()
        self.table.clear()
        self.table.addItems(floor_tables(self.store))
        if current:
            self.table.setCurrentText(current)

    def set_period(self, table: str, day: datetime, period: int = 0) -> None:
        self.table.setCurrentText(table)
        self.day.setDate(QDate(day.year, day.month, day.day))
        self.period.setCurrentIndex(period)

    def show_report(self) -> None:
        table = self.table.currentText()
        if not table:
            self.message.setText("no tables in this store yet")
            return
        d = self.day.date()
        since, until = period_bounds(
            datetime(d.year(), d.month(), d.day(), tzinfo=UTC), self.period.currentIndex()
        )
        try:
            rep = table_report(self.store, table, since, until)
        except DrrError as exc:
            self.message.setText(exc.message)
            return
        self.report = rep
        for label, value in rep.figures():
            if label not in self.figure_labels:
                self.figure_labels[label] = QLabel()
                self.figures.addRow(label, self.figure_labels[label])
            self.figure_labels[label].setText(value)
        self.largest.setRowCount(len(rep.largest))
        for row, big in enumerate(rep.largest):
            cells = (
                big.round_id,
                big.time[:19].replace("T", " "),
                "" if big.result is None else str(big.result),
                money(big.paid),
            )
            for col, text in enumerate(cells):
                self.largest.setItem(row, col, QTableWidgetItem(text))
        self.chart.update_data(
            ("Handle", "Returned", "Win"),
            [float(rep.handle), float(rep.returned), float(rep.win)],
            [None, None, None if rep.theoretical_win is None else float(rep.theoretical_win)],
            [theme.BONUS, theme.WARN, theme.WIN if rep.win >= 0 else theme.DANGER],
        )
        self.message.setText(
            f"{rep.rounds:,} rounds on table {table}, {since:%Y-%m-%d %H:%M} – {until:%Y-%m-%d %H:%M} UTC"
        )

    def export_csv(self, path: Path | None = None) -> Path | None:
        if self.report is None:
            self.show_report()
        if self.report is None:
            return None
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self, "Export report (CSV)", "report.csv", "CSV (*.csv)")
            if not chosen:
                return None
            path = Path(chosen)
        path.write_text(report_csv([self.report]), encoding="utf-8")
        self.message.setText(f"written {path}")
        return path

    def export_pdf(self, path: Path | None = None) -> Path | None:
        if self.report is None:
            self.show_report()
        rep = self.report
        if rep is None:
            return None
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self, "Export report (PDF)", "report.pdf", "PDF (*.pdf)")
            if not chosen:
                return None
            path = Path(chosen)
        writer = QPdfWriter(str(path))
        writer.setPageLayout(
            QPageLayout(
                QPageSize(QPageSize.PageSizeId.A4),
                QPageLayout.Orientation.Portrait,
                QMarginsF(15, 15, 15, 15),
            )
        )
        writer.setTitle(f"Diamond Rush Roulette report, table {rep.table}")
        writer.setCreator("drr pit boss station")
        painter = QPainter(writer)
        self.paint_report(painter, rep, writer.width(), writer.resolution())
        painter.end()
        self.message.setText(f"written {path}")
        return path

    def paint_report(self, painter: QPainter, rep: TableReport, width: int, dpi: int) -> None:
        """The printed report (figures, the money chart as on screen, largest payouts) on any device."""
        y = 0.0
        line = dpi * 0.22

        def text(s: str, size: float = 10, bold: bool = False, x: float = 0) -> None:
            font = QFont("Sans Serif")
            font.setPointSizeF(size)
            font.setBold(bold)
            painter.setFont(font)
            painter.setPen(QColor("#111111"))
            painter.drawText(QRectF(x, y, width - x, line * 1.4), Qt.AlignmentFlag.AlignLeft, s)

        text(f"Diamond Rush Roulette — table report, table {rep.table}", 16, True)
        y += line * 2
        for label, value in rep.figures():
            text(label, 10, True)
            text(value, 10, False, width * 0.4)
            y += line
        y += line
        pixmap = self.chart.grab()
        target = QRectF(0, y, width, width * pixmap.height() / max(1, pixmap.width()))
        painter.drawPixmap(target.toRect(), pixmap)
        y += target.height() + line
        text("Largest payouts", 12, True)
        y += line * 1.5
        for big in rep.largest:
            when = big.time[:19].replace("T", " ")
            text(f"{big.round_id}   {when} UTC   result {big.result}   paid {money(big.paid)}", 9)
            y += line
