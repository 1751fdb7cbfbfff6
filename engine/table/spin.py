"""The spin's step as the screens show it (the phase strip): a plain value, importing nothing, so a
screen's view loads it before any of the table's modules (engine.table.wheel_drive makes it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class WheelPhase:
    """Where the spin stands, for the phase strip on the croupier station and the player display:
    `step` is one of STEPS (or "idle", "hold"); `deadline` (the service's clock) is what a countdown
    shows as `deadline - clock()`: the betting time's end, or the auto-confirmation's."""

    step: str
    deadline: float | None = None
    number: int | None = None  # the wheel's (or recorded) number in the result step
    confirmed: bool = False  # the number is the round's recorded result


IDLE_SPIN: Final = WheelPhase("idle")
# The spin's steps in the order the wheel goes through them (SS2 states 2, 3, 4, 5).
BETS, SPINNING, NO_MORE_BETS, RESULT = "bets", "spinning", "no_more_bets", "result"
STEPS: Final = (BETS, SPINNING, NO_MORE_BETS, RESULT)
