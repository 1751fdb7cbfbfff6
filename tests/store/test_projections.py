"""Projections: what engine/round.py's real events do to `rounds` and the aggregates, and that the
incrementally kept projections equal a rebuild from the journal."""

from __future__ import annotations

import secrets
from decimal import Decimal
from typing import Any

import sqlalchemy as sa

from engine.bets import wager_from_wire
from engine.rng import SeededRng
from engine.round import (
    NoSpin,
    ResultRecorded,
    RoundOpened,
    RoundState,
    WagerPlaced,
    apply,
    close_bets,
    settle,
)
from engine.rules import load_default_rules
from engine.store import Store, schema
from engine.store.history import show_round
from engine.store.projections import rebuild
from engine.store.stats import table_stats
from engine.store.verify import verify
from tests.payloads import append
from tests.store.helpers import play_round


def _journal_round(store: Store, table: str, round_id: str, seed: int, result: int) -> Any:
    rules = load_default_rules()
    state = RoundState.initial(rules)
    events: list[Any] = [RoundOpened(round_id, rules.sha256)]
    state = apply(state, events[-1])
    wager = wager_from_wire(
        {"id": "w1", "player": "p1", "bet": "straight", "numbers": [result], "amount": "5"}, unit=rules.unit
    )
    events.append(WagerPlaced(wager))
    state = apply(state, events[-1])
    events.append(close_bets(state, SeededRng(seed)))
    state = apply(state, events[-1])
    events.append(NoSpin("ball left the wheel"))
    state = apply(state, events[-1])
    events.append(ResultRecorded(result, "manual", "sensor fault"))
    state = apply(state, events[-1])
    events.append(settle(state))
    state = apply(state, events[-1])
    for event in events:
        append(store.journal, table, event.type, event.to_json(), round_id=round_id, user="dana")
    return state, events


def test_round_py_events_drive_the_rounds_row(store: Store) -> None:
    _, events = _journal_round(store, "T1", "r-1", seed=3, result=17)
    draw = events[2].draw
    settled = events[-1]
    row = show_round(store, "r-1")["round"]
    assert row["status"] == "settled" and row["result"] == 17 and row["manual"] is True
    assert row["lucky"] == sorted(
        [n, str(x.numerator) if x.denominator == 1 else str(x)] for n, x in draw.lucky.items()
    )
    assert row["bonus_number"] == draw.bonus_number
    assert row["irregularities"] == 1  # the no-spin
    assert row["wagered"] == "5.00" and Decimal(row["paid"]) == settled.total_paid
    assert settled.total_returned is not None and Decimal(row["returned"]) == settled.total_returned
    hold = table_stats(store, "T1")["hold"]
    assert Decimal(hold["win"]) == Decimal(5) - settled.total_returned


def test_projections_equal_a_rebuild_from_the_journal(store: Store) -> None:
    for i in range(40):
        play_round(
            store, "T1", f"R{i}", secrets.randbelow(37),
            lucky=[(secrets.randbelow(18) * 2 + 1, "199")], bonus=0,
            paid=f"{secrets.randbelow(50)}.50", direction=("cw", "ccw", None)[i % 3],
            time=f"2026-05-{1 + i % 3:02d}T10:00:{i:02d}.000000Z",
        )  # fmt: skip
    append(store.journal, "T1", "round.voided", {"reason": "test"}, round_id="R3", user="pb")
    old = show_round(store, "R5")["round"]["result"]
    correction = {"old": old, "new": (old + 1) % 37, "reason": "misread"}
    append(store.journal, "T1", "round.result_corrected", correction, round_id="R5", user="pb")

    def snapshot() -> dict[str, list[Any]]:
        with store.read() as conn:
            return {
                t.name: sorted(tuple(r) for r in conn.execute(sa.select(t).where(t.c.table_id == "T1")))
                for t in (schema.rounds, schema.number_counts, schema.daily_totals)
            }

    before = snapshot()
    with store.begin() as conn:
        assert rebuild(conn, "T1") == 40 * 5 + 2
    assert snapshot() == before
    assert verify(store).ok
