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


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop on a clock of its own that runs no faster or slower with the machine's load:
    whenever nothing is ready to run, its time jumps to the next timer due. Every sleep, timeout and
    timer of the code on it (the virtual wheel's phases, the round's clock, the wheel session's
    questions) is a step in order, not a race against the wall clock; `epoch + loop.time()` is the
    clock the table and the wheel are given (`wall`). Only for code that waits on nothing outside the
    loop (no thread, no socket, no real serial port): that would be jumped over."""

    def __init__(self, epoch: float) -> None:
        super().__init__()
        self.epoch = epoch
        self._virtual = 0.0

    def time(self) -> float:
        return self._virtual

    def wall(self) -> float:
        return self.epoch + self._virtual

    def _run_once(self) -> None:
        ready: Any = getattr(self, "_ready")  # noqa: B009 - asyncio's own queues, read only
        scheduled: Any = getattr(self, "_scheduled")  # noqa: B009
        if not ready:
            due = [h.when() for h in scheduled if not h.cancelled()]
            if due and min(due) > self._virtual:
                self._virtual = min(due)
        super()._run_once()  # type: ignore[misc]


def headless_shift(
    tmp_path: Path, name: str, wheel: str, rounds: int, settings: str = "", *, start: float | None = None
) -> tuple[Path, Path, str]:
    """`drr table run --headless --wheel WHEEL --speed 60 --rounds N --seed 3 --db NAME.sqlite --table T1`
    with the settings file `settings`, run in this process on a VirtualTimeLoop: the table, the virtual
    wheel and the journal's time stamps all on the loop's clock, from `start` (default: an hour ago).
    The store's path, the settings file's and what the run printed."""
    import contextlib
    import io
    import time

    from engine import config
    from gui.cli import build_parser, command_modules
    from hardware.table_run_cmd import _run

    db, path = tmp_path / f"{name}.sqlite", tmp_path / f"{name}.toml"
    path.write_text(settings, encoding="utf-8")
    argv = ["--config", str(path), "table", "run", "--headless", "--wheel", wheel, "--speed", "60"]
    argv += ["--rounds", str(rounds), "--seed", "3", "--db", str(db), "--table", "T1"]
    args = build_parser(command_modules(argv)).parse_args(argv)
    args.settings = config.fill_from_settings(args, config.load_settings(path))
    loop = VirtualTimeLoop(time.time() - 3600 if start is None else start)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), asyncio.Runner(loop_factory=lambda: loop) as runner:
        code = runner.run(_run(args, clock=loop.wall))
    assert code == 0, printed.getvalue()
    return db, path, printed.getvalue()
