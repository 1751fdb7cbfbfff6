"""The croupier's chip values: one button each (F1-F12), from the settings' `table.chips` and only
those the table's limits allow (engine.table.limits.chips_in_force); the window keeps the choice."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QButtonGroup, QGridLayout, QPushButton, QWidget

from engine.table.view import money

COLUMNS = 3


def chip_label(value: Decimal) -> str:
    """2.50 -> "2.5", 1,000.00 -> "1,000": a chip is printed without trailing zeros."""
    text = money(value)
    return text.removesuffix(".00") if text.endswith(".00") else text.rstrip("0")


class ChipRack(QWidget):
    """Buttons for the chip values on offer; `chosen(value)` when the croupier picks one."""

    chosen = Signal(object)  # Decimal

    def __init__(self, values: Sequence[Decimal], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._group = QButtonGroup(self)
        self.buttons: dict[Decimal, QPushButton] = {}
        self.values: tuple[Decimal, ...] = ()
        self.value: Decimal | None = None
        self.set_values(values)

    def set_values(self, values: Sequence[Decimal]) -> None:
        """Offer `values` (smallest first); the chosen value stays if still offered, else the nearest
        one below it (or the smallest)."""
        values = tuple(values)
        if values == self.values:
            return
        for b in self.buttons.values():
            self._group.removeButton(b)
            self._grid.removeWidget(b)
            b.deleteLater()
        self.buttons = {}
        for i, value in enumerate(values):
            b = QPushButton(chip_label(value))
            b.setObjectName("chip")
            b.setCheckable(True)
            b.setToolTip(f"Chip {chip_label(value)} (F{i + 1})")
            b.clicked.connect(lambda _=False, v=value: self.choose(v))
            self._group.addButton(b)
            self._grid.addWidget(b, i // COLUMNS, i % COLUMNS)
            self.buttons[value] = b
        self.values = values
        old = self.value
        below = [v for v in values if old is not None and v <= old]
        self.choose(below[-1] if below else values[0])

    def choose(self, value: Decimal) -> None:
        if value not in self.buttons:
            return
        self.value = value
        self.buttons[value].setChecked(True)
        self.chosen.emit(value)
