"""A player's own limit (the pit boss's `player_limit:<player>` setting) is enforced by the service's
wager check like every other limit; several wagers at once (a typed line) and a Rebet of a player's
last round are each wager journaled and limit-checked, all placed or none."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from engine.bets import BetKind, inside_bet, outside_bet
from engine.entry_types import EntryType
from engine.errors import DrrError, IllegalWager
from engine.floor.actions import change_settings
from engine.store import Store
from engine.table.limits import limits_in_force
from engine.table.service import TableService
from engine.wager_text import parse_wagers
from tests.table.helpers import CROUPIER, PITBOSS, make_service, spin, wheel


def _placed(store: Store) -> int:
    return sum(1 for e in store.journal.entries("T1") if e.type == EntryType.ROUND_WAGER_PLACED)


async def _finish(svc: TableService, game: int, number: int) -> None:
    await svc.no_more_bets(CROUPIER)
    await wheel(svc, *spin(game, number))
    await svc.confirm_result(CROUPIER)
    await svc.settle(CROUPIER)
    await svc.next_round(CROUPIER)


def test_a_players_own_limit_is_enforced_from_the_next_round(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        change_settings(store, "T1", {"player_limit:anna": "30"}, "anna asked for a limit", PITBOSS)
        await svc.open_bets(CROUPIER)
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(20))
        with pytest.raises(IllegalWager, match="anna would have 35 on this round, above anna's own limit 30"):
            await svc.place_wager(CROUPIER, "anna", outside_bet(BetKind.RED), Decimal(15))
        await svc.place_wager(CROUPIER, "anna", outside_bet(BetKind.RED), Decimal(10))
        await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(100))  # bob has none
        limits = limits_in_force(svc.rules.limits, svc.state.settings)
        assert limits.player_cap("anna") == Decimal(30)
        change_settings(store, "T1", {"player_limit:anna": "none"}, "limit lifted", PITBOSS)
        await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(1))  # folds the change
        assert limits_in_force(svc.rules.limits, svc.state.settings).players == {}
        await svc.close()

    asyncio.run(go())


def test_a_bad_player_limit_is_refused_before_it_is_journaled(store: Store) -> None:
    with pytest.raises(DrrError, match="player_limit:anna 'lots' is not an amount"):
        change_settings(store, "T1", {"player_limit:anna": "lots"}, "why", PITBOSS)
    with pytest.raises(DrrError, match="unknown table setting 'player_limit:'"):
        change_settings(store, "T1", {"player_limit:": "10"}, "why", PITBOSS)


def test_a_typed_line_is_placed_whole_or_not_at_all(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        change_settings(store, "T1", {"player_limit:anna": "40"}, "limit", PITBOSS)
        await svc.open_bets(CROUPIER)
        line = parse_wagers("17/25 17-20/10 red/10")  # 45: over anna's 40 at the third wager
        with pytest.raises(IllegalWager, match="anna would have 45"):
            await svc.place_wagers(CROUPIER, "anna", [(w.bet, w.amount or 5) for w in line])
        assert _placed(store) == 0  # nothing of the line was journaled
        entries = await svc.place_wagers(CROUPIER, "anna", [(w.bet, w.amount or 5) for w in line[:2]])
        assert [e.type for e in entries] == [EntryType.ROUND_WAGER_PLACED] * 2
        assert svc.round is not None
        assert [(w.bet, w.amount) for w in svc.round.wagers] == [
            (inside_bet([17]), Decimal(25)),
            (inside_bet([17, 20]), Decimal(10)),
        ]
        with pytest.raises(IllegalWager, match="not a multiple of the wager unit"):
            await svc.place_wagers(CROUPIER, "bob", [(inside_bet([1]), "0.001")])
        await svc.close()

    asyncio.run(go())


def test_rebet_places_the_players_last_round_again_each_wager_checked(store: Store) -> None:
    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await svc.open_bets(CROUPIER)
        with pytest.raises(IllegalWager, match="anna has no wagers of an earlier round"):
            await svc.rebet(CROUPIER, "anna")
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(25))
        await svc.place_wager(CROUPIER, "anna", inside_bet([17, 20]), Decimal(10))
        await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(5))
        await _finish(svc, 1, 3)
        await svc.open_bets(CROUPIER)
        await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.BLACK), Decimal(5))
        await _finish(svc, 2, 3)  # anna sat this one out: her last round is still round 1
        await svc.open_bets(CROUPIER)
        before = _placed(store)
        entries = await svc.rebet(CROUPIER, "anna")
        assert len(entries) == 2 and _placed(store) == before + 2
        assert svc.round is not None
        assert [(w.player, w.bet, w.amount) for w in svc.round.wagers] == [
            ("anna", inside_bet([17]), Decimal(25)),
            ("anna", inside_bet([17, 20]), Decimal(10)),
        ]
        await svc.void(PITBOSS, "test")
        await svc.next_round(CROUPIER)
        # A limit set since is enforced on a Rebet too.
        change_settings(store, "T1", {"player_limit:anna": "30"}, "limit", PITBOSS)
        await svc.close()

        again = make_service(store)  # the wagers of the round on the felt at the restart are kept
        await again.start()
        await again.open_bets(CROUPIER)
        with pytest.raises(IllegalWager, match="above anna's own limit 30"):
            await again.rebet(CROUPIER, "anna")
        assert _placed(store) == before + 2
        # Earlier rounds are not folded again after a restart (engine.table.recovery): said so.
        with pytest.raises(IllegalWager, match="bob has no wagers of an earlier round"):
            await again.rebet(CROUPIER, "bob")
        await again.close()

    asyncio.run(go())


def test_chips_come_from_the_settings_and_none_is_below_the_table_minimum(store: Store) -> None:
    from engine.config import ConfigError, with_overrides
    from engine.config import Settings as Installation
    from engine.rules import load_default_rules
    from engine.table.limits import chips_in_force

    chips = with_overrides(Installation(), {"table.chips": "2.5 10 50 100 500"}).chip_values
    assert chips == tuple(Decimal(v) for v in ("2.5", "10", "50", "100", "500"))
    rules = load_default_rules()
    unit = rules.unit
    assert chips_in_force(chips, limits_in_force(rules.limits, {}), unit) == chips
    at_ten = limits_in_force(rules.limits, {"min_bet": "10", "max_bet": "100"})
    assert chips_in_force(chips, at_ten, unit) == (Decimal(10), Decimal(50), Decimal(100))
    assert chips_in_force(chips, limits_in_force(rules.limits, {"min_bet": "1000"}), unit) == (Decimal(1000),)
    for bad in ("10 2.5", "abc", ""):
        with pytest.raises(ConfigError):
            with_overrides(Installation(), {"table.chips": bad})
