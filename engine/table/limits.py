"""The table limits in force: the Rules Submission's limits and the pit boss's table settings
(`min_bet`, `max_bet`) together, as the table service enforces them and the croupier sees them.

The Rules Submission bounds every wager (minimum, inside / outside maximum, per player and round,
checked by engine.round); the pit boss's settings narrow them from the next round (checked by the
table service at each wager, `refusal`). A screen shows `LimitsInForce.text()`, never one half of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal

from engine.rules import Limits


def _money(amount: Decimal) -> str:
    return f"{amount.quantize(Decimal('0.01'), rounding=ROUND_DOWN):,}"


def _setting(settings: Mapping[str, str], key: str) -> Decimal | None:
    value = settings.get(key)
    return None if value in (None, "") else Decimal(str(value))


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
    maximum_per_player: Decimal | None = None
    next_round: dict[str, str] = field(default_factory=dict)  # min_bet / max_bet changed, from the next round

    def text(self) -> str:
        """ "Limits in force: min 5.00, inside max 500.00, outside max 500.00" (one line; a wager's
        bounds, and a player's total in a round)."""
        parts = []
        if self.minimum is not None:
            parts.append(f"min {_money(self.minimum)}")
        if self.maximum_inside is not None:
            parts.append(f"inside max {_money(self.maximum_inside)}")
        if self.maximum_outside is not None:
            parts.append(f"outside max {_money(self.maximum_outside)}")
        if self.maximum_per_player is not None:
            parts.append(f"per player and round {_money(self.maximum_per_player)}")
        line = "Limits in force: " + (", ".join(parts) if parts else "none")
        if self.next_round:
            names = {"min_bet": "min", "max_bet": "max"}
            later = ", ".join(f"{names[k]} {_money(Decimal(v))}" for k, v in sorted(self.next_round.items()))
            line += f" (from the next round: {later})"
        return line


def limits_in_force(
    rules: Limits, settings: Mapping[str, str], latest: Mapping[str, str] | None = None
) -> LimitsInForce:
    """The bounds of the Rules Submission's `rules` narrowed by the table `settings` of the round in
    play; `latest`: the pit boss's settings as last changed (what differs waits for the next round)."""
    low, high = _setting(settings, "min_bet"), _setting(settings, "max_bet")
    later = {
        k: str(latest[k])
        for k in ("min_bet", "max_bet")
        if latest is not None and latest.get(k) not in (None, "") and latest.get(k) != settings.get(k)
    }
    return LimitsInForce(
        _tighter(rules.minimum, low, higher=True),
        _tighter(rules.maximum_inside, high, higher=False),
        _tighter(rules.maximum_outside, high, higher=False),
        rules.maximum_per_player,
        later,
    )


def refusal(settings: Mapping[str, str], player: str, value: Decimal) -> str | None:
    """Why the table settings refuse a wager of `value` (None: they allow it)."""
    low, high = _setting(settings, "min_bet"), _setting(settings, "max_bet")
    if low is not None and value < low:
        return f"wager of {player}: {value} is below the table minimum {settings['min_bet']}"
    if high is not None and value > high:
        return f"wager of {player}: {value} is above the table maximum {settings['max_bet']}"
    return None
