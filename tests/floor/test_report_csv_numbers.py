"""Issue 25 point 6: the shift CSV wrote the hold as text ("2.70%") and had no split by dealer. The
columns stay as they were, each a number a spreadsheet reads; the money is then split by dealer, and
the dealers' figures add up exactly to the table's."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from decimal import Decimal

import sqlalchemy as sa

from engine.floor.reports import report_csv, table_report
from engine.store import schema
from tests.floor.played import DemoFloor


def test_the_csv_hold_is_a_number_and_the_money_is_split_by_dealer(demo_floor: DemoFloor) -> None:
    store = demo_floor({"T1": 12})
    r = schema.rounds
    with store.begin() as conn:  # a dealer change after round 5
        conn.execute(
            sa.update(r).where(r.c.table_id == "T1", r.c.round_id > "T1-000005").values(dealer="rita")
        )
    since, until = datetime(2026, 11, 29, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC)
    rep = table_report(store, "T1", since, until)
    rows = list(csv.reader(io.StringIO(report_csv([rep]))))
    header, figures = rows[0], rows[1]
    assert header[:4] == ["Table", "From (UTC)", "Until (UTC)", "Play"]  # the columns as before
    hold = figures[header.index("Hold")]
    assert "%" not in hold and rep.hold is not None
    assert abs(Decimal(hold) - Decimal(rep.hold.numerator) / rep.hold.denominator) < Decimal("0.000001")
    assert Decimal(figures[header.index("Handle")]) == rep.handle

    start = next(i for i, row in enumerate(rows) if row and row[0] == "By dealer")
    names = rows[start][1:]
    split = [dict(zip(names, row[1:], strict=True)) for row in rows[start + 1 :] if row]
    assert sorted(d["dealer"] for d in split) == ["dana", "rita"]
    for key, total in (
        ("handle", rep.handle),
        ("paid", rep.paid),
        ("returned", rep.returned),
        ("win", rep.win),
    ):
        assert sum(Decimal(d[key]) for d in split) == total, key
    assert sum(int(d["rounds"]) for d in split) == rep.rounds
