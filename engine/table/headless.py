"""Unattended play: a croupier, a pit boss and a few synthetic players following the wheel.

The soak test, the demo and the way CI exercises the whole loop (`drr table run --headless`). The
wheel drives the pace: its "started" opens a round (if rounds remain), the players put one wager of
every kind on the felt (random spots and amounts), the wheel's state 4 closes bets (the draw), its
result is confirmed, bonus games are played by the chosen policy, large payouts are approved by the
pit boss, the round is settled and cleared. Irregularities are resolved the way a floor would: a
no-spin after bets closed, the pit boss's acknowledgement while bets are open, a void after
`MAX_NO_SPINS` no-spins in one round.

Synthetic choices come from `choices` (an Rng: the OS CSPRNG unless a test seeds it); the game's
own randomness (draw, bonus boxes) always comes from the service's RNG.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final, Literal

from engine.auth import User
from engine.bets import Bet, BetKind, legal_bets, offered_kinds
from engine.entry_types import EntryType
from engine.errors import DrrError, IllegalWager
from engine.exact import format_odds
from engine.journal_types import entry_type
from engine.rng import Rng, SystemRng
from engine.round import Phase
from engine.store.records import Entry
from engine.table.service import MISMATCH_HOLD, TIMER_USER, TableService
from engine.table.wheel import check_wheel_event
from engine.table_events import TILT_RNG
from engine.wheel_events import (
    WheelClosed,
    WheelEvent,
    WheelLaunched,
    WheelNoMoreBets,
    WheelResult,
    WheelStarted,
)

CROUPIER: Final = User("headless-croupier", "croupier")
PITBOSS: Final = User("headless-pitboss", "pitboss")
PLAYERS: Final = ("anna", "bob", "carl", "dora")
CHIPS: Final = (1, 2, 5, 10, 25)  # in wager units
MAX_NO_SPINS: Final = 3
ROUNDS_KEPT: Final = 100
BonusPolicy = Literal["random", "preset"]


@dataclass(frozen=True)
class RoundSummary:
    round_id: str
    status: str  # settled | void
    result: int | None
    lucky: Mapping[int, Fraction]
    bonus_number: int | None
    wagers: int
    wagered: Decimal
    paid: Decimal
    bonus: Mapping[str, Fraction]
    irregularities: int
    note: str = ""

    def line(self) -> str:
        lucky = ", ".join(f"{n}@{format_odds(x)}" for n, x in self.lucky.items()) or "-"
        parts = [
            f"{self.round_id}",
            f"{self.status:7s}",
            f"result {'-' if self.result is None else f'{self.result:2d}'}",
            f"lucky {lucky}",
            f"bonus {'-' if self.bonus_number is None else self.bonus_number}",
            f"{self.wagers} wagers {self.wagered}",
            f"paid {self.paid}",
        ]
        if self.bonus:
            parts.append(
                "bonus games " + ", ".join(f"{p} {format_odds(x)} to 1" for p, x in self.bonus.items())
            )
        if self.irregularities:
            parts.append(f"{self.irregularities} irregularities")
        if self.note:
            parts.append(self.note)
        return "  ".join(parts)


@dataclass
class RunTotals:
    settled: int = 0
    voided: int = 0
    wagered: Decimal = Decimal(0)
    paid: Decimal = Decimal(0)  # what winning wagers won
    returned: Decimal = Decimal(0)  # what went back to players: wins plus the winning wagers' stakes
    bonus_games: int = 0
    irregularities: int = 0
    # the last ROUNDS_KEPT rounds' summaries (each is printed as it ends and the journal has every round:
    # a soak run until stopped must not grow by one summary a round)
    rounds: deque[RoundSummary] = field(default_factory=lambda: deque(maxlen=ROUNDS_KEPT))

    def line(self) -> str:
        win = self.wagered - self.returned
        hold = f"{win / self.wagered * 100:.2f}%" if self.wagered else "-"  # display only
        return (
            f"done: {self.settled} rounds settled, {self.voided} void, {self.bonus_games} bonus games, "
            f"{self.irregularities} irregularities; wagered {self.wagered}, paid {self.paid} "
            f"(+ stakes back: returned {self.returned}), table win {win}, hold {hold}"
        )


@functools.cache
def _layout(trios: bool, first_four: bool) -> tuple[tuple[BetKind, ...], dict[BetKind, tuple[Bet, ...]]]:
    """The kinds a Rules Submission offers and the legal bets of each (worked out once, not per wager)."""
    by_kind: dict[BetKind, list[Bet]] = {}
    for bet in legal_bets(trios, first_four):
        by_kind.setdefault(bet.kind, []).append(bet)
    kinds = tuple(info.kind for info in offered_kinds(trios, first_four))
    return kinds, {kind: tuple(bets) for kind, bets in by_kind.items()}


class HeadlessTable:
    """Drives a started TableService from wheel events until `rounds` rounds are complete."""

    def __init__(
        self,
        service: TableService,
        *,
        rounds: int,
        choices: Rng | None = None,
        players: tuple[str, ...] = PLAYERS,
        bonus_policy: BonusPolicy = "random",
        on_round: Callable[[RoundSummary], None] | None = None,
        croupier: User = CROUPIER,
        pitboss: User = PITBOSS,
    ) -> None:
        # On a store that has users both are the signed-in pit boss (drr table run --headless --user):
        # the synthetic ones are for stores without users (tests, demos) only.
        self.service = service
        self.croupier, self.pitboss = croupier, pitboss
        self.rounds = rounds
        self.choices: Rng = choices or SystemRng()
        self.players = players
        self.bonus_policy = bonus_policy
        self.on_round = on_round
        self.totals = RunTotals()
        self._wheel_bets_open = False  # the wheel's last state was "started": a round may open
        self._no_spins: dict[str, int] = {}
        self._irregular_in_round = 0
        self._driving = asyncio.Lock()
        self._finished = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        service.subscribe(self._observe)

    @property
    def done(self) -> bool:
        """`rounds` rounds finished (never, with rounds=0: a soak test runs until stopped)."""
        return 0 < self.rounds <= self.totals.settled + self.totals.voided

    # -- the loop ---------------------------------------------------------------------------------

    async def run(self, events: AsyncIterator[WheelEvent | Mapping[str, Any]]) -> RunTotals:
        """Feed the wheel's events to the service and act on each, until the rounds are done (also
        when the last round ends on a bonus timer while the wheel is quiet) or the events end."""
        await self.drive()
        if self.done:
            return self.totals
        consume = asyncio.create_task(self._consume(events), name="headless-wheel")
        finished = asyncio.create_task(self._finished.wait(), name="headless-finished")
        try:
            await asyncio.wait({consume, finished}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (consume, finished):
                task.cancel()
            await asyncio.gather(consume, finished, return_exceptions=True)
        if consume.done() and not consume.cancelled() and consume.exception() is not None:
            raise consume.exception()  # type: ignore[misc]
        return self.totals

    async def _consume(self, events: AsyncIterator[WheelEvent | Mapping[str, Any]]) -> None:
        async for ev in events:
            event = check_wheel_event(ev)
            if isinstance(event, WheelStarted):
                self._wheel_bets_open = True
            elif isinstance(event, WheelLaunched | WheelNoMoreBets | WheelResult | WheelClosed):
                self._wheel_bets_open = False
            await self.service.wheel_event(event)
            await self.drive()
            if self.done:
                return

    async def drive(self) -> None:
        """Take every step that is due now (a recovered round is picked up where it stood)."""
        async with self._driving:  # the wheel loop and the bonus timers both call this
            for _ in range(64):
                if not await self._step():
                    return

    async def _step(self) -> bool:
        svc, st = self.service, self.service.state
        s = st.round
        if st.tilts:  # the gate stops play: nobody unattended may clear it, so the run ends here
            clear = ": drr pitboss clear-tilt" if TILT_RNG in st.tilts else ""  # the RNG's clear only
            raise DrrError(
                f"table {svc.table} is tilted: {svc.view.hold}; the unattended run stops "
                f"({svc.view.tilt_todo}{clear})"
            )
        if st.hold is not None and s is not None and st.in_play:
            why = f"irregularity {st.hold.kind}: {st.hold.reason}"
            rid = s.round_id
            if s.phase is Phase.CLOSED:
                self._no_spins[rid] = self._no_spins.get(rid, 0) + 1
                if self._no_spins[rid] > MAX_NO_SPINS:
                    await svc.void(self.pitboss, f"{MAX_NO_SPINS} no-spins in a row; {why}")
                else:
                    await svc.no_spin(self.croupier, why)
            elif st.hold.kind == MISMATCH_HOLD:
                # A doubtful result after it was confirmed: nobody reads the pocket here, so void.
                await svc.void(self.pitboss, why)
            else:
                await svc.resolve_irregularity(self.pitboss, why)
            return True
        if not st.in_play:
            if s is not None:
                await svc.next_round(self.croupier)
                return True
            if self._wheel_bets_open and not self.done and self._open_rounds_left():
                await svc.open_bets(self.croupier)
                return True
            return False
        assert s is not None
        if s.phase is Phase.OPEN:
            return await self._place_wagers()
        if s.phase is Phase.CLOSED:
            if st.pending_result is not None:
                await svc.confirm_result(self.croupier)
                return True
            return False
        if s.phase is Phase.BONUS:
            if await self._play_bonus():
                return True
            if len(s.bonus_odds) < len(s.bonus_players):
                return False  # preset policy: the timers are playing; their entries wake us up
        if svc.approval_needed() is not None:
            await svc.approve_payout(self.pitboss)
            return True
        await svc.settle(self.croupier)
        return True

    def _open_rounds_left(self) -> bool:
        return not self.done

    # -- the players ------------------------------------------------------------------------------

    def _pick(self, seq: list[Any] | tuple[Any, ...]) -> Any:
        return seq[self.choices.randbelow(len(seq))]

    async def _place_wagers(self) -> bool:
        """One wager of every kind, spread over the players; after a restart only the missing ones."""
        st = self.service.state
        s = st.round
        assert s is not None and st.round_id is not None
        rules = s.rules
        kinds, by_kind = _layout(rules.trios, rules.first_four)
        placed = {w.id for w in s.wagers}
        todo = [k for i, k in enumerate(kinds) if f"{st.round_id}-h{i + 1}" not in placed]
        if not todo:
            return False
        for i, kind in enumerate(kinds):
            wid = f"{st.round_id}-h{i + 1}"
            if wid in placed:
                continue
            amount = rules.unit * self._pick(CHIPS) * (100 if rules.unit < 1 else 1)
            try:
                await self.service.place_wager(
                    self.croupier, self._pick(self.players), self._pick(by_kind[kind]), amount, wager_id=wid
                )
            except IllegalWager:
                continue  # over a limit of this Rules Submission: that player simply does not bet it
        return False  # the wheel closes bets

    async def _play_bonus(self) -> bool:
        """Start every due game and play it out (random policy) or let the timers play it (preset)."""
        svc, st = self.service, self.service.state
        s = st.round
        assert s is not None
        for player in s.bonus_players:
            if player not in st.games:
                if self.bonus_policy == "preset" and player not in st.presets:
                    await svc.set_bonus_preset(self.croupier, player, self._pick(("cash_out", "random")))
                await svc.bonus_start(self.croupier, player)
                return True
        for player, game in st.games.items():
            if game.finished:
                continue
            if self.bonus_policy == "preset":
                return False  # the service's timers apply the presets; their entries wake us up
            if game.can_cash_out and self.choices.randbelow(3) == 0:
                await svc.bonus_cash_out(self.croupier, player)
            else:
                await svc.bonus_pick(self.croupier, player, self.choices.randbelow(5) + 1)
            return True
        return False

    # -- what happened ----------------------------------------------------------------------------

    def _observe(self, entry: Entry) -> None:
        t = entry_type(entry.type)
        if t is EntryType.ROUND_BONUS_OUTCOME and entry.user == TIMER_USER:
            # A game ended on its timer, between wheel events: settle without waiting for the wheel.
            task = asyncio.get_running_loop().create_task(self.drive())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if t in (EntryType.ROUND_IRREGULARITY, EntryType.ROUND_RESULT_BEFORE_CLOSE):
            self.totals.irregularities += 1
            self._irregular_in_round += 1
        elif t is EntryType.ROUND_OPENED:
            self._irregular_in_round = 0
            self._no_spins = {rid: n for rid, n in self._no_spins.items() if rid == entry.round_id}
        elif t in (EntryType.ROUND_SETTLED, EntryType.ROUND_VOIDED):
            self._finish(t is EntryType.ROUND_SETTLED, entry)

    def _finish(self, settled: bool, entry: Entry) -> None:
        s = self.service.state.round
        assert s is not None
        draw = s.draw
        t = self.totals
        wagered = sum((w.amount for w in s.wagers), Decimal(0))
        paid = s.settlement.total_paid if s.settlement is not None else Decimal(0)
        if settled:
            t.settled += 1
            t.wagered += wagered
            t.paid += paid
            t.returned += s.settlement.total_returned if s.settlement is not None else Decimal(0)
            t.bonus_games += len(s.bonus_odds)
        else:
            t.voided += 1
        summary = RoundSummary(
            round_id=s.round_id,
            status="settled" if settled else "void",
            result=s.result,
            lucky=dict(draw.lucky) if draw else {},
            bonus_number=draw.bonus_number if draw else None,
            wagers=len(s.wagers),
            wagered=wagered,
            paid=paid,
            bonus=dict(s.bonus_odds),
            irregularities=self._irregular_in_round,
            note=s.void_reason if not settled else "",
        )
        t.rounds.append(summary)
        if self.on_round is not None:
            self.on_round(summary)
        if self.done:
            self._finished.set()
