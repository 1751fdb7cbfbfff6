"""The headless soak beside the disk's limit (`python -m bench --only soak`, issue 28).

`soak_entries_per_s`: journal entries per second written by `drr table run --headless` (a fresh
process on a scratch SQLite journal, the virtual wheel at `--speed SPEED`, synthetic croupier, pit
boss and players, SOAK_ROUNDS rounds), counted from the journal itself: its entries over the time
between the first and the last entry's timestamps (the process's start-up is not the soak's rate).
The fsync limit's runs (`soak_limit_fsync_commits_per_s`, bench.limits) are alternated with the
soak's in the same folder; `soak_entries_vs_limit` is the soak's time per entry over the limit's
(goal <= 4). Median of REPEATS runs, `_min` and `_max` beside it.

`soak_rss_kb_per_1000_rounds` (group `soak_memory`, goal <= 50): how the resident memory of one
long headless soak grows, read from /proc at every round it prints, as the least-squares slope
from round RSS_WARM_ROUNDS (imports, caches and the first rounds' allocations settled) to its last
round, per 1,000 rounds; `soak_rss_kb_start` and `soak_rss_kb_end` beside it. The issue's
measurement is over 10,000 rounds (`DRR_BENCH_SOAK_ROUNDS=10000`, about an hour on the shared
machine); the group runs RSS_ROUNDS unless told.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from bench.limits import fsync_commits_per_s, interleaved, vs_limit

SOAK_ROUNDS = 20
SPEED = 1000
REPEATS = 3
LIMIT_COMMITS = 600
RSS_ROUNDS = 2000
RSS_WARM_ROUNDS = 200


def _soak_entries_per_s(directory: Path, run: int) -> float:
    db = directory / f"soak-{run}.sqlite"
    env = dict(os.environ, DRR_KEY_DIR=str(directory / f"keys-{run}"))
    proc = subprocess.run(
        [
            sys.executable, "-m", "gui.cli", "table", "run", "--headless", "--db", str(db), "--table", "S1",
            "--rounds", str(SOAK_ROUNDS), "--speed", str(SPEED), "--seed", str(run + 1),
        ],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"the headless soak failed: {proc.stderr.strip()[-400:]}")
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        count, first, last = conn.execute(
            "SELECT count(*), min(time), max(time) FROM journal WHERE table_id = 'S1'"
        ).fetchone()
    finally:
        conn.close()
    span = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    if count < 2 or span <= 0:
        raise RuntimeError(f"the headless soak wrote {count} entries")
    return (count - 1) / span


def bench_soak() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="drr-soak-") as tmp:
        directory = Path(tmp)
        runs = iter(range(REPEATS))
        soak, limit = interleaved(
            lambda: _soak_entries_per_s(directory, next(runs)),
            lambda: fsync_commits_per_s(directory, LIMIT_COMMITS),
            REPEATS,
        )
    return {
        **soak.figures("soak_entries_per_s"),
        **limit.figures("soak_limit_fsync_commits_per_s"),
        "soak_entries_vs_limit": vs_limit(soak.median, limit.median, rate=True),
    }


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc (the memory figure needs Linux)")


def _slope(points: list[tuple[int, int]]) -> float:
    """Least-squares slope of (round, kB) points, kB per round."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


def bench_soak_memory() -> dict[str, float]:
    rounds = int(os.environ.get("DRR_BENCH_SOAK_ROUNDS", RSS_ROUNDS))
    warm = min(RSS_WARM_ROUNDS, rounds // 4)
    with tempfile.TemporaryDirectory(prefix="drr-soak-rss-") as tmp:
        directory = Path(tmp)
        env = dict(os.environ, DRR_KEY_DIR=str(directory / "keys"))
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "gui.cli", "table", "run", "--headless", "--db",
                str(directory / "soak.sqlite"), "--table", "S1", "--rounds", str(rounds),
                "--speed", str(SPEED), "--seed", "1",
            ],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        points: list[tuple[int, int]] = []
        assert proc.stdout is not None
        for line in proc.stdout:  # one line per round ("S1-000042  settled ..."), then the totals
            if line.startswith("S1-"):
                points.append((len(points) + 1, _rss_kb(proc.pid)))
        _, err = proc.communicate(timeout=600)
    if proc.returncode != 0 or len(points) < rounds:
        raise RuntimeError(f"the headless soak failed after {len(points)} rounds: {err.strip()[-400:]}")
    kept = points[warm:]
    return {
        "soak_rss_kb_per_1000_rounds": _slope(kept) * 1000,
        "soak_rss_kb_start": float(kept[0][1]),
        "soak_rss_kb_end": float(kept[-1][1]),
        "soak_rss_rounds": float(rounds),
    }


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {"soak": bench_soak, "soak_memory": bench_soak_memory}
