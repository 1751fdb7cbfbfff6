"""`drr pitboss resolve`: a pit boss acknowledges a table's hold from its own store, with the same
rule as the croupier station (a doubtful number is never just acknowledged); the running table
service folds the entry at its next command and the round goes on."""

from __future__ import annotations

import asyncio

import pytest

from engine.auth import User
from engine.rng import SeededRng
from engine.store import Store
from engine.table.service import TableService
from gui.cli import main
from tests.floor.helpers import PINS, add_users, store, store_url  # noqa: F401 - fixtures

CROUPIER = User("cody", "croupier")


async def held(store: Store, *events: dict[str, object]) -> TableService:  # noqa: F811
    svc = TableService(store, "T1", rng=SeededRng(3), allow_seeded_rng=True, claim=False)
    await svc.start()
    await svc.wheel_event({"type": "started", "game": 5})
    await svc.open_bets(CROUPIER)
    for ev in events:
        await svc.wheel_event(ev)
    return svc


def resolve(url: str, user: str, reason: str = "ball dropped early, seen on camera") -> list[str]:
    return ["pitboss", "resolve", "--table", "T1", "--db", url, "--reason", reason, "--user", user,
            "--pin", PINS[user]]  # fmt: skip


def test_a_pit_boss_resolves_a_hold_from_the_command_line(
    store: Store,  # noqa: F811
    store_url: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    add_users(store)
    loop = asyncio.new_event_loop()
    try:
        svc = loop.run_until_complete(held(store, {"type": "result", "game": 5, "number": 17}))
        assert svc.state.hold is not None
        assert main(resolve(store_url, "cody")) == 3
        assert "may not resolve irregularity" in capsys.readouterr().err
        assert main(resolve(store_url, "pat")) == 0
        out = capsys.readouterr().out
        assert "hold acknowledged by pat" in out and "before no more bets" in out
        # The service folds the pit boss's entry at its next command: the round goes on.
        loop.run_until_complete(svc.no_more_bets(CROUPIER))
        assert svc.state.hold is None and svc.phase == "closed"
        assert main(resolve(store_url, "pat")) == 1
        assert "has no round on hold" in capsys.readouterr().err
        loop.run_until_complete(svc.close())
    finally:
        loop.close()


def test_a_doubtful_number_is_not_acknowledged_from_the_command_line(
    store: Store,  # noqa: F811
    store_url: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    add_users(store)
    loop = asyncio.new_event_loop()
    try:
        svc = loop.run_until_complete(
            held(store, {"type": "launched", "game": 5}, {"type": "no_more_bets", "game": 5})
        )
        loop.run_until_complete(
            svc.wheel_event({"type": "warning", "game": 5, "warnings": ["result_mismatch"]})
        )
        assert svc.state.hold is not None and svc.state.hold.kind == "result_mismatch"
        assert main(resolve(store_url, "pat")) == 1
        assert "cannot just be acknowledged" in capsys.readouterr().err
        loop.run_until_complete(svc.close())
    finally:
        loop.close()
