"""Demo tables for screenshots, tests and the benchmark: real engine rounds from a seeded RNG.

Every state here is reached through the table adapter's own commands (open, wager, close,
result, confirm, bonus picks), so a screenshot shows exactly what a croupier would see.
The seeded generator is for demonstration only; the engine refuses it in production.
"""

from __future__ import annotations

import copy
from decimal import Decimal

from engine.bets import BetKind, inside_bet, outside_bet
from engine.rng import Draw, SeededRng, draw_lucky_and_bonus
from gui.local_table import LocalTable
from gui.view_model import Phase

PLAYERS = ("Anna", "Bob", "Carla", "Dev", "Eve")


def demo_table(
    seed: int = 2026, history: int = 60, approval_threshold: Decimal = Decimal("2500")
) -> LocalTable:
    """A table with `history` finished rounds behind it (no wagers, so no bonus games)."""
    rng = SeededRng(seed)
    table = LocalTable(rng=rng, players=PLAYERS, approval_threshold=approval_threshold, table_id="DR-07")
    results = SeededRng(f"{seed}-wheel")
    for _ in range(history):
        table.open_bets()
        table.no_more_bets()
        table.wheel_result(results.randbelow(37), "demo wheel")
        table.confirm_result()
        table.settle()
        table.next_round()
    return table


def next_draw(table: LocalTable) -> Draw:
    """The draw the table's seeded generator will make next (a copy is consumed, not the original)."""
    return draw_lucky_and_bonus(table.rules, copy.deepcopy(table._rng))


def place_demo_wagers(table: LocalTable, lucky: int, bonus: int) -> None:
    """Wagers of every kind, some on a Lucky Number and on the Bonus Number."""
    neighbour = lucky + 3 if lucky <= 33 and lucky else lucky - 3 if lucky > 3 else 1
    d = Decimal
    plan = [
        ("Anna", inside_bet([lucky]), d(25)),
        ("Anna", inside_bet([lucky, neighbour]) if lucky else inside_bet([0, 1]), d(10)),
        ("Anna", outside_bet(BetKind.RED), d(50)),
        ("Bob", inside_bet([lucky]), d(5)),
        ("Bob", outside_bet(BetKind.DOZEN, 2), d(25)),
        ("Bob", inside_bet([0, 1, 2, 3]), d(5)),
        ("Carla", inside_bet([bonus]), d(5)),
        ("Carla", outside_bet(BetKind.ODD), d(25)),
        ("Carla", inside_bet(range(13, 19)), d(10)),
        ("Dev", inside_bet([8, 9, 11, 12]), d(10)),
        ("Dev", inside_bet([31, 32, 33]), d(5)),
        ("Dev", outside_bet(BetKind.COLUMN, 3), d(25)),
        ("Eve", inside_bet([0, 2, 3]), d(5)),
        ("Eve", outside_bet(BetKind.HIGH), d(100)),
    ]
    for player, bet, amount in plan:
        table.place_wager(player, bet, amount)


def croupier_with_lucky(seed: int = 2026) -> LocalTable:
    """Wagers on the felt and the Lucky Numbers lit ("no more bets" called)."""
    table = demo_table(seed)
    draw = next_draw(table)
    table.open_bets()
    place_demo_wagers(table, max(draw.lucky, key=lambda n: draw.lucky[n]), draw.bonus_number)
    table.no_more_bets()
    return table


def croupier_after_lucky_win(seed: int = 2026) -> LocalTable:
    """The ball landed on the richest Lucky Number: payouts shown, one waiting for approval."""
    table = croupier_with_lucky(seed)
    draw = table.snapshot().draw
    assert draw is not None
    table.wheel_result(max(draw.lucky, key=lambda n: draw.lucky[n]), "demo wheel")
    table.confirm_result()
    return table


def bonus_mid_round(seed: int = 2026) -> LocalTable:
    """The ball landed on the Bonus Number: two players in their bonus games, mid-way."""
    table = demo_table(seed, history=30)
    draw = next_draw(table)
    table.open_bets()
    bonus = draw.bonus_number
    table.place_wager("Carla", inside_bet([bonus]), Decimal(5))
    neighbour = next(iter(b for b in (bonus + 3, bonus - 3) if 1 <= b <= 36)) if bonus else 1
    table.place_wager("Anna", inside_bet([bonus, neighbour]), Decimal(10))
    table.no_more_bets()
    table.wheel_result(bonus, "demo wheel")
    table.confirm_result()
    assert table.phase is Phase.BONUS
    table.bonus_start("Carla")
    table.bonus_start("Anna")
    _play_safely(table, "Carla", rounds=2)
    _play_safely(table, "Anna", rounds=1)
    return table


def _play_safely(table: LocalTable, player: str, rounds: int) -> None:
    """Demo picks that avoid the X boxes, so the screenshot shows a game in progress."""
    bridge = table._bonus[player]
    for _ in range(rounds):
        game = bridge.game  # type: ignore[attr-defined]
        hidden = game._hidden
        box = next(i + 1 for i, content in enumerate(hidden) if content != "X")
        table.bonus_pick(player, box)
