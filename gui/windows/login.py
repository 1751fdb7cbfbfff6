"""Login: a user and PIN, checked against the user store; the station opens only for a role that may
use it (the engine checks every command again)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from engine.auth import ROLES, User
from engine.errors import DrrError
from engine.stations import REGISTRY

# What a user's role must allow for each station (asked here, so a wrong role is told at once and
# may sign in again; the station never opens for it).
STATION_PERMISSION = {s.name: s.permission for s in REGISTRY}  # engine.stations


def roles_for(station: str) -> list[str]:
    """The roles that may use `station`."""
    permission = STATION_PERMISSION.get(station, "view_tables")
    return [role for role in ROLES if User("", role).may(permission)]


class LoginDialog(QDialog):
    def __init__(
        self,
        station: str,
        authenticate: Callable[[str, str], User],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Diamond Rush Roulette · {station} login")
        self.station = station
        self._authenticate = authenticate
        self.user: User | None = None
        title = QLabel(f"Sign in to the {station} station")
        title.setObjectName("title")
        self.name = QLineEdit()
        self.name.setPlaceholderText("user")
        self.pin = QLineEdit()
        self.pin.setPlaceholderText("PIN")
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.error = QLabel("")
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.ok = QPushButton("Sign in")
        self.ok.setObjectName("primary")
        self.ok.setDefault(True)
        self.ok.clicked.connect(self.try_login)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.name)
        layout.addWidget(self.pin)
        layout.addWidget(self.error)
        layout.addWidget(self.ok, alignment=Qt.AlignmentFlag.AlignRight)
        self.setMinimumWidth(420)

    def try_login(self) -> None:
        name = self.name.text().strip()
        if not name or not self.pin.text():
            self.error.setText("Enter your user name and PIN.")
            return
        try:
            user = self._authenticate(name, self.pin.text())
        except DrrError as exc:
            self.error.setText(exc.message)
            self.pin.clear()
            return
        permission = STATION_PERMISSION.get(self.station, "view_tables")
        if not user.may(permission):
            self.error.setText(
                f"{user.name} is a {user.role}: a {user.role} may not use the {self.station} station. "
                f"Sign in with a {' or '.join(roles_for(self.station))} account."
            )
            self.name.selectAll()
            self.name.setFocus()
            self.pin.clear()
            return
        self.user = user
        self.accept()
