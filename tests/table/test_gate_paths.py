"""Every path passes the gate (issue 23, "one gate"): the headless run refuses a program other than the
approved one in one line, and the pit boss's commands approve a digest and clear a tilt, journaled."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.auth import User
from engine.entry_types import EntryType as E
from engine.journal_types import read
from engine.software_id import running_digest
from engine.store import open_store
from engine.store.users import add_user
from engine.table.gate_actions import clear_tilt
from engine.table_events import SoftwareApproved, TiltCleared
from gui.cli import main
from tests.rng.test_health import Stuck
from tests.table.helpers import CROUPIER, drr_env, make_service

ROOT = Path(__file__).resolve().parents[2]


def test_the_headless_run_refuses_a_program_that_is_not_the_approved_one(tmp_path: Path) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text(f'[software]\napproved_digest = "{"0" * 64}"\n', encoding="utf-8")
    db = tmp_path / "t.sqlite"
    run = ["table", "run", "--headless", "--wheel", "sim", "--speed", "50", "--rounds", "1"]
    r = subprocess.run(
        [sys.executable, "-m", "gui.cli", *run, "--db", str(db), "--table", "T1"],
        capture_output=True,
        text=True,
        env=drr_env(tmp_path, DRR_CONFIG=str(settings)),
        cwd=ROOT,
        timeout=120,
    )
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("drr: table T1 is tilted: software not approved")
    with open_store(str(db), table="T1") as store:
        kinds = [e.type for e in store.journal.entries("T1")]
    assert E.TABLE_TILTED in kinds and E.ROUND_OPENED not in kinds


def _pit(store_path: Path) -> None:
    with open_store(str(store_path), table="T1") as store:
        add_user(store, "ada", "admin", "111111", by=None)
        add_user(store, "pat", "pitboss", "246810", by=User("ada", "admin"))
        add_user(store, "cody", "croupier", "1357", by=User("ada", "admin"))


def test_a_pit_boss_approves_the_running_digest_into_the_settings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "t.sqlite"
    _pit(db)
    settings = tmp_path / "settings.toml"
    settings.write_text('[table]\nid = "T1"\n', encoding="utf-8")
    monkeypatch.setenv("DRR_CONFIG", str(settings))
    common = ["--db", str(db), "--table", "T1", "--reason", "lab letter 23/4"]
    assert main(["pitboss", "approve-software", *common, "--user", "cody", "--pin", "1357"]) == 3
    assert main(["pitboss", "approve-software", *common, "--user", "pat", "--pin", "246810"]) == 0
    assert running_digest() in capsys.readouterr().out
    assert f'approved_digest = "{running_digest()}"' in settings.read_text(encoding="utf-8")
    with open_store(str(db), table="T1") as store:
        (approved,) = [read(e) for e in store.journal.entries("T1") if e.type == E.TABLE_SOFTWARE_APPROVED]
    assert isinstance(approved, SoftwareApproved)
    assert (approved.digest, approved.by, approved.previous) == (running_digest(), "pat", None)


def test_a_pit_boss_clears_an_rng_tilt_from_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with open_store(str(db), table="T1") as store:

        async def tilt() -> None:
            svc = make_service(store)
            svc.rng.inner = Stuck()  # the start-up test fails: tilted before any draw
            await svc.start()
            await svc.close()

        asyncio.run(tilt())
    _pit(db)
    args = ["pitboss", "clear-tilt", "--db", str(db), "--table", "T1", "--reason", "source replaced"]
    assert main([*args, "--user", "pat", "--pin", "246810"]) == 0
    with open_store(str(db), table="T1") as store:
        (cleared,) = [read(e) for e in store.journal.entries("T1") if e.type == E.TABLE_TILT_CLEARED]
        assert isinstance(cleared, TiltCleared) and cleared.by == "pat"
        assert cleared.health_test is not None and cleared.health_test.passed

        async def play() -> None:
            svc = make_service(store)
            await svc.start()
            await svc.open_bets(CROUPIER)  # the gate lets it open now
            await svc.close()

        asyncio.run(play())
        from engine.errors import DrrError

        with pytest.raises(DrrError, match="not tilted"):
            clear_tilt(store, "T1", "again", User("pat", "pitboss"))
    assert os.path.exists(db)


def test_the_pit_boss_and_surveillance_line_says_the_table_is_tilted(tmp_path: Path) -> None:
    from engine.floor.started import started_text

    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:

        async def tilt(source: object | None) -> None:
            svc = make_service(store)
            if source is not None:
                svc.rng.inner = source  # type: ignore[assignment]
            await svc.start()
            await svc.close()

        asyncio.run(tilt(None))
        assert not started_text(store, "T1").startswith("TILTED")
        asyncio.run(tilt(Stuck()))
        line = started_text(store, "T1")
        assert line.startswith("TILTED, play stopped — RNG fault: repetition count test failed. ")
        asyncio.run(tilt(None))  # a restart does not clear it
        assert started_text(store, "T1").startswith("TILTED")
        clear_tilt(store, "T1", "source replaced", User("pat", "pitboss"))
        assert not started_text(store, "T1").startswith("TILTED")
