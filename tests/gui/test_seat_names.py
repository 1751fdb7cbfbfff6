"""Seat names kept between runs of the croupier station: saved when the croupier names a seat,
read back at the next start, and a bad file never stops the station."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from gui.seat_names import load_seats, save_seats
from gui.windows.croupier import CroupierWindow
from tests.gui.live import LiveTables

PLAIN = ("Seat 1", "Seat 2", "Seat 3")


def test_a_named_seat_is_there_at_the_next_start(qtbot: QtBot, tables: LiveTables, tmp_path: Path) -> None:
    path = tmp_path / "seats-T1.json"
    window = CroupierWindow(tables.start(seed=1, players=PLAIN, table_id="T1"), PLAIN)
    qtbot.addWidget(window)
    window.seatsChanged.connect(lambda names: save_seats("T1", names, path))
    assert window.rename_seat("Seat 2", "Zoë")
    assert load_seats("T1", PLAIN, path) == ("Seat 1", "Zoë", "Seat 3")
    again = CroupierWindow(tables.start(seed=1, players=PLAIN, table_id="T1"), load_seats("T1", PLAIN, path))
    qtbot.addWidget(again)
    assert again.players == ("Seat 1", "Zoë", "Seat 3") and "Zoë" in again.player_buttons


def test_a_missing_or_odd_file_gives_the_plain_names(tmp_path: Path) -> None:
    path = tmp_path / "seats-T1.json"
    assert load_seats("T1", PLAIN, path) == PLAIN
    for text in ("not json", '{"a": 1}', '["A", "B"]', '["A", "A", "B"]', '["A", "", "B"]', '["A", 3, "B"]'):
        path.write_text(text, encoding="utf-8")
        assert load_seats("T1", PLAIN, path) == PLAIN, text
    assert save_seats("T1", PLAIN, tmp_path / "new" / "seats.json")  # its folder made on demand
    assert load_seats("T1", ("a", "b", "c"), tmp_path / "new" / "seats.json") == PLAIN
    (tmp_path / "blocked").write_text("a file, not a folder", encoding="utf-8")
    assert save_seats("T1", PLAIN, tmp_path / "blocked" / "seats.json") is False
