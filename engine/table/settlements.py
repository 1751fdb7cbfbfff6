"""The settlement of the round on the felt, worked out once per result (the table's state keeps one
cache, engine.table.state.TableState.settlements): the commands, the fold, the approval check, the
screens and the journal all read this one object.

A round's settlement depends only on its immutable `engine.round.RoundState` (wagers, result, draw,
bonus outcomes, rules), so it is kept until the fold replaces the state. While bonus games are still
running the *provisional* settlement stands their players in at the smallest legal outcome
(`BONUS_OUTCOME_MIN`): the screens list those Bonus wins as pending and show no amount for them, so
the stand-in never reaches a payout; everyone else can be paid meanwhile. A bonus outcome changes
only those Bonus wins: they are priced onto the settlement already made for the same result and
wagers (`engine.settlement.with_bonus_outcomes`), so `settle_round` runs once per result.
"""

from __future__ import annotations

from engine.round import Phase, RoundState, bonus_needed
from engine.settlement import BONUS_OUTCOME_MIN, RoundSettlement, settle_round, with_bonus_outcomes


class SettlementCache:
    """`final(s)` and `provisional(s)` for the latest round state asked about, each computed once."""

    def __init__(self) -> None:
        self._state: RoundState | None = None
        self._provisional: RoundSettlement | None = None

    def provisional(self, s: RoundState | None) -> RoundSettlement | None:
        """Every wager settled once the result is in (running bonus games stood in), else None."""
        if s is None or s.result is None or s.draw is None:
            return None
        if s.settlement is not None:
            return s.settlement
        if s is not self._state or self._provisional is None:
            # Bonus games running, or due but not started (winning wagers only, entered after the
            # result): each stands at its least outcome until it is played.
            due = (*s.bonus_players, *bonus_needed(s))
            odds = {**{p: BONUS_OUTCOME_MIN for p in due if p not in s.bonus_odds}, **s.bonus_odds}
            before = self._state
            if before is not None and self._provisional is not None and _same_result(before, s):
                self._provisional = with_bonus_outcomes(self._provisional, odds, s.rules)
            else:
                self._provisional = settle_round(s.wagers, s.result, s.draw, odds, s.rules)
            self._state = s
        return self._provisional

    def final(self, s: RoundState | None) -> RoundSettlement | None:
        """The round's settlement once its result and every bonus outcome are in (else None)."""
        if s is None or s.phase not in (Phase.RESULT, Phase.BONUS, Phase.SETTLED) or s.result is None:
            return None
        if s.settlement is not None:
            return s.settlement
        if any(p not in s.bonus_odds for p in bonus_needed(s)):
            return None
        return self.provisional(s)


def _same_result(a: RoundState, b: RoundState) -> bool:
    """The same round, result, draw and wagers (the same objects: the fold replaced nothing else
    that settles), so only bonus outcomes can differ between their settlements."""
    return (
        a.round_id == b.round_id
        and a.result == b.result
        and a.draw is b.draw
        and a.wagers is b.wagers
        and a.rules is b.rules
    )
