"""Starting a station: the window paints at once on a stand-in table, then redraws from the journal."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.bets import inside_bet
from engine.rules import load_default_rules
from engine.store import open_store
from gui import cli, demo
from gui.deferred_table import DeferredTable
from gui.view_model import Phase
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables


def test_the_stand_in_refuses_commands_then_passes_everything_through(
    qtbot: QtBot, tables: LiveTables
) -> None:
    stand_in = DeferredTable(load_default_rules(), ("anna", "bob"), "T9")
    window = CroupierWindow(stand_in, stand_in.players)
    qtbot.addWidget(window)
    assert window.phase_label.text() == "STARTING" and not window.action.isEnabled()
    stand_in.open_bets()
    assert "starting" in window.reason.text()

    real = tables.start(seed=4, players=("anna", "bob"), table_id="T9")
    real.open_bets()
    real.place_wager("anna", inside_bet([8]), Decimal(5))
    real.no_more_bets()
    tables.run()
    stand_in.attach(real)
    draw = real.snapshot().draw
    assert draw is not None
    assert window.phase is Phase.CLOSED and window.phase_label.text() == "NO MORE BETS"
    assert window.felt.lucky == dict(draw.lucky) and len(window.wagers) == 1
    tables.wheel(real, demo.wheel_result(8))
    assert window.action.text() == "Confirm 8"
    qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)
    tables.run()
    assert real.phase is Phase.RESULT and window.felt.result == 8


def test_drr_gui_starts_on_the_journal_and_exits_after_the_first_frame(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], qapp: object
) -> None:
    db = tmp_path / "t.sqlite"
    assert (
        cli.main(["gui", "--station", "croupier", "--table", "T1", "--db", str(db), "--first-frame-exit"])
        == 0
    )
    assert capsys.readouterr().out.startswith("first_frame_at ")
    with open_store(str(db), table="T1") as store:
        types = [e.type for e in store.journal.entries("T1")]
    assert "table.started" in types and "table.rules_loaded" in types
