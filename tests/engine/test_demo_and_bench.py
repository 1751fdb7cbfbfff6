"""Plain `drr` (the headless demo while no GUI exists) and the engine benchmark's figures."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from engine import bench
from engine.cli.demo_cmd import run_default


def test_demo_plays_and_settles_a_round(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_default(None) == 0
    out = capsys.readouterr().out
    assert "Lucky Numbers:" in out and "Bonus Number:" in out
    lines = re.findall(r"^  (w\d+) .* (lucky|bonus|base|lose) .* (\d+\.\d\d)$", out, re.MULTILINE)
    assert [w for w, _, _ in lines] == [f"w{i}" for i in range(1, 14)]
    paid = sum((Decimal(p) for _, _, p in lines), Decimal(0))
    assert f"paid {paid} " in out


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
