"""Helpers for the table-service tests: users, a fake wheel, a service on a test store."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine.auth import User
from engine.bets import BetKind, inside_bet, outside_bet
from engine.rng import SeededRng
from engine.store import Store, open_store
from engine.table.service import TableService

CROUPIER = User("carol", "croupier")
PITBOSS = User("pete", "pitboss")
WATCHER = User("sam", "surveillance")


def make_service(
    store: Store, *, seed: int = 7, clock: Callable[[], float] | None = None, **kw: Any
) -> TableService:
    extra: dict[str, Any] = {"clock": clock} if clock is not None else {}
    return TableService(store, "T1", rng=SeededRng(seed), allow_seeded_rng=True, claim=False, **extra, **kw)


async def cover_everything(svc: TableService, player: str = "dora") -> None:
    """Inside wagers on every number (zero straight + six six-lines): any Bonus Number hit is a bonus game."""
    await svc.place_wager(CROUPIER, player, inside_bet([0]), Decimal(1))
    for i in range(6):
        await svc.place_wager(CROUPIER, player, inside_bet(range(6 * i + 1, 6 * i + 7)), Decimal(1))


async def some_wagers(svc: TableService) -> None:
    await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(5))
    await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.RED), Decimal(20))
    await svc.place_wager(CROUPIER, "bob", outside_bet(BetKind.DOZEN, 2), Decimal(10))


class Clock:
    """A clock the test moves by hand (`clock.now += 5`), for the service's timers."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def lands_on(svc: TableService, number: int, game: int = 15) -> None:
    """Start the table; the wheel's game `game` opens a round with a straight on 33 and lands on
    `number` (a clean result, pending the croupier's confirmation)."""
    await svc.start()
    await wheel(svc, {"type": "started", "game": game})
    await svc.open_bets(CROUPIER)
    await svc.place_wager(CROUPIER, "anna", inside_bet([33]), Decimal(5))
    await wheel(svc, *spin(game, number))
    assert svc.state.pending_result is not None and svc.state.pending_result.number == number


async def voided_session(where: str | Path, rounds: int) -> None:
    """One table session on the store at `where` (a path or URL): `rounds` voided rounds with wagers
    on every number, then a clean close (a signed checkpoint)."""
    with open_store(str(where), table="T1") as store:
        svc = make_service(store)
        await svc.start()
        for _ in range(rounds):
            await svc.open_bets(CROUPIER)
            await cover_everything(svc)
            await svc.void(PITBOSS, "test round")
            await svc.next_round(CROUPIER)
        await svc.close()


async def wheel(svc: TableService, *events: dict[str, Any]) -> None:
    for ev in events:
        await svc.wheel_event(ev)


def spin(game: int, number: int | None = None) -> list[dict[str, Any]]:
    """The wheel's messages of one game up to state 4 (and the result when `number` is given)."""
    out: list[dict[str, Any]] = [
        {"type": "started", "game": game},
        {"type": "launched", "game": game},
        {"type": "no_more_bets", "game": game},
    ]
    if number is not None:
        out.append({"type": "result", "game": game, "number": number})
    return out


def drr_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment for a `drr` subprocess: no settings file or logs of the machine's user."""
    env = dict(os.environ)
    env.pop("DRR_CONFIG", None)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / "xdg" / var.lower())
    env.update(extra)
    return env
