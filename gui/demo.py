"""Demo tables for screenshots, tests and the demos: the real table service on a scratch store.

`start_table` makes what a croupier station runs (engine.table.service.TableService behind
gui.table_model.TableModel) on a fresh SQLite file in a directory the caller owns, with a
seeded generator so a picture or a test is the same every time, and a pit boss in the store
(DEMO_PIT_BOSS, DEMO_PIN) for the approvals and voids that need a real name and PIN. The seeded
generator is allowed only through the service's explicit `allow_seeded_rng` opt-in: production
(gui.app) passes the system generator and the service refuses any seeded one there.

Every state of the demo rounds is reached through the adapter's own commands (open, wager,
close, the wheel's result, confirm, bonus picks), each awaited until the service has journaled
it and the screens have redrawn (`idle`), so a screenshot shows exactly what a croupier would see.
"""

from __future__ import annotations

import asyncio
import copy
import tempfile
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from engine import wheel_events as ev
from engine.auth import User
from engine.bets import BetKind, inside_bet, outside_bet
from engine.rng import Draw, SeededRng, draw_lucky_and_bonus
from engine.round import Phase
from engine.store.db import open_store
from engine.store.users import add_user, authenticate
from engine.table.service import DEFAULT_APPROVAL_THRESHOLD, TableService
from gui.table_model import TableModel

PLAYERS = ("Anna", "Bob", "Carla", "Dev", "Eve")
DEMO_CROUPIER = User("dana", "croupier")
DEMO_PIT_BOSS = "paula"  # a pit boss in every demo store, for approvals and voids
DEMO_PIN = "246810"
_ADMIN = User("demo-admin", "admin")  # who adds the demo users (the store needs an admin's say-so)


async def start_table(
    directory: Path,
    *,
    seed: int | str = 2026,
    players: tuple[str, ...] = PLAYERS,
    table_id: str = "DR-07",
    approval_threshold: Decimal = DEFAULT_APPROVAL_THRESHOLD,
    rules_text: bytes | None = None,
    clock: Callable[[], float] = time.time,
    user: User = DEMO_CROUPIER,
    betting_seconds: float | None = None,
    auto_confirm_seconds: float | None = None,
    approved_digest: str | None = None,
) -> TableModel:
    """A started table service on a new SQLite store inside `directory`, behind the adapter
    (the round's clock off unless `betting_seconds` / `auto_confirm_seconds` are given).

    The store stays open until `close_table`; the caller removes `directory` after that."""
    folder = Path(tempfile.mkdtemp(prefix=f"{table_id}-", dir=directory))
    store = open_store(str(folder / "table.sqlite"), table=table_id)
    try:
        add_user(store, DEMO_PIT_BOSS, "pitboss", DEMO_PIN, by=_ADMIN)
        service = TableService(
            store,
            table_id,
            rules_text=rules_text,
            rng=SeededRng(seed),
            allow_seeded_rng=True,  # demos and tests only; production passes the system generator
            clock=clock,
            approval_threshold=approval_threshold,
            station="demo",
            claim=False,
            betting_seconds=betting_seconds,
            auto_confirm_seconds=auto_confirm_seconds,
            approved_digest=approved_digest,
        )
        await service.start(user=user.name)
    except BaseException:
        store.close()
        raise

    def sign_off(name: str, pin: str) -> User:
        return authenticate(store, name, pin, table=table_id, station="demo")

    table = TableModel(service, user, players, authenticate=sign_off)
    table.refresh()
    return table


def service_of(table: TableModel) -> TableService:
    """The table service behind a demo table (the adapter itself only needs its table source)."""
    service = table.service
    if not isinstance(service, TableService):
        raise TypeError(f"{table!r} is not on a table service")
    return service


async def idle(table: TableModel) -> None:
    """Until every command sent to the table has been journaled (or refused) and shown."""
    while table.tasks:
        await asyncio.gather(*list(table.tasks), return_exceptions=True)


async def close_table(table: TableModel) -> None:
    """Stop the service (its bonus timers, the journal's checkpoint) and close its store."""
    service = service_of(table)
    await table.shutdown()
    service.store.close()


def wheel_result(number: int, game: int | None = None) -> ev.WheelResult:
    """The wheel's result message, as the wheel link would deliver it."""
    return ev.WheelResult(game=game, time=datetime.now(UTC), number=number)


async def demo_table(
    directory: Path, seed: int = 2026, history: int = 60, approval_threshold: Decimal = Decimal("2500")
) -> TableModel:
    """A table with `history` finished rounds behind it (no wagers, so no bonus games)."""
    table = await start_table(directory, seed=seed, approval_threshold=approval_threshold)
    results = SeededRng(f"{seed}-wheel")
    for game in range(1, history + 1):
        table.open_bets()
        table.no_more_bets()
        table.wheel_event(wheel_result(results.randbelow(37), game))
        await idle(table)
        table.confirm_result()
        table.settle()
        table.next_round()
        await idle(table)
        if table.phase is not Phase.IDLE:
            raise RuntimeError(f"demo round {game} did not finish: the table is {table.phase.value}")
    return table


def next_draw(table: TableModel) -> Draw:
    """The draw the table's seeded generator will make next (a copy is consumed, not the original)."""
    return draw_lucky_and_bonus(table.rules, copy.deepcopy(service_of(table).rng))


def place_demo_wagers(table: TableModel, lucky: int, bonus: int) -> None:
    """Wagers of every kind, some on a Lucky Number and on the Bonus Number."""
    neighbour = lucky + 3 if lucky <= 33 and lucky else lucky - 3 if lucky > 3 else 1
    d = Decimal
    plan = [
        ("Anna", inside_bet([lucky]), d(25)),
        ("Anna", inside_bet([lucky, neighbour]) if lucky else inside_bet([0, 1]), d(10)),
        ("Anna", outside_bet(BetKind.RED), d(50)),
        ("Bob", inside_bet([lucky]), d(5)),
        ("Bob", outside_bet(BetKind.DOZEN, 2), d(25)),
        ("Bob", inside_bet([0, 1, 2, 3]), d(5)),
        ("Carla", inside_bet([bonus]), d(5)),
        ("Carla", outside_bet(BetKind.ODD), d(25)),
        ("Carla", inside_bet(range(13, 19)), d(10)),
        ("Dev", inside_bet([8, 9, 11, 12]), d(10)),
        ("Dev", inside_bet([31, 32, 33]), d(5)),
        ("Dev", outside_bet(BetKind.COLUMN, 3), d(25)),
        ("Eve", inside_bet([0, 2, 3]), d(5)),
        ("Eve", outside_bet(BetKind.HIGH), d(100)),
    ]
    for player, bet, amount in plan:
        table.place_wager(player, bet, amount)


def _richest(lucky: Mapping[int, Fraction]) -> int:
    """The Lucky Number with the highest odds."""
    return max(lucky, key=lambda n: lucky[n])


async def croupier_with_lucky(directory: Path, seed: int = 2026) -> TableModel:
    """Wagers on the felt and the Lucky Numbers lit ("no more bets" called)."""
    table = await demo_table(directory, seed)
    draw = next_draw(table)
    table.open_bets()
    place_demo_wagers(table, _richest(draw.lucky), draw.bonus_number)
    table.no_more_bets()
    await idle(table)
    return table


async def croupier_after_lucky_win(directory: Path, seed: int = 2026) -> TableModel:
    """The ball landed on the richest Lucky Number: payouts shown, one waiting for approval."""
    table = await croupier_with_lucky(directory, seed)
    draw = table.snapshot().draw
    assert draw is not None
    table.wheel_event(wheel_result(_richest(draw.lucky)))
    await idle(table)
    table.confirm_result()
    await idle(table)
    return table


async def bonus_mid_round(directory: Path, seed: int = 2026) -> TableModel:
    """The ball landed on the Bonus Number: two players in their bonus games, mid-way."""
    table = await demo_table(directory, seed, history=30)
    draw = next_draw(table)
    table.open_bets()
    bonus = draw.bonus_number
    table.place_wager("Carla", inside_bet([bonus]), Decimal(5))
    neighbour = next(iter(b for b in (bonus + 3, bonus - 3) if 1 <= b <= 36)) if bonus else 1
    table.place_wager("Anna", inside_bet([bonus, neighbour]), Decimal(10))
    table.no_more_bets()
    table.wheel_event(wheel_result(bonus))
    await idle(table)
    table.confirm_result()
    await idle(table)
    if table.phase is not Phase.BONUS:
        raise RuntimeError(f"the demo bonus round is {table.phase.value}, not in its bonus games")
    table.bonus_start("Carla")
    table.bonus_start("Anna")
    await idle(table)
    await _play_safely(table, "Carla", rounds=2)
    await _play_safely(table, "Anna", rounds=1)
    return table


def safe_box(table: TableModel, player: str, x: bool = False) -> int:
    """A box of `player`'s running bonus game that holds an X (`x`) or not: demos and tests peek at
    the service's game, so a picture shows a game in progress and a test takes the path it means."""
    game = service_of(table).state.games[player]
    hidden = game._hidden
    if hidden is None:
        raise RuntimeError(f"the bonus game of {player} has no boxes to pick")
    return next(i + 1 for i, content in enumerate(hidden) if (content == "X") == x)


async def _play_safely(table: TableModel, player: str, rounds: int) -> None:
    """Demo picks that avoid the X boxes, so the screenshot shows a game in progress."""
    for _ in range(rounds):
        table.bonus_pick(player, safe_box(table, player))
        await idle(table)
