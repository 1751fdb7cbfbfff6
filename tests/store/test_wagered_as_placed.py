"""A round's `wagered` is what stands on the felt from the first chip: an open, a held and a voided
round show their wagers (issue 12: "wagered 0.00" with 37 chips on the felt), and a void's `returned`
is every stake it handed back; the incremental projection equals a rebuild from the journal."""

from __future__ import annotations

from decimal import Decimal

import sqlalchemy as sa

from engine.store import Store, schema
from engine.store.history import show_round
from engine.store.projections import rebuild
from engine.store.stats import table_stats
from tests.payloads import RULES_SHA


def _wager(store: Store, round_id: str, wid: str, amount: str, player: str = "p1") -> None:
    store.journal.append(
        "T1", "round.wager_placed",
        {"id": wid, "player": player, "bet": "straight", "numbers": [17], "amount": amount},
        round_id=round_id, user="dana",
    )  # fmt: skip


def _open(store: Store, round_id: str) -> None:
    store.journal.append(
        "T1",
        "round.opened",
        {"round_id": round_id, "rules_sha256": RULES_SHA},
        round_id=round_id,
        user="dana",
    )


def test_open_round_shows_what_is_on_the_felt(store: Store) -> None:
    _open(store, "R1")
    for i in range(37):
        _wager(store, "R1", f"w{i}", "5", player=f"p{i % 3}")
    store.journal.append("T1", "round.wager_removed", {"wager_id": "w3"}, round_id="R1", user="dana")
    assert show_round(store, "R1")["round"]["wagered"] == "180.00"  # 36 chips of 5
    store.journal.append(
        "T1", "round.irregularity", {"kind": "doubtful_result", "reason": "r"}, round_id="R1", user=None
    )
    assert show_round(store, "R1")["round"]["wagered"] == "180.00"  # held: still as placed
    # The day's money is only a settled round's: an open round adds nothing to the hold figures.
    assert Decimal(table_stats(store, "T1")["hold"]["wagered"]) == 0


def test_a_void_keeps_what_was_wagered_and_returns_it(store: Store) -> None:
    _open(store, "R2")
    _wager(store, "R2", "a", "25")
    _wager(store, "R2", "b", "12.50", player="p2")
    store.journal.append("T1", "round.voided", {"reason": "wheel malfunction"}, round_id="R2", user="pat")
    row = show_round(store, "R2")["round"]
    assert (row["status"], row["wagered"], row["returned"], row["paid"]) == ("void", "37.50", "37.50", "0.00")


def test_bulk_appended_wagers_and_a_rebuild_agree(store: Store) -> None:
    from engine.store.records import NewEvent

    _open(store, "R3")
    events = [
        NewEvent("T1", "round.wager_placed",
                 {"id": f"w{i}", "player": "p1", "bet": "red", "amount": "10"}, "R3", "dana")
        for i in range(5)
    ] + [NewEvent("T1", "round.wager_removed", {"wager_id": "w1"}, "R3", "dana")]  # fmt: skip
    store.journal.append_many(events)
    assert show_round(store, "R3")["round"]["wagered"] == "40.00"
    r = schema.rounds
    with store.read() as conn:
        before = conn.execute(sa.select(r.c.round_id, r.c.wagered, r.c.returned).order_by(r.c.round_id)).all()
    with store.begin() as conn:
        rebuild(conn, "T1")
    with store.read() as conn:
        after = conn.execute(sa.select(r.c.round_id, r.c.wagered, r.c.returned).order_by(r.c.round_id)).all()
    assert before == after
