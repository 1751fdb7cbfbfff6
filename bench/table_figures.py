"""Sensor-to-table benchmark: from a result line on the wire to the durable journal entry at the table.

`sensor_to_table_ms_p50` / `_p99`: a pseudo-terminal stands in for the serial cable. For each of
`GAMES` games the benchmark opens a round on the table service (SQLite journal in a scratch
directory, synchronous=FULL), puts three wagers on the felt, writes the state-2 and state-4 lines
(the service draws the Lucky/Bonus Numbers on state 4), then the bare number and the state-5 line;
the clock starts right after the state-5 line's last byte is written and stops when a subscriber
of the service receives the `wheel.result` entry, i.e. after reader thread, framing, SS2 decoding,
the bridge, the service's checks and the fsynced journal commit. The round is then confirmed and
settled outside the clock.

`table_command_ms_p50` / `_p99`: one croupier command (open bets, place a wager, confirm, settle,
next round) awaited on the event loop, its journal commit (fsync) included. The journal is written
synchronously on the event-loop thread, so this is also how long the loop stalls per command.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from decimal import Decimal
from pathlib import Path

GAMES = 200


async def _measure(games: int, directory: Path) -> tuple[list[float], list[float]]:
    from engine.auth import User
    from engine.bets import BetKind, inside_bet, outside_bet
    from engine.entry_types import EntryType
    from engine.store.db import open_store
    from engine.store.records import Entry
    from engine.table.service import TableService
    from hardware.pty_server import PtyServer
    from hardware.serial_link import SerialLink
    from hardware.table_bridge import table_events

    croupier = User("bench", "croupier")
    store = open_store(str(directory / "bench.sqlite"), table="B1")
    service = TableService(store, "B1", approval_threshold=Decimal("1e9"))
    arrived = asyncio.Event()
    stopped: list[float] = []

    def on_entry(entry: Entry) -> None:
        if entry.type == EntryType.WHEEL_RESULT:
            stopped.append(time.perf_counter())
            arrived.set()

    service.subscribe(on_entry)
    await service.start()
    server = PtyServer()
    link = SerialLink(server.path, silence_after=None)
    latencies: list[float] = []
    commands: list[float] = []

    async def timed(command: Awaitable[object]) -> None:
        started = time.perf_counter()
        await command
        commands.append((time.perf_counter() - started) * 1000)

    async def feed() -> None:
        async for ev in table_events(link):
            await service.wheel_event(ev)

    async with link:
        while not link.connected:
            await asyncio.sleep(0.01)
        feeder = asyncio.create_task(feed())
        try:
            for index in range(games):
                game = index % 256 + 1
                number = index % 37
                server.write(f"*X;2;{game:03d};  ;0;171;0\r\n".encode())
                await timed(service.open_bets(croupier))
                await timed(service.place_wager(croupier, "anna", inside_bet([number]), Decimal(5)))
                await timed(service.place_wager(croupier, "bob", outside_bet(BetKind.RED), Decimal(10)))
                await timed(service.place_wager(croupier, "carl", outside_bet(BetKind.DOZEN, 1), Decimal(10)))
                server.write(f"*X;4;{game:03d};  ;0;171;0\r\n".encode())
                while service.phase != "closed":
                    await asyncio.sleep(0.001)
                draw = service.round.draw if service.round is not None else None
                if draw is not None and number == draw.bonus_number:
                    number = (number + 1) % 37  # no bonus game: this figure is about the result path
                arrived.clear()
                os.write(server.master, f"{number:>2}\r\n*X;5;{game:03d};{number:>2};0;172;0\r\n".encode())
                started = time.perf_counter()
                await asyncio.wait_for(arrived.wait(), timeout=5)
                latencies.append((stopped[-1] - started) * 1000)
                await timed(service.confirm_result(croupier))
                await timed(service.settle(croupier))
                await timed(service.next_round(croupier))
        finally:
            feeder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await feeder
    server.close()
    await service.close()
    store.close()
    return latencies, commands


def sensor_to_table() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="drr-table-bench-") as tmp:
        latencies, commands = asyncio.run(_measure(GAMES, Path(tmp)))
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    per_command = statistics.quantiles(commands, n=100, method="inclusive")
    return {
        "sensor_to_table_ms_p50": round(cuts[49], 3),
        "sensor_to_table_ms_p99": round(cuts[98], 3),
        "table_command_ms_p50": round(per_command[49], 3),
        "table_command_ms_p99": round(per_command[98], 3),
    }


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {"table": sensor_to_table}
