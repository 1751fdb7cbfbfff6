"""The bonus game screen: one panel per player in a bonus game, side by side.

Panels appear when the table reports a bonus game and go when the next round starts; each
pick, cash-out and preset goes to the table first and the panel redraws from its answer.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QAbstractButton, QFrame, QGridLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from engine.round import Phase
from engine.table.view import BonusView
from gui.screen_layout import keep_keys_away
from gui.table_model import TableModel
from gui.widgets.bonus_panel import BonusPanel
from gui.widgets.fit_text import FitLabel
from gui.windows.first_paint import FirstPaintWindow

NARROW = 900  # pixels: a bonus screen narrower than this (beside the croupier) stacks its panels


class BonusScreen(FirstPaintWindow):
    COLUMNS = 2

    def __init__(
        self,
        table: TableModel,
        parent: QWidget | None = None,
        *,
        read_only: bool = False,
        pops_up: bool = False,
    ) -> None:
        super().__init__(parent)
        # pops_up: the croupier station's own bonus screen when the set-up has no bonus window
        # (`drr gui --station croupier`): it comes up when a bonus game starts and goes when the
        # next round opens, so the games are played there instead of stalling (issue 25 point 4).
        self.pops_up = pops_up
        self.table = table
        keep_keys_away(self)
        # read_only: a screen in another process, following the journal; the games are played on
        # the croupier station's own bonus screen (the table's one writer).
        self.read_only = read_only
        self.setWindowTitle("Diamond Rush Roulette · Bonus game")
        self.panels: dict[str, BonusPanel] = {}
        central = QWidget()
        self.setCentralWidget(central)
        outer = QVBoxLayout(central)
        outer.setContentsMargins(12, 12, 12, 12)
        title = QLabel("BONUS GAME")
        title.setStyleSheet("font-size: 24pt; font-weight: bold; color: #5fd4ff; letter-spacing: 4px;")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(title)
        self.idle = QLabel("No bonus game is running.\nAn inside win on the Bonus Number starts one.")
        self.idle.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.idle.setWordWrap(True)  # a narrow column beside the croupier window
        self.idle.setStyleSheet("font-size: 16pt; color: #9aa6b2;")
        outer.addWidget(self.idle, 1)
        # The panels scroll when more players play than the screen's height holds (a column beside
        # the croupier window on a 720-pixel screen): the window never grows past its screen.
        games = QWidget()
        self.grid = QGridLayout(games)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(14)
        self.games = QScrollArea()
        self.games.setWidget(games)
        self.games.setWidgetResizable(True)
        self.games.setFrameShape(QFrame.Shape.NoFrame)
        self.games.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(self.games, 1)
        self.games.setVisible(False)
        # The players' own refusals in two lines at most (the whole text on hover): never wider.
        self.reason = FitLabel(max_lines=2)
        self.reason.setText(
            "Shown from the table's journal: the games are played at the croupier station."
            if read_only
            else ""
        )
        self.reason.setObjectName("reason")
        self.reason.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(self.reason)
        if not read_only:
            table.bonusRefused.connect(self.reason.setText)  # the players' own refusals, no other
        table.bonusUpdated.connect(self.on_bonus)
        table.phaseChanged.connect(self.on_phase)
        for view in table.snapshot().bonus_games:
            self.on_bonus(view)

    def on_bonus(self, view: BonusView) -> None:
        panel = self.panels.get(view.player)
        if panel is None:
            panel = BonusPanel(view.player, clock=self.table.clock)
            for button in panel.findChildren(QAbstractButton):
                # Touched by players, never focused: Space or Enter can press no button here.
                button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            if not self.read_only:
                panel.pickRequested.connect(self.table.bonus_pick)
                panel.cashOutRequested.connect(self.table.bonus_cash_out)
                panel.presetChanged.connect(self.table.bonus_set_preset)
                panel.startRequested.connect(self.table.bonus_start)
            n = len(self.panels)
            # In a column beside the croupier window the panels stack; on a monitor, two abreast.
            columns = self.COLUMNS if self.width() >= NARROW else 1
            self.grid.addWidget(panel, n // columns, n % columns)
            self.panels[view.player] = panel
            # With two monitors the player display and this screen share the players' one: a
            # bonus game comes to the front, and goes behind the display again when it is over.
            if self._on_players_screen():
                self.raise_()
        panel.set_view(view)
        if self.pops_up and not self.isVisible():
            self.show()
            self.raise_()
        self.idle.setVisible(not self.panels)
        self.games.setVisible(bool(self.panels))
        if not self.read_only:
            self.reason.setText("")

    def on_phase(self, phase: Phase) -> None:
        if phase in (Phase.IDLE, Phase.OPEN):
            for panel in self.panels.values():
                self.grid.removeWidget(panel)
                panel.deleteLater()
            self.panels.clear()
            self.idle.setVisible(True)
            self.games.setVisible(False)
            if self.pops_up:
                self.hide()
            elif self._on_players_screen():
                self.lower()

    # Set by the placement (gui.app) when one monitor is too narrow for the column beside the
    # croupier window (gui.screen_layout.plan): the screen lies over the croupier's right side, so it
    # comes to the front for a game only and goes behind the croupier window after it.
    over_croupier = False

    def _on_players_screen(self) -> bool:
        """On a monitor of its own (not the croupier's), where stacking it is harmless, or over the
        croupier window on a narrow monitor, where it must not stay in front after a game."""
        if self.over_croupier:
            return True
        return len(QGuiApplication.screens()) > 1 and self.screen() != QGuiApplication.primaryScreen()
