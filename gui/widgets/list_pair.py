"""The croupier's two lists at the window's foot (the Lucky payouts and the paying list): side by
side where the window is wide enough for both to show their columns whole, else as two tabs of the
one place, the list the round needs now in front (the Lucky payouts until the result, then the
paying list), the other a click away. At 1280x720 the croupier window is 880 px beside the bonus
column and side by side the paying list had 125 px, its amounts cut to "…" (issue 25).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QTabWidget, QWidget


class ListPair(QWidget):
    """`first` and `second` (each a titled box), side by side when this widget is at least `wide_from`
    pixels wide, else the two tabs `titles` of one tab widget."""

    def __init__(
        self,
        first: QWidget,
        second: QWidget,
        titles: tuple[str, str],
        *,
        wide_from: int,
        stretch: tuple[int, int] = (1, 1),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.first, self.second, self.titles = first, second, titles
        self.wide_from, self.stretch = wide_from, stretch
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setStyleSheet("QTabBar::tab { padding: 3px 12px; }")  # low: a 720-pixel screen's rows count
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.wide: bool | None = None
        self._second_in_front = False
        self._place(wide=True)

    def _place(self, *, wide: bool) -> None:
        if wide == self.wide:
            return
        self.wide = wide
        while self.row.count():
            self.row.takeAt(0)
        if wide:
            self.tabs.clear()  # (the boxes stay: only the tab widget lets go of them)
            self.tabs.hide()
            self.row.addWidget(self.first, self.stretch[0])
            self.row.addWidget(self.second, self.stretch[1])
            self.first.show()
            self.second.show()
        else:
            self.tabs.addTab(self.first, self.titles[0])
            self.tabs.addTab(self.second, self.titles[1])
            self.row.addWidget(self.tabs)
            self.tabs.show()
            self.tabs.setCurrentIndex(1 if self._second_in_front else 0)

    def bring_forward(self, second: bool) -> None:
        """The list the round needs now in front (in the tabs; side by side both show)."""
        self._second_in_front = second
        if not self.wide:
            self.tabs.setCurrentIndex(1 if second else 0)

    def shown(self, widget: QWidget) -> bool:
        """Whether `widget` (one of the two) is in sight: side by side, or the tab in front."""
        return bool(self.wide) or self.tabs.currentWidget() is widget

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place(wide=event.size().width() >= self.wide_from)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and self.width() > 0:
            self._place(wide=self.width() >= self.wide_from)
        return super().event(event)
