"""The demo floor is played through the real table service: every entry on it is one a real table
writes (the old demo journaled its own, e.g. `wheel.rotor_speed` where the service writes `wheel.rotor`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.entry_types import LEGACY, EntryType
from engine.errors import DrrError
from engine.floor.demo import fill_demo_floor, play_rounds
from engine.rng import SeededRng
from engine.store import Store, open_store
from engine.store.history import list_rounds
from engine.store.journal import Journal
from engine.table.service import WHEEL_USER, TableService


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "demo.sqlite"), durable=False) as store:
        yield store


def test_every_entry_is_written_by_the_table_service(scratch: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_: object, **__: object) -> None:
        raise AssertionError("the demo floor wrote a journal entry itself")

    # The service writes through Journal.append_in inside its own transaction; the demo may not
    # reach the journal any other way.
    monkeypatch.setattr(Journal, "append_many", refused)
    monkeypatch.setattr(Journal, "append", refused)
    fill_demo_floor(scratch, {"T1": 41, "T2": 3})
    entries = list(scratch.journal.entries("T1"))
    types = Counter(e.type for e in entries)
    assert set(types) <= set(EntryType) and not set(types) & set(LEGACY)
    assert types[EntryType.TABLE_STARTED] == 1 and types[EntryType.TABLE_RULES_LOADED] == 1
    assert types[EntryType.ROUND_OPENED] == types[EntryType.ROUND_SETTLED] == 41
    # The wheel's own messages, journaled by the service's wheel path.
    for kind in (EntryType.WHEEL_STARTED, EntryType.WHEEL_ROTOR, EntryType.WHEEL_NO_MORE_BETS):
        assert types[kind] == 41
    assert types[EntryType.WHEEL_RESULT] == 40  # round 26's result was entered by hand (a sensor fault)
    assert types[EntryType.TABLE_MANUAL_ENTRY] == 2  # round 26's two entries, both journaled
    assert all(e.user == WHEEL_USER for e in entries if e.type.startswith("wheel."))
    # Round 40 lands on the Bonus Number under Carla's straight-up: her bonus game, through the service.
    assert types[EntryType.BONUS_STARTED] >= 1 and types[EntryType.ROUND_BONUS_OUTCOME] >= 1
    rounds = {r["round_id"]: r for r in list_rounds(scratch)}
    assert rounds["T1-000040"]["result"] == rounds["T1-000040"]["bonus_number"]
    assert rounds["T1-000026"]["manual"] and not rounds["T1-000025"]["manual"]
    assert {r["dealer"] for r in rounds.values()} == {"dana", "eli"}
    assert {r["direction"] for r in rounds.values()} == {"cw", "ccw"}
    # The demo clock replays a shift from START, one round every 75 s, and stamps the entries.
    assert entries[0].time.startswith("2026-11-29T00:00:00")
    assert rounds["T1-000041"]["time"].startswith("2026-11-29T00:50:01")


def test_a_table_plays_on_where_it_stopped(scratch: Store) -> None:
    assert play_rounds(scratch, "T1", 2, leave_last_unsettled=True) == ["T1-000001", "T1-000002"]
    assert [r["status"] for r in list_rounds(scratch)][-1] != "settled"
    assert play_rounds(scratch, "T1", 1, seed="later") == ["T1-000003"]
    assert [r["status"] for r in list_rounds(scratch)] == ["settled"] * 3


def test_a_seeded_generator_and_a_demo_clock_stay_demo_only(scratch: Store) -> None:
    with pytest.raises(DrrError, match="not allowed in production"):
        TableService(scratch, "T1", rng=SeededRng(1))
    with pytest.raises(DrrError, match="for demos"):
        TableService(scratch, "T1", stamp_with_clock=True)


def test_a_scratch_store_does_not_wait_for_the_disk(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "a.sqlite"), durable=False) as scratch, scratch.begin() as conn:
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 0  # OFF: demos and tests only
    with open_store(str(tmp_path / "b.sqlite")) as store, store.begin() as conn:
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL: every real store
