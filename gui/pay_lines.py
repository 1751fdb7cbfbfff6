"""Views derived from a round for both table adapters: the paying list's lines (bonus games still
running marked), what a finished bonus game pays, and the history entry of a settled round.

Payouts come from `engine.settlement`; while a player's bonus game runs, their Bonus wins are
listed as pending (payout unknown) so the croupier can already pay everyone else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction

from engine.bets import Wager
from engine.rng import Draw
from engine.round import RoundState
from engine.rules import RulesSubmission
from engine.settlement import BONUS_OUTCOME_MIN, RoundSettlement, settle_round
from gui.view_model import BonusView, HistoryEntry, PayLine, WinKind, money, odds_text


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


def lines_of(r: RoundState, settled: RoundSettlement | None) -> tuple[PayLine, ...]:
    """The paying list of round `r` from its settlement (the service's provisional one while bonus
    games run: those players' Bonus wins are marked pending, their stand-in amount never shown)."""
    if settled is None:
        return ()
    waiting = {p for p in r.bonus_players if p not in r.bonus_odds}
    lines = []
    for s in settled.settlements:
        kind = WinKind(s.kind)
        is_pending = kind is WinKind.BONUS and s.wager.player in waiting
        lines.append(
            PayLine(s.wager, kind, s.odds, Decimal(0) if is_pending else s.payout, pending=is_pending)
        )
    return tuple(lines)


def round_lines(r: RoundState) -> tuple[PayLine, ...]:
    """The paying list of a round once its result is in (() before)."""
    if r.result is None or r.draw is None:
        return ()
    waiting = [p for p in r.bonus_players if p not in r.bonus_odds]
    return pay_lines(r.wagers, r.result, r.draw, r.bonus_odds, waiting, r.rules)


def with_bonus_payout(view: BonusView, lines: Iterable[PayLine]) -> BonusView:
    """A finished bonus game's view with what it pays: the sum over the player's Bonus wins."""
    if not view.finished:
        return view
    won = [
        ln for ln in lines if ln.wager.player == view.player and ln.kind is WinKind.BONUS and not ln.pending
    ]
    if not won:
        return view
    # The multiplier is "to 1" on a straight-up; a wider bet shares it (39 to 6 on a six line), so
    # the screen says which wager the payout is for.
    if len(won) == 1:
        w = won[0].wager
        basis = f"{money(w.amount)} on {w.bet.label}" + (
            f" at {odds_text(view.final_odds, w.bet.size)}" if view.final_odds is not None else ""
        )
    else:
        basis = f"{len(won)} wagers on the Bonus Number"
    return dataclasses.replace(view, payout=sum((ln.payout for ln in won), Decimal(0)), paid_on=basis)


def history_entry(r: RoundState) -> HistoryEntry | None:
    """The history strip's entry of a round with a result (None without one)."""
    if r.result is None or r.draw is None:
        return None
    return HistoryEntry(
        r.result,
        lucky=r.result in r.draw.lucky,
        bonus=r.result == r.draw.bonus_number,
        manual=r.result_source == "manual",
    )
