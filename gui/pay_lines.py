"""Views derived from a round for the table model: the paying list's lines (from the service's
settlement, engine.table.settlements, worked out once per round state; bonus games still running
marked), what a finished bonus game pays, and the history entry of a settled round.

While a player's bonus game runs, their Bonus wins are listed as pending (payout unknown) so the
croupier can already pay everyone else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from decimal import Decimal

from engine.round import RoundState
from engine.settlement import RoundSettlement
from gui.view_model import BonusView, HistoryEntry, PayLine, WinKind, money, odds_text


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
