"""The paying list's lines from a round's wagers, result and draw, bonus games still running marked.

Payouts come from `engine.settlement`; while a player's bonus game runs, their Bonus wins are
listed as pending (payout unknown) so the croupier can already pay everyone else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction

from engine.bets import Wager
from engine.rng import Draw
from engine.rules import RulesSubmission
from engine.settlement import BONUS_OUTCOME_MIN, settle_round
from gui.view_model import PayLine, WinKind


def pay_lines(
    wagers: Sequence[Wager],
    result: int,
    draw: Draw,
    outcomes: Mapping[str, Fraction],
    pending: Iterable[str],
    rules: RulesSubmission,
) -> tuple[PayLine, ...]:
    """Every wager settled; players in `pending` have no bonus outcome yet (their Bonus wins wait)."""
    waiting = set(pending)
    # Any legal outcome stands in while a game runs: the lines of those players are marked pending
    # and their payouts are not shown, so the stand-in never reaches a screen.
    odds = {**{p: BONUS_OUTCOME_MIN for p in waiting}, **outcomes}
    settled = settle_round(wagers, result, draw, odds, rules)
    lines = []
    for s in settled.settlements:
        kind = WinKind(s.kind)
        is_pending = kind is WinKind.BONUS and s.wager.player in waiting and s.wager.player not in outcomes
        lines.append(
            PayLine(s.wager, kind, s.odds, Decimal(0) if is_pending else s.payout, pending=is_pending)
        )
    return tuple(lines)
