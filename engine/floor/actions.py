"""Pit-boss actions, each with a reason, checked against the user's role and journaled.

The permission check lives here (and in `engine.store.history.void_round`), not in the station, so
the GUI and the command line are held to the same rules. `authorize` turns a name and PIN into a
`User` that holds the permission, or refuses (journaled either way).

Journal entries (on the round's or the table's own chain, so the table service and recall see them):
- `round.voided` (engine.store.history.void_round);
- `round.result_corrected` {"old", "new", "reason", "by"}: both values kept; the projections move the
  spin from old to new;
- `round.payout_approved` {"wager_ids", "total", "threshold", "approved_by", "reason", "role"}: the
  same fact, in the same shape, as the table service's own approval (the winning wagers, what they pay,
  the table's large-payout threshold), so the table folds it alike;
- `table.settings_changed` {"changes", "reason", "by"}: from the next round;
- `table.wheel_serviced` {"what", "reason", "by", "role"}: a wheel change or maintenance; the table's
  sequential bias tests (engine.table.bias_watch) start afresh from the next spin;
- `table.rules_loaded` {"sha256", "name", "text", "source", "reason", "by", "effective": "next round"}:
  the new Rules Submission, validated first; the table service opens its next round under it.
On the floor database, where a table's chain is the forwarded copy, each is journaled on the floor's
own chain as `floor.action` instead, never in the copy (engine.store.forwarded).
Old journals hold `payout.approved` and `rules.changed` for the last two: read as today's types
(engine.entry_types.LEGACY, engine.journal_types).
All are written through engine.journal_types.write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from engine.auth import PermissionDenied, User, require
from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.floor_events import ActionRefused
from engine.journal_types import read, write
from engine.math.rules_gate import refuse_bad_math
from engine.round import ResultCorrected
from engine.rules import RulesSubmission, parse_rules
from engine.rules_text import paytable, summary
from engine.store.db import Store
from engine.store.forwarded import journal_action
from engine.store.history import RoundRecord, find_round, void_round
from engine.store.latest import entries_of, latest_entry
from engine.store.users import FLOOR, authenticate
from engine.table.limits import PLAYER_LIMIT
from engine.table.service import DEFAULT_APPROVAL_THRESHOLD
from engine.table.thresholds import amount_problem, approval_threshold
from engine.table_events import WHEEL_SERVICES, PayoutApproved, RulesLoaded, SettingsChanged, WheelServiced

# Table settings a pit boss may change, with a check for each value.
SETTINGS: dict[str, str] = {
    "min_bet": "decimal amount",
    "max_bet": "decimal amount",
    "large_payout": "decimal amount needing a pit boss's approval",
    "dealer": "name of the dealer now at the table",
    "silent_after_minutes": "whole minutes before a silent table raises an alert",
    "status": "open or closed",
    "betting_seconds": "seconds of betting before a commanded wheel spins (5-600)",
    "auto_confirm_seconds": "seconds before a clean wheel result confirms itself (0-600, off: by hand only)",
    "entry_mode": "all (wagers entered during betting) or winning (winning wagers only, after the result)",
}
# Besides them, "player_limit:<player>": the most that player may have on the felt in one round
# (engine.table.limits), or "none" to lift it.


def authorize(
    store: Store, name: str, pin: str, permission: str, *, table: str = FLOOR, station: str
) -> User:
    """Log in `name` with `pin` and check `permission`; a refusal is journaled and raised."""
    user = authenticate(store, name, pin, table=table, station=station)
    try:
        require(user, permission)
    except PermissionDenied as exc:
        refused = ActionRefused(user.name, user.role, permission, station)
        store.journal.append_many([write(refused, table=FLOOR, user=user.name)])
        raise exc
    return user


def _reason(reason: str) -> str:
    if not reason.strip():
        raise DrrError("give a reason: it is kept in the journal with the action")
    return reason.strip()


def round_row(store: Store, round_id: str, table: str | None) -> RoundRecord:
    return find_round(store, round_id, table, several="name the table")


def void(store: Store, round_id: str, reason: str, user: User, *, table: str | None = None) -> None:
    void_round(store, round_id, _reason(reason), user, table=table)


def correct_result(
    store: Store, round_id: str, new: int, reason: str, user: User, *, table: str | None = None
) -> int:
    """Change a round's result, keeping the old one in the journal; returns the old number."""
    require(user, "correct_result")
    why = _reason(reason)
    if isinstance(new, bool) or not isinstance(new, int) or not 0 <= new <= 36:
        raise DrrError(f"the corrected result must be a number 0..36, not {new!r}")
    row = check_correctable(store, round_id, table)
    old = row.result
    assert old is not None  # check_correctable refuses a round without a result
    if old == new:
        raise DrrError(f"round {round_id} already has the result {new}")
    corrected = ResultCorrected(old, new, why, by=user.name, role=user.role)
    journal_action(store, write(corrected, table=row.table, round_id=round_id, user=user.name))
    return old


def check_correctable(store: Store, round_id: str, table: str | None = None) -> RoundRecord:
    """The round's row if its result may be corrected; else DrrError saying why and what to do
    instead (asked before the reason and the PIN, and again when the correction is journaled)."""
    row = round_row(store, round_id, table)
    if row.status == "void":
        raise DrrError(f"round {round_id} is void: there is no result to correct")
    if row.result is None:
        raise DrrError(
            f"round {round_id} has no result to correct: a round waiting for its result (or on hold) is "
            "ended at the croupier station with a pit boss's sign-off, or voided"
        )
    return row


def resolve_hold(store: Store, table: str, reason: str, user: User) -> str:
    """A pit boss acknowledges the hold of the round in play on `table` from its own store (the table
    service folds the entry at its next command and the round goes on); returns the hold's words.

    The same rule as at the croupier station (engine.table.holds: a doubtful number is never just
    acknowledged). Only on the table's own store: on the floor database the table's chain is the
    forwarded copy, which the table never reads, so the hold is refused there with where to end it."""
    from engine.store.forwarded import is_forwarded
    from engine.table.holds import ACKNOWLEDGE, hold_remedies
    from engine.table.recovery import recover
    from engine.table.state import TableState
    from engine.table_events import IrregularityResolved

    require(user, "resolve_irregularity")
    why = _reason(reason)
    if is_forwarded(store, table):
        raise DrrError(
            f"this database holds the forwarded copy of table {table}'s journal, which the table does "
            "not read: resolve the hold at the croupier station (a pit boss's sign-off) or against the "
            "table's own store"
        )
    from engine.rng import SystemRng

    state = TableState(table, SystemRng())
    recover(state, store.journal)
    hold, s = state.hold, state.round
    if hold is None or s is None:
        raise DrrError(f"table {table} has no round on hold")
    remedies = hold_remedies(hold, s.phase, state.expected_game)
    if not remedies.allows(ACKNOWLEDGE):
        raise DrrError(f"table {table}: {remedies.what}; {remedies.refused[ACKNOWLEDGE]} ({remedies.todo})")
    resolved = IrregularityResolved(hold.kind, "acknowledged", why)
    event = write(resolved, table=table, round_id=s.round_id, user=user.name)
    with store.begin() as conn:
        written = store.journal.append_in(conn, [event])
        if written[0].seq != state.last_seq + 1:  # the table moved on meanwhile: decide again
            raise DrrError(f"table {table} wrote entries meanwhile: nothing resolved; run the command again")
    store.journal.witness(written)  # committed: the key's witness follows the signed head
    return remedies.what


def approve_payout(
    store: Store, round_id: str, reason: str, user: User, *, table: str | None = None
) -> Decimal:
    """Sign off a round's payout (large payouts wait for this); returns the amount approved.

    Journaled as the table service journals its own approval (`round.payout_approved`): every winning
    wager of the round, what they pay, the table's large-payout threshold."""
    require(user, "approve_payout")
    why = _reason(reason)
    row, wager_ids, amount = payout_to_approve(store, round_id, table)
    threshold, _ = approval_threshold(
        current_settings(store, row.table), DEFAULT_APPROVAL_THRESHOLD, table=row.table
    )
    approval = PayoutApproved(
        wager_ids,
        amount,
        threshold,
        user.name,
        reason=why,
        role=user.role,
    )
    journal_action(store, write(approval, table=row.table, round_id=round_id, user=user.name))
    return amount


def payout_to_approve(
    store: Store, round_id: str, table: str | None = None
) -> tuple[RoundRecord, tuple[str, ...], Decimal]:
    """The round's row, its winning wagers and what the table pays them: what an approval signs off
    (DrrError when there is nothing to approve)."""
    row = round_row(store, round_id, table)
    if row.status == "void":
        raise DrrError(f"round {round_id} is void: nothing to pay")
    wager_ids, pending = _pending_payout(store, round_id, row.table, settled=row.status == "settled")
    return row, wager_ids, row.paid if row.status == "settled" else pending


def _pending_payout(
    store: Store, round_id: str, table: str, *, settled: bool
) -> tuple[tuple[str, ...], Decimal]:
    """The winning wagers of a round and what they pay, from its journal (wagers, draw, result, bonus
    outcomes), under the Rules Submission the round was opened under: what the table will pay. A
    settled round's winners are only named when its journal replays."""
    from engine.floor.recall import recall_round

    try:
        rec = recall_round(store, round_id, table)
    except DrrError:
        if not settled:
            raise
        return (), Decimal(0)
    if rec.result is None and not settled:
        raise DrrError(f"round {round_id} has no result yet: nothing to approve")
    if rec.settlement is None:
        if settled:
            return (), Decimal(0)  # the amount is the stored `paid`; only the winners are unnamed
        # Never approve an amount that is not the table's (it was 0 when the rules were not found).
        raise DrrError(f"round {round_id}: the payout cannot be approved yet ({rec.replay_note})")
    won = [s for s in rec.settlement.settlements if s.payout > 0]
    return tuple(s.wager.id for s in won), rec.settlement.total_paid


def _check_setting(key: str, value: str) -> str:
    player = key.removeprefix(PLAYER_LIMIT) if key.startswith(PLAYER_LIMIT) else None
    if key not in SETTINGS and not player:
        raise DrrError(
            f"unknown table setting {key!r}: use one of {', '.join(SETTINGS)} or {PLAYER_LIMIT}<player>"
        )
    value = value.strip()
    if player and value == "none":
        return value  # the player's own limit lifted (engine.table.limits ignores it)
    if key in ("min_bet", "max_bet", "large_payout") or player:
        # Plain digits, bounded: "1e400" is a finite Decimal that would switch approvals off.
        problem = amount_problem(key, value)
        if problem is not None:
            raise DrrError(problem)
    elif key == "silent_after_minutes":
        if not value.isdigit() or int(value) == 0:
            raise DrrError(f"silent_after_minutes must be a positive whole number, not {value!r}")
    elif key in ("betting_seconds", "auto_confirm_seconds"):
        low = 5 if key == "betting_seconds" else 0
        if not (key == "auto_confirm_seconds" and value == "off") and not (
            re.fullmatch(r"[0-9]{1,3}(\.[0-9])?", value) and low <= float(value) <= 600
        ):
            extra = " or off" if key == "auto_confirm_seconds" else ""
            raise DrrError(f"{key} must be seconds {low}-600{extra}, not {value!r}")
    elif key == "status":
        if value not in ("open", "closed"):
            raise DrrError(f"status must be open or closed, not {value!r}")
    elif key == "entry_mode":
        if value not in ("all", "winning"):
            raise DrrError(f"entry_mode must be all or winning, not {value!r}")
    elif not value:
        raise DrrError(f"{key} must not be empty")
    return value


def check_settings(store: Store, table: str, changes: dict[str, str]) -> dict[str, str]:
    """The changes checked (each value, and min_bet against max_bet), before anyone signs them off:
    DrrError naming what is wrong."""
    if not changes:
        raise DrrError("no settings to change")
    checked = {k: _check_setting(k, v) for k, v in changes.items()}
    merged = {**current_settings(store, table), **checked}
    if (
        "min_bet" in merged
        and "max_bet" in merged
        and Decimal(merged["min_bet"]) > Decimal(merged["max_bet"])
    ):
        raise DrrError(
            f"min_bet {merged['min_bet']} is above max_bet {merged['max_bet']}: the limits must agree"
        )
    return checked


def change_settings(store: Store, table: str, changes: dict[str, str], reason: str, user: User) -> None:
    """Journal new table settings; the table service applies them from its next round."""
    require(user, "change_settings")
    why = _reason(reason)
    checked = check_settings(store, table, changes)
    changed = SettingsChanged(checked, why, user.name, user.role, "next round")
    journal_action(store, write(changed, table=table, user=user.name))


def wheel_serviced(store: Store, table: str, what: str, reason: str, user: User) -> None:
    """Journal a wheel change or maintenance on the table's chain: its bias tests start afresh."""
    require(user, "change_settings")
    why = _reason(reason)
    if what not in WHEEL_SERVICES:
        raise DrrError(f"say what was done to the wheel: {' or '.join(WHEEL_SERVICES)}, not {what!r}")
    if table not in store.journal.tables():
        raise DrrError(f"no table {table} in {store.where}")
    journal_action(store, write(WheelServiced(what, why, user.name, user.role), table=table, user=user.name))


@dataclass(frozen=True)
class RulesCandidate:
    """A validated Rules Submission waiting for the pit boss to accept it after reading its report."""

    rules: RulesSubmission
    text: str
    source: str
    report: str


def math_report(rules: RulesSubmission) -> str:
    """The `drr math` report (engine.math) of the rules; their summary and pay table if it cannot be made."""
    try:
        from engine.math.report import markdown
        from engine.math.wager_math import game_math
    except ImportError:
        return rules_summary(rules)
    return markdown(game_math(rules))


def rules_summary(rules: RulesSubmission) -> str:
    """`drr rules show`'s summary and pay table (what there is when the math report is missing)."""
    return "\n".join(
        [
            summary(rules),
            "",
            paytable(rules),
            "",
            "(the math report of drr math is not available in this build)",
        ]
    )


def read_rules_candidate(path: Path | str) -> RulesCandidate:
    """Validate a Rules Submission file (RulesError naming every violation) and build its report."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DrrError(f"cannot read {path}: {exc.strerror}") from exc
    return rules_candidate(raw.decode("utf-8"), str(path))


def rules_candidate(text: str, source: str, *, report: bool = True) -> RulesCandidate:
    """Validate a Rules Submission's text (RulesError naming every violation), with its math report."""
    # The pit boss loads a paytable onto a live table: one that returns 100% or more on any wager
    # kind (under any bonus strategy) is refused here as `drr rules check` refuses it.
    rules = refuse_bad_math(parse_rules(text.encode("utf-8"), source), source)
    return RulesCandidate(rules, text, source, math_report(rules) if report else "")


def load_rules(store: Store, table: str, candidate: RulesCandidate, reason: str, user: User) -> None:
    """Accept a validated Rules Submission for `table` from its next round (`table.rules_loaded`, as the
    table service journals the Rules Submissions it loads)."""
    require(user, "load_rules")
    why = _reason(reason)
    rules = parse_rules(
        candidate.text.encode("utf-8"), candidate.source
    )  # what is journaled is what was checked
    loaded = RulesLoaded(
        rules.sha256,
        rules.name,
        candidate.text,
        source=candidate.source,
        reason=why,
        by=user.name,
        role=user.role,
        effective="next round",
    )
    journal_action(store, write(loaded, table=table, user=user.name))


def latest_rules(store: Store, table: str) -> RulesLoaded | None:
    """The Rules Submission `table` last loaded (by the table service or the pit boss), None if none."""
    entry = latest_entry(store, table, EntryType.TABLE_RULES_LOADED)
    if entry is None:
        return None
    loaded = read(entry)
    assert isinstance(loaded, RulesLoaded)
    return loaded


def current_settings(store: Store, table: str) -> dict[str, str]:
    """The table's settings as changed so far (latest value of each key)."""
    settings: dict[str, str] = {}
    with store.read() as conn:
        for _, changed in entries_of(conn, table, EntryType.TABLE_SETTINGS_CHANGED):
            if isinstance(changed, SettingsChanged):
                settings.update(changed.changes)
    return settings


def check_station_start(
    store: Store,
    table: str,
    user: User,
    *,
    rules_text: bytes | None,
    large_payout: Decimal | None = None,
    auto_confirm_seconds: float | None = None,
) -> None:
    """A station start loads nothing only a pit boss or admin may decide (issue 24): a Rules Submission
    given with the start (`--rules`, the settings file's rules.path) other than the one the journal
    has, and a settings file's large_payout / auto_confirm_seconds other than the shipped default
    where no pit boss has stored the setting (the station's value is then the one in force), need
    `load_rules` / `change_settings` of the signed-in user, as `drr pitboss rules` and `settings` do.
    Refused in one line (PermissionDenied) before anything is journaled."""
    from engine.config import Settings

    def need(permission: str, what: str) -> None:
        try:
            require(user, permission)
        except PermissionDenied as exc:
            raise PermissionDenied(
                f"{exc.message}: the station start would {what}; nothing started (a pit boss or admin "
                "does it with drr pitboss, or starts the station)"
            ) from exc

    if rules_text is not None:
        given = parse_rules(rules_text, source="the Rules Submission given to the station")
        latest = latest_rules(store, table)
        if latest is None or latest.sha256 != given.sha256:
            need("load_rules", f"load the Rules Submission {given.name!r}")
    shipped = Settings()
    stored = current_settings(store, table)
    for key, value, default in (
        ("large_payout", large_payout, shipped.large_payout_threshold),
        ("auto_confirm_seconds", auto_confirm_seconds, shipped.auto_confirm_seconds),
    ):
        if value is None or key in stored or Decimal(str(value)) == Decimal(str(default)):
            continue
        need("change_settings", f"set {key} to {value} from the station's settings file")
