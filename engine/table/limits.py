"""The wager limits in force at a table: the Rules Submission's, the pit boss's table settings and each
player's own limit, worked out in one place for the service's check and the croupier's screen.

The Rules Submission's limits (engine.rules.Limits: minimum, inside/outside maximum, maximum per
player and round) are checked by engine.round.check_wager on every wager. On top of them the pit
boss's table settings (`table.settings_changed`, engine.floor.actions.SETTINGS) may only tighten:

- `min_bet` / `max_bet`: the smallest and largest single wager;
- `player_limit:<player>`: the most that player may have on the felt in one round (a player's own
  limit: a player who asked for one, or whom the pit boss limits), never above the Rules
  Submission's maximum per player.

The service applies the settings as they stood when the round opened; `LimitsInForce.check` refuses a
wager over any of them with one line naming the player, the amount and the limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Final

from engine.errors import IllegalWager

if TYPE_CHECKING:  # the screens' view imports this module before the first frame: keep it light
    from engine.rules import RulesSubmission

PLAYER_LIMIT: Final = "player_limit:"  # settings key prefix: "player_limit:Anna" = "200"


def player_limit_key(player: str) -> str:
    """The table-settings key of `player`'s own limit."""
    return f"{PLAYER_LIMIT}{player}"


@dataclass(frozen=True)
class LimitsInForce:
    """Every limit a wager meets at this table (None: no such limit)."""

    minimum: Decimal | None = None  # the larger of the rules' minimum and the pit boss's min_bet
    maximum: Decimal | None = None  # the pit boss's max_bet (one wager)
    maximum_inside: Decimal | None = None  # the rules' (one inside wager)
    maximum_outside: Decimal | None = None  # the rules' (one outside wager)
    per_player: Decimal | None = None  # the rules' maximum per player and round
    players: Mapping[str, Decimal] = field(default_factory=dict)  # each player's own limit per round
    settings_minimum: Decimal | None = None  # the pit boss's min_bet alone (its message says so)

    def player_cap(self, player: str) -> Decimal | None:
        """The most `player` may have on the felt in one round."""
        caps = [c for c in (self.per_player, self.players.get(player)) if c is not None]
        return min(caps) if caps else None

    def check(self, player: str, amount: Decimal, on_felt: Decimal) -> None:
        """IllegalWager unless `amount` more for `player` (who has `on_felt` in this round) is within
        the pit boss's settings and the player's own limit (the rules' are engine.round's check)."""
        low = self.settings_minimum
        if low is not None and amount < low:
            raise IllegalWager(f"wager of {player}: {amount} is below the table minimum {low}")
        if self.maximum is not None and amount > self.maximum:
            raise IllegalWager(f"wager of {player}: {amount} is above the table maximum {self.maximum}")
        own = self.players.get(player)
        if own is not None and on_felt + amount > own:
            raise IllegalWager(
                f"wager of {player}: {player} would have {on_felt + amount} on this round, above "
                f"{player}'s own limit {own} (set by the pit boss)"
            )


def limits_in_force(rules: RulesSubmission | None, settings: Mapping[str, str]) -> LimitsInForce:
    """The limits of `rules` tightened by the pit boss's `settings` (values already checked when
    journaled; a value that is not an amount is ignored rather than stopping the table)."""
    lim = rules.limits if rules is not None else None
    low = _amount(settings.get("min_bet"))
    players = {
        key[len(PLAYER_LIMIT) :]: value
        for key, raw in settings.items()
        if key.startswith(PLAYER_LIMIT) and (value := _amount(raw)) is not None
    }
    minimums = [m for m in (lim.minimum if lim else None, low) if m is not None]
    return LimitsInForce(
        minimum=max(minimums) if minimums else None,
        maximum=_amount(settings.get("max_bet")),
        maximum_inside=lim.maximum_inside if lim else None,
        maximum_outside=lim.maximum_outside if lim else None,
        per_player=lim.maximum_per_player if lim else None,
        players=players,
        settings_minimum=low,
    )


def _amount(raw: str | None) -> Decimal | None:
    if raw is None or raw == "":
        return None
    try:
        value = Decimal(raw)
    except ArithmeticError:
        return None
    return value if value.is_finite() and value > 0 else None


def chips_in_force(chips: tuple[Decimal, ...], limits: LimitsInForce, unit: Decimal) -> tuple[Decimal, ...]:
    """The chip values (the settings' `table.chips`) a croupier is offered under `limits`: none below
    the table minimum, none above every maximum, none off the wager unit; the minimum itself when
    every configured chip falls out (so a wager can always be made)."""
    sides = (limits.maximum_inside, limits.maximum_outside)
    top = None if None in sides else max(t for t in sides if t is not None)  # one side unlimited: none
    if limits.maximum is not None:
        top = limits.maximum if top is None else min(top, limits.maximum)
    low = limits.minimum
    offered = tuple(
        c
        for c in chips
        if (low is None or c >= low) and (top is None or c <= top) and c % unit == 0
    )
    if offered:
        return offered
    return (low,) if low is not None else (unit,)
