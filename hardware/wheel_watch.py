"""The wheel's physics per game from the link's event stream (issue 26): `observe(events)` folds a
live, replayed or decoded capture's events into one `GameWatch` per result — the rotor speed and
direction the wheel last reported before the ball settled, the misfires, failed launches and balls
not detected since the result before. The alarms and their thresholds are the engine's
(engine.floor.wheel_alarms: the alert scanner raises them from the journal); `alarms(observe(...))`
gives them for a capture (`drr wheel decode` users, the capture tests).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from engine.floor.wheel_alarms import (
    SESSION_GAP_S,
    Alarm,
    GameWatch,
    WatchSettings,
    alarms,
    games_per_hour,
)
from engine.wheel_events import (
    WheelBallNotDetected,
    WheelLaunchFailed,
    WheelMissSpin,
    WheelResult,
    WheelRotor,
)
from hardware.events import LinkEvent

__all__ = ["SESSION_GAP_S", "Alarm", "GameWatch", "WatchSettings", "alarms", "games_per_hour", "observe"]


def observe(events: Iterable[LinkEvent]) -> list[GameWatch]:
    """One GameWatch per result, in order."""
    rpm = direction = None
    misfires = launch_failures = no_ball = 0
    games: list[GameWatch] = []
    for ev in events:
        if isinstance(ev, WheelRotor):
            if ev.rpm:  # a stopped rotor (launching, idle) says nothing about the spin's speed
                rpm, direction = ev.rpm, ev.direction
        elif isinstance(ev, WheelMissSpin):
            misfires += 1
        elif isinstance(ev, WheelLaunchFailed):
            launch_failures += 1
        elif isinstance(ev, WheelBallNotDetected):
            no_ball += 1
        elif isinstance(ev, WheelResult) and ev.time is not None:  # a result without a time is not timed
            watch = GameWatch(ev.game, ev.time, ev.number, rpm, direction, misfires, launch_failures)
            games.append(replace(watch, no_ball=no_ball))
            misfires = launch_failures = no_ball = 0
    return games
