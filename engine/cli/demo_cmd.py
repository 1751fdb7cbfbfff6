"""A short headless demo of one round (what plain `drr` does while no GUI is installed).

The round is played through the real table service (engine.table.service) on a scratch SQLite
store that is removed afterwards: it opens under the shipped Rules Submission, takes a few wagers,
closes bets (the Lucky/Bonus draw from the OS CSPRNG, the production generator), takes the wheel's
result, plays any bonus game with random picks and cash-outs, has a pit boss approve payouts above
the threshold if there are any, settles and prints every wager's outcome.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from engine.table.service import TableService


def run_default(args: argparse.Namespace | None = None) -> int:
    return asyncio.run(_play(sys.stdout))


async def _play(out: TextIO) -> int:
    import tempfile
    from pathlib import Path

    from engine.store.db import open_store
    from engine.table.service import TableService

    with tempfile.TemporaryDirectory(prefix="drr-demo-") as tmp:
        store = open_store(str(Path(tmp) / "demo.sqlite"), table="DEMO")
        try:
            service = TableService(store, "DEMO", station="demo")  # the OS CSPRNG; claims its scratch store
            await service.start()
            try:
                await _round(service, out)
            finally:
                await service.close()
        finally:
            store.close()
    return 0


async def _round(service: TableService, out: TextIO) -> None:
    from decimal import Decimal

    from engine.auth import User
    from engine.bets import BetKind, inside_bet, outside_bet
    from engine.exact import format_odds
    from engine.rng import SystemRng

    croupier, pit_boss = User("demo", "croupier"), User("demo-pitboss", "pitboss")
    choices = SystemRng()  # the players' and the demo wheel's choices; the draw is the service's
    await service.open_bets(croupier)
    rules = service.rules
    assert rules is not None
    wagers = [
        ("anna", inside_bet([choices.randbelow(37)]), Decimal(5)),
        ("anna", inside_bet([17, 20]), Decimal(10)),
        ("bob", inside_bet([25, 26, 28, 29]), Decimal(4)),
        ("bob", inside_bet(range(31, 37)), Decimal(2)),
        ("carl", outside_bet(BetKind.RED), Decimal(20)),
        ("carl", outside_bet(BetKind.DOZEN, 2), Decimal(10)),
        ("dora", inside_bet([0]), Decimal(1)),
    ]
    # Dora covers every number with six lines, so whatever the Bonus Number, someone plays.
    wagers += [("dora", inside_bet(range(6 * i + 1, 6 * i + 7)), Decimal(1)) for i in range(6)]
    out.write(f"Diamond Rush Roulette — headless demo ({rules.name})\n\nWagers:\n")
    for i, (player, bet, amount) in enumerate(wagers, 1):
        await service.place_wager(croupier, player, bet, amount, wager_id=f"w{i}")
        out.write(f"  {f'w{i}':4s} {player:5s} {bet.label:22s} {amount:>7}\n")

    await service.no_more_bets(croupier)
    state = service.round
    assert state is not None and state.draw is not None
    draw = state.draw
    lucky = ", ".join(f"{n} ({format_odds(x)} to 1)" for n, x in draw.lucky.items())
    out.write(f"\nNo more bets. Lucky Numbers: {lucky}; Bonus Number: {draw.bonus_number}\n")
    # A demo leans on the Bonus Number half the time, so the bonus game shows up often.
    result = draw.bonus_number if choices.randbelow(2) else choices.randbelow(37)
    await service.wheel_event({"type": "result", "game": None, "number": result})
    await service.confirm_result(croupier)
    out.write(f"The ball lands on {result}.\n")

    state = service.round
    assert state is not None
    for player in state.bonus_players:
        await service.bonus_start(croupier, player)
        while True:
            game = service.state.games[player]
            if game.finished:
                break
            if game.can_cash_out and choices.randbelow(2):
                await service.bonus_cash_out(croupier, player)
            else:
                await service.bonus_pick(croupier, player, choices.randbelow(5) + 1)
        path = " + ".join(f"r{p.round}:{p.content}" for p in game.picks)
        outcome = format_odds(game.outcome) if game.outcome is not None else "0"
        out.write(f"Bonus game of {player}: {path} -> {game.end_reason}, pays {outcome} to 1\n")

    need = service.approval_needed()
    if need is not None:
        await service.approve_payout(pit_boss)
        out.write(f"Payouts of {need.total} approved by the pit boss {pit_boss.name}.\n")
    await service.settle(croupier)
    state = service.round
    assert state is not None and state.settlement is not None
    total = state.settlement
    out.write("\nSettlement:\n")
    for s in total.settlements:
        odds = f"{format_odds(s.odds)} to 1" if s.won else ""
        out.write(f"  {s.wager.id:4s} {s.wager.bet.label:22s} {s.kind:5s}  {odds:>12}  {s.payout:>10}\n")
    out.write(
        f"\nWagered {total.total_wagered}, paid {total.total_paid} (stakes of winners returned on top).\n"
    )
    out.write("Try: drr rules show, drr settle ROUND.json, drr math\n")
