"""Runs `drr` for the real-screen shift (tests/gui/test_real_shift.py) and reports, every 200 ms, what
its windows are as Qt has them, in a JSON file the test reads between its xdotool keys and clicks:

- each visible top-level window: its title, its frame (title bar and borders) and its minimum size;
- the modal dialog or sign-in dialog in front: its class, title, frame and, for each control, its
  kind, text or placeholder and centre on the screen (what the test clicks or types into);
- the croupier window: the phase, the big button's text and centre, the reason and guide lines,
  where the keyboard focus is, and whether a key may settle (`press_needed`);
- the bonus screen: its reason line and, per player's panel, the Start and Cash out buttons and the
  boxes, each with its centre and whether it can be pressed.

`python -m tests.gui.shift_driver STATE_FILE -- DRR-ARGS…` (from the checkout). DRR_SHIFT_WHEEL_SPEED
makes the virtual wheel that many times faster (the station's WheelFeed has no setting for it: a
table PC's virtual wheel runs at the real one's pace), so 20 rounds fit the suite's time. The driver
presses nothing: every input is the test's, through the X server and the window manager.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QDialog,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

TITLE = "Diamond Rush Roulette · "


def _frame(widget: QWidget) -> list[int]:
    r = widget.frameGeometry()
    return [r.x(), r.y(), r.width(), r.height()]


def _centre(widget: QWidget) -> list[int]:
    """Where to click it on the screen, and 1 if the whole button is in sight (0: scrolled away)."""
    c = widget.mapToGlobal(widget.rect().center())
    whole = widget.visibleRegion().boundingRect().size() == widget.size()
    return [c.x(), c.y(), int(whole)]


def _controls(dialog: QWidget) -> list[dict[str, Any]]:
    found = []
    for w in dialog.findChildren(QWidget):
        if not w.isVisible() or isinstance(w.parentWidget(), QComboBox):
            continue
        if isinstance(w, QAbstractButton):
            text = w.text().replace("&", "")  # (a mnemonic's mark: "&OK")
        elif isinstance(w, (QLineEdit, QPlainTextEdit, QComboBox)):
            text = w.placeholderText()
        else:
            continue
        found.append(
            {
                "kind": type(w).__name__,
                "text": " ".join(text.split()),
                "at": _centre(w),
                "enabled": w.isEnabled(),
            }
        )
    return found


def _state() -> dict[str, Any]:
    from gui.windows.bonus_screen import BonusScreen
    from gui.windows.croupier import CroupierWindow

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    state: dict[str, Any] = {"windows": {}, "dialog": None, "croupier": None, "bonus": None}
    screen = app.primaryScreen().geometry()
    state["screen"] = [screen.width(), screen.height()]
    for w in app.topLevelWidgets():
        if not w.isVisible():
            continue
        title = w.windowTitle()
        if isinstance(w, QDialog):
            state["dialog"] = {
                "class": type(w).__name__,
                "title": title,
                "frame": _frame(w),
                "controls": _controls(w),
            }
            continue
        if not title.startswith(TITLE):
            continue
        minimum = w.minimumSizeHint().expandedTo(w.minimumSize())
        state["windows"][title[len(TITLE) :]] = {
            "frame": _frame(w),
            "min": [minimum.width(), minimum.height()],
        }
        if isinstance(w, CroupierWindow):
            focus = app.focusWidget()
            state["croupier"] = {
                "phase": w.phase_label.text(),
                "action": w.action.text(),
                "action_enabled": w.action.isEnabled(),
                "action_at": _centre(w.action),
                "reason": w.reason.text(),
                "guide": w.guide.text(),
                "focus": type(focus).__name__ if focus is not None else None,
                "press_needed": w._press_needed,
                "paying_width": w.paying.viewport().width(),
                "paying_shown": w.lists.shown(w.paying.parentWidget()),
            }
        elif isinstance(w, BonusScreen):
            panels = {}
            for player, panel in w.panels.items():
                view = panel.view
                panels[player] = {
                    "status": None if view is None else view.status.name,
                    "finished": None if view is None else view.finished,
                    "start": _centre(panel.start) if panel.start.isVisible() else None,
                    "cash_out": _centre(panel.cash_out)
                    if panel.cash_out.isVisible() and panel.cash_out.isEnabled()
                    else None,
                    "boxes": [_centre(b) for b in panel.boxes if b.isVisible() and b.pickable],
                    "visible": not panel.visibleRegion().isEmpty(),
                }
            state["bonus"] = {"reason": w.reason.text(), "panels": panels}
    return state


def _fast_wheel(speed: float) -> None:
    from gui import wheel_link

    init = wheel_link.WheelFeed.__init__
    defaults = list(init.__defaults__ or ())
    defaults[0] = speed  # (speed, settings, say)
    init.__defaults__ = tuple(defaults)


def main() -> int:
    target, rest = Path(sys.argv[1]), sys.argv[2:]
    assert rest[0] == "--", "usage: shift_driver STATE_FILE -- DRR-ARGS…"
    speed = os.environ.get("DRR_SHIFT_WHEEL_SPEED")
    if speed:
        _fast_wheel(float(speed))
    app = QApplication(sys.argv[:1])
    poll = QTimer(app)
    poll.setInterval(200)

    def write() -> None:
        try:
            text = json.dumps(_state())
        except RuntimeError:  # a widget deleted between the list and the read: the next tick
            return
        part = target.with_suffix(".part")
        part.write_text(text, encoding="utf-8")
        part.replace(target)  # whole, never half-written

    poll.timeout.connect(write)
    poll.start()
    from gui import cli

    return cli.main(rest[1:])


if __name__ == "__main__":
    sys.exit(main())
