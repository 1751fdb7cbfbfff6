"""Demonstration floor: rounds played through the real table service, from seeded generators.

Each table's rounds are played the way a real table plays them: an `engine.table.service`
`TableService` on the given store (a seeded generator, which the service accepts for demos only),
the wheel's own events (game started, rotor speed, ball launched, no more bets, result), the
croupier's commands, bonus games played through the service and now and then a result entered by
hand (a sensor fault). Every entry on the demo floor is written by the code that writes it at a real
table; this module writes none. The service runs on a demo clock that replays a shift from `start`
(one round every 75 s) and stamps the entries with it, so the floor's charts and reports have a
history. For screenshots, tests and demos only: the seeded generator is not a casino RNG.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from engine.auth import User
from engine.bets import Bet, BetKind, inside_bet, outside_bet
from engine.errors import DrrError
from engine.rng import SeededRng
from engine.round import Phase, draw_lucky_and_bonus
from engine.store.db import Store
from engine.store.records import Entry
from engine.table.service import TableService

PLAYERS = ("Anna", "Bob", "Carla", "Dev", "Eve")
DEALERS = ("dana", "eli", "fay")
PIT_BOSS = User("pat", "pitboss")
START = datetime(2026, 11, 29, 0, 0, tzinfo=UTC)
ROUND_SECONDS = 75  # one round every 75 s of the demo clock
MANUAL_EVERY = 50  # the 26th round of every 50 has its result entered by hand (a sensor fault)
MANUAL_REASON = "sensor fault: read from the wheel by the dealer"


@dataclass
class DemoClock:
    """The service's clock on the demo floor: seconds since the epoch, moved on by the demo."""

    now: float

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def demo_wagers(rng: SeededRng, round_no: int) -> list[tuple[str, Bet, Decimal]]:
    """(player, bet, amount) of the regulars' wagers in round `round_no` (0-based) of a table."""
    d = Decimal
    colour = BetKind.RED if rng.randbelow(2) else BetKind.BLACK
    plan: list[tuple[str, Bet, Decimal]] = [
        ("Anna", outside_bet(colour), d(25 * (1 + rng.randbelow(4)))),
        ("Bob", inside_bet([rng.randbelow(37)]), d(5 * (1 + rng.randbelow(4)))),
        ("Dev", outside_bet(BetKind.DOZEN, 1 + rng.randbelow(3)), d(20)),
    ]
    if round_no % 3 == 0:
        plan.append(("Eve", outside_bet(BetKind.HIGH), d(100)))
    return plan


class _DemoTable:
    """One table of the demo floor: a started TableService, its wheel and its croupiers."""

    def __init__(self, service: TableService, clock: DemoClock, choices: SeededRng, start: datetime) -> None:
        self.svc = service
        self.clock = clock
        self.choices = choices  # the players' and the wheel's choices (the game's draw is the service's)
        self.start = start

    async def wheel(self, kind: str, game: int, **extra: object) -> None:
        await self.svc.wheel_event({"type": kind, "game": game, **extra})

    def croupier(self, index: int) -> User:
        return User(DEALERS[(index // 30) % len(DEALERS)], "croupier")

    async def finish_round_in_play(self, croupier: User) -> None:
        """Settle (or clear) a round an earlier call left at the table, as its croupier would."""
        s = self.svc.state.round
        if s is None:
            return
        if s.phase in (Phase.RESULT, Phase.BONUS):
            if self.svc.approval_needed() is not None:
                await self.svc.approve_payout(PIT_BOSS)
            await self.svc.settle(croupier)
        if self.svc.state.round is not None:
            await self.svc.next_round(croupier)

    async def play(self, index: int, *, hit_bonus: bool, settle: bool = True) -> str:
        """Round number `index` (0-based) of the table, from the wheel's "game started" to cleared."""
        svc, clock = self.svc, self.clock
        clock.now = (self.start + timedelta(seconds=ROUND_SECONDS * index)).timestamp()
        croupier, game = self.croupier(index), index + 1
        # The rotor reverses every game, as an SS2 the table starts with `*u 1` / `*u 3` in turn
        # (hardware.table_bridge.WheelDriver): a sound wheel raises no direction alarm.
        direction = "cw" if index % 2 else "ccw"
        await self.wheel("started", game)
        clock.advance(1)
        await svc.open_bets(croupier)
        s = svc.state.round  # the round as it stands (each command folds in a new state)
        assert s is not None
        round_id = s.round_id
        for player, bet, amount in demo_wagers(self.choices, index):
            clock.advance(2)
            await svc.place_wager(croupier, player, bet, amount, seat=PLAYERS.index(player))
        if hit_bonus:
            # The draw is the service's generator's next; a copy of it shows the Bonus Number to come,
            # and Carla puts a straight-up on it (so the demo has bonus games to show).
            bonus_number = draw_lucky_and_bonus(s.rules, copy.deepcopy(svc.rng)).bonus_number
            clock.advance(2)
            await svc.place_wager(
                croupier, "Carla", inside_bet([bonus_number]), Decimal(5), seat=PLAYERS.index("Carla")
            )
        # 14.0-19.9 rpm, the speeds of a real SS2 wheel's results (the public capture b), inside the
        # rotor-speed alarm's band (engine.floor.wheel_alarms): the demo floor's wheel is a sound one.
        rpm = Decimal(14) + Decimal(self.choices.randbelow(60)) / 10
        await self.wheel("rotor", game, rpm=str(rpm), direction=direction)
        clock.advance(10)
        await self.wheel("launched", game)
        clock.advance(5)
        await self.wheel("no_more_bets", game)  # the wheel's state 4 closes bets: the draw
        s = svc.state.round
        assert s is not None and s.draw is not None
        number = self.choices.randbelow(37)
        if hit_bonus:
            number = s.draw.bonus_number
            assert number == bonus_number, "the draw is the service generator's next"
        clock.advance(10)
        if index % MANUAL_EVERY == MANUAL_EVERY // 2:
            await svc.manual_result(croupier, number, MANUAL_REASON)
            clock.advance(2)
            await svc.manual_result(croupier, number, MANUAL_REASON)
        else:
            await self.wheel("result", game, number=number, warnings=[])
            clock.advance(2)
            await svc.confirm_result(croupier)
        if svc.state.round is not None and svc.state.round.phase is Phase.BONUS:
            await self.play_bonus_games(croupier)
        if not settle:
            return round_id
        clock.advance(3)
        if svc.approval_needed() is not None:  # a large win (a bonus game can pay 4,999 to 1)
            await svc.approve_payout(PIT_BOSS)
            clock.advance(5)
        await svc.settle(croupier)
        clock.advance(2)
        await svc.next_round(croupier)
        return round_id

    async def play_bonus_games(self, croupier: User) -> None:
        """Each winner plays: boxes 1, 2, 3... in turn, cashing out from round 4 (§ 617b.12(j))."""
        svc = self.svc
        s = svc.state.round
        assert s is not None
        for player in s.bonus_players:
            self.clock.advance(2)
            await svc.bonus_start(croupier, player)
            picks = 0
            while not svc.state.games[player].finished:
                self.clock.advance(3)  # well inside the countdown: the timer never decides in a demo
                game = svc.state.games[player]
                if game.can_cash_out and game.round >= 4:
                    await svc.bonus_cash_out(croupier, player)
                else:
                    await svc.bonus_pick(croupier, player, 1 + picks % 5)
                    picks += 1


async def play_rounds_async(
    store: Store,
    table: str,
    count: int,
    *,
    seed: str = "demo",
    start: datetime = START,
    bonus_every: int = 40,
    rules_text: bytes | None = None,
    leave_last_unsettled: bool = False,
    pause: float = 0.0,
    on_batch: Callable[[list[Entry]], None] | None = None,
) -> list[str]:
    """Play `count` more rounds on `table` through a TableService on `store`; their round ids.

    `pause`: seconds of real time between rounds (a live floor for the floor benchmark);
    `on_batch`: subscribed to the service's durable batches (engine.table.service.subscribe_batches).

    A round an earlier call left unsettled is settled first. Round k (0-based, counted over the
    table's whole journal) starts at `start` + 75 k s; every `bonus_every`-th lands on the Bonus
    Number under a straight-up, so a bonus game is played (0: never). `leave_last_unsettled` stops
    the last round with its result in and its payout waiting (for a pit boss to approve)."""
    if count < 0:
        raise DrrError(f"cannot play {count} rounds")
    clock = DemoClock(start.timestamp())
    svc = TableService(
        store,
        table,
        rules_text=rules_text,
        rng=SeededRng(f"{seed}-{table}-game"),
        allow_seeded_rng=True,
        clock=clock,
        stamp_with_clock=True,
        station="demo-floor",
    )
    demo = _DemoTable(svc, clock, SeededRng(f"{seed}-{table}"), start)
    played: list[str] = []
    if on_batch is not None:
        svc.subscribe_batches(lambda entries, _changes, _view: on_batch(entries))
    await svc.start()
    try:
        first = svc.state.rounds_opened
        if svc.state.round is not None:
            await demo.finish_round_in_play(demo.croupier(max(first - 1, 0)))
        for k in range(count):
            i = first + k
            hit = bool(bonus_every) and i % bonus_every == bonus_every - 1
            last = k == count - 1
            played.append(await demo.play(i, hit_bonus=hit, settle=not (last and leave_last_unsettled)))
            if pause and not last:
                await asyncio.sleep(pause)
    finally:
        await svc.close()
    return played


def play_rounds(
    store: Store,
    table: str,
    count: int,
    *,
    seed: str = "demo",
    start: datetime = START,
    bonus_every: int = 40,
    rules_text: bytes | None = None,
    leave_last_unsettled: bool = False,
) -> list[str]:
    """`play_rounds_async` for a caller without a running event loop."""
    return asyncio.run(
        play_rounds_async(
            store,
            table,
            count,
            seed=seed,
            start=start,
            bonus_every=bonus_every,
            rules_text=rules_text,
            leave_last_unsettled=leave_last_unsettled,
        )
    )


async def fill_demo_floor_async(
    store: Store,
    tables: dict[str, int],
    *,
    seed: str = "demo",
    start: datetime = START,
    bonus_every: int = 40,
    rules_text: bytes | None = None,
) -> None:
    """Play `tables[t]` rounds on each table t through the table service (see `play_rounds_async`)."""
    for table, count in tables.items():
        await play_rounds_async(
            store, table, count, seed=seed, start=start, bonus_every=bonus_every, rules_text=rules_text
        )


def fill_demo_floor(
    store: Store,
    tables: dict[str, int],
    *,
    seed: str = "demo",
    start: datetime = START,
    bonus_every: int = 40,
    rules_text: bytes | None = None,
) -> None:
    """`fill_demo_floor_async` for a caller without a running event loop."""
    asyncio.run(
        fill_demo_floor_async(
            store, tables, seed=seed, start=start, bonus_every=bonus_every, rules_text=rules_text
        )
    )
