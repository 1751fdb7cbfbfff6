"""The croupier station: the one next action big, the felt, players and chips, payouts, health.

Everything shown comes from the table model's push (gui.table_model): each signal names one part
that changed, and the window redraws that part from the view the model pushed (`self.view`: phase,
wagers, draw, result, pay lines, approvals, hold are read from it, never kept here). Every touch
becomes a command to the table. The window holds only what the croupier is choosing (selected
player and chip value) and the seats' names.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QIcon, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.bets import Bet, Wager
from engine.rng import Draw
from engine.round import Phase
from engine.table.limits import chips_in_force
from engine.table.next_step import APPROVE, MANUAL, NO_SPIN_ACTION, PIT_BOSS, VOID, WINNING_ONLY_OPEN
from engine.table.view import HistoryEntry, NextStep, PayLine, TableView, money, odds_text
from engine.wager_text import WagerText
from gui import theme
from gui.seat_names import MAX_NAME
from gui.table_model import TableModel
from gui.widgets.chip_rack import ChipRack
from gui.widgets.dealer_bar import DealerBar
from gui.widgets.felt import LUCKY_HEADINGS, LUCKY_SIZES, FeltWidget
from gui.widgets.fit_text import FitLabel
from gui.widgets.list_pair import ListPair
from gui.widgets.phase_strip import PhaseStrip
from gui.widgets.side_grid import SideGrid
from gui.widgets.status import HistoryStrip, SensorHealth, SensorStatus, chip_pixmap
from gui.widgets.wager_entry import WagerEntry
from gui.windows.bonus_screen import BonusScreen
from gui.windows.dialogs import ApprovalDialog, ManualResultDialog, ReasonDialog
from gui.windows.first_paint import FirstPaintWindow

if TYPE_CHECKING:  # the change notices' module loads with the table, after the first frame
    from engine.table.changes import Changes

PRESS_AFTER_DIALOG = (
    "the result was disputed or entered by hand: check the number, then press the big button (no key)"
)
LISTS_WIDE_FROM = 880  # the foot's lists side by side: ~380 px of Lucky payouts, ~500 of paying list
PAYING_TITLE = "Paying list (player totals include stakes)"
RETURN_TITLE = "Round voided: return every wager to its player"
PLAIN_SEAT = re.compile(r"Seat \d+")  # the names seats start with (gui.app.PLAYERS)
CHIP_VALUES = (Decimal(1), Decimal(5), Decimal(25), Decimal(100), Decimal(500), Decimal(1000))
NO_SPIN_REASONS = (
    "ball spun in the same direction as the rotor",
    "ball made fewer than four revolutions",
    "ball left the wheel",
    "foreign object on the wheel",
)
# The reason line while an RNG fault stops play (croupier.next_action: "Play stopped").
STOPPED_STYLE = "font-size: 16pt; font-weight: bold; color: #ffffff; background: #b00020; padding: 8px;"
PHASE_TEXT = {
    Phase.IDLE: ("READY", "#9aa6b2"),
    Phase.OPEN: ("BETS OPEN", "#38d67a"),
    Phase.CLOSED: ("NO MORE BETS", "#f5c542"),
    Phase.RESULT: ("RESULT", "#5fd4ff"),
    Phase.BONUS: ("BONUS GAME", "#5fd4ff"),
    Phase.SETTLED: ("SETTLED", "#9aa6b2"),
    Phase.VOID: ("VOID", "#ff5a52"),
}


class WrappedLine(FitLabel):
    """A line of words that never widens the window (issue 25 point 3: a hold's long line made the
    croupier window 2,121 px wide): it wraps within the width it is given, up to three lines (the
    rest elided), and the whole text is on hover too."""

    def __init__(self, text: str = "", *, max_lines: int = 3, reserve_lines: int = 0) -> None:
        super().__init__(text, max_lines=max_lines, tooltip=True, reserve_lines=reserve_lines)


class ListTable(QTableWidget):
    """The Lucky payouts and paying lists: they ask for a few rows' height and scroll, so the felt
    and the whole players panel come first on a 1080-pixel screen (they share what is left)."""

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), 120)


class CroupierWindow(FirstPaintWindow):
    seatsChanged = Signal(object)  # tuple[str, ...]: the seats' names after the croupier named one

    def __init__(
        self,
        table: TableModel,
        players: Sequence[str],
        parent: QWidget | None = None,
        *,
        chips: Sequence[Decimal] = CHIP_VALUES,
        own_bonus: bool = False,
    ) -> None:
        super().__init__(parent)
        self.table = table
        self.setWindowTitle("Diamond Rush Roulette · Croupier")
        self.players = tuple(players)
        self.styles = theme.player_styles(self.players)
        self.player = self.players[0] if self.players else ""
        self.chip_values = tuple(chips)  # the settings' table.chips; the limits pick those on offer
        self.chip = self.chip_values[min(1, len(self.chip_values) - 1)]
        self._view: TableView = table.snapshot()
        self._drawn_phase: Phase | None = None  # the phase on screen, to clear a stale reason on a move
        # Set when the croupier disputed or entered the result in a dialog: until the big button's own
        # press (or the next round) no key confirms or settles (_key_refused).
        self._press_needed = False
        self.last_dialog: QDialog | None = None  # the dialog shown last (the tests drive it)
        self._build()
        self._shortcuts()
        self._connect()
        self._restore()
        # own_bonus: no bonus window in this set-up (`drr gui --station croupier`): the station plays
        # the bonus games itself on a screen of its own that comes up with a game (issue 25 point 4).
        self.bonus_screen: BonusScreen | None = BonusScreen(table, pops_up=True) if own_bonus else None

    # --- the table as the model pushed it (read, never copied) ---------------------------------

    @property
    def view(self) -> TableView:
        return self._view

    def _take_view(self) -> TableView:
        """The view the table pushed last (the model hands it out; it is not rebuilt on read)."""
        self._view = self.table.snapshot()
        return self._view

    @property
    def phase(self) -> Phase:
        return self._view.phase

    @property
    def wagers(self) -> tuple[Wager, ...]:
        return self._view.wagers

    @property
    def draw(self) -> Draw | None:
        return self._view.draw

    @property
    def candidate(self) -> int | None:
        """The result on the felt: the wheel's, waiting for confirmation, or the recorded one."""
        return self._view.result

    @property
    def pay_lines(self) -> tuple[PayLine, ...]:
        return self._view.pay_lines

    @property
    def approvals(self) -> tuple[str, ...]:
        return self._view.approvals_needed

    @property
    def hold(self) -> str | None:
        return self._view.hold

    @property
    def bonus_running(self) -> bool:
        return any(ln.pending for ln in self._view.pay_lines)

    # --- construction -------------------------------------------------------------------------

    def _build(self) -> None:
        bar = QFrame()
        bar.setObjectName("panel")
        bar_layout = QHBoxLayout(bar)
        bar_layout.setContentsMargins(14, 8, 14, 8)
        self.round_label = FitLabel("Round –")
        self.round_label.setMinimumWidth(
            self.round_label.fontMetrics().horizontalAdvance("Table DR-07 · round 0000")
        )
        self.round_label.setObjectName("dim")
        self.phase_label = QLabel("READY")
        # The big button's key, under the phase (the button itself takes the bar's width).
        self.shortcut_hint = QLabel("Space")
        self.shortcut_hint.setObjectName("dim")
        names = QVBoxLayout()
        names.setSpacing(2)
        names.addWidget(self.round_label)
        names.addWidget(self.phase_label)
        names.addWidget(self.shortcut_hint)
        names.addStretch(1)
        bar_layout.addLayout(names)
        self.action = QPushButton("Open bets")
        self.action.setObjectName("primary")
        self.action.setMinimumWidth(300)
        self.action.clicked.connect(self.press_action)
        # The line under the big button: why the table waits and what to do (the view's step); two
        # lines of height kept so the bar does not jump as the line changes.
        self.guide = WrappedLine(max_lines=2, reserve_lines=2)
        self.guide.setObjectName("guide")
        action_box = QVBoxLayout()
        action_box.setSpacing(2)
        action_box.addWidget(self.action)
        action_box.addWidget(self.guide)
        action_box.addStretch(1)
        bar_layout.addLayout(action_box, 1)

        spin_row = self._spin_row()
        # The last results and, beside them, who deals (one row: on a 720-pixel screen every row counts).
        self.history = HistoryStrip()
        self.dealer_bar = DealerBar(self.table)
        history_box = QWidget()
        history_row = QHBoxLayout(history_box)
        history_row.setContentsMargins(0, 0, 0, 0)
        history_row.addWidget(self.history, 1)
        # The wheel's link beside who deals, not in the bar: the bar stays narrow enough to stand
        # beside the players panel at 1024 and 1366 px (gui.widgets.side_grid).
        self.sensor = SensorStatus()
        self.sensor.setMinimumWidth(120)
        self.sensor.setMaximumWidth(360)
        history_row.addWidget(self.sensor)
        history_row.addWidget(self.dealer_bar)

        self.felt = FeltWidget()
        self.felt.set_rules(self.table.rules)
        # The side panel stands beside the rows above the foot where the window is wide enough
        # (gui.widgets.side_grid), beside the felt alone where not; it scrolls only on a screen too
        # small for it rather than forcing a window taller than the screen.
        scroll = QScrollArea()
        scroll.setWidget(self._side_panel())
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFixedWidth(322)
        self.wager_entry = WagerEntry(lambda: (self.table.rules.trios, self.table.rules.first_four))
        self.wager_entry.entered.connect(self.on_typed_wagers)
        self.wager_entry.refused.connect(self.show_reason)
        # The reason line beside the typed line: refusals and holds in two lines at most (the
        # whole text on hover), so a long one never pushes the bottom row off the screen.
        self.reason = WrappedLine(max_lines=2)
        self.reason.setObjectName("reason")
        typed_box = QWidget()
        typed = QHBoxLayout(typed_box)
        typed.setContentsMargins(0, 0, 0, 0)
        typed.addWidget(self.wager_entry, 1)
        typed.addWidget(self.reason, 1)

        bottom_box = QWidget()
        bottom = QHBoxLayout(bottom_box)
        bottom.setContentsMargins(0, 0, 0, 0)
        self.lucky_table = ListTable(0, len(LUCKY_HEADINGS))
        self.lucky_table.setHorizontalHeaderLabels(list(LUCKY_HEADINGS))
        self._table_style(self.lucky_table)
        self.lucky_table.setStyleSheet("font-size: 9pt;")
        # The number's column as wide as its heading: sized to its contents it took the Bonus Number's
        # note (a row spanning every column) and left the odds 40 px each, cut.
        self.lucky_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Fixed)
        self.lucky_table.horizontalHeader().resizeSection(
            0, self.lucky_table.fontMetrics().horizontalAdvance(LUCKY_HEADINGS[0]) + 24
        )
        self.lucky_table.horizontalHeader().setMinimumSectionSize(40)
        self.lucky_button = QPushButton(theme.icon("diamond"), "Lucky odds")
        self.lucky_button.setCheckable(True)
        self.lucky_button.setToolTip(
            "Show every Lucky Number's split, street, corner and six-line payouts on the felt (L)"
        )
        self.lucky_button.toggled.connect(self.felt.set_lucky_detail)
        self.lucky_button.setStyleSheet("padding: 3px 10px;")  # in the title row: no taller than the title
        lucky_box = self._titled("Lucky payouts", self.lucky_table, self.lucky_button)
        self.paying = ListTable(0, 5)
        self.paying.setHorizontalHeaderLabels(["Player", "Wager", "Stake", "Odds", "Pays"])
        self._table_style(self.paying)
        self.paying.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        paying_box = self._titled(PAYING_TITLE, self.paying)
        title = paying_box.findChild(QLabel)
        assert title is not None
        self.paying_title = title
        # Side by side from LISTS_WIDE_FROM px (the paying list's five columns whole beside the Lucky
        # payouts), else two tabs of one place (gui.widgets.list_pair).
        self.lists = ListPair(
            lucky_box, paying_box, ("Lucky payouts", "Paying list"), wide_from=LISTS_WIDE_FROM, stretch=(3, 4)
        )
        bottom.addWidget(self.lists, 1)
        bottom.addWidget(self._irregular_panel())
        self.body = SideGrid(
            (bar, spin_row, history_box, self.felt, typed_box),
            self.felt,
            scroll,
            bottom_box,
            stretch={self.felt: 8, bottom_box: 1},
        )
        self.setCentralWidget(self.body)

    def _table_style(self, table: QTableWidget) -> None:
        table.setObjectName("compact")

        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(26)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        table.setAlternatingRowColors(True)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)

    def _titled(self, title: str, widget: QWidget, extra: QWidget | None = None) -> QFrame:
        box = QFrame()
        box.setObjectName("panel")
        layout = QVBoxLayout(box)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        label = FitLabel(title)  # elided in a narrow box, the whole title on hover
        label.setMinimumWidth(60)
        label.setObjectName("dim")
        if extra is None:
            layout.addWidget(label)
        else:
            head = QHBoxLayout()
            head.addWidget(label, 1)
            head.addWidget(extra)
            layout.addLayout(head)
        layout.addWidget(widget)
        return box

    def _side_panel(self) -> QFrame:
        side = QFrame()
        side.setObjectName("panel")
        side.setFixedWidth(310)
        layout = QVBoxLayout(side)
        layout.setContentsMargins(12, 10, 12, 10)
        title = QLabel("Players")
        title.setObjectName("dim")
        layout.addWidget(title)
        # The limits at the panel's top, in sight on a 720-pixel screen too (issue 25 point 6: at
        # the panel's foot they were below the fold): two lines, the whole text on hover.
        self.limits = FitLabel(self._limits_text(), max_lines=2, tooltip=True)
        self.limits.setObjectName("dim")
        layout.addWidget(self.limits)
        self.player_buttons: dict[str, QPushButton] = {}
        players = QGridLayout()
        players.setSpacing(6)
        group = QButtonGroup(self)
        for i, name in enumerate(self.players):
            b = QPushButton(name)
            b.setObjectName("player")
            b.setCheckable(True)
            b.setIcon(QIcon(chip_pixmap(self.styles[name], 30)))
            b.setToolTip(f"Select {name} ({i + 1})")
            b.setStyleSheet("text-align: left; padding-left: 10px;")
            b.clicked.connect(lambda _=False, i=i: self.select_player(self.players[i]))
            group.addButton(b)
            players.addWidget(b, i // 2, i % 2)
            self.player_buttons[name] = b
        layout.addLayout(players)
        if self.player:
            self.player_buttons[self.player].setChecked(True)
        # Totals right under the players: on a 768-pixel screen the rest of the panel scrolls.
        self.totals = QLabel("")
        self.totals.setWordWrap(True)
        layout.addWidget(self.totals)
        chips_title = QLabel("Chip value (F1–F12)")
        chips_title.setObjectName("dim")
        layout.addSpacing(6)
        layout.addWidget(chips_title)
        self.chip_rack = ChipRack(self.chip_values)
        self.chip_rack.chosen.connect(self._chip_chosen)
        self.chip_rack.choose(self.chip)
        layout.addWidget(self.chip_rack)
        row = QHBoxLayout()
        self.undo_button = QPushButton(theme.icon("undo"), "Undo")
        self.undo_button.setToolTip("Undo the selected player's last wager (Ctrl+Z)")
        self.undo_button.clicked.connect(lambda: self.table.undo(self.player))
        self.clear_button = QPushButton(theme.icon("clear"), "Clear player")
        self.clear_button.setToolTip("Remove all the selected player's wagers (Delete)")
        self.clear_button.clicked.connect(lambda: self.table.clear_player(self.player))
        self.rebet_button = QPushButton("Rebet")
        self.rebet_button.setToolTip("Place the selected player's wagers of their last round again (Ctrl+R)")
        self.rebet_button.clicked.connect(lambda: self.table.rebet(self.player))
        # A helper that is not a round action, with the selected player's: naming the seat.
        self.rename_button = QPushButton("Name seat…")
        self.rename_button.setToolTip("Give the selected seat the player's name (Ctrl+E)")
        self.rename_button.clicked.connect(self.ask_rename_seat)
        row.addWidget(self.undo_button)
        row.addWidget(self.clear_button)
        layout.addLayout(row)
        second = QHBoxLayout()
        second.addWidget(self.rebet_button)
        second.addWidget(self.rename_button)
        layout.addLayout(second)
        layout.addStretch(1)
        return side

    def _irregular_panel(self) -> QFrame:
        box = QFrame()
        box.setObjectName("panel")
        layout = QGridLayout(box)
        # Three rows as low as the lists beside them: the croupier window's minimum height plus a
        # window manager's title bar must stay within a 720-pixel screen (it ran 9 px off the bottom).
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setVerticalSpacing(4)
        box.setStyleSheet("QPushButton { padding: 5px 12px; }")
        self.manual_button = QPushButton(theme.icon("manual"), "Manual result")
        self.manual_button.clicked.connect(self.ask_manual_result)
        self.manual_button.setToolTip("Enter the winning number by hand, twice (M)")
        self.approve_button = QPushButton(theme.icon("approve"), "Approve")
        self.approve_button.clicked.connect(self.ask_approval)
        self.approve_button.setToolTip("A pit boss approves the large payouts (A)")
        self.no_spin_button = QPushButton(theme.icon("nospin"), "No-spin…")
        self.no_spin_button.clicked.connect(self.ask_no_spin)
        self.no_spin_button.setToolTip("The spin does not count: same wagers, same draw (Ctrl+Shift+N)")
        self.void_button = QPushButton(theme.icon("void"), "Void…")
        self.void_button.setObjectName("danger")
        self.void_button.clicked.connect(self.ask_void)
        self.void_button.setToolTip("Cancel the round with a reason; every wager is returned (Ctrl+Shift+V)")
        self.pit_boss_button = QPushButton(theme.icon("approve"), "Pit boss…")
        self.pit_boss_button.clicked.connect(lambda: self.ask_pit_boss())
        self.pit_boss_button.setToolTip("A pit boss signs off what ends the hold (Ctrl+Shift+P)")
        self._tips = {
            MANUAL: self.manual_button.toolTip(),
            NO_SPIN_ACTION: self.no_spin_button.toolTip(),
            VOID: self.void_button.toolTip(),
            APPROVE: self.approve_button.toolTip(),
            PIT_BOSS: self.pit_boss_button.toolTip(),
        }
        for i, b in enumerate(
            (
                self.manual_button,
                self.approve_button,
                self.no_spin_button,
                self.void_button,
                self.pit_boss_button,
                self.dispute_button,
            )
        ):
            # Two abreast, three rows (as low as the lists beside them): three abreast took 471 px
            # and left the paying list 125 px at 1280x720, its amounts cut.
            layout.addWidget(b, i // 2, i % 2)
        layout.setRowStretch(3, 1)
        box.setMaximumWidth(520)
        return box

    def _limits_text(self, view: TableView | None = None) -> str:
        """The limits in force as the table pushed them (the Rules Submission's and the pit boss's)."""
        from engine.table.limits import limits_in_force

        pushed = (view or self._view).limits
        if self.table.inner is None:  # starting: the Rules Submission's alone until the table is read
            pushed = limits_in_force(self.table.rules.limits, {})
        return pushed.text()

    def _shortcuts(self) -> None:
        def key(seq: str, slot: object) -> None:
            shortcut = QShortcut(QKeySequence(seq), self, slot)  # type: ignore[call-overload]
            # The croupier's keys work whichever of the station's windows is active (a player touching
            # the bonus screen must not take them away); a modal dialog still blocks them.
            shortcut.setContext(Qt.ShortcutContext.ApplicationShortcut)
            self.keys[seq] = shortcut

        self.keys: dict[str, QShortcut] = {}

        key("Space", self.key_next_action)
        key("Return", self.key_next_action)
        key("O", self.table.open_bets)
        key("N", self.table.no_more_bets)
        key("C", lambda: self._money_key(self.table.confirm_result))
        key("S", lambda: self._money_key(self.table.settle))
        key("R", self.table.next_round)
        key("M", self.ask_manual_result)
        key("A", self.ask_approval)
        key("Ctrl+Shift+N", self.ask_no_spin)
        key("Ctrl+Shift+V", self.ask_void)
        key("Ctrl+Shift+P", self.ask_pit_boss)
        key("Ctrl+Z", lambda: self.table.undo(self.player))
        key("Delete", lambda: self.table.clear_player(self.player))
        key("L", self.lucky_button.toggle)
        key("Ctrl+E", self.ask_rename_seat)
        # By seat, not by name: a seat keeps its key when the croupier names it.
        for i in range(min(len(self.players), 9)):
            key(str(i + 1), lambda i=i: self.select_player(self.players[i]))
        for i in range(12):  # by position: the chips on offer follow the table's limits
            key(f"F{i + 1}", lambda i=i: self._chip_at(i))
        key("W", self.wager_entry.setFocus)
        key("Ctrl+R", lambda: self.table.rebet(self.player))
        key("Ctrl+Shift+D", self.dealer_bar.ask_sign_in)
        key("Ctrl+Shift+L", self.table.sign_out_dealer)

    def _connect(self) -> None:
        t = self.table
        t.phaseChanged.connect(self.on_phase)
        t.wagersChanged.connect(self.on_wagers)
        t.drawMade.connect(self.on_draw)
        t.resultArrived.connect(self.on_result)
        t.payoutsChanged.connect(self.on_payouts)
        t.settled.connect(self.on_settled)
        t.sensorHealth.connect(self.on_sensor)
        t.irregularity.connect(self.on_irregularity)
        t.refused.connect(self.show_reason)
        t.historyChanged.connect(self.on_history)
        t.changed.connect(self.on_changes)
        t.dealerChanged.connect(lambda _user: self._refresh_action())
        self.felt.betClicked.connect(self.on_bet_clicked)
        self.felt.betRemoveRequested.connect(self.on_bet_remove)

    def _restore(self) -> None:
        """Draw the table as it stands (a restart mid-round shows the round where it is)."""
        snap = self._take_view()
        self.round_label.setText(f"Table {snap.table_id} · round {snap.round_no or '–'}")
        self.felt.set_rules(self.table.rules)
        self.on_history(snap.history)
        self.on_wagers(snap.wagers)
        if snap.draw is not None:
            self.on_draw(snap.draw)
        if snap.pay_lines:
            self.on_payouts(snap.pay_lines, snap.approvals_needed)
        self.on_phase(snap.phase)

    # --- choices of the croupier --------------------------------------------------------------

    def select_player(self, name: str) -> None:
        if name in self.player_buttons:
            self.player = name
            self.player_buttons[name].setChecked(True)
            self._update_totals()

    def rename_seat(self, old: str, new: str) -> bool:
        """Name a seat (between that player's wagers: the journal keeps the name each wager was
        placed under, so a seat with wagers in play keeps its name until the round is over)."""
        new = " ".join(new.split())
        why = ""
        if old not in self.players:
            why = f"there is no seat {old!r}"
        elif not new:
            why = "a player's name cannot be empty"
        elif len(new) > MAX_NAME:
            why = f"a player's name has at most {MAX_NAME} characters"
        elif new != old and new in self.players:
            why = f"{new} already sits at this table"
        elif any(w.player == old for w in self.wagers) and self.phase not in (Phase.IDLE, Phase.SETTLED):
            why = f"{old} has wagers in this round: name the seat once the round is settled"
        if why:
            self.show_reason(why)
            return False
        self._reseat(old, new)
        self.felt.set_wagers(self.wagers, self.styles)
        self._update_totals()
        self.show_reason("")
        return True

    def _reseat(self, old: str, new: str) -> None:
        """Seat `old` is called `new` from now on: same place, key, colour and shape."""
        i = self.players.index(old)
        self.players = tuple(new if k == old else k for k in self.players)
        self.styles = {(new if k == old else k): v for k, v in self.styles.items()}
        button = self.player_buttons.pop(old)
        self.player_buttons[new] = button
        button.setToolTip(f"Select {new} ({i + 1})")
        if self.player == old:
            self.player = new
        self.table.set_players(self.players)  # its next wager is journaled with its seat at once
        self.seatsChanged.emit(self.players)

    def _seat_named_players(self) -> None:
        """Players the journal has wagers for but no seat shows (a named seat after a restart: the
        window starts with "Seat 1"…) take the first seat without wagers, so they can be selected,
        undone and cleared again."""
        betting = {w.player for w in self.wagers}
        for name in dict.fromkeys(w.player for w in self.wagers):
            if name in self.players:
                continue
            # A seat still under its plain name first: never take a name the croupier gave.
            free_seats = [seat for seat in self.players if seat not in betting]
            free = next((seat for seat in free_seats if PLAIN_SEAT.fullmatch(seat)), None)
            free = free or next(iter(free_seats), None)
            if free is None:
                return
            self._reseat(free, name)
            betting.add(name)

    def ask_rename_seat(self) -> None:
        name, ok = QInputDialog.getText(self, "Name seat", f"Player at {self.player}:", text=self.player)
        if ok:
            self.rename_seat(self.player, name)

    @property
    def chip_buttons(self) -> dict[Decimal, QPushButton]:
        """The chip values on offer now (gui.widgets.chip_rack)."""
        return self.chip_rack.buttons

    def select_chip(self, value: Decimal) -> None:
        self.chip_rack.choose(value)

    def _chip_chosen(self, value: Decimal) -> None:
        self.chip = value

    def _chip_at(self, i: int) -> None:
        if i < len(self.chip_rack.values):
            self.chip_rack.choose(self.chip_rack.values[i])

    def on_changes(self, changes: Changes, view: TableView) -> None:
        """The table's settings (limits, a player's own limit) and who deals, as the notice names them."""
        if changes.settings or changes.rules or changes.round_opened:
            self.chip_rack.set_values(chips_in_force(self.chip_values, view.limits, self.table.rules.unit))
            self._update_totals()
            self.limits.setText(self._limits_text(view))

    def on_typed_wagers(self, wagers: list[WagerText]) -> None:
        """A typed line (engine.wager_text): every wager for the selected player, at its amount or the
        selected chip; the table places all of them or none (TableService.place_wagers)."""
        if self._view.winning_only and self.phase is Phase.OPEN:
            self.show_reason(WINNING_ONLY_OPEN)
            return
        if not self._entering():  # (with winning wagers only the engine refuses a chip off the result)
            self.show_reason(f"bets are not open: {PHASE_TEXT[self.phase][0].lower()}")
            return
        self.show_reason("")
        # The line empties and hands the keyboard back only once the table placed them: a refusal
        # (a limit) keeps the typed text to be corrected.
        self.table.place_wagers(
            self.player, [(w.bet, w.amount or self.chip) for w in wagers], self.wager_entry.placed
        )

    def _entering(self) -> bool:
        """Chips are entered now: bets open, or the result in with winning wagers only."""
        if self._view.winning_only:
            return self.phase is Phase.RESULT and not self._view.stopped
        return self.phase is Phase.OPEN

    def on_bet_clicked(self, bet: Bet) -> None:
        if self._view.winning_only and self.phase is Phase.OPEN:
            self.show_reason(WINNING_ONLY_OPEN)
            return
        if self._view.winning_only and self.phase is Phase.RESULT and not bet.wins(self._view.result or 0):
            self.show_reason(f"{bet.label} does not cover {self._view.result}: enter only the winning chips")
            return
        if not self._entering():
            self.show_reason(f"bets are not open: {PHASE_TEXT[self.phase][0].lower()}")
            return
        self.reason.setText((self.hold or "") if self._view.stopped else "")
        self.table.place_wager(self.player, bet, self.chip)

    def on_bet_remove(self, bet: Bet) -> None:
        self.table.remove_wager(self.player, bet)

    # --- the next action ----------------------------------------------------------------------

    def step(self) -> NextStep:
        """The next action and its words, from the pushed view (engine.table.next_step, in the view); after a
        log-out the station's own state comes first: nobody may act before a sign-in."""
        step = self._view.step
        if self.table.signed_out:
            greyed = {name: "nobody is signed in" for name in step.actions}
            return NextStep(
                "Sign in…", True, "Nobody is signed in", "Sign in with your name and PIN (Space)", greyed
            )
        return step

    def next_action(self) -> tuple[str, bool, str]:
        """(label, enabled, why disabled) of the one big button."""
        step = self.step()
        return step.label, step.enabled, "" if step.enabled else step.why

    def press_action(self) -> None:
        """The big button's own press: whatever the next step is, settling after a dialog too."""
        self._press_needed = False
        self.do_next_action()

    def _moves_money(self) -> bool:
        """The next step confirms a result or settles the round (what a key must not do unseen)."""
        ph = self.phase
        if self._view.remedies is not None or self.table.signed_out:
            return False
        if ph is Phase.CLOSED:
            return True
        return ph in (Phase.RESULT, Phase.BONUS) and not self._view.bonus_due and not self.approvals

    def _key_refused(self) -> bool:
        """A key that would confirm or settle right after the croupier dealt with the result in a
        dialog (a dispute, a manual result) is refused: the Enter that closed the dialog, or the
        next one, must not pay a number the croupier has not looked at (issue 25 point 1)."""
        if self._press_needed and self._moves_money():
            self.show_reason(PRESS_AFTER_DIALOG)
            return True
        return False

    def key_next_action(self) -> None:
        """Space / Enter: the big button's action, unless refused (_key_refused)."""
        if not self._key_refused():
            self.do_next_action()

    def _money_key(self, command: Callable[[], None]) -> None:
        if not self._key_refused():
            command()

    def do_next_action(self) -> None:
        ph = self.phase
        label, enabled, why = self.next_action()
        if not enabled:
            self.show_reason(why)
            return
        if self.table.signed_out:
            self.dealer_bar.ask_sign_in()
        elif self._view.remedies is not None:
            # On hold: the croupier's own remedy when there is one (a no-spin), else the pit boss's.
            if label == "No-spin…":
                self.ask_no_spin()
            else:
                self.ask_pit_boss()
        elif ph is Phase.IDLE:
            self.table.open_bets()
        elif ph is Phase.OPEN:
            self.table.no_more_bets()
        elif ph is Phase.CLOSED:
            self.table.confirm_result()
        elif ph is Phase.RESULT and self._view.bonus_due:
            self.table.start_bonus_games()
        elif ph in (Phase.RESULT, Phase.BONUS) and self.approvals:
            self.ask_approval()
        elif ph in (Phase.RESULT, Phase.BONUS):
            self.table.settle()
        else:
            self.table.next_round()

    def _refresh_action(self) -> None:
        step = self.step()
        label, enabled, why = step.label, step.enabled, step.why
        self.action.setText(label)
        self.action.setEnabled(enabled)
        self.action.setToolTip(step.line)
        self.guide.setText(step.line)
        text, colour_name = PHASE_TEXT[self.phase]
        # A tilt (engine.table.gate) is the table's loudest state: red, bold, on screen until cleared.
        self.reason.setStyleSheet(STOPPED_STYLE if self._view.stopped else "")
        if self._view.stopped:
            text = "RNG FAULT" if self._view.tilt_causes == ("rng",) else "TILTED"
            colour_name = "#ff4040"
            self.reason.setText(why)
        elif self.hold and self.phase is Phase.IDLE:
            text, colour_name = "STARTING", "#9aa6b2"
        elif self.hold and self.phase in (Phase.OPEN, Phase.CLOSED, Phase.RESULT, Phase.BONUS):
            text, colour_name = "ON HOLD", "#ffb020"
        self.phase_label.setText(text)
        self.phase_label.setStyleSheet(f"font-size: 20pt; font-weight: bold; color: {colour_name};")
        # Each side button open or greyed with why (its tooltip), from the same next step.
        for name, button in (
            (MANUAL, self.manual_button),
            (NO_SPIN_ACTION, self.no_spin_button),
            (VOID, self.void_button),
            (APPROVE, self.approve_button),
            (PIT_BOSS, self.pit_boss_button),
        ):
            greyed = step.actions.get(name, "")
            button.setEnabled(not greyed)
            button.setToolTip(greyed or self._tips[name])
        open_ = self._entering()
        self.undo_button.setEnabled(open_)
        self.clear_button.setEnabled(open_)
        self.rebet_button.setEnabled(open_)

    # --- events from the table ----------------------------------------------------------------

    def on_phase(self, phase: Phase) -> None:
        snap = self._take_view()
        phase = snap.phase
        if phase is not self._drawn_phase:
            self.reason.setText("")
        self._drawn_phase = phase
        if phase in (Phase.IDLE, Phase.OPEN):
            self._press_needed = False  # a new round: the keys are the croupier's again
        self.round_label.setText(f"Table {snap.table_id} · round {snap.round_no or '–'}")
        self.felt.set_rules(self.table.rules)
        if phase in (Phase.IDLE, Phase.OPEN):
            self.felt.set_draw({}, None)
            self.felt.set_result(None)
            self.lucky_table.setRowCount(0)
            self.paying.setRowCount(0)
        if phase in (Phase.IDLE, Phase.OPEN, Phase.CLOSED):
            self.lists.bring_forward(False)  # the Lucky payouts until the result
        if phase is Phase.CLOSED:
            self.felt.set_result(None)
        self._refresh_action()

    def on_wagers(self, wagers: tuple[Wager, ...]) -> None:
        self._take_view()
        self._seat_named_players()
        self.felt.set_wagers(self.wagers, self.styles)
        self._update_totals()

    def _update_totals(self) -> None:
        per: dict[str, Decimal] = defaultdict(Decimal)
        for w in self.wagers:
            per[w.player] += w.amount
        for name, b in self.player_buttons.items():
            b.setText(f"{name}\n{money(per[name])}" if per[name] else f"{name}\n–")
        table_total = sum(per.values(), Decimal(0))
        cap = self._view.limits.player_cap(self.player)
        own = (
            f" of {money(cap)} ({money(max(cap - per[self.player], Decimal(0)))} left)"
            if cap is not None
            else ""
        )
        self.totals.setText(
            f"<b>{self.player}</b>: {money(per[self.player])}{own}<br>"
            f"<span style='font-size:15pt'><b>Table: {money(table_total)}</b></span>"
            f" on {len(self.wagers)} wagers"
        )

    def on_draw(self, draw: Draw) -> None:
        draw = self._take_view().draw or draw
        self.felt.set_draw(draw.lucky, draw.bonus_number)
        rows = sorted(draw.lucky.items())
        self.lucky_table.setRowCount(len(rows) + 1)
        for r, (n, x) in enumerate(rows):
            cells = [str(n)] + [odds_text(x, k) for k in LUCKY_SIZES]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if c == 0:
                    item.setForeground(theme.LUCKY)
                self.lucky_table.setItem(r, c, item)
        note = QTableWidgetItem(f"Bonus Number {draw.bonus_number}: inside wins on it play the bonus game")
        note.setForeground(theme.BONUS)
        self.lucky_table.setItem(len(rows), 0, note)
        self.lucky_table.setSpan(len(rows), 0, 1, len(LUCKY_HEADINGS))
        self._refresh_action()

    def on_result(self, number: int, source: str) -> None:
        self._take_view()
        self.show_reason(f"{source} reports {number}: confirm it" if source != "manual" else "")
        self._refresh_action()

    def on_payouts(self, lines: tuple[PayLine, ...], approvals: tuple[str, ...]) -> None:
        view = self._take_view()
        if view.result is not None:
            self.felt.set_result(view.result, view.pay_lines)
        self._fill_paying_list()
        self._refresh_action()

    def _fill_return_list(self) -> None:
        """A voided round: every wager back to its player, player by player, with totals."""
        mine: dict[str, list[Wager]] = defaultdict(list)
        for w in self.wagers:
            mine[w.player].append(w)
        order = [p for p in self.players if p in mine] + sorted(p for p in mine if p not in self.players)
        rows: list[list[str]] = []
        grand = Decimal(0)
        for player in order:
            subtotal = sum((w.amount for w in mine[player]), Decimal(0))
            rows += [
                [player, w.bet.label, money(w.amount), "returned", money(w.amount)] for w in mine[player]
            ]
            rows.append([f"{player} total", "", "", "", money(subtotal)])
            grand += subtotal
        if rows:
            rows.append(["Table total", "", "", "", money(grand)])
        self.paying_title.setText(f"{RETURN_TITLE} · <b>table returns {money(grand)}</b>")
        self.lists.bring_forward(True)
        self.paying.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                self.paying.setItem(r, c, QTableWidgetItem(text))

    def _fill_paying_list(self) -> None:
        """Winners the way a croupier pays: player by player, largest payout first, with totals."""
        if self.phase is Phase.VOID:
            self._fill_return_list()
            return
        winners: dict[str, list[PayLine]] = defaultdict(list)
        for ln in self.pay_lines:
            if ln.wins:
                winners[ln.wager.player].append(ln)
        order = [p for p in self.players if p in winners] + sorted(
            p for p in winners if p not in self.players
        )
        rows: list[tuple[list[str], str]] = []
        grand = Decimal(0)
        for player in order:
            lines = sorted(winners[player], key=lambda ln: (ln.pending, -ln.payout))
            subtotal = Decimal(0)
            for ln in lines:
                odds = "bonus game" if ln.pending else odds_text(ln.odds)
                pays = "pending" if ln.pending else money(ln.payout)
                tag: str = "approve" if ln.wager.id in self.approvals else ln.kind
                rows.append(([player, ln.wager.bet.label, money(ln.wager.amount), odds, pays], tag))
                subtotal += ln.payout + ln.wager.amount
            rows.append(([f"{player} total", "", "", "", money(subtotal)], "total"))
            grand += subtotal
        if rows:
            rows.append((["Table total", "", "", "", money(grand)], "grand"))
        # The table total also in the title: on a small screen the list scrolls, the title does not.
        self.paying_title.setText(
            f"{PAYING_TITLE} · <b>table pays {money(grand)}</b>" if rows else PAYING_TITLE
        )
        self.paying.setRowCount(len(rows))
        if rows:
            self.lists.bring_forward(True)  # a result with winners: what the croupier pays now
        colours = {"lucky": theme.LUCKY, "bonus": theme.BONUS, "approve": theme.WARN}
        for r, (cells, tag) in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if tag in ("total", "grand"):
                    f = item.font()
                    f.setBold(True)
                    item.setFont(f)
                if tag in colours and c >= 3:
                    item.setForeground(colours[tag])
                if tag == "approve" and c == 4:
                    item.setIcon(theme.icon("approve"))
                self.paying.setItem(r, c, item)

    def on_settled(self, lines: tuple[PayLine, ...]) -> None:
        self.show_reason("")

    def on_sensor(self, health: SensorHealth) -> None:
        self.sensor.set_health(health)

    def on_history(self, entries: tuple[HistoryEntry, ...]) -> None:
        self.history.set_history(entries)

    def show_reason(self, text: str) -> None:
        view = self._take_view()
        # While an RNG fault stops play every refusal is that fault: its line stays, not the refusal's.
        self.reason.setText((view.hold or text) if view.stopped else text)

    def on_irregularity(self, text: str) -> None:
        # The table's state after the entry, not the hold this window drew last: a no-spin that
        # lifts a hold must not be reported as still on hold.
        view = self._take_view()
        if view.stopped:
            text = view.hold or text  # the fault outlasts every other reason: keep it on screen
        elif view.remedies is not None:
            text = f"{text} — on hold: {view.remedies.todo[0].lower()}{view.remedies.todo[1:]}"
        self.reason.setText(text)

    # --- dialogs ------------------------------------------------------------------------------

    def ask_manual_result(self) -> None:
        greyed = self.step().actions.get(MANUAL, "")
        if greyed:  # refused before anything is typed, with what to do instead
            self.show_reason(greyed)
            return
        held = self.table.hold_confirmation()  # before the dialog shows: nothing confirms behind it
        dialog = ManualResultDialog(self, sensor_number=self.candidate)
        self.last_dialog = dialog
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.number_entered is not None:
            self._press_needed = True
            self.table.manual_result(dialog.number_entered, dialog.reason_text, resume=held)
        elif held:
            self.table.resume_confirmation()

    # -- the wheel phase strip and the dispute of a wheel result (gui.widgets.phase_strip) --------

    def _spin_row(self) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        self.phase_strip = PhaseStrip(self.table)
        layout.addWidget(self.phase_strip, 1)
        self.dispute_button = QPushButton("Dispute result…")
        self.dispute_button.setToolTip(
            "The wheel's number is not where the ball is: stop its automatic confirmation (Ctrl+D)"
        )
        self.dispute_button.clicked.connect(self.ask_dispute)
        QShortcut(QKeySequence("Ctrl+D"), self, self.ask_dispute)
        # The button stands with the other remedies (_irregular_panel), not beside the strip: the
        # strip keeps its names whole where the players panel stands beside it (1366x768).
        self.table.changed.connect(lambda _c, view: self._dispute_allowed(view))
        self._dispute_allowed(self.table.view)
        return row

    def _dispute_allowed(self, view: TableView) -> None:
        spin = view.spin
        self.dispute_button.setEnabled(spin.step == "result" and not spin.confirmed)

    def ask_dispute(self) -> None:
        if not self.dispute_button.isEnabled():
            return
        held = self.table.hold_confirmation()  # before the dialog shows: nothing confirms behind it
        dialog = ReasonDialog(
            "Dispute result",
            "The wheel's number is not the ball's pocket? The round is held for a pit boss "
            "(no-spin, manual result or void). Say what you see.",
            (),
            self,
        )
        self.last_dialog = dialog
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self._press_needed = True
            self.table.dispute_result(dialog.text(), resume=held)
        elif held:
            self.table.resume_confirmation()

    def ask_no_spin(self) -> None:
        greyed = self.step().actions.get(NO_SPIN_ACTION, "")
        if greyed:
            self.show_reason(greyed)
            return
        dialog = ReasonDialog(
            "No-spin",
            "Call a no-spin? Same wagers, same draw: the ball is spun again.",
            NO_SPIN_REASONS,
            self,
        )
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.table.no_spin(dialog.text())

    def ask_void(self) -> None:
        self.ask_pit_boss(void=True)

    def ask_pit_boss(self, *, void: bool = False) -> None:
        """A pit boss's sign-off here: the remedies the hold allows (or a void), reason, name and PIN."""
        from engine.table.holds import ACCEPT_SENSOR, MANUAL_RESULT, NO_SPIN, PERMISSION
        from engine.table.holds import VOID as VOID_REMEDY
        from gui.windows.hold_signoff import carry_out, pit_boss_dialog, signed_remedy

        view = self._view
        greyed = self.step().actions.get(VOID if void else PIT_BOSS, "")
        if greyed:
            self.show_reason(greyed)
            return
        if not void and "rng" in view.tilt_causes:
            self.ask_clear_tilt()
            return
        rem = view.remedies
        offer = tuple(r for r in rem.remedies if r in PERMISSION and r != NO_SPIN) if rem else ()
        if void:
            offer = (VOID_REMEDY,)
        dialog, choice = pit_boss_dialog(self.table, view, offer, VOID_REMEDY if void else None, self)
        self.last_dialog = dialog
        if dialog.exec():
            signed = signed_remedy(dialog, choice)
            if signed is not None:
                if signed.remedy in (MANUAL_RESULT, ACCEPT_SENSOR):
                    # The result was dealt with in a dialog: the settle needs the big button's own
                    # press, as after the croupier's manual result (issue 25 point 1).
                    self._press_needed = True
                carry_out(self.table, signed)

    def ask_clear_tilt(self) -> None:
        """A pit boss clears the RNG tilt here: name, PIN and what was checked; the engine runs the
        generator's start-up test again and clears only if it passes (engine.table.gate)."""
        from gui.floor.signoff import SignOffDialog

        dialog = SignOffDialog(
            None,
            "croupier",
            "resolve_irregularity",
            "Clear the tilt",
            f"{self._view.hold}.\nThe generator's start-up test runs again; "
            "the tilt is cleared only if it passes.",
            parent=self,
            authorize=lambda name, pin, permission: self.table.sign_in(name, pin, permission),
        )
        self.last_dialog = dialog
        if dialog.exec() and dialog.user is not None:
            self.table.clear_tilt_by(dialog.user, dialog.reason_text)

    def ask_approval(self) -> None:
        if not self.approvals:
            self.show_reason("no payout needs approval")
            return
        total = sum((ln.payout for ln in self.pay_lines if ln.wager.id in self.approvals), Decimal(0))
        dialog = ApprovalDialog(total, self)
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.name.text().strip():
            self.table.approve_payouts(dialog.name.text().strip(), dialog.pin.text())

    # --- lifecycle ----------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.bonus_screen is not None:
            self.bonus_screen.close()
        event.accept()
