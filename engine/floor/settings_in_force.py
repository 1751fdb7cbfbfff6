"""The table settings in force, as the pit boss's Table settings tab shows them: each value a table
plays by now and where it comes from, whether or not a pit boss ever changed it.

A setting a pit boss changed (`table.settings_changed`, engine.floor.actions) is that value; the
others are the table's own: the bet limits of the Rules Submission it plays under
(engine.table.limits), the large-payout threshold it started with (`table.started`), the dealer of
its latest round, the surveillance default for a silent table, and "open".
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import sqlalchemy as sa

from engine.floor.actions import current_settings, latest_rules
from engine.floor.alerts import DEFAULT_SILENT_AFTER
from engine.floor.started import last_started
from engine.rules import load_default_rules, parse_rules
from engine.store import schema
from engine.store.db import Store
from engine.table.service import DEFAULT_APPROVAL_THRESHOLD


@dataclass(frozen=True)
class InForce:
    """One setting's value in force ("" when there is none) and, in words, where it comes from."""

    value: str
    source: str


BETTING = "off: the wheel is spun by the dealer, no betting countdown"
CONFIRM = "off: a person confirms every result"


def _clock(recorded: str | None, off: str) -> InForce:
    """A round-clock setting as the table station started with it (`table.started`)."""
    if recorded is None:
        return InForce("", "not recorded: the table station has not started with this version yet")
    if recorded == "off":
        return InForce("off", f"{off} (the table station's settings)")
    return InForce(recorded, "the table station's settings")


def _plain(amount: Decimal | None) -> str:
    return "" if amount is None else f"{amount.normalize():f}"


def settings_in_force(store: Store, table: str) -> dict[str, InForce]:
    """Every key of engine.floor.actions.SETTINGS with its value in force on `table`."""
    changed = current_settings(store, table)
    loaded = latest_rules(store, table)
    rules = (
        load_default_rules()
        if loaded is None
        else parse_rules(loaded.text.encode("utf-8"), loaded.source or "the table's Rules Submission")
    )
    where = f"Rules Submission {rules.name}" if loaded is not None else "the shipped Rules Submission"
    lim = rules.limits
    tops = {lim.maximum_inside, lim.maximum_outside} - {None}
    top = max(tops) if tops else None  # type: ignore[type-var]
    if lim.maximum_inside != lim.maximum_outside and tops:
        inside, outside = _plain(lim.maximum_inside) or "none", _plain(lim.maximum_outside) or "none"
        top_source = f"{where} (inside {inside}, outside {outside})"
    else:
        top_source = where
    started = last_started(store, table)
    threshold = started.large_payout if started is not None and started.large_payout else None
    r = schema.rounds
    with store.read() as conn:
        dealer = conn.execute(
            sa.select(r.c.dealer)
            .where(r.c.table_id == table, r.c.dealer.is_not(None))
            .order_by(r.c.seq.desc())
            .limit(1)
        ).scalar()
    table_own: dict[str, InForce] = {
        "min_bet": InForce(
            _plain(lim.minimum), where if lim.minimum is not None else f"none: {where} sets no minimum"
        ),
        "max_bet": InForce(_plain(top), top_source if top is not None else f"none: {where} sets no maximum"),
        "large_payout": InForce(
            threshold or _plain(DEFAULT_APPROVAL_THRESHOLD),
            "the table station's settings" if threshold else "the table service's default",
        ),
        "dealer": InForce(dealer or "", "the dealer of the latest round" if dealer else "no round yet"),
        "silent_after_minutes": InForce(
            str(int(DEFAULT_SILENT_AFTER.total_seconds() // 60)), "the surveillance default"
        ),
        "status": InForce("open", "the table's default"),
        # The round clock the table station started with (`table.started`), and how chips are entered.
        "betting_seconds": _clock(started.betting_seconds if started else None, BETTING),
        "auto_confirm_seconds": _clock(started.auto_confirm_seconds if started else None, CONFIRM),
        "entry_mode": InForce("all", "the table's default: wagers entered while bets are open"),
    }
    out = dict(table_own)
    for key, value in changed.items():
        if key in out:
            out[key] = InForce(value, "set by a pit boss (from the next round after it was set)")
    return out
