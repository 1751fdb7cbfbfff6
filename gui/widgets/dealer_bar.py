"""Who is signed in at the croupier station, and the two ways a dealer's shift ends: *Dealer change…*
(the relief dealer signs in with name and PIN and takes over) and *Log out* (nobody is signed in;
the station waits for the next sign-in). Each is journaled by the table (`table.dealer_changed`,
engine.table.dealer); the bar redraws from the table model's `dealerChanged`."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from engine.auth import User
from gui.table_model import TableModel
from gui.windows.login import LoginDialog

NO_ACCOUNTS = "No users are set up yet (drr users add): nobody can sign in after a log-out"


class DealerBar(QWidget):
    def __init__(self, table: TableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.who = QLabel("")
        self.who.setObjectName("dim")
        self.who.setWordWrap(True)  # a long name wraps; it never pushes the buttons off the row
        self.change = QPushButton("Dealer change…")
        self.change.setToolTip("The relief dealer signs in with name and PIN and takes over (Ctrl+Shift+D)")
        self.change.clicked.connect(self.ask_sign_in)
        self.log_out = QPushButton("Log out")
        self.log_out.setToolTip(
            "Sign out: nothing is done at this station until someone signs in (Ctrl+Shift+L)"
        )
        self.log_out.clicked.connect(self.table.sign_out_dealer)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.who)
        layout.addStretch(1)
        layout.addWidget(self.change)
        layout.addWidget(self.log_out)
        self.dialog: LoginDialog | None = None
        self._accounts = True
        table.dealerChanged.connect(self.show_dealer)
        if table.source is None:
            self.who.setText("Signing in…")  # the table is still starting: nobody deals yet
        else:
            self.show_dealer(None if table.signed_out else table.user)

    def set_accounts(self, exist: bool) -> None:
        """Without users in the store nobody could sign in again: no log-out, no dealer change."""
        self._accounts = exist
        for b in (self.change, self.log_out):
            b.setEnabled(exist)
            if not exist:
                b.setToolTip(NO_ACCOUNTS)

    def show_dealer(self, user: User | None) -> None:
        if user is None:
            self.who.setText("<b style='color:#ffb020'>Nobody is signed in: sign in to deal</b>")
            self.change.setText("Sign in…")
            self.log_out.setVisible(False)
        else:
            self.who.setText(f"Signed in: <b>{user.name}</b> ({user.role})")
            self.change.setText("Dealer change…")
            self.log_out.setVisible(True)

    def _signed_in(self, dialog: LoginDialog) -> None:
        if dialog.user is not None:
            self.table.sign_in_dealer(dialog.user)

    def ask_sign_in(self, authenticate: Callable[[str, str], User] | None = None) -> LoginDialog | None:
        """The sign-in of the next dealer (a dealer change, or after a log-out); non-modal to the
        event loop (open(), not exec()), journaled when the table accepts it."""
        check = authenticate or self.table.authenticate
        if check is None or not self._accounts:
            self.table.refused.emit(NO_ACCOUNTS)
            return None
        dialog = LoginDialog("croupier", check, self.window())
        dialog.accepted.connect(lambda: self._signed_in(dialog))
        dialog.open()
        self.dialog = dialog
        return dialog
