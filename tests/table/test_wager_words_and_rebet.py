"""Issue 25 point 6 at the table service: a wager the table refuses is named as the croupier says it
(player, bet in words, amount), never by its journal id ("wager T1-000017-w5"); a Rebet after a round
of winning wagers only places the player's last whole round again, not only the chips that won."""

from __future__ import annotations

import asyncio
import re
from decimal import Decimal

import pytest

from engine.bets import BetKind, inside_bet, outside_bet
from engine.errors import IllegalTransition, IllegalWager
from engine.floor.actions import change_settings
from engine.store import Store
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, PITBOSS, make_service, spin, wheel

INTERNAL_ID = re.compile(r"T1-\d{6}-w\d+")


async def _refusal(svc: TableService, player: str, numbers: list[int], amount: Decimal) -> str:
    with pytest.raises(IllegalWager) as caught:
        await svc.place_wager(CROUPIER, player, inside_bet(numbers), amount)
    assert not INTERNAL_ID.search(caught.value.message), caught.value.message
    return caught.value.message


def test_a_players_own_limit_and_the_table_minimum_name_the_bet(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        change_settings(store, "T1", {"player_limit:bob": "30", "min_bet": "2"}, "limits", PITBOSS)
        await svc.open_bets(CROUPIER)
        await svc.place_wager(CROUPIER, "bob", inside_bet([5]), Decimal(20))
        own = await _refusal(svc, "bob", [5, 8], Decimal(15))
        assert own.startswith("bob's 15 on split 5/8: bob would have 35"), own
        low = await _refusal(svc, "bob", [9], Decimal(1))
        assert low == "bob's 1 on straight 9: 1 is below the table minimum 2", low
        with pytest.raises(IllegalTransition) as gone:  # a stale click on a wager already taken off
            await svc.remove_wager(CROUPIER, "T1-000001-w9")
        assert not INTERNAL_ID.search(gone.value.message) and "no longer on the felt" in gone.value.message
        await svc.close()

    asyncio.run(go())


async def _finish(svc: TableService, game: int, number: int) -> None:
    await svc.no_more_bets(CROUPIER)
    await wheel(svc, *spin(game, number))
    await svc.confirm_result(CROUPIER)
    await svc.settle(CROUPIER)
    await svc.next_round(CROUPIER)


def test_rebet_after_a_winning_only_round_repeats_the_whole_round_before(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        whole = [(inside_bet([17]), Decimal(25)), (outside_bet(BetKind.RED), Decimal(10))]
        await svc.place_wagers(CROUPIER, "anna", whole)
        await _finish(svc, 1, 3)
        change_settings(store, "T1", {"entry_mode": "winning"}, "busy night", PITBOSS)
        await svc.open_bets(CROUPIER)
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, *spin(2, 17))
        await svc.confirm_result(CROUPIER)
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(25))  # only the chip that won
        await svc.settle(CROUPIER)
        await svc.next_round(CROUPIER)
        change_settings(store, "T1", {"entry_mode": "all"}, "quiet again", PITBOSS)
        await svc.open_bets(CROUPIER)
        await svc.rebet(CROUPIER, "anna")
        assert svc.round is not None
        assert [(w.bet, w.amount) for w in svc.round.wagers] == whole
        await svc.close()

    asyncio.run(go())
