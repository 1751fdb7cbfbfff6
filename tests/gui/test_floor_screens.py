"""`drr screenshots` pictures of the floor stations: four PNGs, each a real, non-blank frame."""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication


def test_floor_screenshots(tmp_path: Path, qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> None:
    from gui.floor import screens

    # A smaller demo floor than the documentation's: the same views, a fraction of the rounds.
    monkeypatch.setattr(screens, "DEMO_TABLES", {"T1": 120, "T2": 80, "T3": 60})
    paths = screens.floor_shots(qapp, tmp_path)
    assert [p.name for p in paths] == [
        "surveillance-table.png",
        "surveillance-wall.png",
        "pitboss-recall-bonus.png",
        "pitboss-report.png",
    ]
    for path in paths:
        image = QImage(str(path))
        assert image.width() >= 1600 and image.height() >= 1000
        colours = {
            image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 29)
        }
        assert len(colours) > 20


def test_a_wrong_role_at_the_surveillance_sign_in_is_told_and_may_sign_in_again(qapp: QApplication) -> None:
    """Issue 12: signing in with a croupier's account quit the whole program (the message only in
    the terminal)."""
    from engine.store import open_store
    from gui.floor.signoff import login_dialog
    from gui.floor.station import STATION_NEEDS
    from gui.windows.login import STATION_PERMISSION
    from tests.floor.helpers import PINS, add_users

    assert all(STATION_PERMISSION[s] == p for s, p in STATION_NEEDS.items())
    with TemporaryDirectory() as folder, open_store(f"sqlite:///{folder}/floor.sqlite") as store:
        add_users(store)
        dialog = login_dialog(store, "surveillance")
        dialog.name.setText("cody")  # type: ignore[attr-defined]
        dialog.pin.setText(PINS["cody"])  # type: ignore[attr-defined]
        dialog.try_login()  # type: ignore[attr-defined]
        assert dialog.result() != dialog.DialogCode.Accepted and dialog.user is None  # type: ignore[attr-defined]
        told = dialog.error.text()  # type: ignore[attr-defined]
        assert "a croupier may not use the surveillance station" in told and "surveillance or" in told
        dialog.name.setText("sam")  # type: ignore[attr-defined]
        dialog.pin.setText(PINS["sam"])  # type: ignore[attr-defined]
        dialog.try_login()  # type: ignore[attr-defined]
        assert dialog.result() == dialog.DialogCode.Accepted and dialog.user.name == "sam"  # type: ignore[attr-defined]
