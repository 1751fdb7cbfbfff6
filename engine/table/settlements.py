"""The settlement of the round on the felt, worked out once per round state (the service and a
journal follower share it): the paying list, the approval check and the screens all read this one.

A round's settlement depends only on its immutable `engine.round.RoundState` (wagers, result, draw,
bonus outcomes, rules), so it is kept until the fold replaces the state. While bonus games are still
running the *provisional* settlement stands their players in at the smallest legal outcome
(`BONUS_OUTCOME_MIN`): the screens list those Bonus wins as pending and show no amount for them, so
the stand-in never reaches a payout; everyone else can be paid meanwhile.
"""

from __future__ import annotations

from engine.round import Phase, RoundState, bonus_needed
from engine.settlement import BONUS_OUTCOME_MIN, RoundSettlement, settle_round


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
            waiting = {p: BONUS_OUTCOME_MIN for p in due if p not in s.bonus_odds}
            self._provisional = settle_round(s.wagers, s.result, s.draw, {**waiting, **s.bonus_odds}, s.rules)
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
