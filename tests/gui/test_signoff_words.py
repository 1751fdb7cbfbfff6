"""Issue 25 point 6 at the sign-off dialogs: the radio buttons of a sign-off were white discs, the chosen
one looking like the others; the void dialog showed no amounts; the pit boss's remote approval said
"paid 0.00" for a 290.00 payout (a round waiting for its approval has paid nothing yet)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from PySide6.QtWidgets import QDialog, QLabel, QRadioButton, QStyleFactory, QVBoxLayout
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.bets import BetKind, inside_bet, outside_bet
from gui import demo, theme
from gui.floor.signoff import SignOffDialog
from gui.windows.croupier import CroupierWindow
from gui.windows.pitboss import PitBossWindow
from tests.gui.live import LiveTables, service_of

FUSION = QStyleFactory.create("Fusion")  # the stations' style (gui.theme.apply), kept alive here


def _labels(dialog: QDialog) -> str:
    return " ".join(label.text() for label in dialog.findChildren(QLabel))


def test_the_chosen_radio_button_is_seen_apart_from_the_others(qtbot: QtBot) -> None:
    dialog = QDialog()  # themed as every station is (gui.theme.apply), on the dialog alone here
    dialog.setStyle(FUSION)
    dialog.setPalette(theme.palette())
    dialog.setStyleSheet(theme.stylesheet())
    qtbot.addWidget(dialog)
    layout = QVBoxLayout(dialog)
    chosen, other = QRadioButton("Void the round"), QRadioButton("Accept the wheel's result")
    layout.addWidget(chosen)
    layout.addWidget(other)
    chosen.setChecked(True)
    dialog.resize(320, 120)
    dialog.show()
    qtbot.waitExposed(dialog)
    image = dialog.grab().toImage()
    a, b = chosen.geometry(), other.geometry()
    height = min(a.height(), b.height())

    def light(x: int, y: int) -> int:
        return image.pixelColor(x, y).lightness()

    # The indicators only (the first 16 px): the chosen one must differ clearly from the other.
    differ = sum(
        1
        for dx in range(16)
        for dy in range(height)
        if abs(light(a.x() + dx, a.y() + dy) - light(b.x() + dx, b.y() + dy)) > 60
    )
    assert differ >= 40, differ
    # ... and the other's ring stands out from the dialog's dark ground.
    ground = light(b.right() - 2, b.y() + 1)
    assert max(light(b.x() + dx, b.y() + dy) for dx in range(16) for dy in range(height)) - ground > 80


def test_the_void_dialog_shows_what_is_wagered_and_returned(
    qtbot: QtBot, tables: LiveTables, monkeypatch: pytest.MonkeyPatch
) -> None:
    seats = ("Seat 1", "Seat 2")
    table = tables.start(players=seats)
    window = CroupierWindow(table, seats)
    qtbot.addWidget(window)
    table.open_bets()
    tables.run()
    table.place_wager("Seat 1", inside_bet([17]), Decimal(500))
    table.place_wager("Seat 2", outside_bet(BetKind.RED), Decimal(75))
    tables.run()
    shown: list[str] = []
    monkeypatch.setattr(SignOffDialog, "exec", lambda d: shown.append(_labels(d)) or 0)
    window.ask_void()
    assert shown, window.reason.text()
    assert "wagered 575.00 (Seat 1 500.00, Seat 2 75.00); returned 575.00" in shown[0], shown


def test_the_remote_approval_names_the_payout_it_approves(
    qtbot: QtBot, tables: LiveTables, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tables.demo(demo.croupier_after_lucky_win)  # a round waiting for a pit boss's approval
    wins = [ln for ln in table.snapshot().pay_lines if ln.wager.id in table.snapshot().approvals_needed]
    owed = sum((ln.payout for ln in table.snapshot().pay_lines if ln.wins), Decimal(0))
    assert wins and owed > 0
    service = service_of(table)
    window = PitBossWindow(service.store, user=User("pat", "pitboss"), live=False)
    qtbot.addWidget(window)
    window.filters.round_id.setText(service.state.round_id or "")
    window.apply_filters()
    row = window.selected_row()
    assert row is not None and row.paid == 0  # nothing paid yet: the row's figure is no help
    shown: list[str] = []
    monkeypatch.setattr(SignOffDialog, "exec", lambda d: shown.append(_labels(d)) or 0)
    window.approve_selected()
    assert shown and f"pays {owed:,.2f}" in shown[0] and "0.00." not in shown[0], shown
