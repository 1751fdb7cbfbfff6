"""Shift and day reports per table: rounds, handle, paid, win, hold, theoretical win, hits, irregularities,
and the wheel's own log held against the journal in the period (`wheel.reconciled`: how many times,
how many differences each time, the last one in words; on a floor database, those made there too).

Money stays exact (Decimal from the store's integer units); the hold is a Fraction shown as a percent.
The CSV export writes the same figures the screen and the PDF show, as numbers a spreadsheet reads (a
hold as a ratio, 0.027027 for 2.70%), then the largest payouts and the same money split by dealer (the
dealer each round was opened under). The theoretical hold weighs each
bet's handle by its house edge under the Rules Submission its round was played under (found by the
round's `rules_sha256`, engine.store.rules_store), so a casino's own paytable gives its own figure.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from engine.entry_types import EntryType
from engine.store import schema
from engine.store.canonical import format_time
from engine.store.forwarded import floor_actions
from engine.store.latest import entries_of
from engine.store.projections import from_units
from engine.wheel_events import WheelReconciled

if TYPE_CHECKING:
    from engine.store.db import Store


def _ratio(value: Fraction | None) -> str:
    """A hold for the CSV: a number (a ratio to 6 places), empty when there is none."""
    return "" if value is None else f"{Decimal(value.numerator) / Decimal(value.denominator):.6f}"


class _Kept:
    """The win and the hold of a share of the handle (a table's period, or one dealer's part of it)."""

    handle: Decimal
    returned: Decimal

    @property
    def win(self) -> Decimal:
        return self.handle - self.returned

    @property
    def hold(self) -> Fraction | None:
        return Fraction(self.win) / Fraction(self.handle) if self.handle else None


@dataclass(frozen=True)
class DealerFigures(_Kept):
    """One dealer's share of a table's period: the rounds opened under them, their money, and the
    games per hour of play they dealt (the wheel's results; None below two games)."""

    dealer: str
    rounds: int
    settled: int
    handle: Decimal
    paid: Decimal
    returned: Decimal
    games: int = 0
    games_per_hour: Fraction | None = None


@dataclass(frozen=True)
class LargePayout:
    round_id: str
    time: str
    result: int | None
    paid: Decimal


@dataclass(frozen=True)
class TableReport(_Kept):
    table: str
    since: datetime
    until: datetime
    rounds: int
    settled: int
    voided: int
    handle: Decimal
    paid: Decimal  # what the wagers won (stakes not included)
    returned: Decimal  # handed back to players: paid plus the stakes of winning wagers
    lucky_hits: int
    bonus_hits: int
    irregularities: int
    manual_results: int
    theoretical_hold: Fraction | None  # from each bet's house edge and the period's handle by bet
    theoretical_win: Decimal | None
    largest: list[LargePayout] = field(default_factory=list)
    # Rounds drawn by a seeded generator (a demo's or a test's, engine.rules_play): never counted as
    # production rounds. Beside production rounds they are left out of every figure above and
    # counted here; in a period of seeded rounds only, the figures are theirs and `play` says so.
    seeded: int = 0
    only_seeded: bool = False
    by_dealer: list[DealerFigures] = field(default_factory=list)  # the same money split by dealer
    # The wheel's log reconciled with the journal in the period (hardware.wheel_reconcile).
    reconciliations: int = 0
    reconciliations_differing: int = 0  # of them, those with a game that differs or is on one side only
    last_reconciliation: str | None = None  # its time and summary in words
    # Games per hour of play (engine.floor.wheel_alarms.hourly_rate: breaks over 10 min left out); each
    # dealer's is on their `by_dealer` line.
    games_per_hour: Fraction | None = None

    @property
    def play(self) -> str:
        if self.only_seeded:
            return "seeded (tests and demos): not production"
        if self.seeded:
            return f"production ({self.seeded:,} seeded rounds left out)"
        return "production"

    def dealer_words(self) -> str:
        """Each dealer's games per hour in words ("carol 31.5 (12 games); dave —  (1 game)")."""
        parts = []
        for d in self.by_dealer:
            if not d.games:
                continue
            per_hour = "—" if d.games_per_hour is None else f"{float(d.games_per_hour):.1f}"
            parts.append(f"{d.dealer} {per_hour} ({d.games} game{'s' if d.games != 1 else ''})")
        return "; ".join(parts) or "—"

    def figures(self) -> list[tuple[str, str]]:
        """(label, value) in the order the screen, the CSV and the PDF show them."""
        hold, theory = self.hold, self.theoretical_hold
        return [
            ("Table", self.table),
            ("From (UTC)", f"{self.since:%Y-%m-%d %H:%M}"),
            ("Until (UTC)", f"{self.until:%Y-%m-%d %H:%M}"),
            ("Play", self.play),
            ("Rounds", f"{self.rounds:,}"),
            ("Settled", f"{self.settled:,}"),
            ("Voided", f"{self.voided:,}"),
            ("Handle", f"{self.handle:,.2f}"),
            ("Paid (winnings)", f"{self.paid:,.2f}"),
            ("Returned to players", f"{self.returned:,.2f}"),
            ("Win", f"{self.win:,.2f}"),
            ("Hold", "—" if hold is None else f"{float(hold) * 100:.2f}%"),
            ("Theoretical hold", "—" if theory is None else f"{float(theory) * 100:.2f}%"),
            ("Theoretical win", "—" if self.theoretical_win is None else f"{self.theoretical_win:,.2f}"),
            ("Lucky Number hits", f"{self.lucky_hits:,}"),
            ("Bonus Number hits", f"{self.bonus_hits:,}"),
            ("Irregularities", f"{self.irregularities:,}"),
            ("Manual results", f"{self.manual_results:,}"),
            ("Seeded rounds (tests and demos)", f"{self.seeded:,}"),
            ("Games per hour", "—" if self.games_per_hour is None else f"{float(self.games_per_hour):.1f}"),
            ("Games per hour by dealer", self.dealer_words()),
            ("Wheel log reconciliations", f"{self.reconciliations:,}"),
            ("Wheel log reconciliations with differences", f"{self.reconciliations_differing:,}"),
            ("Last wheel log reconciliation", self.last_reconciliation or "—"),
        ]


def table_report(
    store: Store,
    table: str,
    since: datetime,
    until: datetime,
    *,
    house_edge: Fraction | Mapping[str, Fraction] | None = None,
    largest: int = 5,
) -> TableReport:
    """The report of `table` for [since, until). `house_edge`: one edge, or each bet's (default: each
    round's own, under the Rules Submission it was played under, `engine.store.stats.house_edges`)."""
    from engine.rules_play import seeded_round_ids
    from engine.store.stats import read_tally, theoretical

    tally = read_tally(store, table, since=since, until=until)
    r = schema.rounds
    where: tuple[Any, ...] = (
        r.c.table_id == table,
        r.c.opened_at >= format_time(since),
        r.c.opened_at < format_time(until),
    )
    period = sa.select(r.c.round_id).where(*where)
    seeded_ids = seeded_round_ids(store, table, period)
    with store.read() as conn:
        in_period = int(conn.execute(sa.select(sa.func.count()).select_from(period.subquery())).scalar() or 0)
    only_seeded = bool(seeded_ids) and len(seeded_ids) >= in_period
    if seeded_ids and not only_seeded:
        # Seeded rounds beside production ones: left out of every production figure.
        where = (*where, r.c.round_id.not_in(sorted(seeded_ids)))
        tally = _without(store, tally, seeded_ids)
    if house_edge is None:
        theory_hold, theory_win = _theoretical_by_rules(store, tally, where)
    else:
        theory_hold, theory_win = theoretical(tally, house_edge)
    settled = r.c.status == "settled"

    def count(cond: Any) -> Any:
        return sa.func.coalesce(sa.func.sum(sa.case((cond, 1), else_=0)), 0)

    totals = sa.select(
        sa.func.count(),
        count(settled),
        count(r.c.status == "void"),
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
    units = (r.c.wagered, r.c.paid, r.c.returned)
    dealers = (
        sa.select(
            r.c.dealer,
            sa.func.count(),
            count(settled),
            *(sa.func.coalesce(sa.func.sum(sa.case((settled, u), else_=0)), 0) for u in units),
        )
        .where(*where)
        .group_by(r.c.dealer)
        .order_by(r.c.dealer)
    )
    with store.read() as conn:
        t = conn.execute(totals).one()
        big = conn.execute(top).all()
        split = conn.execute(dealers).all()
    table_rate, dealt = _games_per_hour(store, where)
    return TableReport(
        table=table,
        since=since,
        until=until,
        rounds=int(t[0]),
        settled=int(t[1]),
        voided=int(t[2]),
        handle=tally.wagered,
        paid=tally.paid,
        returned=tally.returned,
        lucky_hits=int(t[3]),
        bonus_hits=int(t[4]),
        irregularities=int(t[5]),
        manual_results=int(t[6]),
        theoretical_hold=theory_hold,
        theoretical_win=theory_win,
        largest=[LargePayout(b.round_id, b.opened_at, b.result, from_units(b.paid)) for b in big],
        seeded=len(seeded_ids),
        only_seeded=only_seeded,
        by_dealer=[_dealer_figures(d or NO_DEALER, n, k, w, p, b, dealt) for d, n, k, w, p, b in split],
        games_per_hour=table_rate,
        **_reconciliations(store, table, since, until),
    )


NO_DEALER = "(not recorded)"  # a round opened before rounds named their dealer


def _dealer_figures(
    dealer: str, rounds: Any, settled: Any, wagered: Any, paid: Any, returned: Any,
    dealt: dict[str, tuple[int, Fraction | None]],
) -> DealerFigures:  # fmt: skip
    games, rate = dealt.get(dealer, (0, None))
    return DealerFigures(
        dealer,
        int(rounds),
        int(settled),
        from_units(int(wagered)),
        from_units(int(paid)),
        from_units(int(returned)),
        games=games,
        games_per_hour=rate,
    )


def _games_per_hour(
    store: Store, where: tuple[Any, ...]
) -> tuple[Fraction | None, dict[str, tuple[int, Fraction | None]]]:
    """The period's games per hour of play: the table's, and each dealer's (games, rate), by its
    rounds' result times."""
    from engine.floor.wheel_alarms import hourly_rate
    from engine.store.canonical import parse_time

    r = schema.rounds
    query = (
        sa.select(r.c.dealer, r.c.result_at)
        .where(*where, r.c.result_at.is_not(None), r.c.source == "table")
        .order_by(r.c.result_at)
    )
    with store.read() as conn:
        rows = conn.execute(query).all()
    times = [parse_time(at) for _, at in rows]
    by_dealer: dict[str, list[Any]] = {}
    for (dealer, _), time in zip(rows, times, strict=True):
        by_dealer.setdefault(dealer or NO_DEALER, []).append(time)
    return hourly_rate(times), {d: (len(ts), hourly_rate(ts)) for d, ts in by_dealer.items()}


def _reconciliations(store: Store, table: str, since: datetime, until: datetime) -> dict[str, Any]:
    """The period's `wheel.reconciled` entries of `table`: how many, how many differed, the last. On a
    floor database where the table's chain is the forwarded copy, a reconciliation made there is a
    `floor.action` on the floor's chain (engine.store.forwarded), read beside the table's own."""
    count = differing = 0
    last: tuple[str, str] | None = None  # (its time, its words)
    start, end = format_time(since), format_time(until)
    with store.read() as conn:
        kind = EntryType.WHEEL_RECONCILED
        found = [(e, p) for e, p in entries_of(conn, table, kind, since=start, until=end)]
        found += [(e, p) for e, _a, p in floor_actions(conn, kind, table=table, since=start, until=end)]
        for entry, p in found:
            if not isinstance(p, WheelReconciled):
                continue
            count += 1
            differing += p.differs
            if last is None or entry.time >= last[0]:
                last = (entry.time, f"{entry.time[:16].replace('T', ' ')} ({p.occasion}): {p.summary()}")
    return {
        "reconciliations": count,
        "reconciliations_differing": differing,
        "last_reconciliation": None if last is None else last[1],
    }


def _without(store: Store, tally: Any, round_ids: set[str]) -> Any:
    """`tally`'s money and handle by bet less those of the settled rounds `round_ids`."""
    from dataclasses import replace

    r = schema.rounds
    query = sa.select(r.c.wagered, r.c.paid, r.c.returned, r.c.handle).where(
        r.c.round_id.in_(sorted(round_ids)), r.c.status == "settled"
    )
    with store.read() as conn:
        rows = conn.execute(query).all()
    handle = dict(tally.handle_by_bet)
    for _, _, _, by_bet in rows:
        for bet, units in (json.loads(by_bet) if by_bet else {}).items():
            handle[bet] = handle.get(bet, Decimal(0)) - from_units(int(units))
    return replace(
        tally,
        settled=tally.settled - len(rows),
        wagered=tally.wagered - sum((from_units(row[0]) for row in rows), Decimal(0)),
        paid=tally.paid - sum((from_units(row[1]) for row in rows), Decimal(0)),
        returned=tally.returned - sum((from_units(row[2]) for row in rows), Decimal(0)),
        handle_by_bet={bet: amount for bet, amount in handle.items() if amount},
    )


_EDGES: dict[str, dict[str, Fraction]] = {}


def _edges(store: Store, sha256: str | None) -> dict[str, Fraction]:
    """Each bet's house edge under a Rules Submission (engine.math, once per sha256). A round that
    names none (an imported result; it has no handle) counts under the shipped rules."""
    from engine.rules import load_default_rules
    from engine.store.rules_store import rules_for
    from engine.store.stats import house_edges

    rules = load_default_rules() if sha256 is None else rules_for(store, sha256)
    if rules.sha256 not in _EDGES:
        _EDGES[rules.sha256] = house_edges(rules)
    return _EDGES[rules.sha256]


def _theoretical_by_rules(
    store: Store, tally: Any, where: tuple[Any, ...]
) -> tuple[Fraction | None, Decimal | None]:
    """(theoretical hold, win) of the period with each round's bets at its own rules' edges."""
    from engine.store.stats import theoretical

    r = schema.rounds
    settled = (*where, r.c.status == "settled")
    with store.read() as conn:
        shas = list(conn.execute(sa.select(r.c.rules_sha256).where(*settled).distinct()).scalars())
        if len(shas) <= 1:  # the usual case: one paytable the whole period
            return theoretical(tally, _edges(store, shas[0] if shas else None))
        rows = conn.execute(sa.select(r.c.rules_sha256, r.c.handle).where(*settled)).all()
    handle = win = Fraction(0)
    for sha, by_bet in rows:
        edges = _edges(store, sha)
        for bet, units in (json.loads(by_bet) if by_bet else {}).items():
            if bet not in edges:
                return None, None
            amount = Fraction(int(units), schema.MONEY_SCALE)
            handle += amount
            win += amount * edges[bet]
    if not handle:
        return None, None
    return win / handle, (Decimal(win.numerator) / Decimal(win.denominator)).quantize(Decimal("0.01"))


def report_csv(reports: list[TableReport]) -> str:
    """One row per table report (the figures as columns, each a number: money without thousands
    separators, the holds as ratios), then the largest payouts, then the money split by dealer."""
    out = io.StringIO()
    writer = csv.writer(out)
    if not reports:
        return ""
    writer.writerow([label for label, _ in reports[0].figures()])
    for rep in reports:
        numbers = {"Hold": _ratio(rep.hold), "Theoretical hold": _ratio(rep.theoretical_hold)}
        writer.writerow(
            [
                numbers[label] if label in numbers else value if label == "Table" else value.replace(",", "")
                for label, value in rep.figures()
            ]
        )
    writer.writerow([])
    writer.writerow(["Largest payouts", "table", "round", "time", "result", "paid"])
    for rep in reports:
        for big in rep.largest:
            writer.writerow(
                ["", rep.table, big.round_id, big.time, "" if big.result is None else big.result, big.paid]
            )
    writer.writerow([])
    writer.writerow(
        ["By dealer", "table", "dealer", "rounds", "settled", "handle", "paid", "returned", "win", "hold",
         "games per hour"]
    )  # fmt: skip
    for rep in reports:
        for d in rep.by_dealer:
            writer.writerow(
                ["", rep.table, d.dealer, d.rounds, d.settled, f"{d.handle:.2f}", f"{d.paid:.2f}",
                 f"{d.returned:.2f}", f"{d.win:.2f}", _ratio(d.hold),
                 "" if d.games_per_hour is None else f"{float(d.games_per_hour):.1f}"]
            )  # fmt: skip
    return out.getvalue()
