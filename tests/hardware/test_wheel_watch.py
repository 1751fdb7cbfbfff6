"""Issue 26 item 3 (part): the wheel's physics per game and the alarms, on the real capture and on
made-up shifts."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from hardware.decode import DecodeSummary, decode_capture
from hardware.protocol import get_protocol
from hardware.wheel_watch import GameWatch, WatchSettings, alarms, games_per_hour, observe

DATA = Path(__file__).parent.parent / "data"
T0 = datetime(2026, 12, 2, 6, 0)


def shift(n: int, *, minutes: float = 1.0, rpm: str = "16.0", alternate: bool = True) -> list[GameWatch]:
    return [
        GameWatch(
            i + 1,
            T0 + timedelta(minutes=minutes * i),
            i % 37,
            Decimal(rpm),
            ("cw" if i % 2 == 0 else "ccw") if alternate else "cw",
            0,
            0,
        )
        for i in range(n)
    ]


def test_a_normal_shift_is_quiet() -> None:
    games = shift(40)
    assert games_per_hour(games) == 60
    assert alarms(games) == []


def test_each_alarm_fires_on_its_fault() -> None:
    # The real capture b reads up to 19.9 rpm at its results: the default band is 12.5-20.5.
    assert alarms(shift(5, rpm="19.9")) == []
    assert {a.kind for a in alarms(shift(5, rpm="21.0"))} == {"rotor_speed"}
    assert {a.kind for a in alarms(shift(5, rpm="12.0"))} == {"rotor_speed"}
    stuck = alarms(shift(5, alternate=False))
    assert [a.kind for a in stuck] == ["direction_not_alternated"] * 4
    slow = alarms(shift(10, minutes=3))
    assert [a.detail for a in slow] == ["20.0 games per hour, below the target 30"]
    games = shift(10)
    games[3] = GameWatch(4, games[3].time, 1, Decimal(16), games[3].direction, 2, 0)
    assert [a.kind for a in alarms(games)] == ["misfires"]
    assert alarms(games, WatchSettings(alternate=False, misfire_rate=Fraction(1, 4))) == []


def test_the_real_capture_b_measured() -> None:
    protocol = get_protocol("ss2")
    games = observe(decode_capture(DATA / "ss2-capture-b.log", protocol, DecodeSummary()))
    assert len(games) == 136
    assert {g.direction for g in games} == {"cw", "ccw"}
    assert all(g.rpm is not None for g in games)
    rate = games_per_hour(games)
    assert rate is not None and 0 < rate < 120  # a wheel result takes well over 30 s


def _virtual_shift(faults: str, results: int) -> list[GameWatch]:
    import asyncio

    from hardware.wheel_source import open_wheel

    async def go() -> list[GameWatch]:
        events = []
        async with open_wheel(f"sim:free{',' + faults if faults else ''}", speed=250, seed=6) as link:
            async for ev in link.events():
                events.append(ev)
                if len(observe(events)) >= results:
                    break
        return observe(events)

    return asyncio.run(go())


def test_the_virtual_wheel_s_stuck_direction_and_speed_drift_fire_and_a_normal_shift_is_quiet() -> None:
    quiet = WatchSettings(games_per_hour=0)  # the virtual wheel runs 250 times faster than a real one
    normal = _virtual_shift("", 5)
    assert [a.kind for a in alarms(normal, quiet)] == []
    faulty = _virtual_shift("stuck@3,drift@4", 5)
    fired = [
        (a.kind, faulty.index(next(g for g in faulty if g.game == a.game))) for a in alarms(faulty, quiet)
    ]
    assert ("direction_not_alternated", 2) in fired and ("rotor_speed", 3) in fired
