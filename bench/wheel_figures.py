"""Wheel link benchmark: how long from a result line on the wire to the event in the table's loop.

`wheel_latency_ms_p99`: a pseudo-terminal stands in for the serial cable. For each of 1,000
games the benchmark writes the state-4 line, then the bare number and the state-5 line, into the
master side, takes the clock right after the write of the state-5 line's last byte returns, and
stops it when the result event reaches an asyncio consumer of `SerialLink.events()` (reader
thread, framing, SS2 decoding and the hand-over to the loop included). The 99th percentile over
the 1,000 results is reported in milliseconds (goal <= 5 ms; the line itself takes ~20 ms on
the wire at 9600 baud).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Callable

from engine.wheel_events import WheelResult

RESULTS = 1000


async def _measure(results: int) -> list[float]:
    from hardware.pty_server import PtyServer
    from hardware.serial_link import SerialLink

    server = PtyServer()
    link = SerialLink(server.path, silence_after=None)
    latencies: list[float] = []
    async with link:
        events = aiter(link.events())
        while not link.connected:
            await asyncio.sleep(0.01)
        for index in range(results):
            game = index % 256 + 1
            number = index % 37
            server.write(f"*X;4;{game:03d};  ;0;171;0\r\n{number:>2}\r\n".encode())
            await asyncio.sleep(0.002)  # the wheel sends these lines well apart, as here
            os.write(server.master, f"*X;5;{game:03d};{number:>2};0;172;0\r\n".encode())
            started = time.perf_counter()
            async for event in events:
                if isinstance(event, WheelResult):
                    latencies.append((time.perf_counter() - started) * 1000)
                    break
        await events.aclose()  # type: ignore[attr-defined]
    server.close()
    return latencies


def wheel_latency() -> dict[str, float]:
    latencies = asyncio.run(_measure(RESULTS))
    p99 = statistics.quantiles(latencies, n=100, method="inclusive")[98]
    return {"wheel_latency_ms_p99": round(p99, 3)}


BENCHMARKS: dict[str, Callable[[], dict[str, float]]] = {"wheel": wheel_latency}
