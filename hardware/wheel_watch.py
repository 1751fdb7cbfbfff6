"""The wheel's physics per game from the link's event stream (issue 26): `observe(events)` folds a
live, replayed or decoded capture's events into one `GameWatch` per result — the rotor speed and
direction the wheel last reported before the ball settled, the misfires and failed launches of that
game. The alarms and their thresholds are the engine's (engine.floor.wheel_alarms: the alert scanner
raises them from the journal); `alarms(observe(...))` gives them for a capture (`drr wheel decode`
users, the capture tests).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.floor.wheel_alarms import (
    SESSION_GAP_S,
    Alarm,
    GameWatch,
    WatchSettings,
    alarms,
    games_per_hour,
)
from engine.wheel_events import WheelLaunchFailed, WheelMissSpin, WheelResult, WheelRotor
from hardware.events import LinkEvent

__all__ = ["SESSION_GAP_S", "Alarm", "GameWatch", "WatchSettings", "alarms", "games_per_hour", "observe"]


def observe(events: Iterable[LinkEvent]) -> list[GameWatch]:
    """One GameWatch per result, in order."""
    rpm = direction = None
    misfires = launch_failures = 0
    games: list[GameWatch] = []
    for ev in events:
        if isinstance(ev, WheelRotor):
            if ev.rpm:  # a stopped rotor (launching, idle) says nothing about the spin's speed
                rpm, direction = ev.rpm, ev.direction
        elif isinstance(ev, WheelMissSpin):
            misfires += 1
        elif isinstance(ev, WheelLaunchFailed):
            launch_failures += 1
        elif isinstance(ev, WheelResult) and ev.time is not None:  # a result without a time is not timed
            games.append(GameWatch(ev.game, ev.time, ev.number, rpm, direction, misfires, launch_failures))
            misfires = launch_failures = 0
    return games
