"""Sign-off for one privileged action: the reason and the PIN, checked by the engine.

`SignOffDialog` returns the `User` that `engine.floor.actions.authorize` let through for the
permission (the log-in and any refusal are journaled there), so a station cannot skip the check.
The croupier station passes its own `authorize` (the table's user store through the table model,
gui.table_model.TableModel.sign_in): the same dialog for a pit boss's sign-off at the table.
`FloorWindow` is what the two floor stations (surveillance, pit boss) share around it: who is
logged in, the Log in / Log out button, the alerts list and the sign-off of one action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.auth import User
from engine.errors import DrrError
from engine.floor.alerts import Alert
from engine.store.db import Store
from gui.floor.alerts_panel import AlertsPanel, ack_summary

if TYPE_CHECKING:  # the log-in dialog's module loads when a log-in is asked for
    from gui.windows.login import LoginDialog


class SignOffDialog(QDialog):
    """Reason + PIN for one action; `user` is set only when the engine authorised `permission`.

    `check` (optional) validates the dialog's extra fields first, before the reason and the PIN are
    looked at; it raises DrrError with the words to show. `authorize(name, pin, permission)`
    (optional) replaces the floor store's check (then `store` may be None).
    """

    def __init__(
        self,
        store: Store | None,
        station: str,
        permission: str,
        title: str,
        detail: str,
        *,
        name: str = "",
        parent: QWidget | None = None,
        extra: QWidget | None = None,
        check: Callable[[], None] | None = None,
        authorize: Callable[[str, str, str], User] | None = None,
    ) -> None:
        super().__init__(parent)
        self.store, self.station, self.permission, self.check = store, station, permission, check
        self._authorize = authorize
        self.user: User | None = None
        self.setWindowTitle(title)
        self.setMinimumWidth(480)
        heading = QLabel(title)
        heading.setObjectName("title")
        info = QLabel(detail)
        info.setWordWrap(True)
        info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason = QPlainTextEdit()
        self.reason.setPlaceholderText("Reason (kept in the journal with the action)")
        self.reason.setFixedHeight(80)
        self.name = QLineEdit(name)
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setPlaceholderText("PIN")
        self.error = QLabel()
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Reason", self.reason)
        form.addRow("User", self.name)
        form.addRow("PIN", self.pin)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.try_sign)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(info)
        if extra is not None:  # above the form, in the dialog's own column: it keeps its whole height
            layout.addWidget(extra)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    @property
    def reason_text(self) -> str:
        return self.reason.toPlainText().strip()

    def _sign(self, name: str, pin: str) -> User:
        if self._authorize is not None:
            return self._authorize(name, pin, self.permission)
        from engine.floor.actions import authorize

        assert self.store is not None, "a sign-off needs a store or an authorize function"
        return authorize(self.store, name, pin, self.permission, station=self.station)

    def try_sign(self) -> None:
        try:  # what the action is about first: a wrong number is never found out after the PIN
            if self.check is not None:
                self.check()
        except DrrError as exc:
            self.error.setText(exc.message)
            return
        if not self.reason_text:
            self.error.setText("give a reason: it is kept in the journal with the action")
            return
        try:
            self.user = self._sign(self.name.text().strip(), self.pin.text())
        except DrrError as exc:
            self.error.setText(exc.message)
            self.pin.clear()
            return
        self.accept()


def login_dialog(store: Store, station: str, parent: QWidget | None = None) -> LoginDialog:
    """The shared log-in dialog (gui.windows.login) checking names and PINs against `store`."""
    from engine.store.users import authenticate
    from gui.windows.login import LoginDialog

    return LoginDialog(station, lambda name, pin: authenticate(store, name, pin, station=station), parent)


def ask_login(store: Store, station: str, parent: QWidget | None = None) -> User | None:
    """Who signs in at the station's log-in dialog; None when it is cancelled (or a stop closed it)."""
    dialog = login_dialog(store, station, parent)
    return dialog.user if dialog.exec() else None


class FloorWindow(QMainWindow):
    """A floor station's main window: `who` is logged in and `login_button` (placed by the station),
    the `alerts` list, and `sign_off` of one action with the logged-in user's name filled in."""

    station: str  # the station's name in engine.stations: the log-in and sign-offs are journaled with it

    def __init__(self, store: Store, user: User | None) -> None:
        super().__init__()
        self.store = store
        self.user = user
        self.who = QLabel()
        self.login_button = QPushButton("Log in")
        self.login_button.clicked.connect(self.login)
        # An acknowledgement is signed: the note and PIN, once for all selected, the count and the
        # criticals named (issue 25 point 5: before, two clicks acknowledged 15, 4 critical).
        self.alerts = AlertsPanel(store, lambda: self.user, self._sign_off_alert)

    def _show_user(self) -> None:
        self.who.setText(
            "not logged in (view only)" if self.user is None else f"{self.user.name} ({self.user.role})"
        )
        self.login_button.setText("Log in" if self.user is None else "Log out")
        self.alerts.update_permissions()

    def login(self) -> None:
        """The Log in / Log out button: a logged-in user is logged out, else the log-in dialog asks."""
        self.user = None if self.user is not None else ask_login(self.store, self.station, self)
        self._show_user()

    def sign_off(
        self,
        permission: str,
        title: str,
        detail: str,
        extra: QWidget | None = None,
        check: Callable[[], None] | None = None,
    ) -> tuple[User, str] | None:
        """Ask for the reason and the PIN; the engine authorises (journaled). None when cancelled."""
        dialog = SignOffDialog(
            self.store,
            self.station,
            permission,
            title,
            detail,
            name=self.user.name if self.user else "",
            parent=self,
            extra=extra,
            check=check,
        )
        self.last_dialog = dialog
        if not dialog.exec() or dialog.user is None:
            return None
        return dialog.user, dialog.reason_text

    @contextmanager
    def _refusals(self) -> Iterator[None]:
        """The steps of what a person asked for: the engine's refusal of any ends it, said (`_refused`)."""
        try:
            yield
        except DrrError as exc:
            self._refused(exc.message)

    def _refused(self, message: str) -> None:
        """Where the station says a refusal (its status line)."""
        raise NotImplementedError

    def _sign_off_alert(self, alerts: list[Alert]) -> tuple[User, str] | None:
        """The note and the PIN of an acknowledgement (None when cancelled)."""
        return self.sign_off("acknowledge_alert", *ack_summary(alerts))
