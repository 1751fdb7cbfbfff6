"""Plain `drr` (the headless demo while no GUI exists) and the engine benchmark's figures."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine import bench
from engine.cli.demo_cmd import run_default
from engine.entry_types import EntryType as E


def test_demo_plays_and_settles_a_round(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_default(None) == 0
    out = capsys.readouterr().out
    assert "Lucky Numbers:" in out and "Bonus Number:" in out
    lines = re.findall(r"^  (w\d+) .* (lucky|bonus|base|lose) .* (\d+\.\d\d)$", out, re.MULTILINE)
    assert [w for w, _, _ in lines] == [f"w{i}" for i in range(1, 14)]
    paid = sum((Decimal(p) for _, _, p in lines), Decimal(0))
    assert f"paid {paid} " in out


def test_the_demo_round_is_played_through_the_table_service(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No second copy of the game: the demo's round is the table service's, journaled entry by entry."""
    from engine.table.service import TableService

    written: list[str] = []
    commit = TableService._commit

    def spy(self: TableService, user: str | None, events: list[Any]) -> Any:
        entries = commit(self, user, events)
        written.extend(e.type for e in entries)
        return entries

    monkeypatch.setattr(TableService, "_commit", spy)
    assert run_default(None) == 0
    capsys.readouterr()
    assert written[:2] == [E.TABLE_STARTED, E.TABLE_RULES_LOADED]
    assert written.count(E.ROUND_WAGER_PLACED) == 13
    for kind in (E.ROUND_OPENED, E.ROUND_BETS_CLOSED, E.WHEEL_RESULT, E.ROUND_RESULT, E.ROUND_SETTLED):
        assert kind in written, kind


def test_bench_reports_the_issue_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "WAGERS", 500)
    monkeypatch.setattr(bench, "REPEATS", 1)
    figures = bench.BENCHMARKS["settle"]()
    assert set(figures) == {
        "settle_wagers_per_s",
        "settle_vs_baseline",
        "settle_vs_baseline_gc_running",
        "settle_with_records_vs_baseline",
        "settle_vs_summing_baseline",
    }
    assert all(v > 0 for v in figures.values())


def test_the_big_table_of_the_store_benchmarks_fits_the_schema(tmp_path: Path) -> None:
    """`drr bench` failed with KeyError 'rules_sha256' once a migration added a rounds column: the
    synthetic rounds must fill every column of today's schema."""
    from engine.store import open_store
    from engine.store.bench import fill_big_table
    from engine.store.history import RoundFilter, list_rounds

    store = open_store(str(tmp_path / "big.sqlite"), table="BIG")
    fill_big_table(store, "BIG", rounds=50)
    assert len(list(list_rounds(store, RoundFilter(table="BIG"), limit=100))) == 50
