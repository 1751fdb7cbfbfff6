"""The surveillance station: every table of the store live, outcome charts, bias tests and alerts.

It reads the store only (`engine.floor.surveillance.table_view`, the same figures as `drr stats`)
and learns of new journal entries through `gui.floor.watch.StoreWatch` (within a second; on PostgreSQL
from LISTEN/NOTIFY, naming the tables that moved, which alone are read again). What moved is read on
two reader threads (`gui.floor.reader.LiveReader`: one read in flight each, the next covering
everything that moved meanwhile): the screen's (the moved tables' tiles and page, a few queries) and
the alerts' (one scan of the moved tables' new entries, the alerts it raises, the floor's new alert
entries), so writing alerts never holds up a tile; the Qt thread only redraws what a read brought. Charts
are built once and updated in place. Nothing here changes a round; the only writes are journaled
alerts and their acknowledgement by a logged-in person.
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction

from PySide6.QtCore import QDateTime, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDateTimeEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.auth import User
from engine.errors import DrrError
from engine.floor import windows as win
from engine.floor.alerts import AlertScanner, FloorRow
from engine.floor.bias_trace import BiasTrace, TraceFigure
from engine.floor.power import off_numbers
from engine.floor.started import started_text
from engine.floor.surveillance import (
    LAYOUT_ORDER,
    JournalTail,
    SurveillancePage,
    floor_tables,
    frequency,
    table_view,
)
from engine.floor.wall import TileView, tile_views
from engine.sequential import DEFAULT_THRESHOLDS, Thresholds
from engine.store.db import Store
from engine.store.stats import CHI_NEEDS, expected_lucky_count, house_edges, sector_needs
from engine.wheel_layout import WHEEL_ORDER
from gui import theme
from gui.floor.bias_chart import BiasChart
from gui.floor.reader import LiveReader, Moved
from gui.floor.signoff import FloorWindow
from gui.floor.watch import StoreWatch
from gui.floor.wheel_chart import WheelPhysicsChart
from gui.widgets.charts.bars import CategoryBars, ZScores
from gui.widgets.charts.frequency import FrequencyChart
from gui.widgets.charts.lines import HoldChart, RotorChart
from gui.widgets.charts.ring import WheelRing
from gui.widgets.fit_text import FitLabel

# The engine's spin windows (engine.floor.windows), the last-N ones first.
WINDOW_CHOICES = (
    *(f"Last {n:,} spins" for n in win.LAST_CHOICES), "Today", "Shift", "All spins", "Custom range…",
)  # fmt: skip
ROTOR_CHOICES = ("Both rotor directions", "Clockwise only", "Counter-clockwise only")
# Short labels: thirteen bars share a third of the page (R/B/0, odd/even, low/high, dozens, columns).
SPLIT_LABELS = ("R", "B", "0", "O", "E", "Lo", "Hi", "D1", "D2", "D3", "C1", "C2", "C3")
SPLIT_SIZES = (18, 18, 1, 18, 18, 18, 18, 12, 12, 12, 12, 12, 12)


def panel(widget: QWidget, title: str | None = None) -> QFrame:
    frame = QFrame()
    frame.setObjectName("panel")
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(8, 8, 8, 8)
    if title:
        label = QLabel(title)
        label.setObjectName("dim")
        layout.addWidget(label)
    layout.addWidget(widget)
    return frame


def _num(x: float | None, fmt: str) -> str:
    return "—" if x is None else format(x, fmt)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.2f}%"


@dataclass
class ScreenJob:
    """One read of the moved tables' tiles and page, planned on the Qt thread from what is shown."""

    window: win.SpinWindow
    wall: list[str]  # tiles to read again
    page: str | None  # the selected table, when its page is shown and it moved


@dataclass
class ScreenRead:
    job: ScreenJob
    tiles: dict[str, TileView] = field(default_factory=dict)
    view: SurveillancePage | None = None
    software: str = ""
    read_ms: float = 0.0
    error: str | None = None


@dataclass
class AlertJob:
    """One alert scan: the tables that moved (every table for the silence check), the pages read
    since the last scan (their bias and repeats), and whether the floor's chain moved."""

    scan: list[str]
    views: list[SurveillancePage]
    floor: bool


@dataclass
class AlertRead:
    rows: list[FloorRow] = field(default_factory=list)  # the floor's alert entries since the list
    error: str | None = None


def split_values(stats: dict) -> list[int]:  # type: ignore[type-arg]
    rbz, oe, lh = stats["red_black_zero"], stats["odd_even"], stats["low_high"]
    return [
        rbz["red"], rbz["black"], rbz["zero"], oe["odd"], oe["even"], lh["low"], lh["high"],
        *stats["dozens"], *stats["columns"],
    ]  # fmt: skip


class TablePage(QWidget):
    """Every chart of one table; `show_view` updates them all in place."""

    def __init__(self) -> None:
        super().__init__()
        self.wheel_order = False
        self.direction = "both"
        self.view: SurveillancePage | None = None
        self.frequency = FrequencyChart("Outcome frequency per number (gold: expected, band: 99%)")
        self.ring = WheelRing()
        self.zscores = ZScores()
        self.splits = CategoryBars("Even chances, dozens, columns (%)", left="%")
        self.rates = CategoryBars("Lucky / Bonus hit rate (%)", left="%", fill=theme.LUCKY)
        self.bonus = CategoryBars("Bonus outcomes (x to 1)", left="games", fill=theme.BONUS)
        self.directions = CategoryBars("Spins by rotor direction", left="spins", fill=theme.TEXT_DIM)
        self.hold = HoldChart()
        self.rotor = RotorChart()
        self.bias = BiasChart()  # the sequential bias tests against their thresholds (issue 27)
        self.verdict = QLabel()
        self.verdict.setObjectName("verdict")
        self.verdict.setWordWrap(True)
        self.figures = QLabel()
        self.figures.setWordWrap(True)
        self.figures.setTextFormat(Qt.TextFormat.RichText)
        self.dealers = QTableWidget(0, 5)
        self.dealers.setHorizontalHeaderLabels(("Dealer", "Spins", "χ²", "p", "What it means"))
        self.dealers.verticalHeader().setVisible(False)
        self.dealers.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.dealers.horizontalHeader().setStretchLastSection(True)
        self.dealers.setWordWrap(True)
        self.dealers.setMinimumHeight(150)
        words = QWidget()
        wl = QVBoxLayout(words)
        wl.setContentsMargins(0, 0, 0, 0)
        wl.addWidget(self.verdict)
        wl.addWidget(self.figures)
        wl.addStretch(1)

        grid = QGridLayout(self)
        grid.setSpacing(10)
        grid.addWidget(panel(self.frequency), 0, 0, 1, 2)
        grid.addWidget(panel(self.ring), 0, 2, 2, 1)
        grid.addWidget(panel(words), 1, 0)
        grid.addWidget(panel(self.zscores), 1, 1)
        grid.addWidget(panel(self.splits), 2, 0)
        grid.addWidget(panel(self.rates), 2, 1)
        grid.addWidget(panel(self.bonus), 2, 2)
        grid.addWidget(panel(self.directions), 3, 0)
        grid.addWidget(panel(self.dealers, "Results by dealer: distance from the previous result"), 3, 1)
        grid.addWidget(panel(self.rotor), 3, 2)
        grid.addWidget(panel(self.hold), 4, 0, 1, 3)
        self.wheel = WheelPhysicsChart()  # the wheel's physics per game (gui/floor/wheel_chart.py)
        grid.addWidget(panel(self.wheel), 5, 0, 1, 3)
        grid.addWidget(panel(self.bias), 6, 0, 1, 3)
        for row, h in enumerate((300, 250, 230, 230, 210, 210, 230)):
            grid.setRowMinimumHeight(row, h)
        grid.setRowStretch(7, 1)  # extra height goes below the charts, not into them
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 3)
        grid.setColumnStretch(2, 2)

    def set_direction(self, direction: str) -> None:
        """Bars of every spin ("both") or of one rotor direction ("cw", "ccw")."""
        self.direction = direction
        if self.view is not None:
            self.show_view(self.view)

    def set_wheel_order(self, on: bool) -> None:
        self.wheel_order = on
        if self.view is not None:
            self.show_view(self.view)

    def show_view(self, view: SurveillancePage) -> None:
        self.view = view
        s = view.stats
        n = s["spins"]
        flagged = s["z_scores"]["flagged"]
        order = WHEEL_ORDER if self.wheel_order else LAYOUT_ORDER
        if self.direction == "both":
            self.frequency.update_data(view.wheel if self.wheel_order else view.layout, flagged)
        else:
            split = s["by_direction"].get(self.direction)
            counts = split["counts"] if split else [0] * 37
            self.frequency.update_data(frequency(counts, order), flagged)
        sector = s["sectors"]["5"]
        p = sector["p_value"]
        self.ring.update_data(
            view.ring,
            sector["numbers"] if n else [],
            f"hottest 5-pocket sector {'-'.join(map(str, sector['numbers']))}\n"
            f"{sector['count']} hits (expected {sector['expected']:.1f})"
            + (f", p = {_num(p, '.3f')}" if n >= sector_needs(5) else ", too few spins to test"),
        )
        from scipy import stats as sps

        limit = float(sps.norm.isf(s["z_scores"]["threshold"] / 2))
        self.zscores.update_data(s["z_scores"]["z"], limit, flagged)
        values = split_values(s)
        pct = [100 * v / n if n else 0.0 for v in values]
        self.splits.update_data(
            SPLIT_LABELS,
            pct,
            [100 * k / 37 for k in SPLIT_SIZES],
            [theme.NUMBER_RED, theme.TEXT_DIM, theme.NUMBER_GREEN, *[theme.BONUS] * 10],
        )
        lucky, bonus = s["lucky"], s["bonus"]
        self.rates.update_data(
            ("Lucky", "Bonus"),
            [100 * (lucky["rate"] or 0), 100 * (bonus["rate"] or 0)],
            [
                None if lucky["expected_rate"] is None else 100 * lucky["expected_rate"],
                100 * bonus["expected_rate"],
            ],
            [theme.LUCKY, theme.BONUS],
        )
        self.bonus.update_data(list(view.bonus_odds), list(view.bonus_odds.values()))
        dirs = s["by_direction"]
        names = sorted(dirs)
        self.directions.update_data(
            [f"{d} ({dirs[d]['spins']:,})" for d in names],  # the test's sentence is in the figures
            [dirs[d]["spins"] for d in names],
        )
        self.hold.update_data(view.hold["rounds"], view.hold["actual"], view.hold["theoretical"])
        self.rotor.update_data(view.rotor)
        self.wheel.update_data(view.games)
        self.verdict.setText(view.verdict)
        self.verdict.setStyleSheet(
            f"color: {(theme.DANGER if 'possible bias' in view.verdict else theme.WIN).name()}"
        )
        chi = s["chi_square"]
        hold = s["hold"]
        rep = view.repeats
        flagged_text = html.escape(off_numbers(s) or "every number within chance")
        directions = "<br>".join(html.escape(dirs[d]["chi_square"]["words"]) for d in names if d != "unknown")
        self.figures.setText(
            f"sample <b>{n:,}</b> spins ({view.window.label})<br>"
            + (
                f"chi-square <b>{chi['statistic']:.2f}</b> on {chi['df']} df · "
                if chi["statistic"] is not None and n >= CHI_NEEDS
                else ""
            )
            + f"{html.escape(chi['words'])}<br>"
            + (f"{directions}<br>" if directions else "")
            + f"{html.escape(s['sectors']['5']['words'])}<br>"
            # A surveillance officer's words (the tests behind them: docs/surveillance-guide.md, Glossary).
            f"each number against its fair share: <b>{flagged_text}</b>"
            f" (a fair wheel shows one here less than {s['z_scores']['threshold'] * 37:.0%} of the time)<br>"
            f"a number coming up 1.2 times as often as it should is found, 4 times in 5, within"
            f" ~{view.spins_for_ratio:,} spins<br>"
            f"{html.escape(rep['words'])}; longest run {rep['longest_run']}<br>"
            f"Lucky {lucky['hits']} / {lucky['spins_with_draw']:,} · Bonus {bonus['hits']} /"
            f" {bonus['spins_with_draw']:,}<br>"
            f"handle {hold['wagered']} · returned {hold['returned']} · win {hold['win']} · hold "
            f"{_pct(hold['actual'])} (theoretical {_pct(hold['theoretical'])})"
        )
        self.dealers.setRowCount(len(view.dealers))
        for row, d in enumerate(view.dealers):
            cells = (
                d["dealer"],
                f"{d['spins']:,}",
                "—" if d["statistic"] is None else f"{d['statistic']:.1f}",
                "too few spins" if d["p_value"] is None else f"{d['p_value']:.4f}",
                d["words"].split(": ", 1)[-1],
            )
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(d["words"])
                if col == 4 and d["flagged"]:
                    item.setForeground(theme.DANGER)
                self.dealers.setItem(row, col, item)
        self.dealers.resizeRowsToContents()


# A tile's words (verdict, chi-square words, a bias alarm's, the last entry's time) keep this many lines
# of height whatever they say: words that took the height of their text resized the tile's chart, and
# repainted it, at almost every commit (issue 28); longer words are elided, whole on hover.
WORDS_LINES = 7


class WallTile(QFrame):
    """One table on the wall: a compact frequency chart and its verdict."""

    def __init__(self, table: str) -> None:
        super().__init__()
        self.setObjectName("panel")
        self.table = table
        # Elided in a narrow tile, the whole text on hover.
        self.title = FitLabel(f"Table {table}", tooltip=True)
        self.title.setMinimumWidth(80)
        self.spins = FitLabel(tooltip=True)
        self.spins.setObjectName("dim")
        self.title.setObjectName("title")
        self.chart = FrequencyChart("", compact=True)
        self.chart.setMinimumHeight(160)
        self.words = FitLabel(max_lines=WORDS_LINES, reserve_lines=WORDS_LINES, tooltip=True)
        self.words.setObjectName("dim")
        layout = QVBoxLayout(self)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.spins, 2)
        layout.addLayout(head)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.words)

    def show_view(self, view: TileView, bias: TraceFigure | None = None) -> None:
        self.chart.update_data(view.layout, view.stats["z_scores"]["flagged"])
        self.spins.setText(f"{view.stats['spins']:,} spins · {view.window.label}")
        last = (view.last_time or "")[11:19]
        near = f"\n{bias.words()}" if bias is not None else ""  # a table close to a bias alarm
        self.words.setText(
            f"{view.verdict}\n{view.stats['chi_square']['words']}{near}\nlast entry {last} UTC"
        )
        style = f"color: {theme.DANGER.name()}" if bias is not None and bias.close else ""
        if self.words.styleSheet() != style:  # setting it re-polishes the label, even to the same sheet
            self.words.setStyleSheet(style)


class RangeDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Custom range (UTC)")
        now = QDateTime.currentDateTimeUtc()
        self.since = QDateTimeEdit(now.addDays(-1))
        self.until = QDateTimeEdit(now)
        for edit in (self.since, self.until):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        form = QFormLayout(self)
        form.addRow("From", self.since)
        form.addRow("Until", self.until)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def spin_window(self) -> win.SpinWindow:
        def utc(edit: QDateTimeEdit) -> datetime:
            return datetime.fromtimestamp(edit.dateTime().toSecsSinceEpoch(), UTC)

        return win.time_range(utc(self.since), utc(self.until))


class SurveillanceWindow(FloorWindow):
    """Table picker, one table's charts, the wall of several tables and the alerts list."""

    refreshed = Signal(float)  # ms taken by the last refresh
    station = "surveillance"

    def __init__(
        self,
        store: Store,
        *,
        user: User | None = None,
        expected_lucky: Fraction | None = None,
        house_edge: Fraction | Mapping[str, Fraction] | None = None,
        scanner: AlertScanner | None = None,
        live: bool = True,
        bias_thresholds: Thresholds = DEFAULT_THRESHOLDS,
    ) -> None:
        super().__init__(store, user)
        from engine.rules import load_default_rules

        rules = load_default_rules()
        self.expected_lucky = expected_lucky or expected_lucky_count(rules.lucky_counts)
        # Each bet's edge from the Rules Submission's math: the theoretical hold follows the bets made.
        self.house_edge = house_edge if house_edge is not None else house_edges(rules)
        self.scanner = scanner or AlertScanner()
        self.window_spec: win.SpinWindow = win.last_spins(1000)
        self.tails: dict[str, JournalTail] = {}
        self.bias_traces: dict[str, BiasTrace] = {}  # each table's sequential tests over time (issue 27)
        self.bias_thresholds = bias_thresholds  # the settings file's (gui.floor.station)
        # The journal tails and software digests (the screen's reader, and the Qt thread for what a
        # person asks) and the scanner's marks (the alerts' reader, the Qt thread): one user at a time.
        self._reading = threading.RLock()
        self._scanning = threading.RLock()
        self.table: str | None = None
        self.last_refresh_ms = 0.0
        self.setWindowTitle("Diamond Rush Roulette — Surveillance")

        self.tables = QListWidget()
        self.tables.setMaximumWidth(220)
        self.tables.currentItemChanged.connect(self._table_picked)
        self.tables.itemChanged.connect(lambda _item: self.refresh_wall())
        self.window_box = QComboBox()
        self.window_box.addItems(WINDOW_CHOICES)
        self.window_box.setCurrentIndex(2)
        self.window_box.activated.connect(self._window_picked)
        self.order = QPushButton("Wheel order")
        self.order.setCheckable(True)
        self.order.toggled.connect(self._order_toggled)
        self.rotor = QComboBox()
        self.rotor.addItems(ROTOR_CHOICES)
        self.rotor.setToolTip("frequency bars of every spin or of one rotor direction")
        self.rotor.currentIndexChanged.connect(self._direction_picked)
        self.live = FitLabel(max_lines=2, tooltip=True)  # wraps beside the digest, never widens
        self.live.setObjectName("dim")
        self.live.setMinimumWidth(180)
        # The software digest the table started with (its latest table.started), re-read at most once
        # a minute: the table restarts rarely, and the query walks back to that entry.
        # Wrapped in two lines at most, the whole text on hover: digests never widen the window.
        self.software = FitLabel(max_lines=2, tooltip=True)
        self.software.setObjectName("dim")
        self.software.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._software_read: dict[str, tuple[float, str]] = {}

        self.page = TablePage()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.page)
        # The wall scrolls rather than widening the window past a small screen.
        tiles = QWidget()
        self.wall_grid = QGridLayout(tiles)
        self.wall = QScrollArea()
        self.wall.setWidgetResizable(True)
        self.wall.setFrameShape(QFrame.Shape.NoFrame)
        self.wall.setWidget(tiles)
        self.wall_tiles: dict[str, WallTile] = {}
        self.tabs = QTabWidget()
        self.tabs.addTab(scroll, "Table")
        self.tabs.addTab(self.wall, "Wall")
        self.tabs.currentChanged.connect(self._tab_shown)
        self._page_stale = False

        top = QHBoxLayout()
        heading = QLabel("SURVEILLANCE")
        heading.setObjectName("title")
        top.addWidget(heading)
        top.addSpacing(20)
        top.addWidget(QLabel("Window"))
        top.addWidget(self.window_box)
        top.addWidget(self.order)
        top.addWidget(self.rotor)
        top.addStretch(1)
        # The second row: the digest, the live state and who is logged in (one row of everything
        # was 1,510 px wide, wider than a 1366-pixel screen).
        second = QHBoxLayout()
        second.addWidget(self.software, 3)
        second.addWidget(self.live, 2)
        second.addSpacing(12)
        second.addWidget(self.who)
        second.addWidget(self.login_button)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("Tables (tick for the wall)"))
        ll.addWidget(self.tables)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(self.tabs)
        split.addWidget(self.alerts)
        split.setStretchFactor(1, 4)
        split.setStretchFactor(2, 2)
        split.setSizes([180, 1100, 560])
        body = QWidget()
        bl = QVBoxLayout(body)
        bl.addLayout(top)
        bl.addLayout(second)
        bl.addWidget(split, 1)
        self.setCentralWidget(body)
        self._show_user()

        self.watch = StoreWatch(store, self)
        self.watch.changed.connect(self.on_store_changed)
        self.watch.failed.connect(self._store_failed)
        self._to_check: dict[str, SurveillancePage] = {}  # pages read live, for the next alert scan
        self.reader = LiveReader("screen", self._plan_screen, self._read_screen, self._show_screen, self)
        self.alert_reader = LiveReader(
            "alerts", self._plan_alerts, self._read_alerts, self._show_alerts, self
        )
        for reader in (self.reader, self.alert_reader):
            reader.failed.connect(self.live.setText)
        self.reload_tables()
        self.alerts.refresh()
        if live:
            # What happened while no station was open is raised now, not a minute later.
            self.scan_alerts()
            self.watch.start()
            # A silent table is news too: re-scan once a minute even when nothing is written.
            self.silence = QTimer(self)
            self.silence.setInterval(60_000)
            self.silence.timeout.connect(lambda: self.alert_reader.request(everything=True))
            self.silence.start()

    def _refused(self, message: str) -> None:
        self.live.setText(message)

    def _store_failed(self, message: str) -> None:
        self.live.setText(f"● NOT LIVE — store unreachable: {message}")
        self.live.setStyleSheet(f"color: {theme.DANGER.name()}")

    def _direction_picked(self, index: int) -> None:
        self.page.set_direction(("both", "cw", "ccw")[index])

    def _order_toggled(self, on: bool) -> None:
        self.page.set_wheel_order(on)

    # --- tables and windows --------------------------------------------------------------

    def reload_tables(self) -> None:
        names = floor_tables(self.store)
        known = {self.tables.item(i).text() for i in range(self.tables.count())}
        for name in names:
            if name not in known:
                item = QListWidgetItem(name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(
                    Qt.CheckState.Checked if self.tables.count() < 4 else Qt.CheckState.Unchecked
                )
                self.tables.addItem(item)
        if self.tables.currentItem() is None and self.tables.count():
            self.tables.setCurrentRow(0)

    def select_table(self, table: str) -> None:
        for i in range(self.tables.count()):
            if self.tables.item(i).text() == table:
                self.tables.setCurrentRow(i)
                return
        raise DrrError(f"no table {table} in the store")

    def _table_picked(self, item: QListWidgetItem | None, _prev: object = None) -> None:
        self.table = item.text() if item is not None else None
        self.refresh()

    def set_window(self, spec: win.SpinWindow) -> None:
        self.window_spec = spec
        self.refresh()
        self.refresh_wall()

    def _window_picked(self, index: int) -> None:
        choice = WINDOW_CHOICES[index]
        with self._refusals():  # a custom range that is empty
            if index < len(win.LAST_CHOICES):
                spec = win.last_spins(win.LAST_CHOICES[index])
            elif choice == "Today":
                spec = win.today()
            elif choice == "Shift":
                spec = win.shift()
            elif choice == "All spins":
                spec = win.everything()
            else:
                dialog = RangeDialog(self)
                if not dialog.exec():
                    return
                spec = dialog.spin_window()
            self.set_window(spec)

    # --- refresh -------------------------------------------------------------------------

    def view_of(self, table: str, window: win.SpinWindow | None = None) -> SurveillancePage:
        with self._reading:
            tail = self.tails.setdefault(table, JournalTail(table))
            view = table_view(
                self.store,
                table,
                window or self.window_spec,
                expected_lucky=self.expected_lucky,
                house_edge=self.house_edge,
                tail=tail,
            )
            self.bias_of(table)
            return view

    def bias_of(self, table: str) -> TraceFigure:
        """The table's sequential tests brought up to date (its new spins only)."""
        with self._reading:
            return self.bias_traces.setdefault(table, BiasTrace(table, self.bias_thresholds)).update(
                self.store
            )

    def refresh(self) -> None:
        """Recompute and repaint every chart of the selected table."""
        if self.table is None:
            return
        started = time.perf_counter()
        with self._refusals():
            view = self.view_of(self.table)
            self._show_page(view, self._software_text(self.table), started, 0.0)

    def _show_page(self, view: SurveillancePage, software: str, started: float, read_ms: float) -> None:
        self.page.show_view(view)
        trace = self.bias_traces.get(view.table)
        if trace is not None and trace.figure is not None:
            self.page.bias.update_data(trace.figure)
        self.last_refresh_ms = read_ms + (time.perf_counter() - started) * 1000
        last = (view.last_time or "")[11:19]
        self.live.setText(f"● LIVE  table {view.table} · last entry {last} UTC · {view.window.label}")
        self.live.setStyleSheet(f"color: {theme.WIN.name()}")
        self.software.setText(software)
        self.current_view = view
        self.refreshed.emit(self.last_refresh_ms)

    def _software_text(self, table: str) -> str:
        """The software the table started with, re-read at most once a minute."""
        with self._reading:
            read_at, text = self._software_read.get(table, (float("-inf"), ""))
            if time.monotonic() - read_at >= 60:
                text = f"Table {table}: {started_text(self.store, table)}"
                self._software_read[table] = (time.monotonic(), text)
            return text

    def wall_tables(self) -> list[str]:
        return [
            self.tables.item(i).text()
            for i in range(self.tables.count())
            if self.tables.item(i).checkState() == Qt.CheckState.Checked
        ]

    def refresh_wall(self, only: set[str] | None = None) -> None:
        if self.tabs.currentWidget() is not self.wall:
            return
        wanted = self.wall_tables()
        for name in list(self.wall_tiles):
            if name not in wanted:
                self.wall_tiles.pop(name).deleteLater()
        columns = 2 if len(wanted) <= 4 else 3
        for i, name in enumerate(wanted):
            tile = self.wall_tiles.get(name)
            if tile is None:
                tile = self.wall_tiles[name] = WallTile(name)
                only = None
            self.wall_grid.addWidget(tile, i // columns, i % columns)
        # Every tile that moved read at once: a hundred tables cost a few queries, not a page each.
        with self._refusals():
            views = tile_views(self.store, [n for n in wanted if only is None or n in only], self.window_spec)
            bias = {name: self.bias_of(name) for name in views}
            for name, view in views.items():
                self.wall_tiles[name].show_view(view, bias[name])

    def scan_alerts(self, views: list[SurveillancePage] | None = None, only: list[str] | None = None) -> None:
        """Scan the tables `only` names (those that moved), else every table (the silence check)."""
        tables = only if only is not None else self._all_tables()
        try:
            with self._scanning:
                new = self.scanner.scan(self.store, tables)
                for view in views or []:
                    new += self.scanner.check_view(self.store, view)
        except DrrError as exc:
            self.live.setText(exc.message)
            return
        if new:
            self.alerts.refresh()

    def _all_tables(self) -> list[str]:
        return [self.tables.item(i).text() for i in range(self.tables.count())]

    def _tab_shown(self, _index: int) -> None:
        if self.tabs.currentWidget() is self.wall:
            self.refresh_wall()
        elif self._page_stale:
            self._page_stale = False
            self.refresh()

    def on_store_changed(self, tables: set[str]) -> None:
        """Only the tables that moved are read again (their tiles, page and alert scan), on the reader
        threads; a read already in flight takes them into its next one."""
        from engine.store.users import FLOOR

        if tables - {FLOOR} - set(self._all_tables()):
            self.reload_tables()
        if self.tabs.currentWidget() is self.wall and set(self.wall_tables()) - set(self.wall_tiles):
            self.refresh_wall()  # a table new on the wall: its tile is made (rare)
        self.reader.request(tables)
        self.alert_reader.request(tables)

    # The screen: tiles and page of what moved.

    def _plan_screen(self, moved: Moved) -> ScreenJob | None:
        """On the Qt thread: the tiles and page `moved` asks for, from what the screen shows now."""
        tables = moved.tables
        on_wall = self.tabs.currentWidget() is self.wall
        page = None
        if self.table in tables:
            if on_wall:
                self._page_stale = True  # the page behind the wall is recomputed when it is shown
            else:
                page = self.table
        wall = [t for t in self.wall_tables() if t in tables and t in self.wall_tiles] if on_wall else []
        return ScreenJob(self.window_spec, wall, page) if wall or page else None

    def _read_screen(self, job: ScreenJob) -> ScreenRead:
        """On the screen's reader thread: every moved tile at once (a few queries), and the page."""
        out = ScreenRead(job)
        try:
            if job.wall:
                out.tiles = tile_views(self.store, job.wall, job.window)
                for name in out.tiles:
                    self.bias_of(name)
            if job.page is not None:
                started = time.perf_counter()
                out.view = self.view_of(job.page, job.window)
                out.software = self._software_text(job.page)
                out.read_ms = (time.perf_counter() - started) * 1000
        except DrrError as exc:
            out.error = exc.message
        return out

    def _show_screen(self, result: ScreenRead) -> None:
        """On the Qt thread: redraw the tiles and page read (read again if the window changed since)."""
        if result.error is not None:
            self.live.setText(result.error)
        if result.job.window is not self.window_spec:
            self.reader.request([*result.tiles, *([result.view.table] if result.view else [])])
            return
        for name, view in result.tiles.items():
            tile = self.wall_tiles.get(name)
            if tile is not None:
                trace = self.bias_traces.get(name)
                tile.show_view(view, trace.figure if trace is not None else None)
        if result.view is not None and result.view.table == self.table:
            self._show_page(result.view, result.software, time.perf_counter(), result.read_ms)
            self._to_check[result.view.table] = result.view  # its bias and repeats: the next scan
            self.alert_reader.request([result.view.table])

    # The alerts: one scan of what moved, the alerts it raises, the floor's new alert entries.

    def _plan_alerts(self, moved: Moved) -> AlertJob | None:
        from engine.store.users import FLOOR

        scan = self._all_tables() if moved.everything else sorted(moved.tables - {FLOOR})
        views, self._to_check = list(self._to_check.values()), {}
        floor = FLOOR in moved.tables
        return AlertJob(scan, views, floor) if scan or views or floor else None

    def _read_alerts(self, job: AlertJob) -> AlertRead:
        """On the alerts' reader thread: scan, raise, and read back only the floor's new alert entries."""
        out = AlertRead()
        try:
            with self._scanning:
                if job.scan:
                    self.scanner.scan(self.store, job.scan)
                for view in job.views:
                    self.scanner.check_view(self.store, view)
        except DrrError as exc:
            out.error = exc.message
        try:  # whatever was raised, updated or acknowledged: only those entries
            out.rows = self.alerts.book.news(self.store)
        except DrrError as exc:
            out.error = exc.message
        return out

    def _show_alerts(self, result: AlertRead) -> None:
        if result.error is not None:
            self.live.setText(result.error)
        if result.rows:
            self.alerts.apply(result.rows)

    def closeEvent(self, event: object) -> None:
        self.watch.stop()
        self.reader.stop()
        self.alert_reader.stop()
        super().closeEvent(event)  # type: ignore[arg-type]
