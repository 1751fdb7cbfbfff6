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
