"""`drr table run --bonus preset`: every bonus game is left to its presets and countdowns (no player
acts), each game still ends exactly once and its round settles once."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

from engine.rng import SeededRng
from engine.store import Store
from engine.store.verify import verify
from engine.table.headless import HeadlessTable
from engine.table.service import TIMER_USER
from tests.table.helpers import make_service


class JumpingClock:
    """Each reading is 30 s after the last: every 20 s bonus countdown has run out by the next look."""

    def __init__(self) -> None:
        self._ticks = itertools.count()

    def __call__(self) -> float:
        return 1_000_000.0 + 30.0 * next(self._ticks)


def test_preset_policy_leaves_every_bonus_game_to_its_preset_and_timers(store: Store) -> None:
    async def go() -> Any:
        svc = make_service(store, seed=5, clock=JumpingClock(), approval_threshold=Decimal("1e9"))
        await svc.start()
        headless = HeadlessTable(svc, rounds=5, choices=SeededRng(8), bonus_policy="preset")

        async def until(ready: Any) -> None:
            while not ready():
                await asyncio.sleep(0.005)

        async def always_the_bonus_number() -> AsyncIterator[dict[str, Any]]:
            # A real wheel waits for the croupier; here each spin waits for the table (the timers play
            # the bonus games, so the rounds take as long as the event loop needs for them).
            for game in range(1, 6):
                yield {"type": "started", "game": game}
                await until(lambda: svc.round is not None and len(svc.round.wagers) > 0)
                yield {"type": "launched", "game": game}
                yield {"type": "no_more_bets", "game": game}
                await until(lambda: svc.round is not None and svc.round.draw is not None)
                assert svc.round is not None and svc.round.draw is not None
                yield {"type": "result", "game": game, "number": svc.round.draw.bonus_number}
                await until(lambda done=game: svc.state.rounds_settled >= done)

        totals = await asyncio.wait_for(headless.run(always_the_bonus_number()), timeout=60)
        await svc.close()
        return totals

    totals = asyncio.run(go())
    entries = list(store.journal.entries("T1"))
    kinds = Counter(e.type for e in entries)
    assert totals.settled == 5 and kinds["round.settled"] == 5
    assert totals.bonus_games >= 2
    assert kinds["bonus.ended"] == kinds["round.bonus_outcome"] == totals.bonus_games
    # Each player got a preset before the game started, and no player ever picked or cashed out: every
    # step was the timeout rule applying the preset, journaled by the timer.
    presets = {e.payload["player"]: e.payload["preset"] for e in entries if e.type == "bonus.preset_set"}
    assert kinds["bonus.preset_set"] == totals.bonus_games and set(presets.values()) <= {"cash_out", "random"}
    steps = [e for e in entries if e.type in ("bonus.box_picked", "bonus.cashed_out")]
    assert steps and all(e.user == TIMER_USER and e.payload["by"] == "timeout" for e in steps)
    assert kinds["bonus.timer_expired"] == len(steps)
    for e in steps:
        if e.type == "bonus.cashed_out":
            assert presets[e.payload["player"]] == "cash_out"
    assert verify(store, "T1").ok
