"""Issue 12, point 9: fast play for busy tables — winning wagers only, chosen per table.

With the pit boss's `entry_mode = winning` the chips stay on the felt unentered during betting;
after the result the croupier enters only those that cover the winning number and the table pays
each at the drawn Lucky/Bonus odds. The entries are the ordinary `round.wager_placed`, so recall,
reports and statistics read them as any other round's.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from fractions import Fraction

import pytest
import sqlalchemy as sa

from engine.bets import BetKind, inside_bet, outside_bet
from engine.errors import DrrError, IllegalTransition, IllegalWager
from engine.floor.actions import change_settings
from engine.store import Store, schema
from engine.store.projections import from_units
from engine.table.service import TableService
from tests.table.helpers import CROUPIER, PITBOSS, make_service, wheel


async def _to_result(svc: TableService, number: int | None = None, game: int = 3, lucky: bool = False) -> int:
    """A winning-only round up to its confirmed result: `number`, else a Lucky Number (`lucky`),
    else the Bonus Number."""
    await wheel(svc, {"type": "started", "game": game})
    await svc.open_bets(CROUPIER)
    assert svc.round is not None and svc.round.winning_only
    with pytest.raises(IllegalTransition, match="winning wagers only"):
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
    await wheel(svc, {"type": "launched", "game": game}, {"type": "no_more_bets", "game": game})
    assert svc.round.draw is not None
    draw = svc.round.draw
    drawn = number if number is not None else min(draw.lucky) if lucky else draw.bonus_number
    await wheel(svc, {"type": "result", "game": game, "number": drawn})
    await svc.confirm_result(CROUPIER)
    assert svc.phase == "result", "no wager was entered: no bonus game can start with the result"
    return drawn


def _winning_table(store: Store) -> TableService:
    change_settings(store, "T1", {"entry_mode": "winning"}, "busy Saturday", PITBOSS)
    return make_service(store)


def test_only_chips_covering_the_result_are_entered_and_paid_at_the_drawn_odds(store: Store) -> None:
    async def go() -> None:
        svc = _winning_table(store)
        await svc.start()
        n = await _to_result(svc, lucky=True)
        r = svc.round
        assert r is not None and r.draw is not None and n != 0
        other = n + 1 if n < 36 else n - 1
        with pytest.raises(IllegalWager, match=f"does not cover {n}"):
            await svc.place_wager(CROUPIER, "anna", inside_bet([other]), Decimal(5))
        await svc.place_wager(CROUPIER, "anna", inside_bet([n]), Decimal(5))
        await svc.place_wager(
            CROUPIER, "bob", outside_bet(BetKind.ODD if n % 2 else BetKind.EVEN), Decimal(20)
        )
        settlement = svc.provisional_settlement()
        assert settlement is not None
        straight = next(x for x in settlement.settlements if x.wager.player == "anna")
        # The straight on a Lucky Number is paid at that number's drawn odds.
        assert straight.kind == "lucky" and Fraction(straight.payout) == 5 * r.draw.lucky[n]
        need = svc.approval_needed()
        if need is not None:
            await svc.approve_payout(PITBOSS)
        await svc.settle(CROUPIER)
        assert svc.phase == "settled"
        await svc.close()

    asyncio.run(go())
    r = schema.rounds
    with store.read() as conn:
        row = conn.execute(sa.select(r.c.wagered, r.c.paid).order_by(r.c.seq.desc())).first()
    assert row is not None and from_units(row.wagered) == Decimal(25)
    kinds = [e.type for e in store.journal.entries("T1")]
    # Journaled the same way as any round: wagers are round.wager_placed, after the result here.
    assert kinds.index("round.result") < kinds.index("round.wager_placed") < kinds.index("round.settled")
    opened = next(e for e in store.journal.entries("T1") if e.type == "round.opened")
    assert opened.payload["entry"] == "winning"


def test_bonus_number_winners_play_their_game_once_the_croupier_has_entered_them(store: Store) -> None:
    async def go() -> None:
        svc = _winning_table(store)
        await svc.start()
        bonus = await _to_result(svc)
        with pytest.raises(IllegalTransition, match="nobody won on the Bonus Number"):
            await svc.start_bonus_games(CROUPIER)
        await svc.place_wager(CROUPIER, "dora", inside_bet([bonus]), Decimal(5))
        with pytest.raises(IllegalTransition, match="start the bonus games first"):
            await svc.settle(CROUPIER)
        await svc.start_bonus_games(CROUPIER)
        assert svc.phase == "bonus" and svc.round is not None and svc.round.bonus_players == ("dora",)
        with pytest.raises(IllegalTransition):
            await svc.place_wager(CROUPIER, "eve", inside_bet([bonus]), Decimal(5))
        await svc.close()

    asyncio.run(go())


def test_the_result_is_not_changed_under_entered_winners(store: Store) -> None:
    async def go() -> None:
        svc = _winning_table(store)
        await svc.start()
        await _to_result(svc, number=4)
        await svc.place_wager(CROUPIER, "anna", inside_bet([4]), Decimal(5))
        with pytest.raises(IllegalTransition, match="take them off first"):
            await svc.no_spin(CROUPIER, "ball left the wheel")
        wid = svc.round.wagers[0].id if svc.round is not None else ""
        await svc.remove_wager(CROUPIER, wid)
        await svc.no_spin(CROUPIER, "ball left the wheel")
        assert svc.phase == "closed"
        await svc.close()

    asyncio.run(go())


def test_a_restart_folds_a_winning_only_round_the_same(store: Store) -> None:
    async def go() -> None:
        svc = _winning_table(store)
        await svc.start()
        await _to_result(svc, number=9)
        await svc.place_wager(CROUPIER, "anna", inside_bet([9]), Decimal(5))
        await svc.close()
        again = make_service(store)
        await again.start()
        assert again.round is not None and again.round.winning_only and len(again.round.wagers) == 1
        await again.place_wager(CROUPIER, "bob", outside_bet(BetKind.DOZEN, 1), Decimal(10))
        await again.close()

    asyncio.run(go())


def test_entry_mode_is_all_or_winning(store: Store) -> None:
    with pytest.raises(DrrError, match="entry_mode must be all or winning"):
        change_settings(store, "T1", {"entry_mode": "fast"}, "typo", PITBOSS)

    async def go() -> None:
        change_settings(store, "T1", {"entry_mode": "all"}, "quiet night", PITBOSS)
        svc = make_service(store)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 1})
        await svc.open_bets(CROUPIER)
        assert svc.round is not None and not svc.round.winning_only
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
        await svc.close()

    asyncio.run(go())
    opened = next(e for e in store.journal.entries("T1") if e.type == "round.opened")
    assert "entry" not in opened.payload  # an ordinary round's entry reads as before


def test_a_wager_entered_after_the_result_changes_the_pay_lines(store: Store) -> None:
    """The notice of a winning-only wager names the pay lines and approvals (what the round pays
    changed), from the table's state; a wager while bets are open names only the wagers."""
    from engine.table.changes import changes_of

    async def go() -> None:
        svc = _winning_table(store)
        await svc.start()
        n = await _to_result(svc, lucky=True)
        entries = await svc.place_wager(CROUPIER, "anna", inside_bet([n]), Decimal(5))
        notice = changes_of(entries, svc.state)
        assert notice.wagers and notice.pay_lines and notice.approvals
        assert not changes_of(entries).pay_lines  # without the state, only what the entry says
        await svc.close()

        change_settings(store, "T1", {"entry_mode": "all"}, "quiet again", PITBOSS)
        usual = make_service(store)
        await usual.start()
        await usual.void(PITBOSS, "back to all wagers")
        await usual.open_bets(CROUPIER)
        placed = await usual.place_wager(CROUPIER, "anna", inside_bet([n]), Decimal(5))
        notice = changes_of(placed, usual.state)
        assert notice.wagers and not notice.pay_lines and not notice.approvals
        await usual.close()

    asyncio.run(go())
