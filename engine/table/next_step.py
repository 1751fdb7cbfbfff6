"""The croupier's next step: for every phase and hold, why the table waits and what to do (no Qt).

`next_step(view)` is worked out once per view by the read model (engine.table.read_model) and
travels in it (`TableView.step`): the croupier station draws its big button, the line under it
and each side button's greying from that one value.
"""

from __future__ import annotations

from decimal import Decimal

from engine.round import Phase
from engine.table.holds import NO_SPIN
from engine.table.view import NextStep, TableView, money

# Winning wagers only (the table's entry_mode): what the croupier is told to do.
WINNING_ONLY_OPEN = "Winning wagers only: leave the chips unentered; enter the winning ones after the result"
WINNING_ONLY_ENTER = "Winning wagers only: enter every chip that covers the result, then settle (Space)"

# The croupier station's side actions (NextStep.actions keys).
MANUAL, NO_SPIN_ACTION, VOID, APPROVE, PIT_BOSS = "manual", "no_spin", "void", "approve", "pit_boss"

IN_PLAY = (Phase.OPEN, Phase.CLOSED, Phase.RESULT, Phase.BONUS)


def next_step(view: TableView) -> NextStep:
    """The one place that says, for every phase and hold, why the table waits and what to do."""
    ph = view.phase
    actions = _side_actions(view)
    if view.stopped:  # tilted (engine.table.gate): no wager, no draw, no new round until it is cleared
        why = view.hold or "the table is tilted"
        todo = view.tilt_todo or "a pit boss clears the tilt"
        return NextStep("Play stopped", False, why, f"Table tilted: {todo}", actions)
    if view.hold and ph is Phase.IDLE:
        return NextStep("Starting…", False, view.hold, "Wait a moment", actions)
    rem = view.remedies
    if rem is not None and ph in IN_PLAY:
        what = f"On hold: {rem.what}"
        if ph is Phase.CLOSED and rem.allows(NO_SPIN):
            return NextStep("No-spin…", True, what, rem.todo, actions)
        return NextStep("Pit boss sign-off…", True, what, rem.todo, actions)
    if ph is Phase.IDLE:
        return NextStep("Open bets", True, "", "Open bets when the players are ready (Space)", actions)
    if ph is Phase.OPEN and view.winning_only:
        return NextStep("No more bets", True, "Bets are open", WINNING_ONLY_OPEN, actions)
    if ph is Phase.OPEN:
        return NextStep(
            "No more bets", True, "Bets are open", "Place the players' chips; Space closes betting", actions
        )
    if ph is Phase.CLOSED:
        if view.result is None:
            return NextStep(
                "Waiting for the ball…",
                False,
                "No more bets: the wheel has not reported a result yet",
                "If the sensor gives none, enter the ball's number by hand (Manual result, M)",
                actions,
            )
        return NextStep(
            f"Confirm {view.result}",
            True,
            f"The wheel reports {view.result}",
            "Check the ball is in that pocket and confirm (Space), or call a no-spin",
            actions,
        )
    if ph in (Phase.RESULT, Phase.BONUS):
        return _paying(view, actions)
    if ph is Phase.VOID:
        why = f"Round voided: {view.void_reason}" if view.void_reason else "Round voided"
        return NextStep(
            "Next round", True, why, "Return every wager to its player, then Next round (Space)", actions
        )
    return NextStep("Next round", True, "Round settled", "Clear the felt, then Next round (Space)", actions)


def _paying(view: TableView, actions: dict[str, str]) -> NextStep:
    """The step of a round with its result in: bonus games, approvals, then settling."""
    if any(ln.pending for ln in view.pay_lines):
        n = sum(1 for g in view.bonus_games if not g.finished)
        return NextStep(
            "Bonus game running…",
            False,
            f"{n or 'A'} bonus game{'s' if n > 1 else ''} running on the bonus screen",
            "Settle once every bonus game has finished",
            actions,
        )
    if view.bonus_due:  # winning wagers only: the entered Bonus Number winners play now
        return NextStep(
            "Start bonus games",
            True,
            f"Result {view.result}: the Bonus Number",
            "Once every winning chip is entered, start the bonus games (Space)",
            actions,
        )
    if view.approvals_needed:
        ids = set(view.approvals_needed)
        total = sum((ln.payout for ln in view.pay_lines if ln.wager.id in ids), Decimal(0))
        return NextStep(
            "Pit-boss approval…",
            True,
            f"Payouts of {money(total)} on {len(ids)} wager{'s' if len(ids) > 1 else ''} need a "
            "pit boss's approval",
            "A pit boss signs them off here with name and PIN (Space), then settle",
            actions,
        )
    if view.winning_only and view.phase is Phase.RESULT:
        return NextStep("Settle", True, f"Result {view.result}", WINNING_ONLY_ENTER, actions)
    return NextStep(
        "Settle", True, f"Result {view.result}", "Settle (Space), then pay the list below", actions
    )


def _side_actions(view: TableView) -> dict[str, str]:
    """Why each side action is greyed ("" when it is open)."""
    ph, rem = view.phase, view.remedies
    in_play = ph in IN_PLAY
    out = {MANUAL: "", NO_SPIN_ACTION: "", VOID: "", APPROVE: "", PIT_BOSS: ""}
    if view.stopped:
        # A void stays open to a pit boss (every wager returned); the rest waits for the tilt's end.
        greyed = dict.fromkeys(out, f"the table is tilted ({view.hold or 'play stopped'})")
        greyed[VOID] = "" if in_play else "only a round in play is voided here"
        if "rng" in view.tilt_causes:
            greyed[PIT_BOSS] = ""  # the pit boss clears the RNG tilt here (the health test runs first)
        return greyed
    if ph is not Phase.CLOSED:
        out[MANUAL] = "a result is entered by hand after no more bets, before one is recorded"
    elif rem is not None:
        out[MANUAL] = "on hold: a pit boss enters this round's result (Pit boss sign-off)"
    if rem is not None and in_play:
        if not rem.allows(NO_SPIN):
            out[NO_SPIN_ACTION] = rem.refused.get(NO_SPIN, "a no-spin does not end this hold")
    elif ph is not Phase.CLOSED:
        out[NO_SPIN_ACTION] = "a no-spin is called after no more bets, before the result is confirmed"
    if not in_play:
        out[VOID] = "only a round in play is voided here (a settled one from the pit-boss station)"
    if not view.approvals_needed:
        out[APPROVE] = "no payout needs a pit boss's approval"
    if rem is None or not in_play:
        out[PIT_BOSS] = "the round is not on hold (a void has its own button)"
    return out
