"""The croupier window's arrangement: rows stacked on the left, a side panel (the players) on the
right, and a foot row under both; the side panel beside every row above the foot when the window
is wide enough for that, beside the main row alone when it is not.

At 768 px of height a side panel beside the felt alone had 304 px for 530 px of players, chips and
buttons, so it scrolled (issue 25); beside the bar, the phase strip, the last results, the felt and
the typed line it has 580. Those rows are narrower then (the side panel's width comes off them), so a
window too narrow for them (880 px beside the bonus column at 1280x720) keeps the side panel
beside the main row only. The choice follows the window's width alone, so it cannot flip back and
forth, and the window's minimum width is the narrow arrangement's whatever the choice.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QGridLayout, QWidget


class SideGrid(QWidget):
    """`rows` top to bottom (`main` among them: the row the side panel always stands beside), the
    `side` panel, the `foot` row across the whole width."""

    def __init__(
        self,
        rows: Sequence[QWidget],
        main: QWidget,
        side: QWidget,
        foot: QWidget,
        *,
        stretch: dict[QWidget, int] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.rows, self.main, self.side, self.foot = list(rows), main, side, foot
        self.stretch = stretch or {}
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(12, 10, 12, 10)
        self.grid.setSpacing(8)
        self.wide: bool | None = None
        self._place(wide=False)
        # The narrow arrangement's minimum is the window's: the wide one is taken only above it.
        self.setMinimumWidth(self.grid.minimumSize().width())

    def wide_enough(self, width: int) -> bool:
        """Whether every row above the foot keeps its minimum width beside the side panel."""
        m = self.grid.contentsMargins()
        rows = max(r.minimumSizeHint().expandedTo(r.minimumSize()).width() for r in self.rows)
        side = self.side.minimumSizeHint().expandedTo(self.side.minimumSize()).width()
        return width >= m.left() + m.right() + rows + self.grid.horizontalSpacing() + side

    def _place(self, *, wide: bool) -> None:
        if wide == self.wide:
            return
        self.wide = wide
        for w in (*self.rows, self.side, self.foot):
            self.grid.removeWidget(w)
        main_row = self.rows.index(self.main)
        for i, w in enumerate(self.rows):
            self.grid.addWidget(w, i, 0, 1, 1 if wide or w is self.main else 2)
            self.grid.setRowStretch(i, self.stretch.get(w, 0))
        if wide:
            self.grid.addWidget(self.side, 0, 1, len(self.rows), 1)
        else:
            self.grid.addWidget(self.side, main_row, 1)
        self.grid.addWidget(self.foot, len(self.rows), 0, 1, 2)
        self.grid.setRowStretch(len(self.rows), self.stretch.get(self.foot, 0))
        self.grid.setColumnStretch(0, 1)
        self.grid.setColumnStretch(1, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place(wide=self.wide_enough(event.size().width()))

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            # A row's minimum changed (a longer phase name in the bar): decide again at this width.
            self._place(wide=self.wide_enough(self.width()))
        return super().event(event)
