"""Spin windows of the surveillance charts: last N spins, today, the current shift, a custom range."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.errors import DrrError

SHIFT_STARTS = (6, 14, 22)  # UTC hours at which the three eight-hour shifts begin
LAST_CHOICES = (100, 500, 1000, 10_000)  # the "Last N spins" windows the surveillance station offers


@dataclass(frozen=True)
class SpinWindow:
    """Which spins a chart counts: `last` N, or opened in [since, until), or everything."""

    label: str
    last: int | None = None
    since: datetime | None = None
    until: datetime | None = None

    def stats_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of `engine.store.stats.table_stats` / `read_tally` for this window."""
        return {"last": self.last, "since": self.since, "until": self.until}


def last_spins(n: int) -> SpinWindow:
    if n <= 0:
        raise DrrError(f"a window of the last {n} spins is empty: give a positive number")
    return SpinWindow(f"last {n:,} spins", last=n)


def everything() -> SpinWindow:
    return SpinWindow("all spins")


def today(now: datetime | None = None) -> SpinWindow:
    now = now or datetime.now(UTC)
    start = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return SpinWindow(f"today ({start:%Y-%m-%d} UTC)", since=start, until=start + timedelta(days=1))


def shift_bounds(now: datetime | None = None) -> tuple[datetime, datetime]:
    """Start and end of the eight-hour shift holding `now` (shifts begin at SHIFT_STARTS, UTC)."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    starts = [day + timedelta(hours=h) for h in (SHIFT_STARTS[-1] - 24, *SHIFT_STARTS)]
    start = max(s for s in starts if s <= now)
    return start, start + timedelta(hours=8)


def period_bounds(day: datetime, shift: int = 0) -> tuple[datetime, datetime]:
    """[start, end) of the whole UTC day of `day` (shift 0) or of its shift 1..3 (a report's period:
    `drr floor report --day --shift`, the pit boss's reports)."""
    start = day.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=UTC)
    if shift == 0:
        return start, start + timedelta(days=1)
    begin = start + timedelta(hours=SHIFT_STARTS[shift - 1])
    return begin, begin + timedelta(hours=8)


def shift(now: datetime | None = None) -> SpinWindow:
    start, end = shift_bounds(now)
    return SpinWindow(f"shift {start:%H:%M}–{end:%H:%M} UTC", since=start, until=end)


def time_range(since: datetime, until: datetime) -> SpinWindow:
    if until <= since:
        raise DrrError(f"the range {since:%Y-%m-%d %H:%M} to {until:%Y-%m-%d %H:%M} is empty")
    return SpinWindow(f"{since:%Y-%m-%d %H:%M} – {until:%Y-%m-%d %H:%M} UTC", since=since, until=until)
