"""The `drr bench --scale` registry: long-running scale figures, their sizes, goals and progress.

A scale group is a function `fn(ctx: ScaleContext) -> dict[str, float]` registered under a name with
`register(name, fn, weight=…, goals=…)` at import time of its module; `bench/scale_cli.py` lists the
modules (`SCALE_MODULES`), imports them, runs the groups in registration order and prints/writes their
figures (docs/scale.md, /work/wt/SCALE_INTERFACE.md). Figures are measurements, never pass/fail tests;
the goals are printed beside them.

The context gives every group the same sizes (`ScaleContext.full()` as the issue states them, `tiny()`
for the end-to-end test), a scratch folder, the PostgreSQL to use (or None) and `progress(done, note)`
to move the bar (`done` from 0 to 1 within the group). `ctx.long_journal(entries)` builds — once per
size per run, shared by the groups — a real hash-chained, signed table journal of that many entries
(bench.synthetic) and returns where it is.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import sqlalchemy as sa

from bench.synthetic import LongJournal, build_long_journal, copy_long_journal
from engine.store.db import resolve_url

Progress = Callable[[float, str], None]
"""(done 0..1 within the current group, what it is doing now in a few words)."""


class ScaleSkip(Exception):
    """Raised by a group that cannot run here (say, no PostgreSQL given); its message says why."""


@dataclass(frozen=True)
class Goal:
    """A figure's goal: `op` is ">=" (at least) or "<=" (at most)."""

    op: Literal[">=", "<="]
    value: float

    def holds(self, figure: float) -> bool:
        return figure >= self.value if self.op == ">=" else figure <= self.value

    def __str__(self) -> str:
        # A whole goal with thousands separators (≥ 300,000), a fractional one as written (≤ 0.5: a
        # whole-number format printed it "≤ 0").
        value = f"{self.value:,.0f}" if self.value == int(self.value) else f"{self.value:,.10g}"
        return f"{'≥' if self.op == '>=' else '≤'} {value}"


@dataclass
class ScaleContext:
    """What every scale group gets: sizes, a scratch folder, the PostgreSQL, the progress callback."""

    workdir: Path
    journal_entries: int = 5_000_000  # a busy table's journal, ~2.3 years (table start, verify)
    history_rounds: int = 1_000_000  # rounds in the history the pit boss pages through
    floor_tables: int = 100
    floor_rounds: int = 1_000_000  # rounds on the whole floor
    rebuild_entries: int = 1_000_000  # the journal `drr db rebuild` is timed on
    pg_url: str | None = None  # a scratch PostgreSQL (SQLAlchemy URL) the groups may fill, or None
    tiny: bool = False  # the end-to-end test's sizes: figures are not meaningful
    live_seconds: float | None = None  # the live floor's play (None: 3 s tiny, 60 s full)
    progress: Progress = field(default=lambda done, note: None)
    _journals: dict[int, LongJournal] = field(default_factory=dict, repr=False)

    @classmethod
    def full(
        cls, workdir: Path, *, pg_url: str | None = None, progress: Progress | None = None
    ) -> ScaleContext:
        return cls(workdir, pg_url=pg_url, progress=progress or (lambda d, n: None))

    @classmethod
    def tiny_sizes(
        cls, workdir: Path, *, pg_url: str | None = None, progress: Progress | None = None
    ) -> ScaleContext:
        return cls(
            workdir,
            journal_entries=3_000,
            history_rounds=2_000,
            floor_tables=3,
            floor_rounds=300,
            rebuild_entries=3_000,
            pg_url=pg_url,
            tiny=True,
            progress=progress or (lambda d, n: None),
        )

    def long_journal(self, entries: int | None = None) -> LongJournal:
        """A real journal of about `entries` entries (default `journal_entries`), built once per run."""
        wanted = entries or self.journal_entries
        if wanted not in self._journals:
            self._journals[wanted] = build_long_journal(
                self.workdir / f"long-{wanted}.sqlite", wanted, key_dir=self.key_dir, progress=self.progress
            )
        return self._journals[wanted]

    def copy_journal(self, journal: LongJournal, name: str) -> LongJournal:
        """A private copy of `journal` (store file and key) under a new file name, to append to or damage."""
        return copy_long_journal(journal, self.workdir / f"{name}.sqlite")

    @contextlib.contextmanager
    def pg_schema(self, prefix: str) -> Iterator[str]:
        """A URL to `pg_url` whose search_path is a fresh schema `prefix`_<random>, dropped afterwards
        (the scratch database may be shared); ScaleSkip without a PostgreSQL."""
        if not self.pg_url:
            raise ScaleSkip("no PostgreSQL given (--pg or $DRR_BENCH_PG_URL)")
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        admin = sa.create_engine(resolve_url(self.pg_url))
        with admin.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{name}"'))
        url = sa.engine.make_url(resolve_url(self.pg_url)).update_query_dict(
            {"options": f"-csearch_path={name}"}
        )
        try:
            yield url.render_as_string(hide_password=False)
        finally:
            with admin.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA "{name}" CASCADE'))
            admin.dispose()

    @property
    def key_dir(self) -> Path:
        return Path(os.environ.get("DRR_KEY_DIR") or self.workdir / "keys")


@dataclass(frozen=True)
class ScaleGroup:
    name: str
    fn: Callable[[ScaleContext], dict[str, float]]
    weight: float  # its rough share of the run (expected seconds at full size), for the progress bar
    goals: dict[str, Goal]
    needs_pg: bool


_GROUPS: dict[str, ScaleGroup] = {}


def register(
    name: str,
    fn: Callable[[ScaleContext], dict[str, float]],
    *,
    weight: float = 60.0,
    goals: dict[str, tuple[str, float]] | None = None,
    needs_pg: bool = False,
) -> Callable[[ScaleContext], dict[str, float]]:
    """Add a scale group (its figures' goals as {figure: (">=" or "<=", value)}); returns `fn`."""
    if name in _GROUPS and _GROUPS[name].fn is not fn:
        raise ValueError(f"scale group {name!r} is registered twice")
    parsed = {k: Goal(op, float(v)) for k, (op, v) in (goals or {}).items()}  # type: ignore[arg-type]
    for goal in parsed.values():
        if goal.op not in (">=", "<="):
            raise ValueError(f"scale group {name!r}: a goal is '>=' or '<=', not {goal.op!r}")
    _GROUPS[name] = ScaleGroup(name, fn, weight, parsed, needs_pg)
    return fn


def groups() -> dict[str, ScaleGroup]:
    """The registered groups, in registration order."""
    return dict(_GROUPS)
