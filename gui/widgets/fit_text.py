"""Labels that never widen their window (issue 25 point 3, issue 29 point 3): a text longer than the
room it is given wraps (up to a number of lines) or elides with "…", and the whole text is on hover.

`text()` answers the whole text (what the window was told to show), not the shortened one painted.
"""

from __future__ import annotations

from PySide6 import QtGui
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

ELLIPSIS = "…"


def wrap_lines(text: str, metrics: QFontMetrics, width: int, max_lines: int) -> list[str]:
    """`text` broken at spaces into lines of at most `width` pixels, at most `max_lines` of them, the
    last elided when the text goes on; a word longer than a line is elided too."""
    if width <= 0:
        return [text]
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if metrics.horizontalAdvance(candidate) <= width or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    shown = lines[:max_lines]
    if len(lines) > max_lines:
        rest = " ".join([shown[-1], *lines[max_lines:]])
        shown[-1] = metrics.elidedText(rest + " " + ELLIPSIS, Qt.TextElideMode.ElideRight, width)
    return [metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in shown]


class FitLabel(QLabel):
    """A label that takes the width its layout gives it: the text wraps at spaces up to
    `max_lines` lines (1: one line, elided), and the whole text is the tooltip when it is cut (always,
    with `tooltip=True`). Its height is the lines it shows; it asks for no width (its width is the
    layout's: `setMinimumWidth` for a floor), so a long text never widens the window."""

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        *,
        max_lines: int = 1,
        tooltip: bool = False,
        reserve_lines: int = 0,
    ) -> None:
        super().__init__(parent)
        self.max_lines = max(1, max_lines)
        self.always_tip = tooltip
        self.reserve_lines = reserve_lines  # lines of height kept even when the text is shorter
        self._full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        policy = self.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        self.setSizePolicy(policy)
        self.setText(text)

    def text(self) -> str:  # type: ignore[override]
        return self._full

    def setText(self, text: str) -> None:  # type: ignore[override]
        self._full = text
        self._fit()

    def shown_text(self) -> str:
        """The text as painted (wrapped, perhaps elided)."""
        return super().text()

    def _lines(self) -> list[str]:
        room = self.contentsRect().width() - 2 * self.margin()
        return wrap_lines(self._full, self.fontMetrics(), room, self.max_lines) if self._full else [""]

    def _fit(self) -> None:
        if QtGui.Qt.mightBeRichText(self._full):  # (it lives in QtGui's Qt)
            self._fit_rich()
            return
        self.setTextFormat(Qt.TextFormat.PlainText)
        lines = self._lines()
        shown = "\n".join(lines)
        cut = shown.replace("\n", " ").split() != self._full.split()
        self.setToolTip(self._full if (cut or self.always_tip) and self._full else "")
        if shown != super().text():
            super().setText(shown)
            self.updateGeometry()

    def _fit_rich(self) -> None:
        """A rich text (a bold total in a title) shown as it is when its words fit in the lines
        given, else as plain words wrapped and elided; the whole text on hover."""
        document = QTextDocument()
        document.setHtml(self._full)
        plain = " ".join(document.toPlainText().split())
        room = self.contentsRect().width() - 2 * self.margin()
        bold = QFont(self.font())
        bold.setBold(True)  # measured bold: the widest the rich text can be
        lines = wrap_lines(plain, QFontMetrics(bold), room, self.max_lines)
        fits = " ".join(" ".join(lines).split()) == plain and len(lines) == 1
        self.setToolTip(self._full if not fits or self.always_tip else "")
        if fits:
            self.setTextFormat(Qt.TextFormat.RichText)
            shown = self._full
        else:
            self.setTextFormat(Qt.TextFormat.PlainText)
            shown = "\n".join(wrap_lines(plain, self.fontMetrics(), room, self.max_lines))
        if shown != super().text():
            super().setText(shown)
            self.updateGeometry()

    def _height_for(self, count: int) -> int:
        m = self.contentsMargins()
        return count * self.fontMetrics().lineSpacing() + m.top() + m.bottom() + 2 * self.margin()

    def sizeHint(self) -> QSize:
        count = max(len(super().text().split("\n")) if self._full else 0, self.reserve_lines)
        return QSize(0, self._height_for(count) if count else 0)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit()  # a style sheet's font or padding: the lines are measured again
            self.updateGeometry()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._fit()
