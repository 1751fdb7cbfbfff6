"""Shift and day reports per table: rounds, handle, paid, win, hold, theoretical win, hits, irregularities.

Money stays exact (Decimal from the store's integer units); the hold is a Fraction shown as a percent.
The CSV export writes the same figures the screen and the PDF show.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.store import schema
from engine.store.canonical import format_time
from engine.store.projections import from_units

if TYPE_CHECKING:
    from engine.store.db import Store

CENT = Decimal("0.01")


@dataclass(frozen=True)
class LargePayout:
    round_id: str
    time: str
    result: int | None
    paid: Decimal


@dataclass(frozen=True)
class TableReport:
    table: str
    since: datetime
    until: datetime
    rounds: int
    settled: int
    voided: int
    handle: Decimal
    paid: Decimal
    lucky_hits: int
    bonus_hits: int
    irregularities: int
    manual_results: int
    house_edge: Fraction
    largest: list[LargePayout] = field(default_factory=list)

    @property
    def win(self) -> Decimal:
        return self.handle - self.paid

    @property
    def hold(self) -> Fraction | None:
        return Fraction(self.win) / Fraction(self.handle) if self.handle else None

    @property
    def theoretical_win(self) -> Decimal:
        exact = Fraction(self.handle) * self.house_edge
        return (Decimal(exact.numerator) / Decimal(exact.denominator)).quantize(CENT, ROUND_HALF_EVEN)

    def figures(self) -> list[tuple[str, str]]:
        """(label, value) in the order the screen, the CSV and the PDF show them."""
        hold = self.hold
        return [
            ("Table", self.table),
            ("From (UTC)", f"{self.since:%Y-%m-%d %H:%M}"),
            ("Until (UTC)", f"{self.until:%Y-%m-%d %H:%M}"),
            ("Rounds", f"{self.rounds:,}"),
            ("Settled", f"{self.settled:,}"),
            ("Voided", f"{self.voided:,}"),
            ("Handle", f"{self.handle:,.2f}"),
            ("Paid", f"{self.paid:,.2f}"),
            ("Win", f"{self.win:,.2f}"),
            ("Hold", "—" if hold is None else f"{float(hold) * 100:.2f}%"),
            ("Theoretical hold", f"{float(self.house_edge) * 100:.2f}%"),
            ("Theoretical win", f"{self.theoretical_win:,.2f}"),
            ("Lucky Number hits", f"{self.lucky_hits:,}"),
            ("Bonus Number hits", f"{self.bonus_hits:,}"),
            ("Irregularities", f"{self.irregularities:,}"),
            ("Manual results", f"{self.manual_results:,}"),
        ]


def table_report(
    store: Store,
    table: str,
    since: datetime,
    until: datetime,
    *,
    house_edge: Fraction = Fraction(1, 37),
    largest: int = 5,
) -> TableReport:
    r = schema.rounds
    where = (r.c.table_id == table, r.c.opened_at >= format_time(since), r.c.opened_at < format_time(until))
    settled = r.c.status == "settled"

    def count(cond: Any) -> Any:
        return sa.func.coalesce(sa.func.sum(sa.case((cond, 1), else_=0)), 0)

    totals = sa.select(
        sa.func.count(),
        count(settled),
        count(r.c.status == "void"),
        sa.func.coalesce(sa.func.sum(sa.case((settled, r.c.wagered), else_=0)), 0),
        sa.func.coalesce(sa.func.sum(sa.case((settled, r.c.paid), else_=0)), 0),
        count(r.c.lucky_hit.is_(True)),
        count(r.c.bonus_hit.is_(True)),
        sa.func.coalesce(sa.func.sum(r.c.irregularities), 0),
        count(r.c.manual.is_(True)),
    ).where(*where)
    top = (
        sa.select(r.c.round_id, r.c.opened_at, r.c.result, r.c.paid)
        .where(*where, settled, r.c.paid > 0)
        .order_by(r.c.paid.desc(), r.c.round_id)
        .limit(largest)
    )
    with store.read() as conn:
        t = conn.execute(totals).one()
        big = conn.execute(top).all()
    return TableReport(
        table=table,
        since=since,
        until=until,
        rounds=int(t[0]),
        settled=int(t[1]),
        voided=int(t[2]),
        handle=from_units(int(t[3])),
        paid=from_units(int(t[4])),
        lucky_hits=int(t[5]),
        bonus_hits=int(t[6]),
        irregularities=int(t[7]),
        manual_results=int(t[8]),
        house_edge=house_edge,
        largest=[LargePayout(b.round_id, b.opened_at, b.result, from_units(b.paid)) for b in big],
    )


def report_csv(reports: list[TableReport]) -> str:
    """One row per table report (the figures as columns), then the largest payouts."""
    out = io.StringIO()
    writer = csv.writer(out)
    if not reports:
        return ""
    writer.writerow([label for label, _ in reports[0].figures()])
    for rep in reports:
        writer.writerow(
            [value.replace(",", "") if label != "Table" else value for label, value in rep.figures()]
        )
    writer.writerow([])
    writer.writerow(["Largest payouts", "table", "round", "time", "result", "paid"])
    for rep in reports:
        for big in rep.largest:
            writer.writerow(
                ["", rep.table, big.round_id, big.time, "" if big.result is None else big.result, big.paid]
            )
    return out.getvalue()
