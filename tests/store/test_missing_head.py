"""Issue 13 (7): a chain whose head row was removed with plain SQL gives one line, no traceback, to
`drr audit verify` and every other reader and writer — not only at the table's start."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.errors import DrrError
from engine.store import open_store
from engine.store.users import add_user, authenticate
from engine.table.follower import JournalFollower
from gui.cli import main
from tests.store.helpers import play_round

ONE_LINE = "the chain head row is missing"


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "t.sqlite")
    with open_store(path, table="T2", migrate=True) as store:
        play_round(store, "T2", "T2-000001", 9, paid="18.00", time="2026-12-01T10:00:00.000000Z")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DELETE FROM chain_heads WHERE table_id = 'T2'")
    conn.close()
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["audit", "verify"],
        ["history", "list"],
        ["history", "show", "T2-000001"],
        ["history", "export"],
        ["stats"],
        ["stats", "--table", "T2"],  # was "no table T2 … (tables: none)"
        ["report", "--table", "T2", "--day", "2026-12-01"],
        ["alerts", "list"],
        ["alerts", "scan"],
        ["users", "list"],
        ["db", "rebuild"],
        ["db", "rotate-key", "--table", "T2", "--user", "ada"],
        [
            "pitboss",
            "settings",
            "max_bet=50",
            "--table",
            "T2",
            "--reason",
            "x",
            "--user",
            "a",
            "--pin",
            "111111",
        ],
    ],
)
def test_every_command_names_the_missing_head_row_in_one_line(
    db: str, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, "--db", db]) != 0
    err = capsys.readouterr().err
    assert ONE_LINE in err and "table T2" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_writer_is_refused_in_one_line_not_an_integrity_error(db: str) -> None:
    # Was sqlite3.IntegrityError: the next entry took number 1 again.
    with open_store(db, table="T2") as store:
        with pytest.raises(DrrError, match=ONE_LINE):
            store.journal.append("T2", "round.voided", {"reason": "x"}, round_id="T2-000001", user="pat")
        add_user(store, "ada", "admin", "111111", by=None)  # another chain is written as ever
        assert authenticate(store, "ada", "111111").role == "admin"


def test_a_follower_display_names_it_in_one_line(db: str) -> None:
    with open_store(db, table="T2") as store, pytest.raises(DrrError, match=ONE_LINE):
        JournalFollower(store, "T2")


@pytest.mark.parametrize("station", ["surveillance", "pitboss"])
def test_the_floor_stations_name_it_in_one_line(db: str, station: str) -> None:
    # Was: the table was left out of the station's list (its tables are read from the head rows).
    from gui.floor.station import run_floor_station

    with pytest.raises(DrrError, match=ONE_LINE):
        run_floor_station(station, db, "T2")
