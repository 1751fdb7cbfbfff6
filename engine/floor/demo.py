"""Demonstration floor: real engine rounds from a seeded RNG, journaled into a store.

Every round is played through `engine.round` (and `engine.bonus_game` when the ball lands on the
Bonus Number under a straight-up wager), and its events are journaled exactly as the table service
does, with the dealer and rotor direction extras the projections read. For screenshots, tests and
demos only: the seeded generator is not a casino RNG.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, Literal

from engine.bets import BetKind, Wager, inside_bet, outside_bet
from engine.rng import SeededRng
from engine.rules import RulesSubmission, load_default_rules
from engine.store.db import Store
from engine.store.journal import NewEvent

PLAYERS = ("Anna", "Bob", "Carla", "Dev", "Eve")
DEALERS = ("dana", "eli", "fay")
START = datetime(2026, 11, 29, 0, 0, tzinfo=UTC)


@dataclass
class RoundPlan:
    """How one demo round goes: who wagers what, where the ball lands (None: random)."""

    wagers: list[Wager] = field(default_factory=list)
    result: int | None = None
    hit_bonus: bool = False  # land on the Bonus Number (a straight-up on it is added)
    manual: bool = False


def _payload(event: Any, **extra: Any) -> dict[str, Any]:
    body = {k: v for k, v in event.to_json().items() if k != "type"}
    body.update(extra)
    return body


def play(
    rules: RulesSubmission,
    rng: SeededRng,
    table: str,
    round_id: str,
    plan: RoundPlan,
    *,
    when: datetime,
    dealer: str,
    direction: str,
) -> list[NewEvent]:
    """One round through the engine; returns its journal events in order."""
    from engine.bonus_game import BonusGame
    from engine.round import (
        BonusOutcome,
        BonusStarted,
        ResultRecorded,
        RoundOpened,
        RoundState,
        WagerPlaced,
        apply,
        bonus_needed,
        close_bets,
        settle,
    )

    events: list[NewEvent] = []
    state = RoundState.initial(rules)
    clock = [when]

    def push(event: Any, seconds: float, user: str | None = None, **extra: Any) -> None:
        nonlocal state
        state = apply(state, event)
        clock[0] += timedelta(seconds=seconds)
        events.append(NewEvent(table, event.type, _payload(event, **extra), round_id, user, clock[0]))

    push(RoundOpened(round_id, rules.sha256), 0, dealer, dealer=dealer)
    wagers = list(plan.wagers)
    for w in wagers:
        push(WagerPlaced(w), 2, dealer)
    bets_closed = close_bets(state, rng)
    if plan.hit_bonus:
        bonus = bets_closed.draw.bonus_number
        extra = Wager(f"w{len(wagers) + 1}", "Carla", inside_bet([bonus]), Decimal(5))
        push(WagerPlaced(extra), 1, dealer)
    push(bets_closed, 15)
    number = plan.result if plan.result is not None else rng.randbelow(37)
    if plan.hit_bonus:
        number = bets_closed.draw.bonus_number
    source: Literal["sensor", "manual"] = "manual" if plan.manual else "sensor"
    reason = "sensor fault: read from the wheel by the dealer" if plan.manual else ""
    events.append(
        NewEvent(table, "wheel.rotor_speed", {"rpm": str(Decimal(24) + rng.randbelow(60) / Decimal(10)),
                                              "direction": direction}, round_id, None, clock[0])
    )  # fmt: skip
    push(ResultRecorded(number, source, reason), 12, dealer if plan.manual else None, direction=direction)
    players = bonus_needed(state)
    if players:
        push(BonusStarted(players), 2)
        for player in players:
            frozen_clock = functools.partial(float, clock[0].timestamp())  # picks are instant in a demo
            game = BonusGame.start(rules, rng, player=player, clock=frozen_clock)
            pick = 0
            while not game.finished:
                if game.needs_boxes:
                    game.place_boxes()
                elif game.can_cash_out and game.round >= 4:
                    game.cash_out()
                else:
                    game.pick(1 + (pick % 5))
                    pick += 1
            for bonus_event in game.events:
                clock[0] += timedelta(seconds=3)
                body = _payload(bonus_event, player=player)
                events.append(NewEvent(table, bonus_event.type, body, round_id, None, clock[0]))
            assert game.outcome is not None
            push(BonusOutcome(player, game.outcome), 1)
    push(settle(state), 3)
    return events


def demo_wagers(rng: SeededRng, round_no: int) -> list[Wager]:
    d = Decimal
    plan: list[tuple[str, Any, Decimal]] = [
        (
            "Anna",
            outside_bet(BetKind.RED if rng.randbelow(2) else BetKind.BLACK),
            d(25 + 25 * rng.randbelow(4)),
        ),
        ("Bob", inside_bet([rng.randbelow(37)]), d(5 * (1 + rng.randbelow(4)))),
        ("Dev", outside_bet(BetKind.DOZEN, 1 + rng.randbelow(3)), d(20)),
    ]
    if round_no % 3 == 0:
        plan.append(("Eve", outside_bet(BetKind.HIGH), d(100)))
    return [Wager(f"w{i + 1}", p, b, a) for i, (p, b, a) in enumerate(plan)]


def rounds_for(
    rules: RulesSubmission, table: str, count: int, *, seed: str, start: datetime, bonus_every: int = 0
) -> Iterator[list[NewEvent]]:
    rng = SeededRng(f"{seed}-{table}")
    for i in range(count):
        plan = RoundPlan(
            demo_wagers(rng, i), hit_bonus=bool(bonus_every) and i % bonus_every == bonus_every - 1
        )
        plan.manual = i % 97 == 50
        yield play(
            rules,
            rng,
            table,
            f"{table}-{i + 1:05d}",
            plan,
            when=start + timedelta(seconds=75 * i),
            dealer=DEALERS[(i // 30) % len(DEALERS)],
            direction="cw" if i % 2 else "ccw",
        )


def fill_demo_floor(
    store: Store,
    tables: dict[str, int],
    *,
    seed: str = "demo",
    start: datetime = START,
    bonus_every: int = 40,
    rules: RulesSubmission | None = None,
) -> None:
    """Journal `tables[t]` engine rounds on each table t (batched transactions)."""
    rules = rules or load_default_rules()
    for table, count in tables.items():
        batch: list[NewEvent] = []
        for events in rounds_for(rules, table, count, seed=seed, start=start, bonus_every=bonus_every):
            batch += events
            if len(batch) > 4000:
                store.journal.append_many(batch)
                batch = []
        if batch:
            store.journal.append_many(batch)
