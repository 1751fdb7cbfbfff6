"""Issue 26 item 3: the wheel's physics journaled per game and at connect, and the floor-ops alarms
raised from the journal by the alert scanner: each fires on the virtual wheel's fault injection, a
normal shift stays quiet; thresholds from the settings file."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from engine.config import load_settings
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.floor.alerts import WHEEL_ALARM_KINDS, list_alerts, scanner_from_settings
from engine.floor.reports import table_report
from engine.floor.wheel_alarms import TableWatch, WatchSettings
from engine.journal_types import read
from engine.store import open_store
from engine.table_events import DealerChanged
from engine.wheel_events import WheelBallNotDetected, WheelIdentity, WheelMissSpin, WheelResult
from tests.table.helpers import headless_shift

PHYSICS = set(WHEEL_ALARM_KINDS.values())


# The shifts' clock: the loop's own (tests/table/helpers.py VirtualTimeLoop), from this time.
START = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)


def _shift(tmp_path: Path, name: str, faults: str, rounds: int, settings: str = "") -> set[str]:
    """A headless shift on the commanded virtual wheel with `faults` (`drr table run --headless` on a
    loop whose time is stepped, not raced against the machine's load), then one scan: the physics and
    sensor alert kinds raised (with the settings file's thresholds)."""
    spec = "sim" + (f":{faults}" if faults else "")
    db, config, _ = headless_shift(tmp_path, name, spec, rounds, settings, start=START.timestamp())
    with open_store(str(db), table="T1") as store:
        scanner_from_settings(load_settings(config)).scan(store, ["T1"])
        return {a.kind for a in list_alerts(store)} & (PHYSICS | {"sensor fault"})


def test_a_normal_shift_journals_the_physics_and_raises_no_alarm(tmp_path: Path) -> None:
    assert _shift(tmp_path, "normal", "", 6) == set()
    with open_store(str(tmp_path / "normal.sqlite"), table="T1") as store:
        entries = list(store.journal.entries("T1"))
        report = table_report(store, "T1", START, START + timedelta(hours=1))
    # The pit boss's report: the table's games per hour and each dealer's (at 60 times a real wheel's
    # pace, on the loop's clock: the same figure however busy the machine is).
    assert report.games_per_hour is not None and report.games_per_hour > 1200
    [d] = report.by_dealer
    dealer, games, rate = d.dealer, d.games, d.games_per_hour
    assert games >= 6 and rate is not None
    assert dict(report.figures())["Games per hour by dealer"] == f"{dealer} {float(rate):.1f} ({games} games)"
    [identity] = [read(e) for e in entries if e.type == EntryType.WHEEL_IDENTITY]
    assert isinstance(identity, WheelIdentity)
    assert (identity.firmware, identity.version, identity.fpga) == (
        "252",
        "SS2 virtual wheel 2.52",
        "FPGA 1.07 COPRO 2.03",
    )
    assert identity.offset == 0  # the wheel's clock and the table's are the loop's
    results = [p for e in entries if isinstance(p := read(e), WheelResult) and p.accepted]
    assert len(results) >= 6
    assert all(p.rpm is not None and Decimal("14.0") <= p.rpm <= Decimal("17.5") for p in results)
    directions = [p.direction for p in results]
    assert all(a != b for a, b in itertools.pairwise(directions))  # the table alternates its starts


@pytest.mark.parametrize(
    ("faults", "kinds"),
    [
        ("drift@3", {"rotor speed"}),
        ("stuck@3", {"wheel direction"}),
        ("miss@2,miss@3,launch@4", {"misfires", "sensor fault"}),  # each round held, too
        ("clock=300", {"wheel clock"}),
        ("noball@3", {"sensor fault", "ball not detected"}),
    ],
)
def test_each_alarm_fires_on_its_fault_and_no_other(tmp_path: Path, faults: str, kinds: set[str]) -> None:
    # No other: a misfire's relaunch (the same game, launched the same way) or a rotor stuck once is no
    # direction fault of the games after (before, both raised one).
    assert _shift(tmp_path, "faulty", faults, 5) == kinds
    with open_store(str(tmp_path / "faulty.sqlite"), table="T1") as store:
        direction = [a for a in list_alerts(store) if a.kind == "wheel direction"]
    # The stuck game alone: the table's next start reverses the way the wheel turned, not the way
    # the table asked for (before, the game after the stuck one was a second alarm).
    assert len(direction) == (1 if "wheel direction" in kinds else 0)


def test_a_slow_game_rate_fires_for_the_table_and_its_dealer(tmp_path: Path) -> None:
    # At 60 times a real wheel's pace a normal game takes about a second: 1200 an hour is a slow wheel.
    settings = "[wheel_alarms]\ngames_per_hour = 1200\n"
    assert _shift(tmp_path, "quick", "", 6, settings) == set()
    assert _shift(tmp_path, "slow", "slow=240", 6, settings) == {"games per hour"}
    with open_store(str(tmp_path / "slow.sqlite"), table="T1") as store:
        ids = sorted(a.alert_id for a in list_alerts(store) if a.kind == "games per hour")
    day = START.strftime("%Y-%m-%d")
    assert len(ids) == 2 and ids[0] == f"T1:games per hour:{day}"  # the table's, then its dealer's
    assert ids[1].startswith("T1:games per hour:") and ids[1].endswith(f":{day}")


def test_the_watch_counts_per_dealer_and_says_a_rate_once() -> None:
    watch = TableWatch(WatchSettings(games_per_hour=30, alternate=False))
    t0 = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)
    watch.feed(DealerChanged("carol", None, "croupier"), t0)
    said = []
    for i in range(8):
        if i == 2:
            said += watch.feed(WheelMissSpin(game=i + 1), t0)
        said += watch.feed(WheelResult(game=i + 1, number=i, rpm=Decimal(16)), t0 + timedelta(minutes=3 * i))
    rates = [a for a in said if a.kind == "games_per_hour"]
    assert [(a.dealer, a.game) for a in rates] == [(None, 5), ("carol", 5)]  # once each, at 5 games
    assert "dealer carol: 20.0 games per hour" in rates[1].detail
    # One misfire in 3 games is above 1 in 10: said once, and not again while the rate stays above.
    assert [a.game for a in said if a.kind == "misfires"] == [3]


def test_ball_not_detected_is_an_alarm_with_its_own_setting(tmp_path: Path) -> None:
    # The round is held and alerted as a sensor fault whatever the setting; the alarm is the sensor's
    # health over the shift: on by default (one in the last 20 games), off with 0.
    assert {"ball not detected", "sensor fault"} <= _shift(tmp_path, "noball", "noball@3", 5)
    off = "[wheel_alarms]\nball_not_detected = 0\n"
    assert _shift(tmp_path, "noball-off", "noball@3", 5, off) == {"sensor fault"}
    two = load_settings(_write(tmp_path / "two.toml", "[wheel_alarms]\nball_not_detected = 2\n"))
    assert two.wheel_alarms.ball_not_detected == 2
    with pytest.raises(DrrError, match="ball_not_detected"):
        load_settings(_write(tmp_path / "bad.toml", "[wheel_alarms]\nball_not_detected = -1\n"))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_the_ball_not_detected_count_is_taken_over_the_window() -> None:
    watch = TableWatch(WatchSettings(ball_not_detected=2, window=3, games_per_hour=0, alternate=False))
    t0 = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)
    said = []

    def game(n: int, *, no_ball: bool = False) -> None:
        nonlocal said
        if no_ball:
            said += watch.feed(WheelBallNotDetected(game=n, reason="state-7"), t0)
        said += watch.feed(WheelResult(game=n + 100, number=1), t0 + timedelta(minutes=n))

    game(1, no_ball=True)
    assert said == []  # one in the window: below 2
    game(2, no_ball=True)
    assert [(a.kind, a.game) for a in said] == [("ball_not_detected", 2)]
    assert "no ball 2 times in the last 2 games" in said[0].detail
    game(3, no_ball=True)
    assert len(said) == 1  # said once while the count stays at or above 2
    for n in (4, 5, 6):
        game(n)  # the window empties: the alarm is cleared
    game(7, no_ball=True)
    game(8, no_ball=True)
    assert [a.game for a in said] == [2, 8]
