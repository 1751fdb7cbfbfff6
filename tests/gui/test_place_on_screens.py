"""gui.app._place_on_screens: the frames fitted again once the window manager framed the windows, and a
window closed and deleted before that moment is passed over, not touched (it raised in the Qt loop)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication, QWidget

from gui.app import _place_on_screens
from gui.screen_layout import FRAME_SETTLE_MS


def test_a_window_deleted_before_the_refit_is_passed_over(qtbot: Any) -> None:
    croupier, display = QWidget(), QWidget()
    qtbot.addWidget(croupier)
    _place_on_screens(QApplication.instance(), [croupier, display])
    assert display.isVisible()
    display.close()
    display.deleteLater()
    qtbot.wait(FRAME_SETTLE_MS + 300)  # the refit ran: pytest-qt fails the test on its exception
    assert croupier.isVisible()


def test_the_refit_is_dropped_with_the_croupier_window(qtbot: Any) -> None:
    croupier, display = QWidget(), QWidget()
    qtbot.addWidget(display)
    _place_on_screens(QApplication.instance(), [croupier, display])
    croupier.close()
    croupier.deleteLater()
    qtbot.wait(FRAME_SETTLE_MS + 300)
    assert display.isVisible()
