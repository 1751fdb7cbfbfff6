"""The machine's own limits, measured in the same run as the program's figures (issue 28).

A figure alone says little on a shared machine: 1,700 appends a second is good on a laptop's disk
and poor on an NVMe one. Each group of `python -m bench` therefore measures, back to back with its
figure and on the same disk and files, what the hardware allows for the same work done by the
simplest possible program:

- `fsync_commits`: raw `sqlite3` in WAL mode with `synchronous=FULL`, one 350-byte INSERT and a
  COMMIT each (one fsync, the least a durable append can cost) — the limit of a durable append
  and of a headless soak's entries;
- `bare_select`: a plain `sqlite3` SELECT of the journal columns a reader needs, every row fetched
  and nothing done with it — the limit of a verify or a rebuild;
- `hash_bytes`: `hashlib.sha256` over each entry's stored bytes — the least a hash-chain check does;
- `bare_window_first_frame`: a fresh Python process showing a bare PySide6 window with one label,
  to its first painted frame — the limit of the croupier station's first frame;
- `FRAME_MS`: one 60 Hz frame (16.7 ms) — the limit of a wheel line to a painted number;
- `pg_notify_round_trip`: INSERT + `pg_notify` + COMMIT on one connection, seen by LISTEN on
  another — the limit of a floor commit to a screen (only where a PostgreSQL is reachable).

Each limit is a `Spread` of repetitions (median, min, max), and `vs_limit` turns a program figure
and its limit into the ratio the issue asks for: program time over limit time, so 1.0 is the limit.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

FRAME_MS = 1000 / 60  # one 60 Hz frame
PAYLOAD_BYTES = 350  # about a wager entry with its hash, signature and MAC columns


@dataclass(frozen=True)
class Spread:
    """Repetitions of one measurement: the median is the figure, min and max are printed beside it."""

    samples: tuple[float, ...]

    @classmethod
    def of(cls, samples: Iterable[float]) -> Spread:
        values = tuple(samples)
        if not values:
            raise ValueError("a spread needs at least one sample")
        return cls(values)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def figures(self, name: str) -> dict[str, float]:
        """`{name: median, name_min: …, name_max: …}`."""
        return {name: self.median, f"{name}_min": min(self.samples), f"{name}_max": max(self.samples)}


def interleaved(
    program: Callable[[], float], limit: Callable[[], float], repeats: int
) -> tuple[Spread, Spread]:
    """`repeats` runs of the program and of its limit, alternated so that whatever else the machine
    is doing falls on both alike."""
    mine: list[float] = []
    bound: list[float] = []
    for _ in range(repeats):
        bound.append(limit())
        mine.append(program())
    return Spread.of(mine), Spread.of(bound)


def vs_limit(program: float, limit: float, *, rate: bool) -> float:
    """Program time over limit time (1.0 is the limit): for rates (per second) the limit's rate over
    the program's, for durations (ms) the program's over the limit's."""
    if program <= 0 or limit <= 0:
        raise ValueError("a figure and its limit must be positive")
    return limit / program if rate else program / limit


def fsync_commits_per_s(directory: Path, commits: int) -> float:
    """One repetition of the durable-append limit: `commits` single INSERT + COMMITs per second."""
    path = directory / "fsync-limit.sqlite"
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, payload TEXT NOT NULL)")
        body = "x" * PAYLOAD_BYTES
        started = time.perf_counter()
        for _ in range(commits):
            conn.execute("BEGIN")
            conn.execute("INSERT INTO t (payload) VALUES (?)", (body,))
            conn.execute("COMMIT")
        return commits / (time.perf_counter() - started)
    finally:
        conn.close()


def bare_select_rows_per_s(path: Path, columns: Sequence[str], table: str) -> float:
    """One repetition of the read limit: every journal row of `table`, the given columns, fetched."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        started = time.perf_counter()
        cursor = conn.execute(
            f"SELECT {', '.join(columns)} FROM journal WHERE table_id = ? ORDER BY seq", (table,)
        )
        rows = 0
        while batch := cursor.fetchmany(10_000):
            rows += len(batch)
        return rows / (time.perf_counter() - started)
    finally:
        conn.close()


def hash_rows_per_s(path: Path, table: str) -> float:
    """One repetition of the hashing limit: sha256 of each entry's stored payload and hash columns,
    read as the select does (so this limit includes the read)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        started = time.perf_counter()
        cursor = conn.execute(
            "SELECT payload, prev_hash FROM journal WHERE table_id = ? ORDER BY seq", (table,)
        )
        rows = 0
        while batch := cursor.fetchmany(10_000):
            for payload, prev in batch:
                hashlib.sha256(f"{prev}{payload}".encode()).digest()
            rows += len(batch)
        return rows / (time.perf_counter() - started)
    finally:
        conn.close()


_BARE_WINDOW = """
import sys, time
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication(sys.argv[:1])
label = QLabel("Diamond Rush Roulette")
class Painted(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print(f"first_frame_at {time.time():.6f}", flush=True)
            app.exit(0)
        return False
watcher = Painted()
label.installEventFilter(watcher)
label.show()
if app.platformName() == "offscreen":  # nothing is painted offscreen until something grabs it
    label.grab()
app.exec()
"""


def bare_window_first_frame_ms(env: dict[str, str]) -> float:
    """One repetition of the first-frame limit: a fresh process, a bare window, its first paint."""
    started = time.time()
    proc = subprocess.run(
        [sys.executable, "-c", _BARE_WINDOW], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    stamp = next((ln.split()[1] for ln in proc.stdout.splitlines() if ln.startswith("first_frame_at ")), None)
    if proc.returncode != 0 or stamp is None:
        raise RuntimeError(f"the bare Qt window did not paint: {proc.stderr.strip()[-300:]}")
    return (float(stamp) - started) * 1000


def pg_notify_round_trip_ms(url: str, trips: int) -> list[float]:
    """The floor's commit-to-screen limit on a reachable PostgreSQL: INSERT + `pg_notify` + COMMIT on
    one connection, until LISTEN on another sees it; one sample per trip (ms)."""
    import psycopg

    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    channel = f"drr_limit_{os.getpid()}"
    samples: list[float] = []
    with psycopg.connect(dsn, autocommit=True) as listener, psycopg.connect(dsn) as writer:
        listener.execute(f"LISTEN {channel}")
        writer.execute("CREATE TEMP TABLE limit_probe (seq SERIAL PRIMARY KEY, payload TEXT)")
        writer.commit()
        body = "x" * PAYLOAD_BYTES
        for _ in range(trips):
            started = time.perf_counter()
            writer.execute("INSERT INTO limit_probe (payload) VALUES (%s)", (body,))
            writer.execute("SELECT pg_notify(%s, '1')", (channel,))
            writer.commit()
            next(listener.notifies(timeout=5, stop_after=1))
            samples.append((time.perf_counter() - started) * 1000)
    return samples


# Each ratio of `python -m bench`: the program's figure, its limit, and the goal (issue 28); the
# summary table `python -m bench` prints after the figures, and docs/scale.md, list them in this order.
RATIOS: dict[str, tuple[str, str, float | None]] = {
    "appends_vs_limit": ("journal_appends_signed_per_s", "limit_fsync_commits_per_s", 1.6),
    "verify_vs_limit": ("audit_verify_entries_per_s", "limit_select_entries_per_s", 1.3),
    "audit_verify_command_vs_limit": (
        "audit_verify_command_entries_per_s",
        "limit_select_entries_per_s",
        2.0,
    ),
    "rebuild_vs_limit": ("rebuild_entries_per_s", "limit_select_rebuild_entries_per_s", 2.0),
    "soak_entries_vs_limit": ("soak_entries_per_s", "soak_limit_fsync_commits_per_s", 4.0),
    "first_frame_vs_limit": ("gui_first_frame_ms", "limit_bare_window_first_frame_ms", 2.5),
    "sensor_to_screen_vs_limit": ("sensor_to_screen_ms_p99", "FRAME_MS", 1.0),
    # The floor's goal is the p99 itself (<= 250 ms in each of three runs), not a ratio.
    "floor_commit_to_screen_vs_limit": ("floor_commit_to_screen_ms_p99", "limit_pg_notify_ms_p99", None),
}


def summary(figures: dict[str, float]) -> list[str]:
    """The lines of the figure / limit / ratio table for the ratios `figures` holds."""
    lines = [f"{'ratio':32s} {'program':>14s} {'limit':>14s} {'ratio':>7s} {'goal':>6s}"]
    for name, (program, limit, goal) in RATIOS.items():
        if name not in figures:
            continue
        bound = FRAME_MS if limit == "FRAME_MS" else figures.get(limit, float("nan"))
        mark = "" if goal is None or figures[name] <= goal else "  (goal missed)"
        wanted = "-" if goal is None else f"{goal:.1f}"
        lines.append(
            f"{name:32s} {figures.get(program, float('nan')):>14,.1f} {bound:>14,.1f} "
            f"{figures[name]:>7.2f} {wanted:>6s}{mark}"
        )
    return lines
