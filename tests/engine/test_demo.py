"""Plain `drr` (the headless demo while no GUI exists): a round played and settled by the table service."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from engine.cli.demo_cmd import run_default
from engine.entry_types import EntryType as E


def test_demo_plays_and_settles_a_round(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_default(None) == 0
    out = capsys.readouterr().out
    assert "Lucky Numbers:" in out and "Bonus Number:" in out
    lines = re.findall(r"^  (w\d+) .* (lucky|bonus|base|lose) .* (\d+\.\d\d)$", out, re.MULTILINE)
    assert [w for w, _, _ in lines] == [f"w{i}" for i in range(1, 14)]
    paid = sum((Decimal(p) for _, _, p in lines), Decimal(0))
    assert f"paid {paid} " in out


def test_the_demo_round_is_played_through_the_table_service(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No second copy of the game: the demo's round is the table service's, journaled entry by entry."""
    from engine.table.service import TableService

    written: list[str] = []
    commit = TableService._commit

    def spy(self: TableService, user: str | None, events: list[Any]) -> Any:
        entries = commit(self, user, events)
        written.extend(e.type for e in entries)
        return entries

    monkeypatch.setattr(TableService, "_commit", spy)
    assert run_default(None) == 0
    capsys.readouterr()
    # The start, its RNG start-up test (engine.table.gate) and the demo's Rules Submission, in this order.
    assert [t for t in written if t != E.TABLE_NEW_SOFTWARE][:3] == [
        E.TABLE_STARTED,
        E.RNG_STARTUP_TEST,
        E.TABLE_RULES_LOADED,
    ]
    assert written.count(E.ROUND_WAGER_PLACED) == 13
    for kind in (E.ROUND_OPENED, E.ROUND_BETS_CLOSED, E.WHEEL_RESULT, E.ROUND_RESULT, E.ROUND_SETTLED):
        assert kind in written, kind
