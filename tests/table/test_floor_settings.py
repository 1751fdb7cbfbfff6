"""The pit boss's table settings (table.settings_changed from the pit-boss station or drr pitboss
settings) are applied by the table service from the next round, and survive a restart."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from engine.bets import inside_bet
from engine.errors import IllegalTransition, IllegalWager
from engine.floor.actions import change_settings
from engine.store import Store
from tests.table.helpers import CROUPIER, PITBOSS, make_service


def _dealers(store: Store) -> list[str]:
    import sqlalchemy as sa

    from engine.store import schema

    r = schema.rounds
    with store.read() as conn:
        return [str(d) for d in conn.execute(sa.select(r.c.dealer).order_by(r.c.seq)).scalars()]


def test_limits_and_closing_apply_from_the_next_round_and_survive_a_restart(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        change_settings(store, "T1", {"max_bet": "50", "min_bet": "2", "large_payout": "700"}, "vip", PITBOSS)
        # The round on the felt keeps the limits it opened with.
        await svc.place_wager(CROUPIER, "anna", inside_bet([1]), Decimal(80))
        await svc.void(PITBOSS, "limits change")
        await svc.open_bets(CROUPIER)
        with pytest.raises(IllegalWager, match="above the table maximum 50"):
            await svc.place_wager(CROUPIER, "anna", inside_bet([1]), Decimal(80))
        with pytest.raises(IllegalWager, match="below the table minimum 2"):
            await svc.place_wager(CROUPIER, "anna", inside_bet([1]), Decimal(1))
        await svc.place_wager(CROUPIER, "anna", inside_bet([1]), Decimal(50))
        assert svc.approval_threshold == Decimal(700)
        assert _dealers(store) == [CROUPIER.name, CROUPIER.name]
        change_settings(store, "T1", {"dealer": "eli"}, "dealer change", PITBOSS)
        await svc.void(PITBOSS, "dealer change")
        await svc.open_bets(CROUPIER)
        assert _dealers(store)[-1] == "eli"
        change_settings(store, "T1", {"status": "closed"}, "end of shift", PITBOSS)
        await svc.void(PITBOSS, "closing")
        with pytest.raises(IllegalTransition, match="closed this table"):
            await svc.open_bets(CROUPIER)
        await svc.close()

        again = make_service(store)
        await again.start()
        assert again.state.settings == {
            "max_bet": "50",
            "min_bet": "2",
            "large_payout": "700",
            "dealer": "eli",
            "status": "closed",
        }
        with pytest.raises(IllegalTransition, match="closed this table"):
            await again.open_bets(CROUPIER)
        change_settings(store, "T1", {"status": "open"}, "new shift", PITBOSS)
        await again.open_bets(CROUPIER)
        with pytest.raises(IllegalWager, match="above the table maximum"):
            await again.place_wager(CROUPIER, "anna", inside_bet([1]), Decimal(51))
        await again.close()

    asyncio.run(go())


def test_what_another_writer_appended_is_taken_in_before_the_table_closes(store: Store) -> None:
    """The look for other writers (every second) starts a take-in task; the service holds it and
    close() awaits it, so none is left pending (or collected mid-step) when the table is given up."""

    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        seen: list[str] = []
        svc.subscribe(lambda e: seen.append(e.type))
        change_settings(store, "T1", {"max_bet": "50"}, "vip", PITBOSS)
        svc._look_for_other_writers(asyncio.get_running_loop())  # as its timer does; closed at once
        svc._look_for_other_writers(asyncio.get_running_loop())  # a second look: the same take-in
        takes = [t for t in asyncio.all_tasks() if t.get_name() == "other-writers-T1"]
        assert len(takes) == 1
        await svc.close()
        assert takes[0].done()
        assert svc.state.settings.get("max_bet") == "50"
        assert "table.settings_changed" in seen

    asyncio.run(go())
