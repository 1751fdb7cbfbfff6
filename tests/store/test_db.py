"""Opening stores: URLs, migrations, clear errors for bad files and servers, one owner per table file."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.errors import DrrError
from engine.store import open_store
from engine.store.db import resolve_url
from gui.cli import main


def test_unknown_scheme_is_refused_by_name() -> None:
    with pytest.raises(DrrError, match="unknown --db scheme 'mysql'"):
        resolve_url("mysql://u:secret@host/db")


def test_postgres_urls_use_psycopg3() -> None:
    assert resolve_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"


def test_reading_a_missing_store_says_how_to_create_it(tmp_path: Path) -> None:
    with pytest.raises(DrrError, match="drr db upgrade"):
        open_store(str(tmp_path / "nope.sqlite"), migrate=False)


def test_corrupt_file_gives_a_clear_message_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "bad.sqlite"
    garbage = b"this is not a database\n" * 200
    path.write_bytes(garbage)
    with pytest.raises(DrrError, match="not a readable store"):
        open_store(str(path))
    assert path.read_bytes() == garbage


def test_unreachable_server_is_named() -> None:
    with pytest.raises(DrrError, match="cannot reach the database postgresql"):
        open_store("postgresql://nobody@127.0.0.1:1/none")


def test_db_upgrade_then_audit_verify_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'x.sqlite'}"
    assert main(["db", "upgrade", "--db", db]) == 0
    assert "upgraded from empty" in capsys.readouterr().out
    assert main(["db", "upgrade", "--db", db]) == 0
    assert "is current" in capsys.readouterr().out
    with open_store(db) as store:
        store.journal.append("T9", "tick", {}, round_id="R1", user=None)
        head = store.journal.head("T9")
    assert head is not None
    assert main(["audit", "verify", "--db", db]) == 0
    assert capsys.readouterr().out.strip() == f"OK: 1 events, 1 rounds, head {head[1]}"


def test_sqlite_pragmas_are_durable(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "p.sqlite")) as store, store.begin() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL


def test_second_process_on_a_table_file_is_refused_naming_the_owner(tmp_path: Path) -> None:
    path = tmp_path / "owned.sqlite"
    with open_store(str(path)) as store:
        store.claim("T1", station="croupier")
        code = textwrap.dedent(
            f"""
            from engine.errors import DrrError
            from engine.store import open_store
            s = open_store({str(path)!r})
            try:
                s.claim("T1", station="table")
            except DrrError as e:
                print(e.message)
            else:
                print("CLAIMED")
            """
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        import os

        assert "already in use by croupier" in out.stdout and f"pid {os.getpid()}" in out.stdout, out
    # The owner closed: the next process gets the table.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "CLAIMED" in out.stdout, out


def test_claim_dies_with_the_process(tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite"
    open_store(str(path)).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sys,time\nfrom engine.store import open_store\ns=open_store({str(path)!r})\n"
            "s.claim('T1')\nprint('held', flush=True)\ntime.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    with open_store(str(path)) as store:
        with pytest.raises(DrrError, match=f"pid {holder.pid}"):
            store.claim("T1")
        holder.kill()
        holder.wait()
        holder.stdout.close()
        store.claim("T1")  # the OS lock went with the killed process
