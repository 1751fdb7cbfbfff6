"""The headless soak beside the disk's limit (`python -m bench --only soak`, issue 28).

`soak_entries_per_s`: journal entries per second written by `drr table run --headless` (a fresh
process on a scratch SQLite journal, the virtual wheel at `--speed SPEED`, synthetic croupier, pit
boss and players, SOAK_ROUNDS rounds), counted from the journal itself: its entries over the time
between the first and the last entry's timestamps (the process's start-up is not the soak's rate).
The fsync limit's runs (`soak_limit_fsync_commits_per_s`, bench.limits) are alternated with the
soak's in the same folder; `soak_entries_vs_limit` is the soak's time per entry over the limit's
(goal <= 4). Median of REPEATS runs, `_min` and `_max` beside it.
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


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {"soak": bench_soak}
