"""The one factory the table service and the GUI call: `open_wheel(spec) -> WheelSource`.

Specs:
- `sim` — the virtual SS2 wheel in-process, commanded (each spin waits for the table's start
  command); `sim:free` plays on its own cycle instead; faults after the colon, e.g.
  `sim:miss@2,torn=0.05` or `sim:free,miss@2`;
- `serial:PORT` — a real wheel, e.g. `serial:/dev/ttyUSB0` or `serial:COM3`; line settings after a
  `@`: `serial:/dev/ttyUSB0@9600,8N1,rtscts` (default 9600 8N1, no flow control);
- `replay:FILE` — a capture file (the shared format), replayed with its own timestamps.

A WheelSource is an async context manager:

    async with open_wheel("serial:/dev/ttyUSB0", capture_dir=logs) as wheel:
        reply = await wheel.command("*P 1", timeout=2)      # -> CommandReply(status="ok")
        async for event in wheel.events():                  # WheelResult, ..., CommandReply, ...
            ...                                             # engine.wheel_events or LinkMessage
        async for event in table_events(wheel):             # hardware.table_bridge: engine events only
            await service.wheel_event(event)                # journaled as they are
        wheel.health                                        # LinkHealth for the GUI

`wheel.subscribe(callback)` is the callback alternative to `events()`. Every line RX and TX is
appended to a rotating capture file in `capture_dir` when one is given.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.errors import DrrError
from hardware.link import LinkHealth, WheelLink, WheelNotConnected, WheelTimeout

WheelSource = WheelLink


def open_wheel(
    spec: str,
    *,
    speed: float = 1.0,
    capture_dir: str | Path | None = None,
    protocol: str = "ss2",
    seed: int | None = None,
    silence_after: float | None = 3.0,
    clock: Callable[[], float] | None = None,
) -> WheelSource:
    """Build (not yet start) the wheel source named by `spec`; start it with `async with`. `clock`
    (the virtual wheel only; tests that step time themselves): the wheel's own clock and the time its
    lines are stamped with, seconds since the epoch (default: the PC's)."""
    kind, _, rest = spec.partition(":")
    if kind == "sim":
        from datetime import UTC, datetime

        from hardware.sim_link import SimLink
        from hardware.virtual_wheel import MODE_COMMANDED, MODE_FREE, FaultPlan, VirtualWheel

        free, faults = sim_options(rest)
        mode = MODE_FREE if free else MODE_COMMANDED
        timing: dict[str, Any] = {} if clock is None else {"clock": clock}
        wheel = VirtualWheel(speed=speed, faults=FaultPlan.parse(faults), seed=seed, mode=mode, **timing)
        # A faster wheel sends its status faster, but the loop's own hiccups do not shrink.
        after = None if silence_after is None else max(silence_after / speed, 0.5)
        if clock is not None:
            timing = {"now": lambda: datetime.fromtimestamp(clock(), UTC)}
        return SimLink(wheel, protocol, capture_dir=capture_dir, silence_after=after, **timing)
    if kind == "serial":
        from hardware.serial_link import SerialLink, SerialSettings

        port, _, line_settings = rest.partition("@")
        if not port:
            raise DrrError("wheel spec serial:PORT needs a port, e.g. serial:/dev/ttyUSB0 or serial:COM3", 2)
        return SerialLink(
            port,
            protocol,
            settings=SerialSettings.parse(line_settings),
            capture_dir=capture_dir,
            silence_after=silence_after,
        )
    if kind == "replay":
        from hardware.replay import ReplayLink

        if not rest:
            raise DrrError("wheel spec replay:FILE needs a capture file", 2)
        return ReplayLink(rest, protocol, speed=speed)
    raise DrrError(f"wheel spec {spec!r} not understood; use sim, serial:PORT or replay:FILE", 2)


def sim_options(rest: str) -> tuple[bool, str]:
    """(free-running?, the fault list) of a `sim:…` spec's options."""
    words = [w.strip() for w in rest.split(",")]
    return "free" in words, ",".join(w for w in words if w and w != "free")


def commanded(spec: str, drive: str = "commanded") -> bool:
    """Whether the table starts the spins of the wheel `spec` names: the virtual wheel unless
    `sim:free`; a serial wheel as the settings' `wheel.drive` says; a replay never."""
    kind, _, rest = spec.partition(":")
    if kind == "sim":
        return not sim_options(rest)[0]
    return kind == "serial" and drive == "commanded"


__all__ = ["LinkHealth", "WheelNotConnected", "WheelSource", "WheelTimeout", "commanded", "open_wheel"]
