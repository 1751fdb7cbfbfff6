"""Issue 24 finding 4: a croupier's station start does not load a Rules Submission (`--rules`) nor the
settings file's large_payout / auto_confirm_seconds; a pit boss or admin may (gui.app._start_table,
engine.floor.actions.check_station_start), as `drr pitboss rules` / `settings` require."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.auth import PermissionDenied, User
from engine.floor.actions import check_station_start, latest_rules
from engine.rules import default_rules_path
from engine.store import Store

CORA = User("cora", "croupier")
PAT = User("pat", "pitboss")


def _rules(tmp_path: Path) -> Path:
    path = tmp_path / "house.toml"
    text = default_rules_path().read_text() + '\n[limits]\nminimum = "1"\nmaximum_inside = "10"\n'
    path.write_text(text)
    return path


def _start(store: Store, user: User, rules: Path | None, **settings: Any) -> None:
    from gui.app import _start_table

    threshold = settings.pop("large_payout", None)
    asyncio.run(_start_table(None, store, user, str(rules) if rules else None, "T1", threshold, settings))


def test_a_croupiers_station_start_refuses_a_rules_submission_and_journals_nothing(
    store: Store, tmp_path: Path
) -> None:
    before = list(store.journal.entries("T1"))
    with pytest.raises(PermissionDenied, match=r"cora \(croupier\) may not load rules.*nothing started"):
        _start(store, CORA, _rules(tmp_path))
    assert list(store.journal.entries("T1")) == before
    assert latest_rules(store, "T1") is None


@pytest.mark.parametrize(
    ("key", "value"), [("large_payout", Decimal("1000000")), ("auto_confirm_seconds", 1.0)]
)
def test_a_croupier_cannot_change_a_threshold_from_the_settings_file(
    store: Store, key: str, value: Any
) -> None:
    with pytest.raises(PermissionDenied, match=rf"may not change settings.*set {key} to"):
        check_station_start(store, "T1", CORA, rules_text=None, **{key: value})


def test_a_pit_boss_may_and_the_croupier_restarts_on_what_is_in_force(store: Store, tmp_path: Path) -> None:
    rules = _rules(tmp_path)
    text = rules.read_bytes()
    check_station_start(store, "T1", PAT, rules_text=text, large_payout=Decimal("1000000"))
    check_station_start(store, "T1", CORA, rules_text=None, large_payout=Decimal("10000.00"))  # the default
    check_station_start(store, "T1", CORA, rules_text=None, auto_confirm_seconds=5.0)
