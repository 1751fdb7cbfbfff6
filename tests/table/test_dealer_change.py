"""Who deals is journaled: a croupier signing in, a relief dealer taking over and a sign-out are each a
`table.dealer_changed` entry; the rounds opened after it carry that dealer, so the surveillance's
per-dealer figures follow the change, and a restart keeps who deals."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa

from engine.auth import PermissionDenied, User
from engine.entry_types import EntryType
from engine.errors import IllegalTransition
from engine.floor.sequence import Spin, dealer_signature
from engine.journal_types import read
from engine.store import Store, schema
from engine.table_events import DealerChanged
from tests.table.helpers import CROUPIER, PITBOSS, WATCHER, make_service, spin, wheel

RELIEF = User("rita", "croupier")


def _dealers(store: Store) -> list[str]:
    r = schema.rounds
    with store.read() as conn:
        return [str(d) for d in conn.execute(sa.select(r.c.dealer).order_by(r.c.seq)).scalars()]


def _changes(store: Store) -> list[DealerChanged]:
    found = store.journal.entries("T1")
    return [
        p
        for e in found
        if e.type == EntryType.TABLE_DEALER_CHANGED and isinstance(p := read(e), DealerChanged)
    ]


async def _play(svc: object, game: int, number: int) -> None:
    from engine.table.service import TableService

    assert isinstance(svc, TableService)
    await svc.open_bets(CROUPIER)
    await wheel(svc, *spin(game, number))
    await svc.confirm_result(CROUPIER)
    await svc.settle(CROUPIER)
    await svc.next_round(CROUPIER)


def test_a_dealer_change_is_journaled_and_the_next_rounds_carry_the_new_dealer(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.sign_in_dealer(CROUPIER)
        assert await svc.sign_in_dealer(CROUPIER) == []  # the same dealer again: nothing changed
        await _play(svc, 1, 17)
        await svc.open_bets(CROUPIER)  # a round on the felt keeps the dealer it was opened by
        await svc.sign_in_dealer(RELIEF)
        await wheel(svc, *spin(2, 5))
        await svc.confirm_result(CROUPIER)
        await svc.settle(CROUPIER)
        await svc.next_round(CROUPIER)
        await _play(svc, 3, 9)
        await svc.sign_out_dealer(RELIEF)
        with pytest.raises(IllegalTransition, match="nobody is signed in"):
            await svc.sign_out_dealer(RELIEF)
        with pytest.raises(PermissionDenied, match="may not open bets"):
            await svc.sign_in_dealer(WATCHER)
        await svc.close()

        assert _dealers(store) == ["carol", "carol", "rita"]
        assert [(c.dealer, c.previous) for c in _changes(store)] == [
            ("carol", None),
            ("rita", "carol"),
            (None, "rita"),
        ]
        # Surveillance's per-dealer figures read the rounds' dealers: both dealers are there.
        spins = [Spin(n, d) for n, d in zip((17, 5, 9), _dealers(store), strict=True)]
        assert {row["dealer"] for row in dealer_signature(spins)} == {"carol", "rita"}

        again = make_service(store)
        await again.start()
        assert again.state.dealer is None  # signed out before the restart: nobody deals
        await again.sign_in_dealer(PITBOSS)
        await again.close()
        third = make_service(store)
        await third.start()
        assert third.state.dealer == "pete"  # kept by the restart, also from a long journal's seed
        await third.close()

    asyncio.run(go())


def test_the_pit_bosss_dealer_setting_and_a_sign_in_the_later_wins(store: Store) -> None:
    from engine.floor.actions import change_settings

    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.sign_in_dealer(CROUPIER)
        change_settings(store, "T1", {"dealer": "eli"}, "eli takes over", PITBOSS)
        await _play(svc, 1, 17)
        await svc.sign_in_dealer(RELIEF)
        await _play(svc, 2, 4)
        change_settings(store, "T1", {"dealer": "eli"}, "eli takes over", PITBOSS)
        await svc.sign_out_dealer(RELIEF)  # the station's user leaves, whoever the setting names
        await svc.close()
        assert _dealers(store) == ["eli", "rita"]
        assert (_changes(store)[-1].dealer, _changes(store)[-1].previous) == (None, "rita")

    asyncio.run(go())
