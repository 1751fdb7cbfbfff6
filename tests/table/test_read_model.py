"""The read model in the engine: every batch subscriber gets (entries, changes, view) once per batch,
one view shared by all, the follower's view is the service's; a round is settled once per result."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

import engine.round
import engine.settlement
import engine.table.settlements
from engine.bets import BetKind, inside_bet, outside_bet
from engine.round import Phase
from engine.store import Store
from engine.store.records import Entry
from engine.table.changes import Changes, ResultNotice
from engine.table.follower import JournalFollower
from engine.table.service import TableService
from engine.table.view import TableView
from tests.table.helpers import CROUPIER, cover_everything, make_service, wheel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class Settles:
    """Counts `settle_round`, wherever the table's modules call it from."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original = engine.settlement.settle_round

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return original(*args, **kwargs)

        for module in (engine.settlement, engine.round, engine.table.settlements):
            monkeypatch.setattr(module, "settle_round", counted)


@pytest.fixture
def settles(monkeypatch: pytest.MonkeyPatch) -> Iterator[Settles]:
    yield Settles(monkeypatch)


Pushed = list[tuple[list[Entry], Changes, TableView]]


def watched(svc: TableService) -> Pushed:
    """What a screen subscribed to the service's batches is handed."""
    pushed: Pushed = []
    svc.subscribe_batches(lambda entries, changes, view: pushed.append((entries, changes, view)))
    return pushed


async def _round_to_result(svc: TableService, number: int | None = None) -> int:
    await svc.open_bets(CROUPIER)
    await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
    await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(20))
    await svc.no_more_bets(CROUPIER)
    assert svc.round is not None and svc.round.draw is not None
    bonus = svc.round.draw.bonus_number
    if number is None:
        number = bonus
    elif number == bonus:  # a plain result is asked for: no bonus game
        number = (number + 1) % 37
    await wheel(svc, {"type": "result", "number": number})
    await svc.confirm_result(CROUPIER)
    return number


def test_a_round_is_settled_once_through_the_service(store: Store, settles: Settles) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        watched(svc)  # a screen: the view (and its pay lines) is built after every batch
        settles.calls = 0
        await _round_to_result(svc, 17)
        assert svc.phase is Phase.RESULT and settles.calls == 1  # the paying list at the result
        at_result = svc.settlement()
        assert at_result is not None and svc.view.pay_lines
        entries = await svc.settle(CROUPIER)
        await svc.next_round(CROUPIER)
        assert settles.calls == 1  # the command, the journal's totals and the fold reused it
        assert svc.state.rounds_settled == 1
        settled = entries[-1].payload
        assert Decimal(settled["total_paid"]) == at_result.total_paid
        assert Decimal(settled["total_returned"]) == at_result.total_returned
        await svc.close()

    run(go())


def test_a_bonus_round_is_settled_once_and_pays_what_settle_round_pays(
    store: Store, settles: Settles
) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        pushed = watched(svc)
        settles.calls = 0
        await svc.open_bets(CROUPIER)
        await cover_everything(svc, "dora")
        await svc.place_wager(CROUPIER, "anna", outside_bet(BetKind.RED), Decimal(10))
        await svc.no_more_bets(CROUPIER)
        assert svc.round is not None and svc.round.draw is not None
        await wheel(svc, {"type": "result", "number": svc.round.draw.bonus_number})
        await svc.confirm_result(CROUPIER)
        assert svc.phase is Phase.BONUS and any(ln.pending for ln in pushed[-1][2].pay_lines)
        await svc.bonus_start(CROUPIER, "dora")
        while not svc.state.games["dora"].finished:
            await svc.bonus_pick(CROUPIER, "dora", 1)
        view = pushed[-1][2]
        assert not any(ln.pending for ln in view.pay_lines) and view.bonus_games[0].payout is not None
        r = svc.round
        assert r is not None and r.result is not None and r.draw is not None
        final = svc.settlement()
        assert settles.calls == 1  # the bonus outcome was priced onto the result's settlement
        fresh = engine.settlement.settle_round(r.wagers, r.result, r.draw, r.bonus_odds, r.rules)
        assert final == fresh and final is not None
        assert (str(final.total_paid), str(final.total_returned)) == (
            str(fresh.total_paid),
            str(fresh.total_returned),
        )
        settles.calls = 0
        await svc.settle(CROUPIER)
        assert settles.calls == 0 and svc.round is not None and svc.round.settlement is final
        await svc.close()

    run(go())


def test_every_subscriber_gets_one_view_per_batch(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        first, second = watched(svc), watched(svc)
        await svc.open_bets(CROUPIER)
        entries = await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
        assert len(first) == len(second) == 2
        got, changes, view = first[-1]
        assert got == entries and changes == Changes(wagers=True)
        assert second[-1][2] is view and svc.view is view  # built once, read without a rebuild
        assert svc.round is not None and view.phase is Phase.OPEN and view.wagers == svc.round.wagers
        assert view.step.label == "No more bets"
        await svc.no_more_bets(CROUPIER)
        assert svc.round is not None and svc.round.draw is not None
        number = 17 if svc.round.draw.bonus_number != 17 else 18
        await wheel(svc, {"type": "result", "number": number})
        assert first[-1][1].result == ResultNotice(number, confirmed=False, source="sensor")
        await svc.confirm_result(CROUPIER)
        assert first[-1][1].result == ResultNotice(number, confirmed=True, source="sensor")
        assert first[-1][2].phase is Phase.RESULT and first[-1][2].step.label == "Settle"
        await svc.close()

    run(go())


def test_the_tables_phase_is_the_rounds_phase_enum(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        assert svc.state.phase is Phase.IDLE and svc.phase is Phase.IDLE
        await svc.open_bets(CROUPIER)
        assert svc.state.phase is Phase.OPEN and svc.view.phase is Phase.OPEN
        await svc.close()

    run(go())


def _comparable(view: TableView) -> dict[str, Any]:
    # The bonus countdown is "seconds left when the view was made": the one field made at a moment.
    return {f.name: getattr(view, f.name) for f in dataclasses.fields(view) if f.name != "bonus_games"}


def test_the_follower_hands_its_screens_the_services_view(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store, approval_threshold=Decimal("1000000"))
        await svc.start()
        follower = JournalFollower(store, "T1")
        seen: Pushed = []
        follower.subscribe_batches(lambda entries, changes, view: seen.append((entries, changes, view)))
        await _round_to_result(svc, 17)
        assert follower.poll() > 0 and len(seen) == 1
        _, changes, view = seen[0]
        assert changes.phase and changes.pay_lines and view.phase is Phase.RESULT
        assert _comparable(view) == _comparable(svc.view)
        await svc.close()

    run(go())


def test_the_history_is_read_from_the_store_after_a_restart(store: Store) -> None:
    played: list[int] = []

    async def go(settle: bool) -> list[int]:
        svc = make_service(store)
        await svc.start()
        if settle:
            for number in (7, 0):
                played.append(await _round_to_result(svc, number))
                await svc.settle(CROUPIER)
                await svc.next_round(CROUPIER)
        history = [h.number for h in svc.view.history]
        await svc.close()
        return history

    assert run(go(True)) == played and len(played) == 2
    assert run(go(False)) == played  # a restarted service shows the rounds settled before
