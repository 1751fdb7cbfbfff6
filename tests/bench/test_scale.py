"""`python -m bench --scale` end to end at tiny sizes: the registered groups run, the figures come out as
JSON on stdout and in the --out file, the bar on stderr; and the long synthetic journal verifies."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench import scale as bench_scale
from bench.cli import main
from bench.scale import ScaleContext, register
from tests.pg_schema import PG_URL


def test_the_scale_bench_runs_end_to_end_at_tiny_sizes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scale.json"
    only = ["--only", "store_rebuild", "--only", "store_history"]
    assert main(["--scale", "--tiny", "--json", "--out", str(out), *only]) == 0
    printed = capsys.readouterr()
    figures = json.loads(printed.out)
    assert figures == json.loads(out.read_text(encoding="utf-8"))
    for name in ("rebuild_entries_per_s", "db_rebuild_command_entries_per_s", "history_page_ms_at_1M_rounds"):
        assert figures[name] > 0
    pages = {k: v for k, v in figures.items() if k.startswith("history_page_ms.")}
    assert len(pages) == 5 * 2 * 32  # every sort, both ways, every filter and the table with each
    assert figures["history_page_ms_at_1M_rounds"] == max(pages.values())
    assert "100%" in printed.err  # the progress bar


def test_the_chain_group_measures_the_verify_and_the_whole_audit_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The chain group at tiny sizes: the full verify, the whole `drr audit verify` (the derived
    tables' check included), the incremental verify and the table's start, each measured."""
    assert main(["--scale", "--tiny", "--json", "--only", "chain"]) == 0
    figures = json.loads(capsys.readouterr().out)
    for name in (
        "audit_verify_entries_per_s",
        "audit_verify_command_entries_per_s",
        "audit_verify_incremental_ms",
        "table_start_ms_at_5M_entries",
    ):
        assert figures[name] > 0, name
    assert figures["chain_entries"] >= 3_000


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.skipif(PG_URL is None, reason="needs DRR_TEST_PG_URL (a real PostgreSQL)")
def test_the_floor_groups_run_end_to_end_on_postgresql(capsys: pytest.CaptureFixture[str]) -> None:
    """floor_forward (a table forwarded into PostgreSQL, then the floor's copy verified) and floor_live
    (tables playing, forwarded as they commit, the surveillance station in its own process woken by
    LISTEN/NOTIFY) at tiny sizes: every figure comes out, and every commit reached the station's wall."""
    assert PG_URL is not None
    only = ["--only", "floor_forward", "--only", "floor_audit", "--only", "floor_live"]
    assert main(["--scale", "--tiny", "--json", "--pg", PG_URL, *only]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["floor_forward_entries_per_s"] > 0
    assert figures["audit_verify_entries_per_s_pg"] > 0
    assert figures["audit_verify_command_entries_per_s_pg"] > 0
    assert figures["floor_audit_entries_per_s_one_by_one"] > 0
    assert figures["floor_audit_entries_per_s_side_by_side"] > 0
    assert figures["floor_live_commits"] > 0
    assert figures["floor_wall_refresh_ms_at_100_tables"] > 0
    assert 0 < figures["floor_cpu_per_table_pct"] < 100
    # a commit that never reached its tile counts as infinitely late
    assert math.isfinite(figures["floor_commit_to_screen_ms_p99"])
    assert math.isfinite(figures["floor_commit_to_floor_ms_p99"])


def test_a_scale_group_gets_the_shared_long_journal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group as another engineer registers one: its journal is real (drr audit verify accepts it)."""
    monkeypatch.setattr(bench_scale, "_GROUPS", dict(bench_scale._GROUPS))  # registered for this test only
    from bench.synthetic import append_rounds
    from engine.store import open_store
    from engine.store.verify import verify

    def group(ctx: ScaleContext) -> dict[str, float]:
        journal = ctx.long_journal()
        assert journal.entries >= ctx.journal_entries and journal.rounds > 50
        mine = ctx.copy_journal(journal, "mine")
        with open_store(mine.url, table=mine.table) as store:
            assert verify(store, mine.table).ok
            added = append_rounds(store, mine.table, 100)
            report = verify(store, mine.table)
            assert report.ok, report.problem
            assert report.events == journal.entries + added
        ctx.progress(1.0, "done")
        return {"test_long_journal_entries": float(journal.entries)}

    register("test_long_journal", group, weight=1, goals={"test_long_journal_entries": (">=", 1)})
    assert main(["--scale", "--tiny", "--only", "test_long_journal"]) == 0
    line = next(
        ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("test_long_journal_entries")
    )
    assert "holds" in line


def test_a_goal_is_at_least_or_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_scale, "_GROUPS", dict(bench_scale._GROUPS))
    with pytest.raises(ValueError, match="'>=' or '<='"):
        register("test_bad_goal", lambda ctx: {}, goals={"x": ("==", 1)})


def test_a_fractional_goal_is_printed_as_written(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """floor_cpu_per_table_pct's goal of 0.5 was printed "goal ≤ 0" in the summary table."""
    monkeypatch.setattr(bench_scale, "_GROUPS", dict(bench_scale._GROUPS))
    register(
        "test_goals",
        lambda ctx: {"test_cpu_pct": 0.6, "test_rate": 250_000.0, "test_ms": 12.5},
        weight=1,
        goals={"test_cpu_pct": ("<=", 0.5), "test_rate": (">=", 300_000), "test_ms": ("<=", 12.75)},
    )
    assert main(["--scale", "--tiny", "--only", "test_goals"]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("test_")}
    assert lines["test_cpu_pct"].endswith("goal ≤ 0.5  MISSED")
    assert lines["test_rate"].endswith("goal ≥ 300,000  MISSED")
    assert lines["test_ms"].endswith("goal ≤ 12.75  holds")


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.skipif(PG_URL is None, reason="needs DRR_TEST_PG_URL (a real PostgreSQL)")
def test_the_live_floor_sees_every_commit_on_a_wall_larger_than_the_screen(tmp_path: Path) -> None:
    """More tiles than a 1900x1200 window shows, 20 tables as `python -m bench --only floor` plays: a
    tile out of view, or a view that changes nothing it draws, gets no paint from Qt, so waiting for
    one counted its commits as never on screen (the group's p99 was infinite, issue 28). Now every
    commit is on screen by the run's end, every tile is in view, and the p99s are finite."""
    from bench.scale_floor import bench_live

    assert PG_URL is not None
    ctx = ScaleContext(tmp_path, floor_tables=20, floor_rounds=400, pg_url=PG_URL, live_seconds=4.0)
    figures = bench_live(ctx)
    assert figures["floor_live_commits"] > 20
    assert figures["floor_commits_not_shown"] == 0
    assert figures["floor_tiles_on_view"] == 20
    assert math.isfinite(figures["floor_commit_to_screen_ms_p99"])
    assert math.isfinite(figures["floor_floor_to_screen_ms_p99"])
