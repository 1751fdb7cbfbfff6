"""The main window of a station that says when it first painted (the benchmark's and the
`--first-frame-exit` start-up "first frame")."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QMainWindow


class FirstPaintWindow(QMainWindow):
    """A QMainWindow emitting `firstPainted` once, after its first paint."""

    firstPainted = Signal()
    _painted = False

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            self.firstPainted.emit()
