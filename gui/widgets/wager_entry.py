"""The croupier's keyboard wager line: `17/25 17-20/10 red` and Enter places the wagers for the
selected player. The text is read by the engine's grammar (engine.wager_text), never here; the
line only hands the wagers on, or the grammar's one-line refusal, and keeps the croupier's keys:
Enter, Escape and every printable key belong to the line while it has the focus (Enter never does
two things: it places the line, never the big button's action too). Once the table has placed the
wagers (`placed()`) the line empties and gives the keyboard back to the window's shortcuts, so the
next Space or Enter is the big button's without an Escape first; a refusal (the grammar's or the
table's, e.g. a limit) keeps the text and the focus, to be corrected. Escape empties the line and
gives the focus back."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent
from PySide6.QtWidgets import QLineEdit, QWidget

from engine.errors import IllegalWager
from engine.wager_text import WagerText, parse_wagers

PLACEHOLDER = "Type wagers (W): 17/25  17-20/10  red/5  dozen2 …, Enter"


class WagerEntry(QLineEdit):
    """One line of typed wagers; `entered(list[WagerText])` on Enter, `refused(str)` if unreadable."""

    entered = Signal(object)  # list[engine.wager_text.WagerText]
    refused = Signal(str)

    def __init__(self, switches: Callable[[], tuple[bool, bool]], parent: QWidget | None = None) -> None:
        """`switches()`: the Rules Submission's (trios, first four) at the moment Enter is pressed."""
        super().__init__(parent)
        self._switches = switches
        self.setPlaceholderText(PLACEHOLDER)
        self.setClearButtonEnabled(True)
        self.setMinimumHeight(40)
        # Taken by W or a click only, never handed the keyboard as the window opens: on a real
        # screen the station opened with the line holding it, and the croupier's first Space typed
        # a space instead of opening bets (tests/gui/test_real_shift.py).
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self._sent: str | None = None  # the text handed on, until the table placed it
        self.returnPressed.connect(self.submit)

    def submit(self) -> None:
        trios, first_four = self._switches()
        try:
            wagers: list[WagerText] = parse_wagers(self.text(), trios=trios, first_four=first_four)
        except IllegalWager as exc:
            self.refused.emit(exc.message)
            return  # the text stays, to be corrected
        self._sent = self.text()
        self.entered.emit(wagers)

    def placed(self) -> None:
        """The table placed the wagers handed on: the line empties (unless the croupier has typed on
        since) and the keyboard goes back to the window."""
        if self._sent is not None and self.text() == self._sent:
            self.clear()
            self.clearFocus()
        self._sent = None

    def event(self, event: QEvent) -> bool:
        # Enter and Escape are the line's while it has the focus, not the window's next action.
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape)
        ):
            event.accept()
            return True
        return super().event(event)

    # The ways the croupier asks for the line: a click, W (setFocus), a shortcut.
    ASKED = (
        Qt.FocusReason.MouseFocusReason,
        Qt.FocusReason.OtherFocusReason,
        Qt.FocusReason.ShortcutFocusReason,
    )

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        # Handed the keyboard by the window, not asked for (the sign-in dialog closing, a focused
        # button greyed as the table starts): an empty line gives it back, or the croupier's next
        # Space types a space instead of opening bets (seen on a real screen after the sign-in).
        if event.reason() not in self.ASKED and not self.text():
            QTimer.singleShot(0, self._hand_back)

    def _hand_back(self) -> None:
        if self.hasFocus() and not self.text():
            self.clearFocus()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.clear()
            self.clearFocus()  # back to the window: 1-9, F1-F12, Space … again
            return
        super().keyPressEvent(event)
