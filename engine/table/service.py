"""The table service: croupier commands and wheel events in, journaled facts out (headless, asyncio).

Every command follows the same order, so nothing is shown or acted on that is not durable:
check the user's permission (engine.auth), fold in what other writers appended to the chain, work
out the events with the pure engine (engine.round, engine.bonus_game; an illegal step raises and
writes nothing), append them to the hash-chained journal in one transaction (durable when it
returns), fold the entries into the state (engine.table.state) and only then hand each entry to
the subscribers.

    service = TableService(store, "T1", rng=SystemRng())
    await service.start()                      # recovery: folds the journal, fresh bonus timers
    service.subscribe(callback)                # callback(entry) after each durable append
    await service.open_bets(croupier)
    await service.place_wager(croupier, "anna", inside_bet([17]), Decimal("5"))
    await service.wheel_event({"type": "no_more_bets", "game": 12})   # or no_more_bets(croupier)
    await service.wheel_event({"type": "result", "game": 12, "number": 17})
    await service.confirm_result(croupier)
    await service.settle(croupier)             # after bonus games / a pit boss's approval if needed
    await service.next_round(croupier)
    await service.close()

Commands (all async; `user` is an engine.auth.User; each returns the journal entries it appended
and raises DrrError — IllegalWager, IllegalTransition, PermissionDenied — with a one-line reason):
open_bets, place_wager(player, bet, amount, wager_id=None), place_wagers(player, [(bet, amount), ...]),
rebet(player) (the player's wagers of their last round again), remove_wager(wager_id), no_more_bets,
sign_in_dealer / sign_out_dealer (who deals: engine.table.dealer),
wheel_event(event), confirm_result, manual_result(number, reason) (twice with the same number),
hold_confirmation (plain call: a dialog about the result opens) / resume_confirmation,
correct_result(number, reason) (pit boss), no_spin(reason), void(reason) (pit boss),
resolve_irregularity(reason) (pit boss), accept_sensor_result(reason) (pit boss: the sensor's number
of a hold, engine.table.holds), approve_payout (pit boss), settle, next_round,
load_rules(text) (pit boss; from the next round), set_bonus_preset(player, preset),
bonus_start(player), bonus_pick(player, box), bonus_cash_out(player), tick_bonus_games().
Reading: phase (engine.round.Phase; IDLE between rounds), view (engine.table.view.TableView), round
(engine.round.RoundState), rules, state (engine.table.state.TableState: pending result, hold, bonus
games, approvals), settlement(), approval_needed(), recovery (what start() rebuilt).

Subscribers: `subscribe_batches(callback)` hands over each durable batch at once, as
`callback(entries, changes, view)`: the batch's change notice (engine.table.changes) and the table's
view after it (engine.table.view, built once per batch by engine.table.read_model; `view` reads the
current one); `subscribe(callback) -> unsubscribe`;
`callback(entry: engine.store.journal.Entry)`, plain or async, is called once per entry, in chain
order, after the entry is committed and folded
(the service's state already shows it). It runs under the service's command lock: schedule further
commands as tasks, never await them inline. Entry types: `table.*` (started, rules_loaded,
manual_entry, manual_entry_rejected, irregularity_resolved, next_round), `round.*` (engine.round's
events plus round.irregularity and round.payout_approved), `bonus.*` (engine.bonus_game's events
with "player", bonus.preset_set, bonus.timer_restarted), `wheel.*` (the wheel's messages, see
engine.wheel_events; rotor speeds throttled to ROTOR_JOURNAL_S), and whatever other writers append to the
table's chain (user.login, the pit-boss station's round.payout_approved, table.rules_loaded, ...).
Every entry is written as a typed payload through engine.journal_types.write (`_run` takes
(payload, round_id) steps) and read back through engine.journal_types.read by the fold.

Irregularities: a wheel result before no-more-bets, a result for another game number than the
spin's, a result carrying warnings, a miss-spin or failed launch, and (after bets closed) a ball not
detected, the wheel stopping, a gap in or a restart of its game counter are journaled
(`round.irregularity`, or `round.result_before_close`) and put the round on hold: no wheel result
is accepted, nothing is confirmed or settled, until the croupier calls a no-spin, the pit boss
resolves it (acknowledge, accept the sensor's number, or a manual result) or voids the round;
engine.table.holds says which of these each hold allows.

Payouts at or above `approval_threshold` need a pit boss's approval before the round settles. The
journal is written on the event loop's thread (one short fsynced transaction per command).

The class is put together from modules by concern (behaviour and names as before): the core
(engine.table.service_core: state, lifecycle, subscribers, the write path, guards, shared steps, timers
and the round's clock), round_commands, hold_commands (holds and remedies), bonus_commands and
wheel_commands. Every name callers import from here stays importable from here.
"""

from __future__ import annotations

from engine.table.bonus_commands import BonusCommands
from engine.table.hold_commands import HoldCommands
from engine.table.round_commands import RoundCommands
from engine.table.service_core import (
    DEFAULT_APPROVAL_THRESHOLD,
    MISMATCH_HOLD,
    OTHER_WRITERS_EVERY_S,
    PAUSE_ENV,
    ROTOR_JOURNAL_S,
    SYSTEM_USER,
    TEST_HOOKS_ENV,
    TIMER_USER,
    WHEEL_USER,
    Approval,
    BatchSubscriber,
    Step,
    Subscriber,
    _pause_plan,
)
from engine.table.wheel_commands import WheelCommands

__all__ = [
    "DEFAULT_APPROVAL_THRESHOLD",
    "MISMATCH_HOLD",
    "OTHER_WRITERS_EVERY_S",
    "PAUSE_ENV",
    "ROTOR_JOURNAL_S",
    "SYSTEM_USER",
    "TEST_HOOKS_ENV",
    "TIMER_USER",
    "WHEEL_USER",
    "Approval",
    "BatchSubscriber",
    "Step",
    "Subscriber",
    "TableService",
    "_pause_plan",
]


class TableService(RoundCommands, HoldCommands, BonusCommands, WheelCommands):
    """One table's live game (see the module docstring)."""
