"""Issue 26 item 4: one irregularity journals one entry of each kind, and a result for a game the
wheel was never seen to launch after the re-spin was commanded is held, not settled.

The table here acts as the headless driver does: after every wheel message, a round held in
"closed" is called a no-spin at once, and the service's timer ticks (which orders the re-spin)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from engine.bets import inside_bet
from engine.entry_types import EntryType as E
from engine.round import Phase
from engine.store import Store
from engine.table.service import TableService
from engine.wheel_events import WheelEvent
from hardware.protocol import get_protocol
from tests.table.helpers import CROUPIER, make_service

T0 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = 2_000_000.0

    def __call__(self) -> float:
        return self.now


class Table:
    def __init__(self, store: Store) -> None:
        self.clock = Clock()
        self.svc: TableService = make_service(store, clock=self.clock, betting_seconds=20)
        self.protocol = get_protocol("ss2")
        self.i = 0

    async def lines(self, *lines: str) -> None:
        for line in lines:
            self.i += 1
            self.clock.now += 0.5
            for ev in self.protocol.feed_line(line, T0 + timedelta(seconds=0.5 * self.i)):
                if not isinstance(ev, WheelEvent):
                    continue
                await self.svc.wheel_event(ev)
                st = self.svc.state
                if st.hold is not None and st.round is not None and st.round.phase is Phase.CLOSED:
                    await self.svc.no_spin(CROUPIER, f"irregularity {st.hold.kind}: spin again")
                await self.svc.tick_clock()


async def doubtful_round(store: Store) -> Table:
    t = Table(store)
    await t.svc.start()
    await t.lines("*X;2;013;07;0;250;0")
    await t.svc.open_bets(CROUPIER)
    await t.svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
    t.clock.now += 21
    await t.svc.tick_clock()  # betting time over: the spin is ordered
    await t.lines("*X;3;013;07;0;250;0", "*X;4;013;07;0;250;0")
    # The doubtful result: number line 18, status line 19.
    await t.lines(" 18", "*X;5;013;19;0;250;0", "*X;5;013;19;0;250;0")
    return t


def types(store: Store) -> list[str]:
    return [e.type for e in store.journal.entries("T1")]


def test_one_irregularity_journals_one_entry_of_each_kind(store: Store) -> None:
    async def go() -> None:
        t = await doubtful_round(store)
        await t.svc.close()

    asyncio.run(go())
    journal = types(store)
    assert journal.count(E.ROUND_IRREGULARITY) == 1, journal
    assert journal.count(E.ROUND_NO_SPIN) == 1, journal
    assert journal.count(E.TABLE_WHEEL_START) == 2, journal  # the spin, then one re-spin


def test_a_result_for_a_game_never_seen_launching_is_held_not_settled(store: Store) -> None:
    async def go() -> None:
        t = await doubtful_round(store)
        # The next state-5 line with a new game counter: no state 3 or 4 for game 14 was seen.
        await t.lines("*X;5;014;22;0;250;0", "*X;5;014;22;0;250;0")
        st = t.svc.state
        assert st.pending_result is None
        assert st.round is not None and st.round.result is None
        await t.svc.close()

    asyncio.run(go())
    entries = list(store.journal.entries("T1"))
    assert [e for e in entries if e.type == E.ROUND_RESULT] == []
    [late] = [e for e in entries if e.type == E.WHEEL_RESULT and e.payload.get("game") == 14]
    assert late.payload["accepted"] is False
    [held] = [e for e in entries if e.type == E.ROUND_IRREGULARITY and e.payload.get("game") == 14]
    assert held.payload["kind"] == "result_not_launched"
    assert "game 14 was never seen to launch" in held.payload["reason"]


def test_a_re_spin_the_wheel_was_seen_launching_is_accepted(store: Store) -> None:
    async def go() -> None:
        t = await doubtful_round(store)
        await t.lines("*X;2;014;19;0;250;0", "*X;3;014;19;0;250;0", "*X;4;014;19;0;250;0")
        await t.lines(" 22", "*X;5;014;22;0;250;0", "*X;5;014;22;0;250;0")
        st = t.svc.state
        assert st.pending_result is not None and st.pending_result.number == 22
        await t.svc.close()

    asyncio.run(go())


def test_a_second_different_result_for_the_game_holds_the_round(store: Store) -> None:
    async def go() -> None:
        t = Table(store)
        t.svc.betting_seconds = None  # a free-running wheel: no re-spin orders here
        await t.svc.start()
        await t.lines("*X;2;013;07;0;250;0")
        await t.svc.open_bets(CROUPIER)
        await t.svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
        await t.lines("*X;3;013;07;0;250;0", "*X;4;013;07;0;250;0")
        await t.lines(" 19", "*X;5;013;19;0;250;0", "*X;5;013;19;0;250;0")
        assert t.svc.state.pending_result is not None
        # The same game counter, another number: not a repeat of the state-5 line.
        await t.lines("*X;5;013;22;0;250;0", "*X;5;013;22;0;250;0")
        await t.svc.close()

    asyncio.run(go())
    entries = list(store.journal.entries("T1"))
    [warning] = [e for e in entries if e.type == E.WHEEL_WARNING]
    assert warning.payload["warnings"] == ["result_conflict"]
    assert warning.payload["advice"] == "game 013 reported 19, then 22"
    [held] = [e for e in entries if e.type == E.ROUND_IRREGULARITY]
    assert held.payload["reason"] == "game 013 reported 19, then 22"
    assert [e for e in entries if e.type == E.ROUND_RESULT] == []
