"""The surveillance page's journal tail reads the typed payloads (issue 22 item 2): an old journal's
`wheel.rotor_speed` is a rotor reading (mapped by the registry), a bonus outcome counts by its exact
odds, an unreadable reading is left out and the tail goes on."""

from __future__ import annotations

from engine.floor.surveillance import JournalTail
from engine.store import Store
from tests.floor.helpers import store, store_url  # noqa: F401 - fixtures

WHEN = "2026-11-29T10:59:30.000000Z"


def test_the_tail_keeps_rotor_readings_and_bonus_odds(store: Store) -> None:  # noqa: F811
    j = store.journal
    j.append(
        "T8",
        "wheel.rotor_speed",
        {"game": 1, "rpm": "31.5", "direction": "cw"},
        round_id=None,
        user="wheel",
        time=WHEN,
    )
    j.append(
        "T8",
        "wheel.rotor",
        {"game": 2, "rpm": "not a speed", "direction": "ccw"},
        round_id=None,
        user="wheel",
        time=WHEN,
    )
    j.append(
        "T8",
        "wheel.rotor",
        {"game": 3, "rpm": 28, "direction": "ccw"},
        round_id=None,
        user="wheel",
        time=WHEN,
    )
    j.append(
        "T8",
        "round.bonus_outcome",
        {"player": "Carla", "odds": "199/2"},
        round_id=None,
        user="wheel",
        time=WHEN,
    )
    j.append(
        "T8", "round.bonus_outcome", {"player": "Eli", "odds": "50"}, round_id=None, user="wheel", time=WHEN
    )
    tail = JournalTail("T8")
    assert tail.update(store)
    assert list(tail.rotor) == [(WHEN, 31.5, "cw"), (WHEN, 28.0, "ccw")]
    assert dict(tail.bonus_odds) == {"199/2": 1, "50": 1}
    assert tail.last_seq == 5 and not tail.update(store)
