"""The wheel's physics watched per game (issue 26 item 3, part): rotor speed, direction, misfires,
failed launches, games per hour, and the alarms a surveillance officer reads from them (pure).

`observe(events)` folds the link's event stream (live, replayed or decoded from a capture) into one
`GameWatch` per result: the rotor speed and direction the wheel last reported before the ball
settled, and the misfires and failed launches of that game. `alarms(games, settings)` names what is
out of line, in words: the direction not alternated on a wheel set to alternate, a rotor speed
outside the band (`*T s`, 14.0-17.5 rpm by default), misfires or failed launches above a rate over
the last games, and fewer games per hour than the target. Not yet journaled nor on the alert
registry: `drr wheel decode` users and tests read them from here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction

from engine.wheel_events import WheelLaunchFailed, WheelMissSpin, WheelResult, WheelRotor
from hardware.events import LinkEvent


@dataclass(frozen=True, slots=True)
class WatchSettings:
    # The guide's default `*T s` range 14.0-17.5, widened by the random change of up to `*T m` (1.5)
    # rpm after no-more-bets (mode bit 4): the reading at the result includes it.
    rpm_low: Decimal = Decimal("12.5")
    rpm_high: Decimal = Decimal("19.0")
    alternate: bool = True  # mode bit 1: the rotor reverses every game
    misfire_rate: Fraction = Fraction(1, 10)  # misfires + failed launches per game, over `window`
    window: int = 20
    games_per_hour: int = 30  # below this over the span watched: an alarm


@dataclass(frozen=True, slots=True)
class GameWatch:
    game: int | None
    time: datetime
    number: int
    rpm: Decimal | None
    direction: str | None
    misfires: int
    launch_failures: int


@dataclass(frozen=True, slots=True)
class Alarm:
    kind: str  # direction_not_alternated, rotor_speed, misfires, games_per_hour
    game: int | None
    detail: str  # in a surveillance officer's words


@dataclass
class _Open:
    rpm: Decimal | None = None
    direction: str | None = None
    misfires: int = 0
    launch_failures: int = 0
    games: list[GameWatch] = field(default_factory=list)


def observe(events: Iterable[LinkEvent]) -> list[GameWatch]:
    """One GameWatch per result, in order."""
    now = _Open()
    for ev in events:
        if isinstance(ev, WheelRotor):
            if ev.rpm:  # a stopped rotor (launching, idle) says nothing about the spin's speed
                now.rpm, now.direction = ev.rpm, ev.direction
        elif isinstance(ev, WheelMissSpin):
            now.misfires += 1
        elif isinstance(ev, WheelLaunchFailed):
            now.launch_failures += 1
        elif isinstance(ev, WheelResult) and ev.time is not None:  # a result without a time is not timed
            watch = GameWatch(
                ev.game, ev.time, ev.number, now.rpm, now.direction, now.misfires, now.launch_failures
            )
            now.games.append(watch)
            now.misfires = now.launch_failures = 0
    return now.games


SESSION_GAP_S = 600  # a pause longer than this between results is a break, not slow play


def games_per_hour(games: list[GameWatch]) -> Fraction | None:
    """Results per hour of play: the intervals between consecutive results, breaks (longer than
    SESSION_GAP_S) left out (None: no interval to measure)."""
    gaps = [Fraction((b.time - a.time).total_seconds()) for a, b in itertools.pairwise(games)]
    play = [g for g in gaps if 0 < g <= SESSION_GAP_S]
    return Fraction(len(play)) * 3600 / sum(play) if play else None


def alarms(games: list[GameWatch], settings: WatchSettings = WatchSettings()) -> list[Alarm]:
    out: list[Alarm] = []
    for before, game in zip([None, *games], games, strict=False):
        if game.rpm is not None and not settings.rpm_low <= game.rpm <= settings.rpm_high:
            out.append(
                Alarm(
                    "rotor_speed",
                    game.game,
                    f"rotor at {game.rpm} rpm, outside {settings.rpm_low}-{settings.rpm_high}",
                )
            )
        if (
            settings.alternate
            and before is not None
            and game.direction is not None
            and game.direction == before.direction
        ):
            out.append(
                Alarm(
                    "direction_not_alternated",
                    game.game,
                    f"rotor turned {game.direction} again (the wheel is set to reverse every game)",
                )
            )
    recent = games[-settings.window :]
    faults = sum(g.misfires + g.launch_failures for g in recent)
    if recent and Fraction(faults, len(recent)) > settings.misfire_rate:
        out.append(
            Alarm(
                "misfires",
                recent[-1].game,
                f"{faults} misfires or failed launches in the last {len(recent)} games",
            )
        )
    rate = games_per_hour(games)
    if rate is not None and rate < settings.games_per_hour:
        out.append(
            Alarm(
                "games_per_hour",
                games[-1].game,
                f"{float(rate):.1f} games per hour, below the target {settings.games_per_hour}",
            )
        )
    return out
