"""What a screen-size test checks of a shown window (tests/gui/test_screen_sizes.py): the window is
no larger than the screen, and every visible control (button, label, input, list, table) lies inside
the window and shows its whole text: a label's text fits its width unless it wraps (then its height
fits the wrapped text) or elides (the whole text is its tooltip); a button is at least as large as
the text and icon it needs.

A control inside a scroll area counts as inside when it is inside the scrolled content (the area
scrolls to it); a control on a tab that is not shown, or hidden, is not checked.
"""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import Qt  # Qt.mightBeRichText lives in QtGui's Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QTextEdit,
    QWidget,
)

CONTROLS = (QAbstractButton, QLabel, QLineEdit, QComboBox, QAbstractSpinBox, QAbstractItemView, QTextEdit)
SLACK = 1  # a pixel of rounding in the styles' own size hints


def fits_screen(window: QWidget, screen: QRect) -> list[str]:
    """The window's frame inside the screen, and the window no larger than its geometry asked."""
    found = []
    geometry = window.geometry()
    if geometry.width() > screen.width() or geometry.height() > screen.height():
        found.append(
            f"window {geometry.width()}x{geometry.height()} on a {screen.width()}x{screen.height()} screen"
        )
    minimum = window.minimumSizeHint().expandedTo(window.minimumSize())
    if minimum.width() > screen.width() or minimum.height() > screen.height():
        found.append(f"window needs at least {minimum.width()}x{minimum.height()}")
    return found


def _name(widget: QWidget) -> str:
    text = ""
    if isinstance(widget, (QAbstractButton, QLabel, QLineEdit)):
        text = widget.text()
    elif isinstance(widget, QComboBox):
        text = widget.currentText()
    text = " ".join(text.split())
    return f"{type(widget).__name__}({text[:40]!r})" if text else type(widget).__name__


def _inside(widget: QWidget, window: QWidget) -> str | None:
    """Why `widget` is not (wholly) inside the window or the part of it that shows it: each ancestor
    up to the window clips it, except a scroll area's viewport (its scroll bars reach the content)."""
    child: QWidget = widget
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        owner = parent.parentWidget()
        if isinstance(owner, QAbstractScrollArea) and owner.viewport() is parent:
            # Scrolled content: the area itself must be on screen, and without a horizontal
            # scroll bar the content must be no wider than the area shows.
            if owner.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff:
                left = widget.mapTo(parent, widget.rect().topLeft()).x()
                if left < 0 or left + widget.width() > parent.width():
                    return f"cut by its scroll area ({left}..{left + widget.width()} of {parent.width()} px)"
            return _inside(owner, window)
        area = QRect(child.mapTo(parent, child.rect().topLeft()), child.size())
        if not parent.rect().contains(area):
            inner, outer = f"{area.width()}x{area.height()}", f"{parent.width()}x{parent.height()}"
            return f"cut by its {type(parent).__name__} ({inner} in {outer})"
        child, parent = parent, parent.parentWidget()
    rect = QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
    if not window.rect().contains(rect):
        where = f"at {rect.x()},{rect.y()} {rect.width()}x{rect.height()}"
        return f"{where} outside the {window.width()}x{window.height()} window"
    return None


def _label_cut(label: QLabel) -> str | None:
    text = QLabel.text(label)  # what is painted (a FitLabel's wrapped or elided lines)
    if "…" in text and label.toolTip() and label.toolTip() != text:
        return None  # elided, the whole text on hover
    if not text.strip() or (label.pixmap() is not None and not label.pixmap().isNull()):
        return None
    room = label.contentsRect()
    margin = 2 * label.margin() + 2 * max(label.indent(), 0)
    if label.wordWrap():
        need = label.heightForWidth(label.width())
        if need > label.height() + SLACK:
            return f"wrapped text needs {need} px of height, has {label.height()}"
        if Qt.mightBeRichText(text) or label.textFormat() == Qt.TextFormat.RichText:
            return None
        longest = max((label.fontMetrics().horizontalAdvance(w) for w in text.split()), default=0)
        if longest > room.width() - margin + SLACK:
            return f"a word needs {longest} px, has {room.width()}"
        return None
    if label.textFormat() == Qt.TextFormat.RichText or Qt.mightBeRichText(text):
        need_w = label.sizeHint().width()
        if need_w > label.width() + SLACK:
            return f"needs {need_w} px, has {label.width()}"
        return None
    metrics = label.fontMetrics()
    widest = max(metrics.horizontalAdvance(line) for line in text.split("\n"))
    if widest > room.width() - margin + SLACK:
        return f"text needs {widest} px, has {room.width() - margin}"
    lines = text.count("\n") + 1
    if metrics.height() * lines > room.height() + SLACK + lines:
        return f"text needs {metrics.height() * lines} px of height, has {room.height()}"
    return None


def _button_cut(button: QAbstractButton) -> str | None:
    hint = button.sizeHint()
    if hint.width() > button.width() + SLACK:
        if isinstance(button, QPushButton) and button.toolTip() and "…" in button.text():
            return None
        return f"needs {hint.width()} px, has {button.width()}"
    if button.fontMetrics().height() > button.contentsRect().height():
        return (
            f"text needs {button.fontMetrics().height()} px of height, has {button.contentsRect().height()}"
        )
    return None


def _shown(widget: QWidget, window: QWidget) -> bool:
    return widget.isVisibleTo(window) and widget.width() > 0 and widget.height() > 0


def _laid_out(layout: QLayout) -> list[QWidget]:
    """The widgets a layout places, its nested layouts' too."""
    found = []
    for i in range(layout.count()):
        item = layout.itemAt(i)
        if item.widget() is not None:
            found.append(item.widget())
        elif item.layout() is not None:
            found.extend(_laid_out(item.layout()))
    return found


def _overlaps(window: QWidget) -> list[str]:
    """Widgets laid out side by side that overlap (a layout squeezed below its items' minimum)."""
    found = []
    for parent in [window, *window.findChildren(QWidget)]:
        layout = parent.layout()
        if layout is None or (parent is not window and not parent.isVisibleTo(window)):
            continue
        laid = [c for c in _laid_out(layout) if not c.isWindow() and _shown(c, window)]
        for i, a in enumerate(laid):
            for b in laid[i + 1 :]:
                if a.geometry().intersects(b.geometry()):
                    found.append(f"{_name(a)} overlaps {_name(b)} in {type(parent).__name__}")
    return found


def problems(window: QWidget) -> list[str]:
    """Every visible control of `window` that lies outside it, cannot show its text, or overlaps
    its neighbour."""
    found = _overlaps(window)
    for widget in window.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or not _shown(widget, window):
            continue
        if widget.window() is not window:  # a dialog or popup of its own
            continue
        if isinstance(widget.parentWidget(), (QAbstractSpinBox, QComboBox)):
            continue  # a spin box's or combo box's own line edit: the box is checked
        # Controls inside an item view's viewport (editors, index widgets) scroll with it.
        why = _inside(widget, window)
        if why is None and isinstance(widget, QLabel):
            why = _label_cut(widget)
        elif why is None and isinstance(widget, QAbstractButton):
            why = _button_cut(widget)
        elif why is None and isinstance(widget, (QLineEdit, QComboBox, QAbstractSpinBox)):
            hint = widget.minimumSizeHint()
            if hint.height() > widget.height() + SLACK:
                why = f"needs {hint.height()} px of height, has {widget.height()}"
        if why is not None:
            found.append(f"{_name(widget)}: {why}")
    return found
