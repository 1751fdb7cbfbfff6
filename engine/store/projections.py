"""Projections kept in the same transaction as each journal entry: `rounds`, `number_counts`, `daily_totals`.

Charts, history and statistics read these, never the journal. The table service emits exactly these
event types (payload keys; money as decimal strings such as "12.50"; numbers 0..36):

The names and payloads are those of engine/round.py's events (`event.to_json()` as the payload);
keys marked (+) are extras the table service adds for the projections (round.py ignores them).

- `round.opened` {"round_id", "rules_sha256", "dealer"(+)?: str, "game_number"(+)?: int}: new `rounds`
  row, status `open`, with the sha256 of the Rules Submission it is played under.
- `table.rules_loaded` {"sha256", "text", "name"?} (and the pit-boss station's legacy `rules.changed`):
  the Rules Submission kept in `rules_submissions` by its sha256 (engine.store.rules_store), round or
  not.
- `round.bets_closed` {"draw": {"lucky": {"17": "199", ...}, "bonus_number": int, ...}}: the Lucky/Bonus
  draw made at no more bets (odds: the straight-up "X" of "X to 1"); status `closed`. (`round.closed`
  with {"lucky": [[17, "199"], ...], "bonus_number"} is read the same way.)
- `round.result` {"number": int, "source": "sensor" | "manual", "reason", "direction"(+)?: "cw" | "ccw"}:
  status `result`; one spin counted for the event's day and rotor direction; Lucky/Bonus hits counted.
- `round.result_corrected` {"old": int, "new": int, "reason": str}: the spin moves from old to new.
- `round.bonus_started` {"players": [...]}: status `bonus`.
- `round.settled` {"total_wagered": "D", "total_paid": "D", "total_returned": "D"}: status `settled`;
  money added to the day's totals, and the handle of the round's standing wagers by bet name (from
  its `round.wager_placed` {"id", "bet", "amount", ...} and `round.wager_removed` {"wager_id"}
  entries) to `daily_handle`, for the theoretical win. As in engine/settlement.py, `paid` is what
  the wagers won (stakes not included) and `returned` is everything handed back (paid plus the stakes
  of winning wagers), so the house's win is wagered - returned. Without "total_returned" the
  payload's paid is taken as everything handed back.
- `round.voided` {"reason": str}: status `void`; a settled round's money is taken back out of the
  totals; a spin already counted stays counted (the ball did land).
- `round.no_spin`, `round.result_before_close`, `round.irregularity` {"reason" | "kind", ...}: an
  irregularity counted on the round (round_id optional for `round.irregularity`) and the day.
- `history.imported` {"number": int, "time": ISO text, "direction"?: ..., "source"?: str}: a settled
  round with source "import", counted for the day of its own `time`.

All of these need the event's `round_id`, except `round.irregularity`.
Every other type (wagers, RNG details, wheel messages, bonus picks, logins…) is journaled only.
Types are taken through the registry (engine.journal_types.entry_type: an old journal's spelling,
e.g. `round.closed` or `rules.changed`, is today's type); payloads are read leniently by key here,
so a rebuild of any stored journal projects exactly what it projected when it was written.
Days are UTC dates (`YYYY-MM-DD`) of the event's time (an imported round: its own `time`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from engine.entry_types import EntryType
from engine.errors import DrrError
from engine.journal_types import entry_type
from engine.store import schema
from engine.store.canonical import canonical_json, format_time, parse_time
from engine.store.journal import register_projections
from engine.store.projection_writers import BatchWriter, DirectWriter, Writer
from engine.store.records import Entry

STATUSES = ("open", "closed", "result", "bonus", "settled", "void")
DIRECTIONS = ("cw", "ccw")


def to_units(amount: Any, what: str = "amount") -> int:
    """Money (Decimal or decimal text) as integer 1/10,000 units; refuses anything finer or not a number."""
    try:
        value = Decimal(str(amount))
    except InvalidOperation:
        raise DrrError(f"{what} {amount!r} is not a decimal amount") from None
    scaled = value * schema.MONEY_SCALE
    if not value.is_finite() or scaled != scaled.to_integral_value():
        raise DrrError(f"{what} {amount!r} is finer than 1/{schema.MONEY_SCALE} of a unit")
    return int(scaled)


def from_units(units: int) -> Decimal:
    """Integer 1/10,000 units back to Decimal, with at least two decimals ("12.50")."""
    value = Decimal(units).scaleb(-4)
    cents = value.quantize(Decimal("0.01"))
    return cents if cents == value else value.normalize()


def _number(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 36:
        raise DrrError(f"{what} must be a number 0..36, got {value!r}")
    return value


def _direction(value: Any) -> str:
    return value if value in DIRECTIONS else ""


def _lucky_numbers(lucky_text: str | None) -> list[int]:
    return [int(pair[0]) for pair in json.loads(lucky_text)] if lucky_text else []


def _count_spin(
    w: Writer, table: str, day: str, direction: str, number: int, row: Any, sign: int = 1
) -> tuple[bool, bool]:
    lucky = _lucky_numbers(row.lucky)
    drawn = row.lucky is not None
    lucky_hit = number in lucky
    bonus_hit = row.bonus_number is not None and number == row.bonus_number
    w.bump(
        schema.number_counts,
        {"table_id": table, "day": day, "direction": direction, "number": number},
        {"spins": sign},
    )
    w.bump(
        schema.daily_totals,
        {"table_id": table, "day": day},
        {
            "spins": sign,
            "drawn_spins": sign * drawn,
            "lucky_drawn": sign * len(lucky),
            "lucky_hits": sign * lucky_hit,
            "bonus_hits": sign * bonus_hit,
        },
    )
    return lucky_hit, bonus_hit


def _opened(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    w.insert_round(
        {
            "table_id": entry.table,
            "round_id": entry.round_id,
            "seq": entry.seq,
            "status": "open",
            "source": "table",
            "opened_at": entry.time,
            "dealer": p.get("dealer"),
            "game_number": p.get("game_number"),
            "rules_sha256": p.get("rules_sha256"),
            "lucky_count": 0,
            "lucky_hit": False,
            "bonus_hit": False,
            "wagered": 0,
            "paid": 0,
            "returned": 0,
            "manual": False,
            "irregularities": 0,
        }
    )


def _closed(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    draw = p.get("draw", p)
    raw = draw.get("lucky") or []
    pairs = list(raw.items()) if isinstance(raw, dict) else raw
    try:
        lucky = sorted([_number(int(pair[0]), "lucky number"), str(pair[1])] for pair in pairs)
    except (TypeError, ValueError, IndexError):
        raise DrrError(f"{entry.type}: lucky {raw!r} is not number -> odds") from None
    bonus = draw.get("bonus_number")
    w.round(entry)
    w.set_round(
        entry,
        status="closed",
        closed_at=entry.time,
        lucky=canonical_json(lucky),
        lucky_count=len(lucky),
        bonus_number=None if bonus is None else _number(bonus, "bonus_number"),
    )


def _result(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    number = _number(p.get("number"), "result number")
    row = w.round(entry)
    direction = _direction(p.get("direction"))
    lucky_hit, bonus_hit = _count_spin(w, entry.table, entry.time[:10], direction, number, row)
    w.set_round(
        entry,
        status="result",
        result=number,
        result_at=entry.time,
        manual=bool(p.get("manual", False)) or p.get("source") == "manual",
        direction=direction or None,
        lucky_hit=lucky_hit,
        bonus_hit=bonus_hit,
    )


def _corrected(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    new = _number(p.get("new"), "corrected number")
    row = w.round(entry)
    if row.result is None:
        raise DrrError(f"round {entry.round_id} has no result to correct")
    day, direction = (row.result_at or entry.time)[:10], row.direction or ""
    _count_spin(w, entry.table, day, direction, row.result, row, sign=-1)
    lucky_hit, bonus_hit = _count_spin(w, entry.table, day, direction, new, row)
    w.set_round(entry, result=new, lucky_hit=lucky_hit, bonus_hit=bonus_hit, manual=True)


def _bonus(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    w.round(entry)
    w.set_round(entry, status="bonus")


def _handle_by_bet(w: Writer, entry: Entry) -> dict[str, int]:
    """The round's standing wagers summed by bet name, from its own journal entries (an index read)."""
    standing: dict[str, tuple[str, int]] = {}
    for type_name, text in w.wagers(entry):
        wager = json.loads(text)
        if type_name == EntryType.ROUND_WAGER_PLACED:
            standing[str(wager.get("id"))] = (
                str(wager.get("bet", "?")),
                to_units(wager.get("amount", "0"), "wager amount"),
            )
        else:
            standing.pop(str(wager.get("wager_id")), None)
    handle: dict[str, int] = {}
    for bet, units in standing.values():
        handle[bet] = handle.get(bet, 0) + units
    return handle


def _bump_handle(w: Writer, table: str, day: str, handle: dict[str, int], sign: int) -> None:
    for bet, units in handle.items():
        w.bump(schema.daily_handle, {"table_id": table, "day": day, "bet": bet}, {"wagered": sign * units})


def _settled(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    row = w.round(entry)
    wagered = to_units(p.get("total_wagered", p.get("wagered", "0")), "wagered")
    paid = to_units(p.get("total_paid", p.get("paid", "0")), "paid")
    returned = to_units(p["total_returned"], "returned") if p.get("total_returned") is not None else paid
    was_settled = row.status == "settled"
    w.bump(
        schema.daily_totals,
        {"table_id": entry.table, "day": entry.time[:10]},
        {
            "settled": 0 if was_settled else 1,
            "wagered": wagered - (row.wagered if was_settled else 0),
            "paid": paid - (row.paid if was_settled else 0),
            "returned": returned - (row.returned if was_settled else 0),
        },
    )
    values: dict[str, Any] = {
        "status": "settled",
        "settled_at": entry.time,
        "wagered": wagered,
        "paid": paid,
        "returned": returned,
    }
    if not was_settled:
        handle = _handle_by_bet(w, entry)
        _bump_handle(w, entry.table, entry.time[:10], handle, +1)
        values["handle"] = canonical_json(handle)
    w.set_round(entry, **values)


def _voided(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    row = w.round(entry)
    if row.status == "void":
        raise DrrError(f"round {entry.round_id} is already void")
    deltas = {"voided": 1}
    if row.status == "settled":
        deltas.update(settled=-1, wagered=-row.wagered, paid=-row.paid, returned=-row.returned)
        if row.handle:
            _bump_handle(w, entry.table, entry.time[:10], json.loads(row.handle), -1)
    w.bump(schema.daily_totals, {"table_id": entry.table, "day": entry.time[:10]}, deltas)
    w.set_round(
        entry, status="void", wagered=0, paid=0, returned=0, handle=None, note=str(p.get("reason", ""))
    )


def _irregularity(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    if entry.round_id is not None:
        row = w.round(entry)
        w.set_round(entry, irregularities=row.irregularities + 1)
    w.bump(schema.daily_totals, {"table_id": entry.table, "day": entry.time[:10]}, {"irregularities": 1})


def _imported(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    number = _number(p.get("number"), "imported number")
    when = format_time(parse_time(str(p["time"]))) if p.get("time") else entry.time
    direction = _direction(p.get("direction"))
    _opened(w, entry, {})
    row = w.round(entry)
    _count_spin(w, entry.table, when[:10], direction, number, row)
    w.set_round(
        entry,
        status="settled",
        source="import",
        opened_at=when,
        result_at=when,
        settled_at=when,
        result=number,
        direction=direction or None,
        note=p.get("source"),
    )
    w.bump(schema.daily_totals, {"table_id": entry.table, "day": when[:10]}, {"settled": 1})


def _rules(w: Writer, entry: Entry, p: dict[str, Any]) -> None:
    w.rules(entry)


HANDLERS: dict[EntryType, Callable[[Writer, Entry, dict[str, Any]], None]] = {
    EntryType.ROUND_OPENED: _opened,
    EntryType.ROUND_BETS_CLOSED: _closed,  # and an early journal's round.closed (LEGACY)
    EntryType.ROUND_RESULT: _result,
    EntryType.ROUND_RESULT_CORRECTED: _corrected,
    EntryType.ROUND_BONUS_STARTED: _bonus,
    EntryType.ROUND_SETTLED: _settled,
    EntryType.ROUND_VOIDED: _voided,
    EntryType.ROUND_IRREGULARITY: _irregularity,
    EntryType.ROUND_NO_SPIN: _irregularity,
    EntryType.ROUND_RESULT_BEFORE_CLOSE: _irregularity,
    EntryType.HISTORY_IMPORTED: _imported,
    EntryType.TABLE_RULES_LOADED: _rules,  # and the pit-boss station's legacy rules.changed
}
# Entries projected whether or not they belong to a round.
ROUNDLESS = frozenset({EntryType.ROUND_IRREGULARITY, EntryType.TABLE_RULES_LOADED})


# A run of at least this many entries is folded in memory and written in bulk (BatchWriter); a table's
# own appends (a command's few entries) go straight to SQL, which costs less for so few.
BULK_FROM = 32


def _apply(w: Writer, entry: Entry) -> None:
    t = entry_type(entry.type)  # today's type through the registry (an old journal's spelling mapped)
    handler = HANDLERS.get(t) if t is not None else None
    if handler is None:
        return
    if entry.round_id is None and t not in ROUNDLESS:
        raise DrrError(f"{entry.type} needs a round_id")
    handler(w, entry, entry.payload)


def apply(conn: Connection, entry: Entry) -> None:
    """Update the projections for one entry (inside the entry's own transaction)."""
    _apply(DirectWriter(conn), entry)


def apply_many(conn: Connection, entries: Sequence[Entry]) -> None:
    """`apply` for a run of entries, in order: a long run folded in memory and written in bulk (the
    same rows as one by one; the entries must already be in the journal, as `insert_entries` does)."""
    if len(entries) < BULK_FROM:
        w: Writer = DirectWriter(conn)
        for entry in entries:
            _apply(w, entry)
        return
    batch = BatchWriter(conn, entries)
    for entry in entries:
        _apply(batch, entry)
    batch.flush()


def rebuild(conn: Connection, table: str) -> int:
    """Recompute a table's projections from its journal (after a schema change, or to check them).

    Runs in the caller's transaction; returns the number of entries replayed.
    """
    from engine.store.records import row_to_entry

    for t in (schema.rounds, schema.number_counts, schema.daily_totals, schema.daily_handle):
        conn.execute(sa.delete(t).where(t.c.table_id == table))
    # The Rules Submissions this table loaded first are stored again from its entries (others keep
    # the table that loaded them first).
    subs = schema.rules_submissions
    conn.execute(sa.delete(subs).where(subs.c.first_table == table))
    j = schema.journal
    count = 0
    for row in conn.execute(sa.select(j).where(j.c.table_id == table).order_by(j.c.seq)).all():
        apply(conn, row_to_entry(row))
        count += 1
    return count


register_projections(apply, apply_many)  # every journal append keeps these in its transaction
