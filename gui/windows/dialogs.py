"""The croupier's confirmations: a reason (no-spin, void with a pit boss's sign-off), the two-step
manual result, and the pit boss's approval of large payouts."""

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
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gui.view_model import money


class ReasonDialog(QDialog):
    """A confirmation that needs a reason (no-spin, void), and for a void a pit boss's sign-off."""

    def __init__(
        self,
        title: str,
        question: str,
        reasons: Sequence[str],
        parent: QWidget | None = None,
        *,
        sign_off: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.reason = QComboBox()
        self.reason.setEditable(True)
        self.reason.addItems(list(reasons))
        label = QLabel(question)
        label.setWordWrap(True)
        buttons = QDialogButtonBox()
        ok = buttons.addButton(title, QDialogButtonBox.ButtonRole.AcceptRole)
        ok.setObjectName("danger")
        buttons.addButton("Cancel", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.boss = QLineEdit()
        self.boss.setPlaceholderText("pit boss")
        self.pin = QLineEdit()
        self.pin.setPlaceholderText("PIN")
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(QLabel("Reason:"))
        layout.addWidget(self.reason)
        if sign_off:
            layout.addWidget(QLabel("Pit boss sign-off:"))
            layout.addWidget(self.boss)
            layout.addWidget(self.pin)
        layout.addWidget(buttons)

    def text(self) -> str:
        return self.reason.currentText().strip()


class ManualResultDialog(QDialog):
    """Two-step manual result: enter the number, then enter the same number again."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Manual result")
        self.first: int | None = None
        self.number = QSpinBox()
        self.number.setRange(0, 36)
        self.number.setMinimumHeight(48)
        self.number.setStyleSheet("font-size: 22pt;")
        self.prompt = QLabel("The wheel sensor is not giving a result. Enter the winning number:")
        self.prompt.setWordWrap(True)
        self.error = QLabel("")
        self.error.setObjectName("error")
        self.ok = QPushButton("Next")
        self.ok.setObjectName("primary")
        self.ok.clicked.connect(self.step)
        # Enter after typing the number means Next/Confirm, never Cancel (the first button added).
        self.ok.setDefault(True)
        cancel = QPushButton("Cancel")
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addWidget(self.number)
        layout.addWidget(self.error)
        row = QHBoxLayout()
        row.addWidget(cancel)
        row.addWidget(self.ok)
        layout.addLayout(row)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # Typing replaces the 0 shown (otherwise "29" typed before it reads 290, out of range).
        self.number.setFocus()
        self.number.selectAll()

    def step(self) -> None:
        value = self.number.value()
        if self.first is None:
            self.first = value
            self.prompt.setText("Enter the winning number again to confirm (first entry hidden).")
            self.number.setValue(0)
            self.number.selectAll()
            self.ok.setText("Confirm")
            self.error.setText("")
            return
        if value != self.first:
            self.first = None
            self.error.setText("The two entries differ. Start again.")
            self.prompt.setText("Enter the winning number:")
            self.ok.setText("Next")
            return
        self.accept()

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
