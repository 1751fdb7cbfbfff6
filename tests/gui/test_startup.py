"""Starting a station: the window paints at once on the table model still "starting", then redraws
from the journal."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.auth import User
from engine.bets import inside_bet
from engine.rng import SeededRng
from engine.round import Phase
from engine.rules import load_default_rules
from engine.store import open_store
from engine.table.service import TableService
from gui import cli
from gui.table_model import TableModel
from gui.windows.croupier import CroupierWindow


def test_the_starting_model_refuses_commands_then_shows_the_attached_table(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    model = TableModel.starting(load_default_rules(), ("anna", "bob"), "T9")
    window = CroupierWindow(model, model.players)
    qtbot.addWidget(window)
    assert window.phase_label.text() == "STARTING" and not window.action.isEnabled()
    model.open_bets()
    assert "starting" in window.reason.text()

    croupier = User("carol", "croupier")
    with open_store(str(tmp_path / "t.sqlite"), table="T9") as store:
        service = TableService(store, "T9", rng=SeededRng(4), allow_seeded_rng=True, claim=False)
        loop.run_until_complete(service.start())
        loop.run_until_complete(service.open_bets(croupier))
        loop.run_until_complete(service.place_wager(croupier, "anna", inside_bet([8]), Decimal(5)))
        loop.run_until_complete(service.no_more_bets(croupier))
        model.attach(service, croupier)
        draw = model.snapshot().draw
        assert draw is not None
        assert window.phase is Phase.CLOSED and window.phase_label.text() == "NO MORE BETS"
        assert window.felt.lucky == dict(draw.lucky) and len(window.wagers) == 1
        loop.run_until_complete(service.wheel_event({"type": "result", "game": None, "number": 8}))
        assert window.action.text() == "Confirm 8"
        qtbot.mouseClick(window.action, Qt.MouseButton.LeftButton)
        while model.tasks:
            loop.run_until_complete(asyncio.gather(*list(model.tasks)))
        assert model.phase is Phase.RESULT and window.felt.result == 8
        loop.run_until_complete(model.shutdown())


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
