"""The croupier station says a tilt in words (issue 23: the gate, engine.table.gate): a program other
than the approved one stops play with the reason and what ends it on screen, every button greyed."""

from __future__ import annotations

import os
from pathlib import Path

from pytestqt.qtbot import QtBot

from engine.round import Phase
from engine.table.next_step import APPROVE, MANUAL, NO_SPIN_ACTION
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables, service_of

PLAYERS = ("Anna", "Bob")


def test_the_croupier_window_shows_a_software_tilt_in_words(
    qtbot: QtBot, tables: LiveTables, tmp_path: Path
) -> None:
    table = tables.start(seed=57, players=PLAYERS, approved_digest="0" * 64)
    window = CroupierWindow(table, PLAYERS)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.phase_label.text() == "TILTED"
    assert window.action.text() == "Play stopped" and not window.action.isEnabled()
    assert window.reason.text().startswith("software not approved: this table runs software ")
    assert "drr pitboss approve-software" in window.guide.text()
    steps = window.step().actions
    assert all(steps[a].startswith("the table is tilted") for a in (MANUAL, NO_SPIN_ACTION, APPROVE))
    window.do_next_action()  # refused: nothing opens
    tables.run()
    assert window.phase is Phase.IDLE and service_of(table).state.rounds_opened == 0
    shot = Path(os.environ.get("DRR_TILT_SHOT_DIR", tmp_path)) / "croupier-tilted.png"
    assert window.grab().save(str(shot))


def test_a_pit_boss_clears_an_rng_tilt_at_the_croupier_station(qtbot: QtBot, tables: LiveTables) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from gui.floor.signoff import SignOffDialog
    from tests.gui.live import PIN, PIT_BOSS
    from tests.rng.test_health import Stuck

    table = tables.start(seed=57, players=PLAYERS)
    window = CroupierWindow(table, PLAYERS)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.do_next_action()  # open bets
    tables.run()
    svc = service_of(table)
    svc.rng.inner = Stuck()
    for _ in range(8):
        svc.rng.randbelow(37)
    window.do_next_action()  # no more bets: the fault tilts the table
    tables.run()
    assert window.phase_label.text() == "RNG FAULT" and window.pit_boss_button.isEnabled()
    assert window.step().actions["void"] == ""  # the wagers can go back
    from engine.rng import SeededRng

    svc.rng.inner = SeededRng(5)  # the source replaced
    failed: list[BaseException] = []

    def act() -> None:
        dialog = QApplication.activeModalWidget()
        try:
            assert isinstance(dialog, SignOffDialog), dialog
            dialog.name.setText(PIT_BOSS)
            dialog.pin.setText(PIN)
            dialog.reason.setPlainText("entropy source replaced by the technician")
            dialog.try_sign()
        except BaseException as exc:
            failed.append(exc)
        finally:
            if dialog is not None and dialog.isVisible():
                dialog.reject()

    QTimer.singleShot(0, act)
    window.ask_pit_boss()
    tables.run()
    assert not failed, failed
    assert not window._view.stopped and window.phase_label.text() == "BETS OPEN"
    window.do_next_action()  # no more bets: the draw is made now
    tables.run()
    assert window.phase is Phase.CLOSED
