"""Pit-boss actions, each with a reason, checked against the user's role and journaled.

The permission check lives here (and in `engine.store.history.void_round`), not in the station, so
the GUI and the command line are held to the same rules. `authorize` turns a name and PIN into a
`User` that holds the permission, or refuses (journaled either way).

Journal entries (on the round's or the table's own chain, so the table service and recall see them):
- `round.voided` (engine.store.history.void_round);
- `round.result_corrected` {"old", "new", "reason", "by"}: both values kept; the projections move the
  spin from old to new;
- `payout.approved` {"amount", "reason", "by"};
- `table.settings_changed` {"changes", "reason", "by"}: from the next round;
- `rules.changed` {"sha256", "source", "text", "reason", "by", "effective": "next round"}: the new
  Rules Submission, validated first; the table service reads it when it opens its next round.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from engine.auth import PermissionDenied, User, require
from engine.errors import DrrError
from engine.rules import RulesSubmission, parse_rules
from engine.store import schema
from engine.store.db import Store
from engine.store.history import void_round
from engine.store.projections import ROUND_RESULT_CORRECTED, from_units
from engine.store.users import FLOOR, authenticate

PAYOUT_APPROVED = "payout.approved"
SETTINGS_CHANGED = "table.settings_changed"
RULES_CHANGED = "rules.changed"
ACTION_REFUSED = "action.refused"

# Table settings a pit boss may change, with a check for each value.
SETTINGS: dict[str, str] = {
    "min_bet": "decimal amount",
    "max_bet": "decimal amount",
    "large_payout": "decimal amount needing a pit boss's approval",
    "dealer": "name of the dealer now at the table",
    "silent_after_minutes": "whole minutes before a silent table raises an alert",
    "status": "open or closed",
}


def authorize(
    store: Store, name: str, pin: str, permission: str, *, table: str = FLOOR, station: str
) -> User:
    """Log in `name` with `pin` and check `permission`; a refusal is journaled and raised."""
    user = authenticate(store, name, pin, table=table, station=station)
    try:
        require(user, permission)
    except PermissionDenied as exc:
        store.journal.append(
            FLOOR,
            ACTION_REFUSED,
            {"name": user.name, "role": user.role, "permission": permission, "station": station},
            round_id=None,
            user=user.name,
        )
        raise exc
    return user


def _reason(reason: str) -> str:
    if not reason.strip():
        raise DrrError("give a reason: it is kept in the journal with the action")
    return reason.strip()


def _round_row(store: Store, round_id: str, table: str | None) -> Any:
    r = schema.rounds
    query = sa.select(r).where(r.c.round_id == round_id)
    if table is not None:
        query = query.where(r.c.table_id == table)
    with store.read() as conn:
        rows = conn.execute(query).all()
    if not rows:
        raise DrrError(f"no round {round_id}" + (f" on table {table}" if table else ""))
    if len(rows) > 1:
        raise DrrError(f"round {round_id} exists on several tables: name the table")
    return rows[0]


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
    row = _round_row(store, round_id, table)
    if row.result is None:
        raise DrrError(f"round {round_id} has no result to correct")
    if row.status == "void":
        raise DrrError(f"round {round_id} is void")
    if row.result == new:
        raise DrrError(f"round {round_id} already has the result {new}")
    store.journal.append(
        row.table_id,
        ROUND_RESULT_CORRECTED,
        {"old": row.result, "new": new, "reason": why, "by": user.name, "role": user.role},
        round_id=round_id,
        user=user.name,
    )
    return int(row.result)


def approve_payout(
    store: Store, round_id: str, reason: str, user: User, *, table: str | None = None
) -> Decimal:
    """Sign off a round's payout (large payouts wait for this); returns the amount approved."""
    require(user, "approve_payout")
    why = _reason(reason)
    row = _round_row(store, round_id, table)
    if row.status == "void":
        raise DrrError(f"round {round_id} is void: nothing to pay")
    amount = (
        from_units(row.paid) if row.status == "settled" else _pending_payout(store, round_id, row.table_id)
    )
    store.journal.append(
        row.table_id,
        PAYOUT_APPROVED,
        {"amount": str(amount), "reason": why, "by": user.name, "role": user.role},
        round_id=round_id,
        user=user.name,
    )
    return amount


def _pending_payout(store: Store, round_id: str, table: str) -> Decimal:
    """What an unsettled round will pay, from its journal (wagers, draw, result, bonus outcomes),
    under the Rules Submission the round was opened under: what the table will pay."""
    from engine.floor.recall import recall_round

    rec = recall_round(store, round_id, table)
    if rec.result is None:
        raise DrrError(f"round {round_id} has no result yet: nothing to approve")
    if rec.settlement is None:
        # Never approve an amount that is not the table's (it was 0 when the rules were not found).
        raise DrrError(f"round {round_id}: the payout cannot be approved yet ({rec.replay_note})")
    return rec.settlement.total_paid


def _check_setting(key: str, value: str) -> str:
    if key not in SETTINGS:
        raise DrrError(f"unknown table setting {key!r}: use one of {', '.join(SETTINGS)}")
    value = value.strip()
    if key in ("min_bet", "max_bet", "large_payout"):
        try:
            amount = Decimal(value)
        except ArithmeticError:
            raise DrrError(f"{key} {value!r} is not a decimal amount") from None
        if not amount.is_finite() or amount <= 0:
            raise DrrError(f"{key} must be a positive amount, not {value}")
    elif key == "silent_after_minutes":
        if not value.isdigit() or int(value) == 0:
            raise DrrError(f"silent_after_minutes must be a positive whole number, not {value!r}")
    elif key == "status":
        if value not in ("open", "closed"):
            raise DrrError(f"status must be open or closed, not {value!r}")
    elif not value:
        raise DrrError(f"{key} must not be empty")
    return value


def change_settings(store: Store, table: str, changes: dict[str, str], reason: str, user: User) -> None:
    """Journal new table settings; the table service applies them from its next round."""
    require(user, "change_settings")
    why = _reason(reason)
    if not changes:
        raise DrrError("no settings to change")
    checked = {k: _check_setting(k, v) for k, v in changes.items()}
    store.journal.append(
        table,
        SETTINGS_CHANGED,
        {"changes": checked, "reason": why, "by": user.name, "role": user.role, "effective": "next round"},
        round_id=None,
        user=user.name,
    )


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
    from engine.cli.rules_cmd import paytable, summary

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
    rules = parse_rules(raw, str(path))
    return RulesCandidate(rules, raw.decode("utf-8"), str(path), math_report(rules))


def load_rules(store: Store, table: str, candidate: RulesCandidate, reason: str, user: User) -> None:
    """Accept a validated Rules Submission for `table` from its next round (`rules.changed`)."""
    require(user, "load_rules")
    why = _reason(reason)
    rules = parse_rules(
        candidate.text.encode("utf-8"), candidate.source
    )  # what is journaled is what was checked
    store.journal.append(
        table,
        RULES_CHANGED,
        {
            "sha256": rules.sha256,
            "source": candidate.source,
            "text": candidate.text,
            "reason": why,
            "by": user.name,
            "role": user.role,
            "effective": "next round",
        },
        round_id=None,
        user=user.name,
    )


def current_settings(store: Store, table: str) -> dict[str, str]:
    """The table's settings as changed so far (latest value of each key)."""
    import json

    j = schema.journal
    with store.read() as conn:
        rows = conn.execute(
            sa.select(j.c.payload)
            .where(j.c.table_id == table, j.c.type == SETTINGS_CHANGED)
            .order_by(j.c.seq)
        ).scalars()
        settings: dict[str, str] = {}
        for payload in rows:
            settings.update(json.loads(payload).get("changes", {}))
    return settings
