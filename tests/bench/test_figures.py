"""The benchmarks' figures (bench/) at tiny sizes: the settle figures the issue names, the big table."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import settle_figures as bench


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
    from bench.store_figures import fill_big_table
    from engine.store import open_store
    from engine.store.history import RoundFilter, list_rounds

    store = open_store(str(tmp_path / "big.sqlite"), table="BIG")
    fill_big_table(store, "BIG", rounds=50)
    assert len(list(list_rounds(store, RoundFilter(table="BIG"), limit=100))) == 50
