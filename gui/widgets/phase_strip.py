"""The wheel phase strip: where the spin stands ("Place your bets", "Ball spinning", "No more bets",
the result) with its countdown, one widget for the croupier station and the player display.

It connects to `TableModel.changed` and redraws when the notice names the spin, the phase, a hold,
a result or everything; its values are the pushed view's (`TableView.spin`, made by
engine.table.wheel_drive.wheel_phase from the journal's state). A countdown is the service's
deadline minus the table's clock (`TableModel.clock`), redrawn four times a second while one runs:
the strip never ends a countdown, only the service's timer does (TableService.tick_clock).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from engine.table.spin import BETS, NO_MORE_BETS, RESULT, SPINNING, STEPS, WheelPhase
from engine.wheel_layout import colour
from gui import theme
from gui.table_model import TableModel
from gui.widgets.fit_text import FitLabel

TICK_MS = 250
# The player display's strip is large where it has the room; narrower than this (plain `drr`'s
# 400-px column beside the croupier window on one monitor) it takes the croupier's size and wraps,
# so its steps never push the window past the column.
LARGE_FROM = 640
TITLES = {BETS: "Place your bets", SPINNING: "Ball spinning", NO_MORE_BETS: "No more bets", RESULT: "Result"}
_ON = {BETS: theme.WIN, SPINNING: theme.WARN, NO_MORE_BETS: theme.DANGER, RESULT: theme.LUCKY}
_NUMBER = {"red": theme.NUMBER_RED, "black": theme.NUMBER_BLACK, "green": theme.NUMBER_GREEN}


def seconds_text(left: float) -> str:
    """A countdown as people read it: whole seconds, rounded up (0 only when it is over)."""
    whole = int(left) + (left % 1 > 0)
    return f"{whole} s"


class PhaseStrip(QWidget):
    """The spin's four steps, the current one lit, with the countdown or the number in it."""

    def __init__(self, table: TableModel, *, large: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("phaseStrip")
        self.table = table
        self.spin = WheelPhase("idle")
        self._large = large
        self._size = 20 if large else 13
        self._players = large  # the player display: the number alone (confirming is the croupier's)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.setSpacing(4)
        self.steps: dict[str, QLabel] = {}
        for step in STEPS:
            # Elided in a narrow strip ("Place your bets · 1…"), the whole step on hover.
            label = FitLabel(TITLES[step], tooltip=True, max_lines=2 if large else 1)
            label.setMinimumWidth(80 if large else 100)
            self.steps[step] = label
            layout.addWidget(label, 1)
        self.note = FitLabel("")  # idle or on hold: what the table is waiting for
        self.note.setObjectName("dim")
        layout.addWidget(self.note, 1)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.redraw)
        table.changed.connect(self._on_changed)
        self.set_phase(table.view.spin)

    def _on_changed(self, changes: Any, view: Any) -> None:
        if changes.spin or changes.phase or changes.hold or changes.result is not None or changes.everything:
            self.set_phase(view.spin)

    def set_phase(self, spin: WheelPhase) -> None:
        self.spin = spin
        if spin.deadline is not None:
            self._timer.start()
        else:
            self._timer.stop()
        self.redraw()

    def text_of(self, step: str) -> str:
        """What step `step` says now (the current one with its countdown or number)."""
        spin = self.spin
        if step != spin.step:
            return TITLES[step]
        left = None if spin.deadline is None else max(0.0, spin.deadline - self.table.clock())
        if step == BETS and left is not None:
            return f"Place your bets · {seconds_text(left)}"
        if step == RESULT and spin.number is not None:
            name = f"{spin.number} {colour(spin.number).upper()}"
            if spin.confirmed or self._players:
                return name
            if left is not None:
                return f"{name} · confirms in {seconds_text(left)}"
            return f"{name} · to confirm"
        return TITLES[step]

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        size = 13 if self._large and event.size().width() < LARGE_FROM else (20 if self._large else 13)
        if size != self._size:
            self._size = size
            self.redraw()

    def redraw(self) -> None:
        spin = self.spin
        for step, label in self.steps.items():
            lit = step == spin.step
            label.setText(self.text_of(step))
            if lit:
                back = _ON[step]
                if step == RESULT and spin.number is not None:
                    back = _NUMBER[colour(spin.number)]
                fore = "#1a1200" if back in (theme.LUCKY, theme.WIN, theme.WARN) else "#ffffff"
                style = (
                    f"background: {back.name()}; color: {fore}; font-weight: bold;"
                    f" border: 2px solid {theme.LUCKY.name()};"
                )
            else:
                style = f"background: {theme.PANEL.name()}; color: {theme.TEXT_DIM.name()};"
            label.setStyleSheet(f"{style} font-size: {self._size}pt; padding: 4px 8px; border-radius: 4px;")
        self.note.setText(
            {"idle": "Waiting for the croupier to open bets", "hold": "On hold"}.get(spin.step, "")
        )
        self.note.setVisible(spin.step in ("idle", "hold"))
