"""A normal demo floor is a sound wheel: its shift raises no wheel alarm (issue 26). The demo's wheel
reverses every game as a real SS2 set to alternate does; a game whose result the dealer entered by
hand (the demo's sensor fault, every 50th round) still turned the rotor, and the game after it is
held against that game, not against the last result the wheel sent."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from engine.floor.alerts import WHEEL_ALARM_KINDS, AlertScanner, list_alerts
from engine.floor.demo import fill_demo_floor
from engine.floor.surveillance import JournalTail
from engine.floor.wheel_alarms import TableWatch, WatchSettings
from engine.store import Store, open_store
from engine.wheel_events import WheelResult, WheelRotor


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "demo.sqlite"), durable=False) as store:
        yield store


def test_a_demo_floor_raises_no_wheel_alarm(scratch: Store) -> None:
    # 60 rounds: round 26's result is entered by hand (no wheel.result for game 26).
    fill_demo_floor(scratch, {"T1": 60, "T2": 30})
    AlertScanner().scan(scratch, ["T1", "T2"], now=datetime(2026, 11, 29, 2, tzinfo=UTC))
    kinds = {a.kind for a in list_alerts(scratch)}
    assert "manual result" in kinds  # the scan did read the shift
    assert kinds & (set(WHEEL_ALARM_KINDS.values()) | {"sensor fault"}) == set()
    # The surveillance chart of the same shift rings no game either: before, it held each game
    # against the result drawn before it, and rang the game after every hand-entered result.
    tail = JournalTail("T1")
    tail.update(scratch)
    games = list(tail.watch.games)
    assert len(games) == 59 and [g.game for g in games if g.not_reversed] == []


def _rotor(game: int, direction: str) -> WheelRotor:
    return WheelRotor(game=game, rpm=Decimal(16), direction=direction)  # type: ignore[arg-type]


def test_the_direction_is_held_against_the_wheels_game_before_heard_or_not() -> None:
    watch = TableWatch(WatchSettings(games_per_hour=0))
    t0 = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)
    said = []
    # Game 1 cw with its result; game 2 ccw, its result entered by hand (no wheel.result); game 3 cw.
    for game, direction, result in ((1, "cw", True), (2, "ccw", False), (3, "cw", True)):
        said += watch.feed(_rotor(game, direction), t0)
        if result:
            said += watch.feed(WheelResult(game=game, number=5, direction=direction), t0)  # type: ignore[arg-type]
    assert said == []
    # Game 4 turns cw again, as game 3 did: that is the alarm.
    said += watch.feed(_rotor(4, "cw"), t0)
    said += watch.feed(WheelResult(game=4, number=6), t0)
    assert [(a.kind, a.game) for a in said] == [("direction_not_alternated", 4)]
    # A game nothing was heard of (6 follows 4): its direction is unknown, nothing is compared.
    assert watch.feed(WheelResult(game=6, number=7, direction="cw"), t0) == []
