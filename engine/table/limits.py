"""The wager limits in force at a table: the Rules Submission's, the pit boss's table settings and each
player's own limit together, for the table service's check, the croupier's screen and its chips.

The Rules Submission bounds every wager (minimum, inside / outside maximum, per player and round,
checked by engine.round.check_wager). The pit boss's settings (`table.settings_changed`,
engine.floor.actions.SETTINGS) narrow them from the next round:

- `min_bet` / `max_bet`: the smallest and largest single wager (`refusal`);
- `player_limit:<player>`: the most that player may have on the felt in one round (a player who
  asked for a limit, or whom the pit boss limits), never above the Rules Submission's per-player
  maximum (`LimitsInForce.check_player`); "none" lifts it.

A screen shows `LimitsInForce.text()`, never one half of it; the croupier's chips are
`chips_in_force` (none below the table minimum).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Final

from engine.errors import IllegalWager
from engine.exact import money

if TYPE_CHECKING:  # the screens' view imports this module before the first frame: keep it light
    from engine.bets import Bet
    from engine.rules import Limits

PLAYER_LIMIT: Final = "player_limit:"  # settings key prefix: "player_limit:Anna" = "200"


def _setting(settings: Mapping[str, str], key: str) -> Decimal | None:
    """A journaled amount setting (checked when it was journaled); anything else is no bound."""
    value = settings.get(key)
    if value in (None, ""):
        return None
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return None  # "none": a lifted player limit
    return amount if amount.is_finite() and amount >= 0 else None


def _tighter(a: Decimal | None, b: Decimal | None, *, higher: bool) -> Decimal | None:
    """The stricter of two bounds (the higher minimum, the lower maximum); None is no bound."""
    if a is None or b is None:
        return b if a is None else a
    return max(a, b) if higher else min(a, b)


@dataclass(frozen=True)
class LimitsInForce:
    """Each bound a wager is held to now (None: no bound), and the settings waiting for the next round."""

    minimum: Decimal | None = None
    maximum_inside: Decimal | None = None
    maximum_outside: Decimal | None = None
    maximum_per_player: Decimal | None = None  # the rules' per player and round
    next_round: dict[str, str] = field(default_factory=dict)  # min_bet / max_bet changed, from the next round
    players: Mapping[str, Decimal] = field(default_factory=dict)  # each player's own limit per round

    def text(self) -> str:
        """ "Limits in force: min 5.00, inside max 500.00, outside max 500.00" (one line)."""
        parts = []
        if self.minimum is not None:
            parts.append(f"min {money(self.minimum)}")
        if self.maximum_inside is not None:
            parts.append(f"inside max {money(self.maximum_inside)}")
        if self.maximum_outside is not None:
            parts.append(f"outside max {money(self.maximum_outside)}")
        if self.maximum_per_player is not None:
            parts.append(f"per player and round {money(self.maximum_per_player)}")
        line = "Limits in force: " + (", ".join(parts) if parts else "none")
        if self.next_round:
            names = {"min_bet": "min", "max_bet": "max"}
            later = ", ".join(f"{names[k]} {money(Decimal(v))}" for k, v in sorted(self.next_round.items()))
            line += f" (from the next round: {later})"
        return line

    def player_cap(self, player: str) -> Decimal | None:
        """The most `player` may have on the felt in one round (the rules' or the player's own)."""
        return _tighter(self.maximum_per_player, self.players.get(player), higher=False)

    def check_player(self, player: str, bet: Bet, amount: Decimal, on_felt: Decimal) -> None:
        """IllegalWager if `amount` more for `player` (who has `on_felt` this round) on `bet` passes
        the player's own limit (the rules' per-player maximum is engine.round's check)."""
        own = self.players.get(player)
        if own is not None and on_felt + amount > own:
            from engine.bets import amount_words

            raise IllegalWager(
                f"{amount_words(player, bet, amount)}: {player} would have {on_felt + amount} on this "
                f"round, above {player}'s own limit {own} (set by the pit boss)"
            )


def limits_in_force(
    rules: Limits | None, settings: Mapping[str, str], latest: Mapping[str, str] | None = None
) -> LimitsInForce:
    """The bounds of the Rules Submission's `rules` narrowed by the table `settings` of the round in
    play; `latest`: the pit boss's settings as last changed (what differs waits for the next round)."""
    low, high = _setting(settings, "min_bet"), _setting(settings, "max_bet")
    later = {
        k: str(latest[k])
        for k in ("min_bet", "max_bet")
        if latest is not None and latest.get(k) not in (None, "") and latest.get(k) != settings.get(k)
    }
    players = {
        key[len(PLAYER_LIMIT) :]: value
        for key in settings
        if key.startswith(PLAYER_LIMIT) and (value := _setting(settings, key)) is not None
    }
    return LimitsInForce(
        _tighter(rules.minimum if rules else None, low, higher=True),
        _tighter(rules.maximum_inside if rules else None, high, higher=False),
        _tighter(rules.maximum_outside if rules else None, high, higher=False),
        rules.maximum_per_player if rules else None,
        later,
        players,
    )


def refusal(settings: Mapping[str, str], player: str, value: Decimal) -> str | None:
    """Why the table settings' min_bet / max_bet refuse a wager of `value` (None: they allow it)."""
    low, high = _setting(settings, "min_bet"), _setting(settings, "max_bet")
    if low is not None and value < low:
        return f"{value} is below the table minimum {settings['min_bet']}"
    if high is not None and value > high:
        return f"{value} is above the table maximum {settings['max_bet']}"
    return None


def chips_in_force(chips: tuple[Decimal, ...], limits: LimitsInForce, unit: Decimal) -> tuple[Decimal, ...]:
    """The chip values (the settings' `table.chips`) a croupier is offered under `limits`: none below
    the table minimum, none above every maximum, none off the wager unit; the minimum itself when
    every configured chip falls out (so a wager can always be made)."""
    sides = (limits.maximum_inside, limits.maximum_outside)
    top = None if None in sides else max(t for t in sides if t is not None)  # one side unlimited: none
    low = limits.minimum
    offered = tuple(
        c for c in chips if (low is None or c >= low) and (top is None or c <= top) and c % unit == 0
    )
    if offered:
        return offered
    return (low,) if low is not None else (unit,)
