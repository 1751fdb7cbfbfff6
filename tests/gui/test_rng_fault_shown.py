"""The croupier station shows an RNG fault: a generator failing its continuous health test stops play,
and the window says so in red until the table service restarts (issue 14, item 3)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.entry_types import EntryType as E
from engine.round import Phase
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables, entries, service_of
from tests.rng.test_health import Stuck

PLAYERS = ("Anna", "Bob")
LINE = "RNG fault: repetition count test failed — play stopped, call the pit boss / technician"


def test_the_croupier_window_shows_an_rng_fault_and_keeps_it(qtbot: QtBot, tables: LiveTables) -> None:
    table = tables.start(seed=57, players=PLAYERS)
    window = CroupierWindow(table, PLAYERS)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.do_next_action()  # open bets
    tables.run()
    assert window.phase is Phase.OPEN
    svc = service_of(table)
    svc.rng.inner = Stuck()  # the source died: every value 0
    for _ in range(8):  # 40 bits of repeats already seen: the draw's first value fails the test
        svc.rng.randbelow(37)
    window.do_next_action()  # no more bets: the draw is refused, the fault journaled
    tables.run()
    assert len(entries(table, E.RNG_FAULT.value)) == 1
    assert window.reason.text() == LINE
    assert window.phase_label.text() == "RNG FAULT"
    assert window.action.text() == "Play stopped" and not window.action.isEnabled()
    # It stays: another try is refused with the same line, the view (a screen attaching) has it too.
    window.do_next_action()
    table.no_more_bets()
    tables.run()
    assert window.reason.text() == LINE
    assert len(entries(table, E.RNG_FAULT.value)) == 1
    table.refresh()
    assert table.snapshot().hold == LINE and table.snapshot().stopped
    assert window.reason.text() == LINE
    assert CroupierWindow(table, PLAYERS).next_action() == ("Play stopped", False, LINE)
