"""The croupier's confirmations: a reason (no-spin), the two-step manual result with its reason, and
the pit boss's approval of large payouts (a void or a hold's remedy: gui.windows.hold_signoff)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.table.view import money


class ReasonDialog(QDialog):
    """A confirmation that needs a reason (the no-spin): the croupier picks one of the usual reasons or
    types one; none is chosen beforehand, and an empty reason is refused on the spot."""

    def __init__(
        self,
        title: str,
        question: str,
        reasons: Sequence[str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.reason = QComboBox()
        self.reason.setEditable(True)
        self.reason.addItems(list(reasons))
        self.reason.setCurrentIndex(-1)  # nothing chosen: Enter alone never journals a reason
        self.reason.setPlaceholderText("choose or type the reason")
        line = self.reason.lineEdit()
        if line is not None:
            line.setPlaceholderText("choose or type the reason")
        label = QLabel(question)
        label.setWordWrap(True)
        self.error = QLabel("")
        self.error.setObjectName("error")
        buttons = QDialogButtonBox()
        ok = buttons.addButton(title, QDialogButtonBox.ButtonRole.AcceptRole)
        ok.setObjectName("danger")
        buttons.addButton("Cancel", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.try_accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(QLabel("Reason:"))
        layout.addWidget(self.reason)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def text(self) -> str:
        return self.reason.currentText().strip()

    def try_accept(self) -> None:
        if not self.text():
            self.error.setText("choose or type the reason: it is kept in the journal")
            return
        self.accept()


MANUAL_REASONS = (
    "the sensor gave no result",
    "the sensor's number is not the pocket the ball is in",
    "the sensor is disconnected",
)


class ManualResultDialog(QDialog):
    """Two-step manual result: the number, then the same number again, and the reason. The fields
    start empty (Enter, Enter never records a 0) and say what the wheel actually reported."""

    def __init__(self, parent: QWidget | None = None, *, sensor_number: int | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Manual result")
        self.first: int | None = None
        self.number = QLineEdit()
        self.number.setPlaceholderText("0-36")
        self.number.setMinimumHeight(48)
        self.number.setStyleSheet("font-size: 22pt;")
        self.number.returnPressed.connect(self.step)
        self.reported = (
            "The wheel has not reported a result for this spin."
            if sensor_number is None
            else f"The wheel reports {sensor_number}."
        )
        self.prompt = QLabel(f"{self.reported} Enter the number the ball is in:")
        self.prompt.setWordWrap(True)
        self.reason = QComboBox()
        self.reason.setEditable(True)
        self.reason.addItems(list(MANUAL_REASONS))
        self.reason.setCurrentIndex(-1)
        self.reason.setPlaceholderText("why is the result entered by hand?")
        line = self.reason.lineEdit()
        if line is not None:
            line.setPlaceholderText("why is the result entered by hand?")
        self.error = QLabel("")
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.ok = QPushButton("Next")
        self.ok.setObjectName("primary")
        self.ok.clicked.connect(self.step)
        self.ok.setAutoDefault(False)
        cancel = QPushButton("Cancel")
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addWidget(self.number)
        layout.addWidget(QLabel("Reason:"))
        layout.addWidget(self.reason)
        layout.addWidget(self.error)
        row = QHBoxLayout()
        row.addWidget(cancel)
        row.addWidget(self.ok)
        layout.addLayout(row)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.number.setFocus()

    def _typed(self) -> int | None:
        raw = self.number.text().strip()
        if not raw:
            self.error.setText("type the ball's number (0-36)")
            return None
        if not raw.isdigit() or int(raw) > 36:
            self.error.setText(f"{raw!r} is not a number 0-36")
            return None
        return int(raw)

    def step(self) -> None:
        value = self._typed()
        if value is None:
            self.number.selectAll()
            return
        if self.first is None:
            self.first = value
            self.prompt.setText("Enter the number again to confirm it (the first entry is hidden).")
            self.number.clear()
            self.ok.setText("Confirm")
            self.error.setText("")
            return
        if value != self.first:
            self.first = None
            self.number.clear()
            self.error.setText("The two entries differ. Start again.")
            self.prompt.setText(f"{self.reported} Enter the number the ball is in:")
            self.ok.setText("Next")
            return
        if not self.reason_text:
            self.error.setText("choose or type the reason: it is kept in the journal")
            self.reason.setFocus()
            return
        self.accept()

    @property
    def reason_text(self) -> str:
        return self.reason.currentText().strip()

    @property
    def number_entered(self) -> int | None:
        return self.first


class ApprovalDialog(QDialog):
    """Pit-boss approval of large payouts: name and PIN, checked by the table against its user store."""

    def __init__(self, total: Decimal, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Pit boss approval")
        self.name = QLineEdit()
        self.name.setPlaceholderText("pit boss")
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setPlaceholderText("PIN")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Large payouts of {money(total)} need a pit boss's approval."))
        layout.addWidget(self.name)
        layout.addWidget(self.pin)
        layout.addWidget(buttons)
