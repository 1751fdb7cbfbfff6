"""The alerts panel's buttons keep their words at the panel's narrowest width (the README's
surveillance screenshot showed "ect all op" and "cknowledge select": squeezed beside the title)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.store import Store
from gui import theme
from gui.floor.alerts_panel import AlertsPanel
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures


def test_the_bulk_buttons_and_the_filter_are_never_cut(
    qtbot: QtBot,
    qapp: QApplication,
    store: Store,  # noqa: F811 - the fixture
) -> None:
    theme.apply(qapp)  # the stations' fonts and padding, as the screenshots are taken
    panel = AlertsPanel(store, lambda: None)
    qtbot.addWidget(panel)
    panel.resize(panel.minimumWidth(), 600)
    panel.show()
    qtbot.waitExposed(panel)
    for widget in (panel.select_open, panel.ack, panel.open_only):
        assert widget.width() >= widget.sizeHint().width(), widget.text()
