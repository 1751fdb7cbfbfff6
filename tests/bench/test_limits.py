"""The limits the benchmarks measure beside each figure (bench.limits, issue 28), at tiny sizes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bench.limits import (
    FRAME_MS,
    RATIOS,
    Spread,
    bare_select_rows_per_s,
    fsync_commits_per_s,
    hash_rows_per_s,
    interleaved,
    summary,
    vs_limit,
)


def test_a_spread_reports_the_median_never_the_best() -> None:
    spread = Spread.of([5.0, 1.0, 3.0])
    assert spread.figures("x") == {"x": 3.0, "x_min": 1.0, "x_max": 5.0}
    with pytest.raises(ValueError):
        Spread.of([])


def test_the_ratio_is_program_time_over_limit_time() -> None:
    # 1,000 appends a second against a disk that commits 4,000: each append takes 4 commits' time.
    assert vs_limit(1000.0, 4000.0, rate=True) == 4.0
    # 33.4 ms to the screen against one 16.7 ms frame: two frames.
    assert vs_limit(2 * FRAME_MS, FRAME_MS, rate=False) == 2.0
    with pytest.raises(ValueError):
        vs_limit(0.0, 1.0, rate=True)


def test_program_and_limit_runs_alternate() -> None:
    order: list[str] = []

    def program() -> float:
        order.append("program")
        return float(len(order))

    def limit() -> float:
        order.append("limit")
        return float(len(order))

    mine, bound = interleaved(program, limit, 3)
    assert order == ["limit", "program"] * 3
    assert mine.samples == (2.0, 4.0, 6.0) and bound.samples == (1.0, 3.0, 5.0)


def test_the_fsync_limit_commits_every_insert(tmp_path: Path) -> None:
    rate = fsync_commits_per_s(tmp_path, 20)
    assert rate > 0
    conn = sqlite3.connect(tmp_path / "fsync-limit.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT count(*), min(length(payload)) FROM t").fetchone() == (20, 350)
    conn.close()
    # A second repetition starts from an empty file, not on top of the first.
    fsync_commits_per_s(tmp_path, 5)
    conn = sqlite3.connect(tmp_path / "fsync-limit.sqlite")
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 5
    conn.close()


def test_the_read_limits_read_every_entry_of_the_table(tmp_path: Path) -> None:
    from bench.chain_figures import REBUILD_COLUMNS, VERIFY_COLUMNS
    from engine.journal_types import write
    from engine.round import RoundOpened
    from engine.store import open_store

    path = tmp_path / "j.sqlite"
    with open_store(str(path)) as store:
        store.journal.append_many(
            [
                write(RoundOpened(f"r{i}", "0" * 64), table="L1", round_id=f"r{i}", user="dana")
                for i in range(30)
            ]
        )
    # The columns the limits name are the journal's: a renamed column would make the limit fail here.
    assert bare_select_rows_per_s(path, VERIFY_COLUMNS, "L1") > 0
    assert bare_select_rows_per_s(path, REBUILD_COLUMNS, "L1") > 0
    assert hash_rows_per_s(path, "L1") > 0
    with pytest.raises(sqlite3.OperationalError):
        bare_select_rows_per_s(path, ("no_such_column",), "L1")


def test_the_summary_marks_a_missed_goal_and_skips_ratios_not_measured() -> None:
    figures = {
        "journal_appends_signed_per_s": 1000.0,
        "limit_fsync_commits_per_s": 4000.0,
        "appends_vs_limit": 4.0,
        "sensor_to_screen_ms_p99": 10.0,
        "sensor_to_screen_vs_limit": 0.6,
    }
    lines = summary(figures)
    assert len(lines) == 3
    assert lines[1].startswith("appends_vs_limit") and lines[1].endswith("(goal missed)")
    assert lines[2].startswith("sensor_to_screen_vs_limit") and "goal missed" not in lines[2]
    assert set(RATIOS) >= {"appends_vs_limit", "verify_vs_limit", "rebuild_vs_limit", "first_frame_vs_limit"}
