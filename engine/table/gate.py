"""The one gate for what may be played: before a round opens, a wager is taken or a draw is made.

`Gate.verdict(state, play)` answers "may the table play now?" from the table's folded state (so a
follower, a screen and a restarted service answer the same) and the checks given to the gate:

- the generator (`TILT_RNG`): an `rng.fault` (a failed start-up or continuous health test, or an
  exception from the source) tilts the table until a pit boss clears it (`table.tilt_cleared`, after
  the generator passed the start-up test again: `TableService.clear_tilt`); a restart does not;
- the program (`TILT_SOFTWARE`): a table whose running digest (engine.software_id) differs from the
  digest approved in the settings file (`software.approved_digest`, engine.config) is tilted at start
  (`table.tilted`, with both digests; the surveillance alert is critical); `software_tilt` decides it;
- the derived tables (`TILT_DERIVED`): a start's check found the table's rounds, daily totals or
  counts disagreeing with its verified journal (history and reports would show forged money): folded
  before the table deals for a short journal (the start is refused, engine.store.evidence), on a read
  snapshot while it deals for a long one (engine.table.derived_watch: `table.tilted`); it outlasts a
  restart until a start's check finds them agreeing again (after `drr db rebuild`);
- the Rules Submission (`RULES_REFUSED`): `rules_play_check` asks engine.rules_play — `drr rules
  check`'s own verdict — before bets open under the journal's latest Submission (a journal that
  loaded a refused one before the check existed keeps it; it is not played). Every load for play is
  refused earlier by the same function (`rules_for_play`: the start, a pit boss's load, `drr table
  run`, `drr settle`, `drr certify`); a seeded generator is refused at start on a production store
  (`seeded_play_problem`, which reads the store, not the fold).

What the gate refuses (`Play`): opening bets, taking a wager, the draw, a bonus game's draws and
going to the next round (so a void cannot be followed by a new round). What it leaves open: a pit
boss's void (every wager returned), resolving a hold, results and settling a round already drawn
(no randomness is used), so a tilted table can be brought to rest. A refusal is `TableTilted`, an
IllegalTransition whose one line names every cause in words; the screens show the same words
(engine.table.next_step, from `TableView.tilt`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from engine.errors import IllegalTransition
from engine.rules_play import problems_for_play
from engine.table_events import TILT_DERIVED, TILT_RNG, TILT_SOFTWARE, Tilted

if TYPE_CHECKING:
    from engine.table.state import TableState


class Play(enum.StrEnum):
    """What the gate is asked about (the words finish "cannot ... now")."""

    OPEN_BETS = "open bets"
    WAGER = "take a wager"
    DRAW = "draw the Lucky Numbers"
    BONUS = "play a bonus game"
    NEW_ROUND = "go to the next round"


# The words for each cause, as the croupier, surveillance and pit-boss screens show them.
RULES_REFUSED: Final = "rules"
CAUSE_WORDS: Final = {
    TILT_RNG: "RNG fault",
    TILT_SOFTWARE: "software not approved",
    TILT_DERIVED: "derived tables disagree with the journal",
    RULES_REFUSED: "Rules Submission refused",
}
# What ends each cause, in words (the croupier's line under the big button).
CLEARS: Final = {
    TILT_RNG: "a pit boss clears the tilt once the generator passes its health test again",
    TILT_SOFTWARE: "install the approved program, or a pit boss or admin approves this digest "
    "(drr pitboss approve-software), then restart the table",
    RULES_REFUSED: "a pit boss loads a Rules Submission that drr rules check accepts",
    TILT_DERIVED: "keep a copy of the store as evidence, then drr db rebuild recomputes the derived "
    "tables from the journal; restart the table: it deals again once its check finds them agreeing",
}


@dataclass(frozen=True)
class Refusal:
    """One reason the table may not play: its cause (TILT_* or a hook's own) and the words."""

    cause: str
    reason: str

    def text(self) -> str:
        label = CAUSE_WORDS.get(self.cause, self.cause.replace("_", " "))
        return f"{label}: {self.reason}"


@dataclass(frozen=True)
class Verdict:
    """The gate's answer: may play when there is no refusal."""

    refusals: tuple[Refusal, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.refusals

    def text(self) -> str:
        """One line: every cause in words ("" when play may go on)."""
        return "; ".join(r.text() for r in self.refusals)

    def todo(self) -> str:
        """What ends the tilt, in words."""
        return "; ".join(dict.fromkeys(CLEARS.get(r.cause, "a pit boss clears it") for r in self.refusals))


class TableTilted(IllegalTransition):
    """The gate refused: the table is tilted (the message names every cause)."""

    def __init__(self, play: Play, verdict: Verdict) -> None:
        self.play, self.verdict = play, verdict
        super().__init__(f"cannot {play.value} now: the table is tilted ({verdict.text()}); {verdict.todo()}")


Check = Callable[["TableState", Play], Refusal | None]


def rules_play_check(state: TableState, play: Play) -> Refusal | None:
    """Bets open only under a Rules Submission `drr rules check` accepts (engine.rules_play). A round
    already in play under it is left to finish (its wagers are taken, drawn and paid as placed)."""
    if play is not Play.OPEN_BETS:
        return None
    rules = state.rules
    problems = problems_for_play(rules) if rules is not None else []
    if not problems:
        return None
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return Refusal(RULES_REFUSED, f"{problems[0]}{more}")


def tilt_refusals(state: TableState) -> list[Refusal]:
    """The folded tilts (rng.fault, table.tilted), in the order they came."""
    return [Refusal(t.cause, t.reason) for t in state.tilts.values()]


@dataclass(frozen=True)
class Gate:
    """The table's gate: the folded tilts and the extra checks (the rules-play hook by default)."""

    checks: Sequence[Check] = field(default=(rules_play_check,))

    def verdict(self, state: TableState, play: Play) -> Verdict:
        refusals = tilt_refusals(state)
        for check in self.checks:
            refused = check(state, play)
            if refused is not None:
                refusals.append(refused)
        return Verdict(tuple(refusals))

    def check(self, state: TableState, play: Play) -> None:
        """Raise TableTilted unless the table may `play` now."""
        verdict = self.verdict(state, play)
        if not verdict.ok:
            raise TableTilted(play, verdict)


def software_tilt(running: str, approved: str | None) -> Tilted | None:
    """The start's software decision: a tilt when an approved digest is set and this one differs."""
    if approved is None or running == approved:
        return None
    return Tilted(
        TILT_SOFTWARE,
        f"this table runs software {running[:16]}…, the approved digest is {approved[:16]}…",
        running=running,
        approved=approved,
    )
