"""The way back from the floor: pit-boss actions journaled at the floor database, taken into the table.

On the floor database a table's chain is the copy its forwarder makes (engine.store.forward), so a
pit boss's void, correction, approval, settings, Rules Submission or wheel service there is journaled
on the floor's own chain as `floor.action` (engine.store.forwarded) and never reaches the table by
itself (a reconciliation of the wheel's log made there stays there: `KEPT_AT_FLOOR`). The forwarder,
which runs on the table's PC beside the station with the table's own store and key, takes them back
after each forward (`FloorInbox.take`), in floor order, each once:

- the action is **decided again on the table's own journal** by the same function that decided it at
  the floor (engine.floor.actions, engine.store.history.void_round), so it is checked against what the
  table knows now, not the floor's copy, which may be behind;
- it is refused when the table moved on meanwhile: the round's status or result is no longer what the
  floor's copy showed (a void of a round that has since been settled would return wagers already
  paid), an approval's amount differs from the table's, the user is not a user of the floor database
  with a role that may do it, or the function itself refuses (the round already void, …);
- either way a `table.floor_action_taken` entry {floor_seq, floor_hash, action, outcome, why?} goes on
  the table's chain, in the same batch as the action's own entry when it is taken
  (engine.store.forwarded.taken_from_floor), so nothing is taken twice or lost across a crash, and the
  floor sees the outcome in the next forward of the table's journal.

The table service folds the entries within a second (its watch for other writers) and the croupier's
screen shows them. Before anything is decided the floor entry is checked as written: its hash
recomputes and, on a PostgreSQL floor database, an enrolled writer signed it (engine.store.floor_sign);
its user must be a floor user whose role may do the action. Nothing is taken before the floor's root
key is provisioned on this PC (`drr db root-key --pin`): until then `take` says so and waits.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from engine.auth import PermissionDenied, User, require
from engine.entry_types import EntryType, entry_type
from engine.errors import DrrError
from engine.floor_events import FloorAction
from engine.journal_types import parse, read, typed, write
from engine.round import ResultCorrected, RoundVoided
from engine.store.db import Store
from engine.store.forwarded import taken_from_floor
from engine.store.latest import entries_of
from engine.store.records import Entry
from engine.table_events import FloorActionTaken, PayoutApproved, RulesLoaded, SettingsChanged, WheelServiced

log = logging.getLogger("drr.floor.inbox")

# The permission each action needs (engine.auth), as the floor checked it when the pit boss acted.
PERMISSION: dict[str, str] = {
    EntryType.ROUND_VOIDED.value: "void_round",
    EntryType.ROUND_RESULT_CORRECTED.value: "correct_result",
    EntryType.ROUND_PAYOUT_APPROVED.value: "approve_payout",
    EntryType.TABLE_SETTINGS_CHANGED.value: "change_settings",
    EntryType.TABLE_RULES_LOADED.value: "load_rules",
    EntryType.TABLE_WHEEL_SERVICED.value: "change_settings",  # engine.floor.actions.wheel_serviced
}
# Journaled at the floor for the floor's own readers, not for the table to decide again: a
# reconciliation of the wheel's log made at the floor database (hardware.wheel_reconcile; the alert
# scanner and the reports read it on the floor's chain).
KEPT_AT_FLOOR = frozenset({EntryType.WHEEL_RECONCILED})


@dataclass(frozen=True)
class Taken:
    """One floor action brought to the table: the floor entry and what the table journaled."""

    floor_seq: int
    action: str
    outcome: str  # "taken" or "refused"
    why: str | None


class FloorInbox:
    """The floor actions of `table` at `central`, taken into `local` (see the module docstring).

    Keeps, in memory, how far it has read the floor chain; the table's newest
    `table.floor_action_taken` says which floor actions are already in (looked up once, the first
    time one is found)."""

    def __init__(self, local: Store, central: Store, table: str) -> None:
        from engine.store.floor_sign import TrustedFloor

        self.local, self.central, self.table = local, central, table
        self._floor = TrustedFloor(central)  # the floor chain, read on as far as it is believed
        self._taken_to: int | None = None  # floor actions up to this floor entry were taken in
        self._answered: set[tuple[int, str]] = set()  # (floor seq, hash) the table already answered
        self.missing: str | None = None  # why no floor action is taken yet (root key not provisioned)
        self._told = False

    def take(self) -> list[Taken]:
        """Take every floor action of the table not taken yet; returns what was done with each.
        Nothing is read, taken or answered while the floor's root key is not provisioned on this PC
        (`missing` says so, in one line, logged once): the actions wait for it, none is lost."""
        self.missing = self._floor.missing()
        if self.missing is not None:
            if not self._told:
                log.warning("table %s: %s", self.table, self.missing)
                self._told = True
            return []
        found = self._floor_actions()
        if not found:
            return []
        if self._taken_to is None:
            self._taken_to, self._answered = answered(self.local, self.table)
        done = []
        for entry, untrusted in found:
            # Resume after the newest action *taken*: a refused row (an inserted one may carry any
            # seq) never moves the inbox past the legitimate actions after it; it is answered once.
            if entry.seq <= self._taken_to or (entry.seq, entry.hash) in self._answered:
                continue
            taken = self._take(entry, untrusted)
            done.append(taken)
            self._answered.add((entry.seq, entry.hash))
            if taken.outcome == "taken":
                self._taken_to = entry.seq
        return done

    def _floor_actions(self) -> list[tuple[Entry, str | None]]:
        """This table's floor actions after the last one read, each with why it is not to be believed
        (None: it is in its place in the verified floor chain). Read typed (a malformed one is passed
        over: the chain's own check reports it); one that stays at the floor (`KEPT_AT_FLOOR`) is no
        action for the table to take, and is passed over without an answer."""
        found = self._floor.advance(frozenset({EntryType.FLOOR_ACTION.value}))
        out = []
        for e, why in found:
            action = typed(e)
            if not isinstance(action, FloorAction) or action.table != self.table:
                continue
            if entry_type(action.action) not in KEPT_AT_FLOOR:
                out.append((e, why))
        return out

    def _take(self, entry: Entry, untrusted: str | None) -> Taken:
        action = read(entry)
        assert isinstance(action, FloorAction)
        marker = FloorActionTaken(entry.seq, entry.hash, action.action, "taken")
        try:
            if untrusted is not None:
                raise DrrError(untrusted)
            self._check_floor_entry(entry)
            user = self._floor_user(entry, action.action)
            with taken_from_floor(write(marker, table=self.table, round_id=entry.round_id, user=user.name)):
                _decide_again(self.local, self.table, entry, action, user)
        except DrrError as exc:
            refused = FloorActionTaken(entry.seq, entry.hash, action.action, "refused", why=exc.message)
            self.local.journal.append_many(
                [write(refused, table=self.table, round_id=entry.round_id, user=entry.user)]
            )
            log.warning(
                "table %s refused floor action %s (floor entry %d): %s",
                self.table,
                action.action,
                entry.seq,
                exc.message,
            )
            return Taken(entry.seq, action.action, "refused", exc.message)
        log.info("table %s took floor action %s (floor entry %d)", self.table, action.action, entry.seq)
        return Taken(entry.seq, action.action, "taken", None)

    def _check_floor_entry(self, entry: Entry) -> None:
        """An action is believed only from a keyed floor chain: before its `chain.keyed` no entry is
        signed (PostgreSQL) and no head signature by the provisioned key covers it (SQLite), so anyone
        who can write the database could have made it."""
        if not self._floor.keyed():
            raise DrrError(
                f"floor entry {entry.seq} is in a floor chain no root key signs (no chain.keyed before it)"
            )

    def _floor_user(self, entry: Entry, action: str) -> User:
        """The pit boss who acted, as a user of the floor database whose role may do it."""
        permission = PERMISSION.get(action)
        if permission is None:
            raise DrrError(f"the floor action {action!r} is not one a table takes")
        if not entry.user:
            raise DrrError("the floor action names no user")
        info = self._floor.users.get(entry.user)  # folded from the verified chain, not the users table
        if info is None:
            raise DrrError(f"the floor action's user {entry.user!r} is not a user of the floor database")
        if info.disabled:
            raise DrrError(f"the floor action's user {entry.user!r} is disabled at the floor database")
        user = User(info.name, info.role)
        try:
            require(user, permission)
        except PermissionDenied as exc:
            raise DrrError(f"{exc.message} (at the floor database)") from exc
        return user


def last_taken(local: Store, table: str) -> int:
    """The floor entry of the newest floor action `table`'s journal took in (0: none)."""
    return answered(local, table)[0]


def answered(local: Store, table: str) -> tuple[int, set[tuple[int, str]]]:
    """(the floor seq of the newest floor action `table`'s journal took in or 0, every (floor seq,
    floor hash) its journal answered, taken or refused)."""
    taken_to, seen = 0, set()
    with local.read() as conn:
        for _entry, marker in entries_of(conn, table, EntryType.TABLE_FLOOR_ACTION_TAKEN):
            assert isinstance(marker, FloorActionTaken)
            seen.add((marker.floor_seq, marker.floor_hash))
            if marker.outcome == "taken":
                taken_to = max(taken_to, marker.floor_seq)
    return taken_to, seen


def _decide_again(local: Store, table: str, entry: Entry, action: FloorAction, user: User) -> None:
    """Run the action again on the table's own store (the function journals it, with the marker)."""
    from engine.floor import actions
    from engine.store.history import void_round

    p: Any = parse(action.action, action.payload, where=f"floor entry {entry.seq}")
    round_id = entry.round_id
    if isinstance(p, RoundVoided | ResultCorrected | PayoutApproved) and not round_id:
        raise DrrError("the floor action names no round")
    if isinstance(p, RoundVoided):
        row = actions.round_row(local, str(round_id), table)
        if p.previous_status is not None and row.status != p.previous_status:
            raise DrrError(
                f"round {round_id} is {row.status} at the table, {p.previous_status} when it was voided at "
                "the floor: not voided (void it again at the table if it still should be)"
            )
        void_round(local, str(round_id), p.reason, user, table=table)
    elif isinstance(p, ResultCorrected):
        row = actions.check_correctable(local, str(round_id), table)
        if row.result != p.old:
            raise DrrError(
                f"round {round_id} has the result {row.result} at the table, {p.old} at the floor when it "
                "was corrected: not corrected"
            )
        actions.correct_result(local, str(round_id), p.new, p.reason or "", user, table=table)
    elif isinstance(p, PayoutApproved):
        _, _, amount = actions.payout_to_approve(local, str(round_id), table)
        if amount != Decimal(p.total):
            raise DrrError(
                f"round {round_id} pays {amount} at the table, {p.total} was approved at the floor: "
                "not approved (approve it again)"
            )
        actions.approve_payout(local, str(round_id), p.reason or "", user, table=table)
    elif isinstance(p, SettingsChanged):
        actions.change_settings(local, table, dict(p.changes), p.reason or "", user)
    elif isinstance(p, RulesLoaded):
        candidate = actions.rules_candidate(p.text, p.source or f"floor entry {entry.seq}", report=False)
        actions.load_rules(local, table, candidate, p.reason or "", user)
    elif isinstance(p, WheelServiced):  # the table's bias tests start afresh (engine.table.bias_watch)
        actions.wheel_serviced(local, table, p.what, p.reason, user)
    else:  # pragma: no cover - PERMISSION names exactly the types above
        raise DrrError(f"the floor action {action.action!r} is not one a table takes")
