"""The names of every journal entry type: each is spelled here and only here.

The payload classes (round, bonus, wheel, table events) name their type with these members, and
engine/journal_types.py, the registry, maps each name to its payload and reads and writes it.
This module imports nothing of the engine, so every payload module can import it.

Old journals keep their old spellings (`LEGACY`): a reader maps them to today's type, the chain
and its hashes are never rewritten.
"""

from __future__ import annotations

import enum
from typing import Final


class EntryType(enum.StrEnum):
    """Every type of journal entry, grouped by the part of the system that records it."""

    # the round (engine.round's events)
    ROUND_OPENED = "round.opened"
    ROUND_WAGER_PLACED = "round.wager_placed"
    ROUND_WAGER_REMOVED = "round.wager_removed"
    ROUND_BETS_CLOSED = "round.bets_closed"
    ROUND_RESULT = "round.result"
    ROUND_RESULT_CORRECTED = "round.result_corrected"
    ROUND_NO_SPIN = "round.no_spin"
    ROUND_RESULT_BEFORE_CLOSE = "round.result_before_close"
    ROUND_BONUS_STARTED = "round.bonus_started"
    ROUND_BONUS_OUTCOME = "round.bonus_outcome"
    ROUND_SETTLED = "round.settled"
    ROUND_VOIDED = "round.voided"
    ROUND_IRREGULARITY = "round.irregularity"
    ROUND_PAYOUT_APPROVED = "round.payout_approved"
    # a bonus game (engine.bonus_game's events, with the player)
    BONUS_STARTED = "bonus.started"
    BONUS_BOXES_PLACED = "bonus.boxes_placed"
    BONUS_BOXES_REVEALED = "bonus.boxes_revealed"
    BONUS_BOX_PICKED = "bonus.box_picked"
    BONUS_CASHED_OUT = "bonus.cashed_out"
    BONUS_TIMER_EXPIRED = "bonus.timer_expired"
    BONUS_ENDED = "bonus.ended"
    BONUS_PRESET_SET = "bonus.preset_set"
    BONUS_TIMER_RESTARTED = "bonus.timer_restarted"
    # the table
    TABLE_STARTED = "table.started"
    TABLE_RULES_LOADED = "table.rules_loaded"
    TABLE_SETTINGS_CHANGED = "table.settings_changed"
    TABLE_MANUAL_ENTRY = "table.manual_entry"
    TABLE_MANUAL_ENTRY_REJECTED = "table.manual_entry_rejected"
    TABLE_IRREGULARITY_RESOLVED = "table.irregularity_resolved"
    TABLE_NEXT_ROUND = "table.next_round"
    TABLE_KEY_ROTATED = "table.key_rotated"
    TABLE_QUARANTINED = "table.quarantined"
    # the table's own clock driving the wheel and the result (engine.table.wheel_drive)
    TABLE_BETTING_TIME = "table.betting_time"
    TABLE_WHEEL_START = "table.wheel_start"
    TABLE_AUTO_CONFIRM_DUE = "table.auto_confirm_due"
    TABLE_DEALER_CHANGED = "table.dealer_changed"  # a croupier signed in or out at the croupier station
    # a pit boss's action at the floor database (`floor.action`) taken into the table's own chain, or refused
    TABLE_FLOOR_ACTION_TAKEN = "table.floor_action_taken"
    # the random number generator (engine.rng's continuous health tests)
    RNG_FAULT = "rng.fault"
    RNG_STARTUP_TEST = "rng.startup_test"  # § 4.3's start-up test, before the first draw of a start
    # the gate (engine.table.gate): the table tilted (no play) for a cause, a pit boss clearing it,
    # and the software digest a pit boss or admin approved for this table
    TABLE_TILTED = "table.tilted"
    TABLE_TILT_CLEARED = "table.tilt_cleared"
    TABLE_SOFTWARE_APPROVED = "table.software_approved"
    TABLE_NEW_SOFTWARE = "table.new_software"  # no digest approved: the first start of a new one
    # surveillance's sequential bias tests (engine.sequential) tripped on this table's spins, and a pit
    # boss's wheel change or maintenance (which starts the table's tests afresh)
    TABLE_BIAS_ALARM = "table.bias_alarm"
    TABLE_WHEEL_SERVICED = "table.wheel_serviced"
    # the wheel's messages
    WHEEL_STARTED = "wheel.started"
    WHEEL_LAUNCHED = "wheel.launched"
    WHEEL_NO_MORE_BETS = "wheel.no_more_bets"
    WHEEL_RESULT = "wheel.result"
    WHEEL_CLOSED = "wheel.closed"
    WHEEL_BALL_NOT_DETECTED = "wheel.ball_not_detected"
    WHEEL_WARNING = "wheel.warning"
    WHEEL_MISS_SPIN = "wheel.miss_spin"
    WHEEL_LAUNCH_FAILED = "wheel.launch_failed"
    WHEEL_GAP = "wheel.gap"
    WHEEL_RESTART = "wheel.restart"
    WHEEL_ROTOR = "wheel.rotor"
    WHEEL_LINK = "wheel.link"
    WHEEL_IDENTITY = "wheel.identity"  # at connect: maker, firmware, FPGA/COPRO, clock offset
    WHEEL_CLOCK = "wheel.clock"  # the wheel's clock read again (periodically, at a reconciliation)
    # the table's reconciliation of the wheel's own log against its journal (not a link message)
    WHEEL_RECONCILED = "wheel.reconciled"
    # users (the store's "floor" chain; the users table is their projection, engine.store.users_journal)
    USER_ADDED = "user.added"
    USER_ROLE_CHANGED = "user.role_changed"
    USER_PIN_CHANGED = "user.pin_changed"
    USER_DISABLED = "user.disabled"
    USER_ENABLED = "user.enabled"
    USER_LOGIN = "user.login"
    USER_LOGIN_FAILED = "user.login_failed"
    USER_LOCKED_OUT = "user.locked_out"
    USER_UNLOCKED = "user.unlocked"
    CHAIN_KEYED = "chain.keyed"  # the key that signs a chain no table starts (the store's floor chain)
    # a host's key admitted to sign the floor chain of a PostgreSQL floor database (engine.store.floor_sign)
    CHAIN_WRITER_ENROLLED = "chain.writer_enrolled"
    # surveillance and the floor's actions
    ALERT_RAISED = "alert.raised"
    ALERT_ACKNOWLEDGED = "alert.acknowledged"
    ALERT_UPDATED = "alert.updated"  # one more event of an alert's fact (a held round's next irregularity)
    ACTION_REFUSED = "action.refused"  # a pit-boss action refused for the user's role
    FLOOR_ACTION = "floor.action"  # a pit-boss action at the floor database on a forwarded table chain
    CHAIN_FORWARDED = "chain.forwarded"  # this store's chain of a table is a forwarded copy
    # rounds imported from another system's history (CSV)
    HISTORY_IMPORTED = "history.imported"


# Spellings older journals hold for a fact that now has one type (read, never written).
# The types the floor's users table is folded from (engine.store.users_journal); the table's state
# depends on none of them (engine.table.state).
USER_TYPES: Final = frozenset(t for t in EntryType if t.value.startswith("user."))

LEGACY: Final[dict[str, EntryType]] = {
    "payout.approved": EntryType.ROUND_PAYOUT_APPROVED,
    "rules.changed": EntryType.TABLE_RULES_LOADED,
    "wheel.rotor_speed": EntryType.WHEEL_ROTOR,
    "round.closed": EntryType.ROUND_BETS_CLOSED,  # {"lucky": [[number, odds], ...], "bonus_number"}
    # the wheel layer's first names (hardware/events.py of b007213), payloads as today's
    "wheel.wheel_restart": EntryType.WHEEL_RESTART,
    "wheel.link_state": EntryType.WHEEL_LINK,
}


# Every stored spelling to its type, for `entry_type`: a dict look-up, where EntryType(name) costs a few
# microseconds (a bulk forward or rebuild asks several times per entry, millions of times).
_BY_NAME: Final[dict[str, EntryType]] = {**{t.value: t for t in EntryType}, **LEGACY}


def entry_type(name: str) -> EntryType | None:
    """Today's type for a stored entry's type name (legacy spellings mapped), None if unknown."""
    return _BY_NAME.get(name)
