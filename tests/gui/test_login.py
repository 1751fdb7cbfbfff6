"""Login: user and PIN against the user store; the station opens only for a role allowed to use it."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.store import open_store
from engine.store.users import add_user, authenticate
from gui.windows.login import LoginDialog


def test_login_against_the_user_store(qtbot: QtBot, tmp_path: Path) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:
        admin = User("root", "admin")
        add_user(store, "carol", "croupier", "4821", by=admin)
        add_user(store, "sam", "surveillance", "7730", by=admin)
        dialog = LoginDialog("croupier", lambda n, p: authenticate(store, n, p, station="croupier"))
        qtbot.addWidget(dialog)

        dialog.try_login()
        assert "Enter your user name and PIN" in dialog.error.text()

        dialog.name.setText("carol")
        dialog.pin.setText("0000")
        dialog.try_login()
        assert dialog.user is None and "carol" in dialog.error.text() and dialog.pin.text() == ""

        dialog.name.setText("sam")
        dialog.pin.setText("7730")
        dialog.try_login()
        assert dialog.user is None and "may not use the croupier station" in dialog.error.text()

        dialog.name.setText("carol")
        dialog.pin.setText("4821")
        dialog.try_login()
        assert dialog.user == User("carol", "croupier")
        assert dialog.result() == LoginDialog.DialogCode.Accepted


def test_enter_in_the_pin_field_shows_why_the_login_failed(qtbot: QtBot, tmp_path: Path) -> None:
    """Enter is one sign-in attempt: the refusal stays readable (it was overwritten by a second,
    empty attempt when both the PIN field and the default button reacted to it)."""
    from PySide6.QtCore import Qt

    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:
        add_user(store, "carol", "croupier", "4821", by=User("root", "admin"))
        calls: list[str] = []

        def check(name: str, pin: str) -> User:
            calls.append(pin)
            return authenticate(store, name, pin, station="croupier")

        dialog = LoginDialog("croupier", check)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.name.setText("carol")
        dialog.pin.setFocus()
        qtbot.keyClicks(dialog.pin, "0000")
        qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
        assert calls == ["0000"] and "Enter your user name" not in dialog.error.text()
        assert dialog.error.text() and dialog.user is None
        qtbot.keyClicks(dialog.pin, "4821")
        qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
        assert dialog.user == User("carol", "croupier")
