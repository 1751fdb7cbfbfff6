"""Every path reads the sequential bias thresholds from the one settings file, in one place
(engine.config.Settings.bias_thresholds, issue 27): the croupier station's table service, the
surveillance chart, `drr history import` and `drr stats` (`drr table run` passes them the same way)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from engine.auth import User
from engine.config import bias_thresholds, load_settings
from engine.sequential import DEFAULT_THRESHOLDS, Thresholds
from engine.store import open_store
from gui.cli import main

LOW = Thresholds(pocket=2.0, sector=2.5, direction=3.0, runs=2.2)  # none of them a default


def _settings_file(tmp_path: Path) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(
        "[thresholds]\n"
        f"sequential_pocket = {LOW.pocket}\nsequential_sector = {LOW.sector}\n"
        f"sequential_direction = {LOW.direction}\nsequential_runs = {LOW.runs}\n",
        encoding="utf-8",
    )
    return path


def test_the_settings_file_gives_the_thresholds(tmp_path: Path) -> None:
    settings = load_settings(_settings_file(tmp_path))
    assert settings.bias_thresholds == bias_thresholds(settings) == LOW != DEFAULT_THRESHOLDS
    assert bias_thresholds(None) == DEFAULT_THRESHOLDS


def test_the_croupier_stations_table_watches_with_the_settings_thresholds(tmp_path: Path) -> None:
    """The croupier station started its table service on the default thresholds, whatever the file said."""
    from gui.app import UNSET_USER, _start_table

    settings = load_settings(_settings_file(tmp_path))

    class Station:
        service: Any = None

        def attach(self, service: Any, user: Any, authenticate: Any) -> None:
            self.service = service

    station = Station()
    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:

        async def go() -> None:
            await _start_table(station, store, User(*UNSET_USER), None, "T1", settings=settings)
            await station.service.close()

        asyncio.run(go())
    assert station.service.bias_watch.thresholds == LOW


def test_the_surveillance_chart_follows_the_settings_thresholds(tmp_path: Path, qtbot: Any) -> None:
    from gui.floor.station import surveillance_window

    settings = load_settings(_settings_file(tmp_path))
    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:
        window = surveillance_window(store, None, settings)
        qtbot.addWidget(window)
        assert window.bias_of("T1") is not None
        assert window.bias_traces["T1"].thresholds == LOW


def test_history_import_and_stats_read_the_settings_thresholds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Eight spins of 17: nothing at the defaults (16 nats and more), alarms at the file's 2 nats, in
    the import's journal and in `drr stats --json`, each with the file's threshold."""
    monkeypatch.setenv("DRR_CONFIG", str(_settings_file(tmp_path)))
    csv = tmp_path / "spins.csv"
    csv.write_text("timestamp,number\n" + "".join(f"2026-11-01T00:0{i}:00Z,17\n" for i in range(8)), "utf-8")
    db = str(tmp_path / "t.sqlite")
    assert main(["history", "import", str(csv), "--db", db, "--table", "T1"]) == 0
    printed = capsys.readouterr().out
    assert "bias alarm: pocket 17" in printed and "bias alarm: repeats" in printed
    with open_store(db, table="T1") as store:
        journaled = [
            json.loads(e.payload_text) for e in store.journal.entries("T1") if e.type == "table.bias_alarm"
        ]
    assert {a["test"] for a in journaled} >= {"pocket", "runs"}
    assert main(["stats", "--db", db, "--table", "T1", "--json"]) == 0
    sequential = json.loads(capsys.readouterr().out)["sequential"]
    limits = {a["test"]: a["threshold"] for a in sequential["alarms"]}
    assert LOW.pocket <= limits["pocket"] < LOW.pocket * 1.05 and LOW.runs <= limits["runs"] < LOW.runs * 1.05
    assert {a["test"]: a["threshold"] for a in journaled} == limits
