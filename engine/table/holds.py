"""What ends a hold: for the irregularity on hold and the round's phase, the remedies each role may
take, and the plain words that say what happened and what to do.

The table service refuses a remedy this table does not list (`TableService.accept_sensor_result`,
`resolve_irregularity`), the screens offer exactly the ones it lists, and `drr pitboss resolve`
checks the same table: one rule, read by every station.

Remedies (the role that may take each is the engine.auth permission in `PERMISSION`):
- "no_spin": the croupier calls a no-spin; same wagers, same draw, the ball is spun again.
- "acknowledge": a pit boss acknowledges the irregularity; the round goes on in its phase (a fresh
  wheel result, or a manual result, is then needed). Not for a doubtful number (number line and
  status line disagree): which pocket the ball is in must be decided, not acknowledged.
- "accept_sensor": a pit boss, having looked at the wheel, records the number the sensor reported
  for this round's spin (a result with warnings, a result while another irregularity was open).
  Never a number the wheel gave for another game: that is a later (or earlier) spin's number.
- "manual_result": a pit boss enters the ball's number for this round's spin, twice.
- "void": a pit boss cancels the round; every wager is returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from engine.round import Phase
from engine.wheel_events import RESULT_MISMATCH

if TYPE_CHECKING:  # the croupier's next step (engine.table.next_step) loads this before the first frame
    from engine.table.state import Hold

NO_SPIN: Final = "no_spin"
ACKNOWLEDGE: Final = "acknowledge"
ACCEPT_SENSOR: Final = "accept_sensor"
MANUAL_RESULT: Final = "manual_result"
VOID: Final = "void"

PERMISSION: Final = {
    NO_SPIN: "no_spin",
    ACKNOWLEDGE: "resolve_irregularity",
    ACCEPT_SENSOR: "resolve_irregularity",
    MANUAL_RESULT: "resolve_irregularity",
    VOID: "void_round",
}

# Holds whose number is the sensor's reading of this round's spin, which a pit boss may accept.
# A croupier's dispute (engine.table.wheel_drive.DISPUTED) names the sensor's number too: a pit boss who
# looked at the wheel may still accept it.
SENSOR_NUMBER_KINDS: Final = frozenset({"result_with_warnings", "doubtful_result", "disputed_result"})

# What happened, per hold kind, in the croupier's words (the journaled reason follows it).
WHAT: Final = {
    "result_before_close": "the wheel reported a result before no more bets",
    "unexpected_game": "the wheel reported a result for another game than this round's spin",
    RESULT_MISMATCH: "the wheel's number line and status line disagree: the number is doubtful",
    "result_with_warnings": "the wheel reported the result with warnings",
    "second_result": "the wheel reported a second result for the spin",
    "result_not_launched": "the wheel reported a result for a game it was never seen to launch",
    "doubtful_result": "the wheel reported a result while an irregularity was open",
    "miss_spin": "the wheel reported a miss-spin",
    "launch_failed": "the ball launch failed",
    "ball_not_detected": "the sensor did not detect the ball",
    "closed": "the wheel stopped during the spin",
    "gap": "the wheel's game counter skipped",
    "restart": "the wheel's game counter restarted",
    "disputed_result": "the croupier disputes the wheel's number",
}


@dataclass(frozen=True)
class HoldRemedies:
    """One hold as a person reads it: what happened, what to do, and the remedies open now."""

    kind: str
    what: str  # one line: what happened, with the journaled detail
    todo: str  # one line: who does what to end it
    remedies: tuple[str, ...]  # in the order offered (NO_SPIN ... VOID)
    sensor_number: int | None  # the number ACCEPT_SENSOR records (None: not offered)
    game: int | None  # this round's wheel game, the one a manual result is for
    refused: dict[str, str]  # remedy -> why it is not open now (for a greyed choice)

    def allows(self, remedy: str) -> bool:
        return remedy in self.remedies


def hold_remedies(hold: Hold, phase: Phase, game: int | None) -> HoldRemedies:
    """The remedies for `hold` while the round is in `phase`; `game` is this round's wheel game."""
    refused: dict[str, str] = {}
    spun = phase in (Phase.CLOSED, Phase.RESULT)
    if not spun:
        refused[NO_SPIN] = "a no-spin is called after no more bets"
    if hold.kind == RESULT_MISMATCH:
        refused[ACKNOWLEDGE] = "a doubtful number cannot just be acknowledged: decide the result"
    if phase is not Phase.CLOSED:
        refused[MANUAL_RESULT] = "a result is entered after no more bets, before one is recorded"
    sensor = hold.number if hold.kind in SENSOR_NUMBER_KINDS else None
    other_game = hold.game is not None and game is not None and hold.game != game
    if phase is not Phase.CLOSED:
        refused[ACCEPT_SENSOR] = "a sensor's number is accepted after no more bets"
    elif hold.number is not None and other_game:
        refused[ACCEPT_SENSOR] = (
            f"the sensor's {hold.number} is for game {hold.game}, this round's spin is game {game}"
        )
        sensor = None
    elif hold.number is None or hold.kind not in SENSOR_NUMBER_KINDS:
        refused[ACCEPT_SENSOR] = "the sensor gave no number for this spin that could be accepted"
    if phase not in (Phase.OPEN, Phase.CLOSED, Phase.RESULT, Phase.BONUS):
        refused[VOID] = "only a round in play can be voided"
    order = (NO_SPIN, ACKNOWLEDGE, ACCEPT_SENSOR, MANUAL_RESULT, VOID)
    remedies = tuple(r for r in order if r not in refused)
    if sensor is not None and ACCEPT_SENSOR not in remedies:
        sensor = None
    what = WHAT.get(hold.kind, hold.kind.replace("_", " "))
    detail = f"{what} ({hold.reason})" if hold.reason else what
    return HoldRemedies(hold.kind, detail, _todo(remedies, sensor), remedies, sensor, game, refused)


def _todo(remedies: tuple[str, ...], sensor: int | None) -> str:
    boss = [
        {
            ACKNOWLEDGE: "acknowledge it",
            ACCEPT_SENSOR: f"accept the sensor's {sensor}",
            MANUAL_RESULT: "enter the result",
            VOID: "void the round",
        }[r]
        for r in remedies
        if r != NO_SPIN
    ]
    parts = []
    if NO_SPIN in remedies:
        parts.append("call a no-spin (the ball is spun again)")
    if boss:
        listed = ", ".join(boss[:-1]) + (" or " if len(boss) > 1 else "") + boss[-1]
        parts.append(f"a pit boss signs off here (Pit boss…) to {listed}")
    text = "; or ".join(parts) or "nothing at this station ends it: call the pit boss"
    return text[0].upper() + text[1:]
