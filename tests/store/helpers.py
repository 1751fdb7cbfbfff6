"""Helpers that write rounds into a store through the journal with engine/round.py's event payloads."""

from __future__ import annotations

from decimal import Decimal

from engine.store import Store
from tests.payloads import RULES_SHA, append


def play_round(
    store: Store,
    table: str,
    round_id: str,
    number: int,
    *,
    lucky: list[tuple[int, str]] | None = None,
    bonus: int | None = 0,
    wagered: str = "10.00",
    paid: str = "0.00",
    returned: str | None = None,
    direction: str | None = "cw",
    time: str | None = None,
) -> None:
    j = store.journal
    append(
        j,
        table,
        "round.opened",
        {"round_id": round_id, "rules_sha256": RULES_SHA, "dealer": "dana"},
        round_id=round_id,
        user="dana",
        time=time,
    )
    append(
        j,
        table,
        "round.wager_placed",
        {"id": "w1", "player": "p1", "bet": "red", "amount": Decimal(wagered)},
        round_id=round_id,
        user="dana",
        time=time,
    )
    draw = {"lucky": {str(n): x for n, x in (lucky or [(17, "199")])}, "bonus_number": bonus}
    append(j, table, "round.bets_closed", {"draw": draw}, round_id=round_id, user=None, time=time)
    append(
        j,
        table,
        "round.result",
        {"number": number, "source": "sensor", "reason": "", "direction": direction},
        round_id=round_id,
        user=None,
        time=time,
    )
    append(
        j,
        table,
        "round.settled",
        {
            "total_wagered": wagered,
            "total_paid": paid,
            "total_returned": paid if returned is None else returned,
        },
        round_id=round_id,
        user=None,
        time=time,
    )
