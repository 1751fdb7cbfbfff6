"""A short headless demo of one round (what plain `drr` does while no GUI is installed).

Opens a round under the shipped Rules Submission, places a few wagers, closes bets (the
Lucky/Bonus draw from the OS CSPRNG), takes a random result, plays any bonus game with
random picks and the cash-out preset, settles and prints every wager's outcome.
"""

from __future__ import annotations

import argparse
import sys


def run_default(args: argparse.Namespace | None = None) -> int:
    from decimal import Decimal
    from fractions import Fraction

    from engine.bets import BetKind, Wager, inside_bet, outside_bet
    from engine.bonus_game import BonusGame
    from engine.rng import SystemRng
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
    from engine.rules import format_odds, load_default_rules

    out = sys.stdout
    rules = load_default_rules()
    rng = SystemRng()
    state = apply(RoundState.initial(rules), RoundOpened("demo-1", rules.sha256))
    wagers = [
        Wager("w1", "anna", inside_bet([rng.randbelow(37)]), Decimal(5)),
        Wager("w2", "anna", inside_bet([17, 20]), Decimal(10)),
        Wager("w3", "bob", inside_bet([25, 26, 28, 29]), Decimal(4)),
        Wager("w4", "bob", inside_bet(range(31, 37)), Decimal(2)),
        Wager("w5", "carl", outside_bet(BetKind.RED), Decimal(20)),
        Wager("w6", "carl", outside_bet(BetKind.DOZEN, 2), Decimal(10)),
        Wager("w7", "dora", inside_bet([0]), Decimal(1)),
    ]
    # Dora covers every number with six lines, so whatever the Bonus Number, someone plays.
    wagers += [
        Wager(f"w{8 + i}", "dora", inside_bet(range(6 * i + 1, 6 * i + 7)), Decimal(1)) for i in range(6)
    ]
    out.write(f"Diamond Rush Roulette — headless demo ({rules.name})\n\nWagers:\n")
    for w in wagers:
        state = apply(state, WagerPlaced(w))
        out.write(f"  {w.id:4s} {w.player:5s} {w.bet.label:22s} {w.amount:>7}\n")

    state = apply(state, close_bets(state, rng))
    assert state.draw is not None
    lucky = ", ".join(f"{n} ({format_odds(x)} to 1)" for n, x in state.draw.lucky.items())
    out.write(f"\nNo more bets. Lucky Numbers: {lucky}; Bonus Number: {state.draw.bonus_number}\n")
    # A demo leans on the Bonus Number half the time, so the bonus game shows up often.
    result = state.draw.bonus_number if rng.randbelow(2) else rng.randbelow(37)
    state = apply(state, ResultRecorded(result))
    out.write(f"The ball lands on {result}.\n")

    players = bonus_needed(state)
    if players:
        state = apply(state, BonusStarted(players))
        for player in players:
            game = BonusGame.start(rules, rng, player=player)
            while not game.finished:
                if game.can_cash_out and rng.randbelow(2):
                    game.cash_out()
                else:
                    game.pick(rng.randbelow(5) + 1)
            outcome = game.outcome or Fraction(0)
            path = " + ".join(f"r{p.round}:{p.content}" for p in game.picks)
            out.write(
                f"Bonus game of {player}: {path} -> {game.end_reason}, pays {format_odds(outcome)} to 1\n"
            )
            state = apply(state, BonusOutcome(player, outcome))

    state = apply(state, settle(state))
    assert state.settlement is not None
    out.write("\nSettlement:\n")
    for s in state.settlement.settlements:
        odds = f"{format_odds(s.odds)} to 1" if s.won else ""
        out.write(f"  {s.wager.id:4s} {s.wager.bet.label:22s} {s.kind:5s}  {odds:>12}  {s.payout:>10}\n")
    total = state.settlement
    out.write(
        f"\nWagered {total.total_wagered}, paid {total.total_paid} (stakes of winners returned on top).\n"
    )
    out.write("Try: drr rules show, drr settle ROUND.json, drr bench\n")
    return 0
