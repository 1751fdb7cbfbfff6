"""Issue 13 item 6: on a store that has users, headless play and the read commands need a user and
PIN of a role that may do them; a seeded generator is refused on such a store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.store import open_store
from engine.store.users import add_user, authenticate
from gui.cli import main
from tests.store.helpers import play_round


@pytest.fixture
def db(tmp_path: Path, monkeypatch: Any) -> str:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("DRR_CONFIG", raising=False)
    path = str(tmp_path / "t.sqlite")
    with open_store(path, table="T1", migrate=True) as store:
        add_user(store, "ada", "admin", "111111", by=None)
        ada = authenticate(store, "ada", "111111")
        add_user(store, "pat", "pitboss", "222222", by=ada)
        add_user(store, "cid", "croupier", "3333", by=ada)
        add_user(store, "sue", "surveillance", "4444", by=ada)
        play_round(store, "T1", "T1-000001", 9, paid="18.00")
    return path


def _run(db: str, *extra: str) -> list[str]:
    return [
        "table",
        "run",
        "--headless",
        "--db",
        db,
        "--table",
        "T2",
        "--wheel",
        "sim",
        "--speed",
        "200",
        *extra,
    ]


def test_headless_on_a_store_with_users_needs_a_pit_boss(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_run(db, "--rounds", "1")) == 3
    assert "needs --user" in capsys.readouterr().err
    assert main(_run(db, "--rounds", "1", "--seed", "42", "--user", "pat", "--pin", "222222")) == 1
    assert "--seed is refused" in capsys.readouterr().err
    assert main(_run(db, "--rounds", "1", "--user", "cid", "--pin", "3333")) == 3
    assert main(_run(db, "--rounds", "1", "--user", "pat", "--pin", "9999")) == 3
    assert main(_run(db, "--rounds", "1", "--user", "pat", "--pin", "222222")) == 0
    with open_store(db, table="T1") as store:
        entries = list(store.journal.entries("T2"))
    users = {e.user for e in entries if e.type.startswith("round.")}
    assert "pat" in users and not any(u and u.startswith("headless") for u in users)
    assert not any("seeded" in str(e.payload) for e in entries if e.type.startswith("table."))


@pytest.mark.parametrize(
    "command",
    [
        ["history", "list"],
        ["history", "show", "T1-000001"],
        ["history", "export"],
        ["stats"],
        ["report", "--table", "T1", "--day", "2026-12-01"],
    ],
)
def test_read_commands_on_a_store_with_users_need_a_reader(
    db: str, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*command, "--db", db]
    assert main(args) == 3
    assert "needs --user" in capsys.readouterr().err
    assert main([*args, "--user", "sue", "--pin", "0000"]) == 3  # wrong PIN
    assert main([*args, "--user", "cid", "--pin", "3333"]) == 3  # a croupier may not read history
    capsys.readouterr()
    assert main([*args, "--user", "sue", "--pin", "4444"]) == 0  # surveillance may


def test_a_missing_chain_head_row_is_a_one_line_refusal_at_start(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 13 item 7: was sqlite3.IntegrityError (the next entry reused number 1) with a traceback.
    import sqlalchemy as sa

    args = _run(db, "--rounds", "1", "--user", "pat", "--pin", "222222")
    assert main(args) == 0
    with open_store(db, table="T2") as store, store.begin() as conn:
        conn.execute(sa.text("DELETE FROM chain_heads WHERE table_id = 'T2'"))
    capsys.readouterr()
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "chain head row is missing" in err and "Traceback" not in err
