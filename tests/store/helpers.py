"""Helpers that write realistic rounds into a store through the journal, as the table service will."""

from __future__ import annotations

from decimal import Decimal

from engine.store import Store


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
    direction: str | None = "cw",
    time: str | None = None,
) -> None:
    j = store.journal
    j.append(table, "round.opened", {"dealer": "dana"}, round_id=round_id, user="dana", time=time)
    j.append(
        table,
        "wager.placed",
        {"spot": "red", "amount": Decimal(wagered)},
        round_id=round_id,
        user="dana",
        time=time,
    )
    j.append(
        table,
        "round.closed",
        {"lucky": [list(p) for p in (lucky or [(17, "199")])], "bonus_number": bonus},
        round_id=round_id,
        user=None,
        time=time,
    )
    j.append(
        table,
        "round.result",
        {"number": number, "direction": direction},
        round_id=round_id,
        user=None,
        time=time,
    )
    j.append(
        table, "round.settled", {"wagered": wagered, "paid": paid}, round_id=round_id, user=None, time=time
    )
