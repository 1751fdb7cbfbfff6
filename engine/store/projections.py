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
- `round.wager_placed` {"id", "amount", ...} / `round.wager_removed` {"wager_id"}: the round's
  `wagered` is what stands on the felt as placed, from the first chip (an open, held or voided round
  shows its wagers too; the day's totals take a round's money only when it settles).
- `round.voided` {"reason": str}: status `void`; the round keeps what was wagered and `returned` is
  every stake handed back (paid 0); a settled round's money is taken back out of the totals; a spin
  already counted stays counted (the ball did land).
- `round.no_spin`, `round.result_before_close`, `round.irregularity` {"reason" | "kind", ...}: an
  irregularity counted on the round (round_id optional for `round.irregularity`) and the day.
- `history.imported` {"number": int, "time": ISO text, "direction"?: ..., "source"?: str}: a settled
  round with source "import", counted for the day of its own `time`.

All of these need the event's `round_id`, except `round.irregularity`.
The `user.*` entries of the store's own "floor" chain keep the `users` table (engine.store.users_journal).
Every other type (RNG details, wheel messages, bonus picks…) is journaled only.
Entries are read through the registry: `PROJECTIONS` below holds one rule per projected entry type,
given the entry's typed payload (engine.journal_types.read: an old journal's spelling and shape, e.g.
`round.closed` or `rules.changed`, reads as today's type and payload class; the payload is parsed and
typed once per entry, cached on it for the fold and the screens). No payload is read by key here; the
types with no derived row are declared (`BY_USERS_JOURNAL`, `NO_PROJECTION`), and
tests/engine/test_entry_types_complete.py holds every EntryType to one of the three. A payload its
class refuses is refused here too (DrrError naming the entry), never projected by guesswork.
Days are UTC dates (`YYYY-MM-DD`) of the event's time (an imported round: its own `time`).

The rules below are the one definition of all this. They read and write rows through `Rows`: each
append runs them on the database (`SqlRows`, in the entry's transaction); `rebuild` runs the same
handlers over rows kept in memory (`MemoryRows`: the journal read in chunks from the driver, rows
written with executemany), which is what makes it fast and keeps it equal to the appends.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection

# The module, not its names: engine.journal_types imports engine.store.records, whose package imports
# this module, so journal_types may still be loading here (its functions are looked up at call time).
from engine import journal_types
from engine import round as _round
from engine.entry_types import LEGACY, EntryType
from engine.errors import DrrError
from engine.exact import format_odds
from engine.floor_events import HistoryImported
from engine.journal_types import entry_type
from engine.store import schema, users_journal
from engine.store.canonical import canonical_json, format_time, parse_time
from engine.store.db import exec_fast
from engine.store.journal import register_projections
from engine.store.records import Entry
from engine.store.rules_store import check_rules_text, record_rules
from engine.table_events import Irregularity, RulesLoaded

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


# A round's wager entry, typed: what its settlement's handle and a removal's total are summed from.
WagerChange = _round.WagerPlaced | _round.WagerRemoved


def _wager_change(type_name: str, text: str, where: str) -> WagerChange:
    """A wager entry read back from the journal's columns (not an Entry of this batch), typed."""
    typed = journal_types.parse(type_name, json.loads(text), where=where)
    if not isinstance(typed, _round.WagerPlaced | _round.WagerRemoved):
        raise DrrError(f"{where} ({type_name}) is not a wager entry")
    return typed


class Rows(Protocol):
    """Where the handlers below read and write projection rows: the database, in each append's own
    transaction (`SqlRows`), memory over a run of entries (`BatchRows`: a forwarded batch, an import), or
    memory for a rebuild (`MemoryRows`). The handlers are the one
    definition of what an entry does to the projections; both paths run them."""

    conn: Connection

    def round(self, entry: Entry) -> dict[str, Any]: ...

    def set_round(self, entry: Entry, values: dict[str, Any]) -> None: ...

    def add_to_round(self, entry: Entry, column: str, units: int) -> None: ...

    def insert_round(self, values: dict[str, Any]) -> None: ...

    def bump(self, table: sa.Table, keys: dict[str, Any], deltas: dict[str, int]) -> None: ...

    def wager_entries(self, entry: Entry, opened: int) -> list[WagerChange]: ...

    def wagers_so_far(self, entry: Entry, opened: int) -> list[WagerChange]: ...


def _unknown_round(entry: Entry) -> DrrError:
    return DrrError(f"{entry.type} for unknown round {entry.round_id!r} on table {entry.table}")


class SqlRows:
    """The projections in the database, read and written row by row (an append's few entries).

    Every append runs these (a wager: one read and one update of its round), so each statement is
    built and compiled once per shape and run through the driver (`exec_fast`): through SQLAlchemy's
    per-call statement building they cost more than the rest of a durable append."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def round(self, entry: Entry) -> dict[str, Any]:
        row = exec_fast(
            self.conn, "projections.round", _READ_ROUND, {"k_table": entry.table, "k_round": entry.round_id}
        ).fetchone()
        if row is None:
            raise _unknown_round(entry)
        values = dict(zip(_ROUND_COLUMNS, row, strict=True))
        for name in _ROUND_BOOLEANS:  # the driver's 0/1 on SQLite, as SQLAlchemy would read it
            if values[name] is not None:
                values[name] = bool(values[name])
        return values

    def set_round(self, entry: Entry, values: dict[str, Any]) -> None:
        names = tuple(values)
        statement = _SET_ROUND.get(names)
        if statement is None:
            r = schema.rounds
            statement = _SET_ROUND[names] = (
                sa.update(r)
                .where(r.c.table_id == sa.bindparam("k_table"), r.c.round_id == sa.bindparam("k_round"))
                .values({r.c[n]: sa.bindparam(f"v_{n}") for n in names})
            )
        params = {f"v_{n}": v for n, v in values.items()}
        params["k_table"], params["k_round"] = entry.table, entry.round_id
        exec_fast(self.conn, ("projections.set_round", names), statement, params)

    def add_to_round(self, entry: Entry, column: str, units: int) -> None:
        """Add `units` to the round's `column` in one UPDATE (a wager's append: no read of the row
        first, issue 28); an unknown round is refused as `round` refuses it."""
        statement = _ADD_TO_ROUND.get(column)
        if statement is None:
            r = schema.rounds
            statement = _ADD_TO_ROUND[column] = (
                sa.update(r)
                .where(r.c.table_id == sa.bindparam("k_table"), r.c.round_id == sa.bindparam("k_round"))
                .values({r.c[column]: r.c[column] + sa.bindparam("d_units", type_=r.c[column].type)})
            )
        params = {"k_table": entry.table, "k_round": entry.round_id, "d_units": units}
        if not exec_fast(self.conn, ("projections.add_to_round", column), statement, params).rowcount:
            raise _unknown_round(entry)

    def insert_round(self, values: dict[str, Any]) -> None:
        self.conn.execute(sa.insert(schema.rounds).values(values))

    def bump(self, table: sa.Table, keys: dict[str, Any], deltas: dict[str, int]) -> None:
        """Add `deltas` to the aggregate row `keys`, creating it at zero first if needed."""
        deltas = {k: v for k, v in deltas.items() if v}
        if not deltas:
            return
        shape = (table.name, tuple(keys), tuple(deltas))
        statement = _BUMP.get(shape)
        if statement is None:
            statement = _BUMP[shape] = (
                sa.update(table)
                .where(*[table.c[k] == sa.bindparam(f"k_{k}") for k in keys])
                .values({table.c[k]: table.c[k] + _delta(table, k) for k in deltas})
            )
        params = {f"k_{k}": v for k, v in keys.items()}
        params.update({f"d_{k}": v for k, v in deltas.items()})
        done = exec_fast(self.conn, ("projections.bump", shape), statement, params).rowcount
        if not done:
            self.conn.execute(sa.insert(table).values(_new_aggregate(table, keys, deltas)))

    def wager_entries(self, entry: Entry, opened: int) -> list[WagerChange]:
        """The round's wager entries (typed) in chain order, up to `entry`."""
        return self.wagers_so_far(entry, opened)

    def wagers_so_far(self, entry: Entry, opened: int) -> list[WagerChange]:
        """The round's wager entries up to `entry` (a bulk append has stored the later ones already).
        `opened` is the round's first seq (its row's `seq`): the read is bounded by it on both sides,
        so it costs the round's span of the journal whatever the plan (on PostgreSQL without
        statistics, `table_id = ? AND round_id = ?` alone was planned as a scan of the table's whole
        chain through the primary key, per settled round)."""
        params = {**_wager_params(entry), "k_from": opened, "k_seq": entry.seq}
        rows = exec_fast(self.conn, "projections.wagers_so_far", _WAGERS_SO_FAR, params).fetchall()
        where = f"journal entry of round {entry.round_id} of table {entry.table}"
        return [_wager_change(t, text, where) for t, text in rows]


def _wager_rows(conn: Connection, table: str, first: int, last: int) -> list[Any]:
    """(round_id, seq, type, payload) of every wager entry of `table` between seqs `first` and `last`."""
    j = schema.journal
    query = sa.select(j.c.round_id, j.c.seq, j.c.type, j.c.payload).where(
        j.c.table_id == table, j.c.seq >= first, j.c.seq <= last, j.c.type.in_(_WAGER_TYPES)
    )
    return [tuple(row) for row in conn.execute(query.order_by(j.c.seq))]


_WAGER_TYPES = (EntryType.ROUND_WAGER_PLACED.value, EntryType.ROUND_WAGER_REMOVED.value)
# The entries whose handlers read a round's wager entries (settlement: the handle; a removal: the total).
_READS_WAGERS = frozenset({EntryType.ROUND_SETTLED.value, EntryType.ROUND_WAGER_REMOVED.value})
# The entries whose handlers make a round's row (`insert_round`).
_OPENS = frozenset({EntryType.ROUND_OPENED.value, EntryType.HISTORY_IMPORTED.value})
_ROUND_COLUMNS = tuple(c.name for c in schema.rounds.columns)
_ROUND_BOOLEANS = tuple(c.name for c in schema.rounds.columns if isinstance(c.type, sa.Boolean))
_READ_ROUND = sa.select(*schema.rounds.columns).where(
    schema.rounds.c.table_id == sa.bindparam("k_table"), schema.rounds.c.round_id == sa.bindparam("k_round")
)
_SET_ROUND: dict[tuple[str, ...], Any] = {}  # the columns an UPDATE of a round sets -> its statement
_BUMP: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Any] = {}  # (table, keys, deltas) -> UPDATE
_ADD_TO_ROUND: dict[str, Any] = {}  # the column an UPDATE adds to -> its statement


def _wager_entries_query(*where: Any) -> Any:
    j = schema.journal
    return (
        sa.select(j.c.type, j.c.payload)
        .where(
            j.c.table_id == sa.bindparam("k_table"),
            j.c.round_id == sa.bindparam("k_round"),
            # the two types as plain parameters (an IN list SQLAlchemy expands per call cannot be precompiled)
            j.c.type.in_([sa.bindparam("k_placed"), sa.bindparam("k_removed")]),
            *where,
        )
        .order_by(j.c.seq)
    )


_WAGERS_SO_FAR = _wager_entries_query(
    schema.journal.c.seq >= sa.bindparam("k_from"), schema.journal.c.seq <= sa.bindparam("k_seq")
)


def _delta(table: sa.Table, column: str) -> Any:
    return sa.bindparam(f"d_{column}", type_=table.c[column].type)


def _wager_params(entry: Entry) -> dict[str, Any]:
    placed, removed = _WAGER_TYPES
    return {"k_table": entry.table, "k_round": entry.round_id, "k_placed": placed, "k_removed": removed}


def _new_aggregate(table: sa.Table, keys: dict[str, Any], deltas: dict[str, int]) -> dict[str, Any]:
    row: dict[str, Any] = {c.name: 0 for c in table.columns if c.name not in keys}
    row.update(keys)
    row.update(deltas)
    return row


def _lucky_numbers(lucky_text: str | None) -> list[int]:
    return [int(pair[0]) for pair in json.loads(lucky_text)] if lucky_text else []


def _count_spin(
    rows: Rows, table: str, day: str, direction: str, number: int, row: dict[str, Any], sign: int = 1
) -> tuple[bool, bool]:
    lucky = _lucky_numbers(row["lucky"])
    drawn = row["lucky"] is not None
    lucky_hit = number in lucky
    bonus_hit = row["bonus_number"] is not None and number == row["bonus_number"]
    rows.bump(
        schema.number_counts,
        {"table_id": table, "day": day, "direction": direction, "number": number},
        {"spins": sign},
    )
    rows.bump(
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


def _new_round(
    rows: Rows,
    entry: Entry,
    *,
    dealer: str | None = None,
    game_number: int | None = None,
    rules_sha256: str | None = None,
) -> None:
    values: dict[str, Any] = dict.fromkeys(_ROUND_COLUMNS)
    values.update(
        table_id=entry.table,
        round_id=entry.round_id,
        seq=entry.seq,
        status="open",
        source="table",
        opened_at=entry.time,
        dealer=dealer,
        game_number=game_number,
        rules_sha256=rules_sha256,
        lucky_count=0,
        lucky_hit=False,
        bonus_hit=False,
        wagered=0,
        paid=0,
        returned=0,
        manual=False,
        irregularities=0,
    )
    rows.insert_round(values)


def _opened(rows: Rows, entry: Entry, p: _round.RoundOpened) -> None:
    _new_round(rows, entry, dealer=p.dealer, game_number=p.game_number, rules_sha256=p.rules_sha256)


def _closed(rows: Rows, entry: Entry, p: _round.BetsClosed) -> None:
    # The odds as the journal's contracts write them ("199", "199/2"); an early journal's
    # `round.closed` reads as the same BetsClosed (engine.journal_types).
    lucky = sorted([_number(n, "lucky number"), format_odds(x)] for n, x in p.draw.lucky.items())
    rows.round(entry)
    rows.set_round(
        entry,
        {
            "status": "closed",
            "closed_at": entry.time,
            "lucky": canonical_json(lucky),
            "lucky_count": len(lucky),
            "bonus_number": _number(p.draw.bonus_number, "bonus_number"),
        },
    )


def _result(rows: Rows, entry: Entry, p: _round.ResultRecorded) -> None:
    number = _number(p.number, "result number")
    row = rows.round(entry)
    direction = _direction(p.direction)
    lucky_hit, bonus_hit = _count_spin(rows, entry.table, entry.time[:10], direction, number, row)
    rows.set_round(
        entry,
        {
            "status": "result",
            "result": number,
            "result_at": entry.time,
            "manual": p.source == "manual",
            "direction": direction or None,
            "lucky_hit": lucky_hit,
            "bonus_hit": bonus_hit,
        },
    )


def _corrected(rows: Rows, entry: Entry, p: _round.ResultCorrected) -> None:
    new = _number(p.new, "corrected number")
    row = rows.round(entry)
    if row["result"] is None:
        raise DrrError(f"round {entry.round_id} has no result to correct")
    day, direction = (row["result_at"] or entry.time)[:10], row["direction"] or ""
    _count_spin(rows, entry.table, day, direction, row["result"], row, sign=-1)
    lucky_hit, bonus_hit = _count_spin(rows, entry.table, day, direction, new, row)
    rows.set_round(entry, {"result": new, "lucky_hit": lucky_hit, "bonus_hit": bonus_hit, "manual": True})


def _bonus(rows: Rows, entry: Entry, p: _round.BonusStarted) -> None:
    rows.round(entry)
    rows.set_round(entry, {"status": "bonus"})


def _standing(wagers: Sequence[WagerChange]) -> dict[str, tuple[str, int]]:
    """The wagers still on the felt after `wagers` (in chain order): id -> (bet name, units)."""
    standing: dict[str, tuple[str, int]] = {}
    for w in wagers:
        if isinstance(w, _round.WagerPlaced):
            standing[w.wager.id] = (w.wager.bet.wire_name, to_units(w.wager.amount, "wager amount"))
        else:
            standing.pop(w.wager_id, None)
    return standing


def _handle_by_bet(rows: Rows, entry: Entry, opened: int) -> dict[str, int]:
    """The round's standing wagers summed by bet name, from its own journal entries (the round opened
    at seq `opened`)."""
    handle: dict[str, int] = {}
    for bet, units in _standing(rows.wager_entries(entry, opened)).values():
        handle[bet] = handle.get(bet, 0) + units
    return handle


def _wager_placed(rows: Rows, entry: Entry, p: _round.WagerPlaced) -> None:
    rows.add_to_round(entry, "wagered", to_units(p.wager.amount, "wager amount"))


def _wager_removed(rows: Rows, entry: Entry, p: _round.WagerRemoved) -> None:
    row = rows.round(entry)
    standing = _standing(rows.wagers_so_far(entry, int(row["seq"])))
    rows.set_round(entry, {"wagered": sum(units for _bet, units in standing.values())})


def _bump_handle(rows: Rows, table: str, day: str, handle: dict[str, int], sign: int) -> None:
    for bet, units in handle.items():
        rows.bump(schema.daily_handle, {"table_id": table, "day": day, "bet": bet}, {"wagered": sign * units})


def _settled(rows: Rows, entry: Entry, p: _round.RoundSettled) -> None:
    row = rows.round(entry)
    wagered = to_units(p.total_wagered, "wagered")
    paid = to_units(p.total_paid, "paid")
    # Without total_returned (an older journal) the paid is taken as everything handed back.
    returned = to_units(p.total_returned, "returned") if p.total_returned is not None else paid
    was_settled = row["status"] == "settled"
    rows.bump(
        schema.daily_totals,
        {"table_id": entry.table, "day": entry.time[:10]},
        {
            "settled": 0 if was_settled else 1,
            "wagered": wagered - (row["wagered"] if was_settled else 0),
            "paid": paid - (row["paid"] if was_settled else 0),
            "returned": returned - (row["returned"] if was_settled else 0),
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
        handle = _handle_by_bet(rows, entry, int(row["seq"]))
        _bump_handle(rows, entry.table, entry.time[:10], handle, +1)
        values["handle"] = canonical_json(handle)
    rows.set_round(entry, values)


def _voided(rows: Rows, entry: Entry, p: _round.RoundVoided) -> None:
    row = rows.round(entry)
    if row["status"] == "void":
        raise DrrError(f"round {entry.round_id} is already void")
    deltas = {"voided": 1}
    if row["status"] == "settled":
        deltas.update(settled=-1, wagered=-row["wagered"], paid=-row["paid"], returned=-row["returned"])
        if row["handle"]:
            # the row's own column (canonical JSON the projection wrote), not a payload
            _bump_handle(rows, entry.table, entry.time[:10], json.loads(row["handle"]), -1)
    rows.bump(schema.daily_totals, {"table_id": entry.table, "day": entry.time[:10]}, deltas)
    # Every stake goes back: what was wagered stays shown, and is what the void returned.
    rows.set_round(
        entry,
        {"status": "void", "paid": 0, "returned": row["wagered"], "handle": None, "note": p.reason},
    )


def _irregularity(
    rows: Rows, entry: Entry, p: Irregularity | _round.NoSpin | _round.ResultBeforeClose
) -> None:
    if entry.round_id is not None:
        row = rows.round(entry)
        rows.set_round(entry, {"irregularities": row["irregularities"] + 1})
    rows.bump(schema.daily_totals, {"table_id": entry.table, "day": entry.time[:10]}, {"irregularities": 1})


def _imported(rows: Rows, entry: Entry, p: HistoryImported) -> None:
    number = _number(p.number, "imported number")
    when = format_time(parse_time(p.time)) if p.time else entry.time
    direction = _direction(p.direction)
    _new_round(rows, entry)
    row = rows.round(entry)
    _count_spin(rows, entry.table, when[:10], direction, number, row)
    rows.set_round(
        entry,
        {
            "status": "settled",
            "source": "import",
            "opened_at": when,
            "result_at": when,
            "settled_at": when,
            "result": number,
            "direction": direction or None,
            "note": p.source,
        },
    )
    rows.bump(schema.daily_totals, {"table_id": entry.table, "day": when[:10]}, {"settled": 1})


def _rules(rows: Rows, entry: Entry, p: RulesLoaded) -> None:
    if getattr(rows, "stores_rules", True):
        record_rules(rows.conn, entry, p)
    else:  # a fold on a read snapshot (engine.store.derived_check.snapshot_problem) writes nothing
        check_rules_text(entry, p)


_Rule = Callable[[Rows, Entry, Any], None]

# The one table of what each entry type does to the projections: its rule, given the entry and its
# typed payload (engine.journal_types.read: an old journal's spelling, e.g. `round.closed` or
# `rules.changed`, reads as today's type and payload). Every other type is declared below.
PROJECTIONS: dict[EntryType, _Rule] = {
    EntryType.ROUND_OPENED: _opened,
    EntryType.ROUND_WAGER_PLACED: _wager_placed,
    EntryType.ROUND_WAGER_REMOVED: _wager_removed,
    EntryType.ROUND_BETS_CLOSED: _closed,
    EntryType.ROUND_RESULT: _result,
    EntryType.ROUND_RESULT_CORRECTED: _corrected,
    EntryType.ROUND_BONUS_STARTED: _bonus,
    EntryType.ROUND_SETTLED: _settled,
    EntryType.ROUND_VOIDED: _voided,
    EntryType.ROUND_IRREGULARITY: _irregularity,
    EntryType.ROUND_NO_SPIN: _irregularity,
    EntryType.ROUND_RESULT_BEFORE_CLOSE: _irregularity,
    EntryType.HISTORY_IMPORTED: _imported,
    EntryType.TABLE_RULES_LOADED: _rules,
}
HANDLERS = PROJECTIONS  # the name earlier callers import
# The `user.*` entries keep the `users` table (engine.store.users_journal, the floor chain only).
BY_USERS_JOURNAL: frozenset[EntryType] = frozenset(users_journal.USER_TYPES)
# Types journaled only: no derived row (RNG details, wheel messages, bonus picks, keys, alerts...).
NO_PROJECTION: frozenset[EntryType] = frozenset(EntryType) - set(PROJECTIONS) - BY_USERS_JOURNAL
assert not set(PROJECTIONS) & BY_USERS_JOURNAL, "a user entry has one rule: users_journal's"
# Entries projected whether or not they belong to a round.
ROUNDLESS = frozenset({EntryType.ROUND_IRREGULARITY, EntryType.TABLE_RULES_LOADED})


def _project(rows: Rows, entry: Entry) -> None:
    t = entry_type(entry.type)  # today's type through the registry (an old journal's spelling mapped)
    rule = PROJECTIONS.get(t) if t is not None else None
    if rule is None:
        return
    if entry.round_id is None and t not in ROUNDLESS:
        raise DrrError(f"{entry.type} needs a round_id")
    rule(
        rows, entry, journal_types.read(entry)
    )  # typed once per entry (cached on it for the fold and the screens)


def apply(conn: Connection, entry: Entry) -> None:
    """Update the projections for one entry (inside the entry's own transaction)."""
    if entry_type(entry.type) in users_journal.USER_TYPES:
        users_journal.apply(conn, entry)  # the users table: the store's own floor chain only
        return
    _project(SqlRows(conn), entry)


# A run of at least this many entries is folded in memory and written in bulk (`BatchRows`: a forwarded
# batch, an import); a table's own appends (a command's few entries) go row by row, cheaper for so few.
BULK_FROM = 32


def apply_many(conn: Connection, entries: Sequence[Entry]) -> None:
    """`apply` for a run of entries, in order; a long run is folded in memory and written in bulk (the
    same rows; the entries must already be in the journal, as `insert_entries` puts them first)."""
    rows: SqlRows | BatchRows = SqlRows(conn) if len(entries) < BULK_FROM else BatchRows(conn, entries)
    for entry in entries:
        if entry_type(entry.type) in users_journal.USER_TYPES:
            users_journal.apply(conn, entry)  # the users table, at once (no other projection reads it)
        else:
            _project(rows, entry)
    if isinstance(rows, BatchRows):
        rows.flush()


# -- a run of entries on top of the stored projections: the same handlers, rows in memory ------------

_CHUNK = 500  # round ids per IN (...) list
_KEYS: dict[str, tuple[str, ...]] = {}  # an aggregate table's primary key columns, by table name
# What a new `rounds` row holds in the columns its insert leaves out (the schema's defaults).
_ROUND_DEFAULTS: dict[str, Any] = {
    c.name: (c.default.arg if c.default is not None and not callable(c.default.arg) else None)  # type: ignore[attr-defined]
    for c in schema.rounds.columns
}


class BatchRows:
    """A run of entries (any tables) folded in memory over the stored projections, written by `flush()`.

    The rounds the run names are read in one query per table; the handlers change them in memory; the
    aggregates' deltas are added up. `flush` INSERTs the new rounds, UPDATEs the changed ones and adds
    the deltas with one upsert per aggregate table: a few statements instead of several per entry.
    A round's wager entries (for its settlement and a removed wager) come from the run itself, and
    for the rounds opened before it, from one read per table of the journal between the earliest such
    round's opening and the run (never per entry, never the whole chain)."""

    def __init__(self, conn: Connection, entries: Sequence[Entry]) -> None:
        self.conn = conn
        self.entries = entries
        self.rounds: dict[tuple[str, str], dict[str, Any]] = {}
        self.new: set[tuple[str, str]] = set()
        self.dirty: set[tuple[str, str]] = set()
        self.deltas: dict[str, dict[tuple[Any, ...], dict[str, int]]] = {}
        # The run's own wager entries by round, (seq, type, payload) in order; each table's first seq in
        # the run, when the run continues that table's stored chain without a gap (else None: read the
        # journal as one by one does); the stored rounds' earlier wager entries, read on first need.
        self._wagers: dict[tuple[str, str], list[tuple[int, WagerChange]]] = {}
        spans: dict[str, list[int]] = {}
        for e in entries:
            span = spans.setdefault(e.table, [e.seq, e.seq, 0])
            span[0], span[1], span[2] = min(span[0], e.seq), max(span[1], e.seq), span[2] + 1
            if e.round_id is not None and e.type in _WAGER_TYPES:
                typed = journal_types.read(e)  # cached on the entry: its own projection reads the same one
                if isinstance(typed, _round.WagerPlaced | _round.WagerRemoved):
                    self._wagers.setdefault((e.table, e.round_id), []).append((e.seq, typed))
        self._first: dict[str, int | None] = {
            t: (lo if hi - lo + 1 == n else None) for t, (lo, hi, n) in spans.items()
        }
        self._earlier: dict[tuple[str, str], list[WagerChange]] | None = None
        # Only the rounds the run does not open itself are read: a handful (the round under way when the
        # run began, a late correction), each found by its key. Reading every round the run names in one
        # IN list was planned as a scan of the table's every round on a PostgreSQL without statistics (a
        # floor just filled, autovacuum off). A round the run opens that is stored already is caught
        # when `flush` inserts it.
        opens = {(e.table, e.round_id) for e in entries if e.round_id is not None and e.type in _OPENS}
        r = schema.rounds
        for table, ids in _by_table(
            {(e.table, e.round_id) for e in entries if e.round_id is not None} - opens
        ).items():
            for i in range(0, len(ids), _CHUNK):
                for row in conn.execute(
                    sa.select(r).where(r.c.table_id == table, r.c.round_id.in_(ids[i : i + _CHUNK]))
                ):
                    self.rounds[(table, row.round_id)] = dict(row._mapping)

    def round(self, entry: Entry) -> dict[str, Any]:
        row = self.rounds.get((entry.table, str(entry.round_id)))
        if row is None:
            raise _unknown_round(entry)
        return row  # the handlers read it, then change it only through set_round

    def set_round(self, entry: Entry, values: dict[str, Any]) -> None:
        key = (entry.table, str(entry.round_id))
        row = self.rounds.get(key)
        if row is None:
            return  # an UPDATE of no row changes nothing, as in the database
        row.update(values)
        if key not in self.new:
            self.dirty.add(key)

    def add_to_round(self, entry: Entry, column: str, units: int) -> None:
        self.set_round(entry, {column: self.round(entry)[column] + units})

    def insert_round(self, values: dict[str, Any]) -> None:
        key = (str(values["table_id"]), str(values["round_id"]))
        if key in self.rounds:
            raise DrrError(f"round {key[1]!r} of table {key[0]} is opened twice in its journal")
        self.rounds[key] = {**_ROUND_DEFAULTS, **values}
        self.new.add(key)

    def bump(self, table: sa.Table, keys: dict[str, Any], deltas: dict[str, int]) -> None:
        names = _KEYS.get(table.name)
        if names is None:
            names = _KEYS[table.name] = tuple(c.name for c in table.primary_key.columns)
        held: dict[str, int] | None = None
        for k, v in deltas.items():
            if v:
                if held is None:
                    held = self.deltas.setdefault(table.name, {}).setdefault(
                        tuple(keys[n] for n in names), {}
                    )
                held[k] = held.get(k, 0) + v

    def wager_entries(self, entry: Entry, opened: int) -> list[WagerChange]:
        return self.wagers_so_far(entry, opened)

    def wagers_so_far(self, entry: Entry, opened: int) -> list[WagerChange]:
        first = self._first.get(entry.table)
        if first is None:  # not a gapless run of the table's chain: read it as one by one does
            return SqlRows(self.conn).wagers_so_far(entry, opened)
        key = (entry.table, str(entry.round_id))
        earlier: list[WagerChange] = []
        if opened < first:  # the round began before the run: its first wagers are stored
            read = self._earlier_wagers()
            if key not in read:  # not foreseen from the run's entry types: read it as one by one does
                return SqlRows(self.conn).wagers_so_far(entry, opened)
            earlier = read[key]
        return earlier + [w for seq, w in self._wagers.get(key, []) if seq <= entry.seq]

    def _earlier_wagers(self) -> dict[tuple[str, str], list[WagerChange]]:
        """The stored wager entries (before the run) of the rounds opened before the run that settle
        or lose a wager in it: per table, one read of the journal from the earliest one's opening."""
        if self._earlier is not None:
            return self._earlier
        asking = {
            (e.table, str(e.round_id))
            for e in self.entries
            if e.round_id is not None and e.type in _READS_WAGERS
        }
        found: dict[tuple[str, str], list[WagerChange]] = {}
        for table, ids in _by_table(asking).items():
            first = self._first.get(table)
            opened = [
                int(row["seq"])
                for rid in ids
                if (row := self.rounds.get((table, rid))) is not None
                and first is not None
                and int(row["seq"]) < first
            ]
            if not opened or first is None:
                continue
            found.update({(table, rid): [] for rid in ids})
            for rid, seq, type_name, text in _wager_rows(self.conn, table, min(opened), first - 1):
                if (table, rid) in found:
                    where = f"journal entry {seq} of table {table}"
                    found[(table, rid)].append(_wager_change(type_name, text, where))
        self._earlier = found
        return found

    def _insert_new(self, rows: list[dict[str, Any]]) -> None:
        """INSERT the rounds the run opened; one stored already (not read: see __init__) is a round
        opened twice in its journal, refused in one line as `insert_round` does."""
        try:
            insert_rows(self.conn, schema.rounds, rows)
        except Exception as exc:  # SQLite: sa.exc.IntegrityError; COPY on PostgreSQL: psycopg's own
            orig = getattr(exc, "orig", exc)
            if not isinstance(exc, sa.exc.IntegrityError) and getattr(orig, "sqlstate", None) != "23505":
                raise
            diag = getattr(orig, "diag", None)
            which = getattr(diag, "message_detail", None) or str(orig).splitlines()[0]
            raise DrrError(
                f"a round this run opens is stored already: opened twice in its journal ({which})"
            ) from None

    def flush(self) -> None:
        r = schema.rounds
        if self.new:
            self._insert_new([self.rounds[k] for k in sorted(self.new)])
        if self.dirty:
            columns = [c.name for c in r.columns if not c.primary_key]
            update = (
                sa.update(r)
                .where(r.c.table_id == sa.bindparam("k_table"), r.c.round_id == sa.bindparam("k_round"))
                .values({c: sa.bindparam(f"v_{c}") for c in columns})
            )
            self.conn.execute(
                update,
                [
                    {"k_table": t, "k_round": rid, **{f"v_{c}": self.rounds[(t, rid)][c] for c in columns}}
                    for t, rid in sorted(self.dirty)
                ],
            )
        for name, rows in self.deltas.items():
            _add_deltas(self.conn, schema.metadata.tables[name], rows)
        self.new.clear()
        self.dirty.clear()
        self.deltas.clear()


def _by_table(keys: set[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for table, round_id in sorted(keys):
        out.setdefault(table, []).append(round_id)
    return out


def _add_deltas(conn: Connection, table: sa.Table, rows: dict[tuple[Any, ...], dict[str, int]]) -> None:
    """Add each row's deltas to the aggregate (created at zero first): one upsert for them all."""
    keys = [c.name for c in table.primary_key.columns]
    values = [c.name for c in table.columns if not c.primary_key]
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    stmt = insert(table)
    stmt = stmt.on_conflict_do_update(
        index_elements=keys, set_={v: table.c[v] + stmt.excluded[v] for v in values}
    )
    conn.execute(
        stmt,
        [
            {**dict(zip(keys, key, strict=True)), **{v: d.get(v, 0) for v in values}}
            for key, d in rows.items()
        ],
    )


# -- rebuild: the same handlers over rows kept in memory ------------------------------------------

REBUILD_CHUNK = 50_000  # journal entries read per query (constant memory)
_FINISHED = frozenset({"settled", "void"})
_AGGREGATES = (schema.number_counts, schema.daily_totals, schema.daily_handle)


class MemoryRows:
    """One table's projections kept in memory while a rebuild folds its journal, written in bulk.

    Aggregates stay in memory to the end (a row per day, number and bet). Rounds are written out in
    batches once settled or void (`flush`), so memory stays bounded on a journal of years; an entry
    that later touches a written round (a void, a correction) takes it back from the database."""

    stores_rules = True  # a rules entry's Rules Submission is stored (not by a fold on a read snapshot)

    def __init__(self, conn: Connection, table: str) -> None:
        self.conn = conn
        self.table = table
        self.rounds: dict[str, dict[str, Any]] = {}
        self.written: set[str] = set()  # round ids flushed to the database
        self.aggregates: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {t.name: {} for t in _AGGREGATES}
        self.wagers: dict[str, list[WagerChange]] = {}  # round id -> its wager entries, typed

    def round(self, entry: Entry) -> dict[str, Any]:
        rid = entry.round_id
        row = self.rounds.get(rid) if rid is not None else None
        if row is not None:
            return row  # the handlers read it, then change it only through set_round
        if rid in self.written:
            return self._take_back(rid)
        raise _unknown_round(entry)

    def _take_back(self, rid: str) -> dict[str, Any]:
        r = schema.rounds
        where = (r.c.table_id == self.table, r.c.round_id == rid)
        row = dict(self.conn.execute(sa.select(r).where(*where)).one()._mapping)
        self.conn.execute(sa.delete(r).where(*where))
        self.written.discard(rid)
        self.rounds[rid] = row
        return row

    def set_round(self, entry: Entry, values: dict[str, Any]) -> None:
        rid = entry.round_id
        if rid is not None and rid not in self.rounds and rid in self.written:
            self._take_back(rid)
        row = self.rounds.get(rid) if rid is not None else None
        if row is not None:  # an UPDATE of no row changes nothing, as in the database
            row.update(values)

    def add_to_round(self, entry: Entry, column: str, units: int) -> None:
        self.set_round(entry, {column: self.round(entry)[column] + units})

    def insert_round(self, values: dict[str, Any]) -> None:
        rid = values["round_id"]
        if rid in self.rounds or rid in self.written:
            raise DrrError(f"round {rid!r} of table {self.table} is opened twice in its journal")
        self.rounds[rid] = values

    def bump(self, table: sa.Table, keys: dict[str, Any], deltas: dict[str, int]) -> None:
        deltas = {k: v for k, v in deltas.items() if v}
        if not deltas:
            return
        rows = self.aggregates[table.name]
        k = tuple(keys.values())
        row = rows.get(k)
        if row is None:
            rows[k] = _new_aggregate(table, keys, deltas)
            return
        for name, v in deltas.items():
            row[name] += v

    def wager_entries(self, entry: Entry, opened: int) -> list[WagerChange]:
        return self.wagers.pop(entry.round_id or "", [])

    def wagers_so_far(self, entry: Entry, opened: int) -> list[WagerChange]:
        return list(self.wagers.get(entry.round_id or "", []))  # `saw_wager` ran for `entry` first

    def saw_wager(self, round_id: str, wager: WagerChange) -> None:
        self.wagers.setdefault(round_id, []).append(wager)

    def flush(self, *, everything: bool = False) -> None:
        """Write the finished rounds (with `everything`, all rounds and the aggregates)."""
        done = [rid for rid, row in self.rounds.items() if everything or row["status"] in _FINISHED]
        if done:
            self._insert(schema.rounds, [self.rounds.pop(rid) for rid in done])
            self.written.update(done)
        if everything:
            for t in _AGGREGATES:
                self._insert(t, list(self.aggregates[t.name].values()))

    def _insert(self, table: sa.Table, rows: list[dict[str, Any]]) -> None:
        insert_rows(self.conn, table, rows)


def insert_rows(conn: Connection, table: sa.Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rows in bulk: COPY on PostgreSQL (an executemany there is one huge statement psycopg parses
    placeholder by placeholder: ~0.1 s for a forwarded batch's 200 rounds), executemany elsewhere."""
    if not rows:
        return
    if conn.dialect.name != "postgresql":
        conn.execute(sa.insert(table), list(rows))
        return
    names = [c.name for c in table.columns]
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    with cursor.copy(f"COPY {table.name} ({', '.join(names)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(tuple(row[n] for n in names))


def rebuild(conn: Connection, table: str) -> int:
    """Recompute a table's projections from its journal (after a schema change, or to check them).

    Set-based: the journal is read in chunks straight from the driver, folded in memory by the same
    handlers each append runs (`MemoryRows`), and the rows are written with executemany. Runs in the
    caller's transaction; returns the number of entries replayed.
    """
    for t in (schema.rounds, *_AGGREGATES):
        conn.execute(sa.delete(t).where(t.c.table_id == table))
    # The Rules Submissions this table loaded first are stored again from its entries (others keep
    # the table that loaded them first).
    subs = schema.rules_submissions
    conn.execute(sa.delete(subs).where(subs.c.first_table == table))
    if table == users_journal.FLOOR:
        users_journal.rebuild(conn)  # the users table, made again from the floor chain's user entries
    return fold_journal(conn, table, MemoryRows(conn, table))


# The stored spellings of the entries that store a Rules Submission (the one write of a held fold).
_STORES_RULES = frozenset(
    {EntryType.TABLE_RULES_LOADED.value, *(n for n, t in LEGACY.items() if t is EntryType.TABLE_RULES_LOADED)}
)


def round_part(round_id: str | None, parts: int) -> int:
    """Which of `parts` a round falls in when a fold is split across processes (a stable hash of its
    id, the same in every process; an entry of no round: part 0)."""
    return 0 if round_id is None or parts < 2 else zlib.crc32(round_id.encode()) % parts


def fold_journal(conn: Connection, table: str, rows: MemoryRows, part: tuple[int, int] | None = None) -> int:
    """Fold a table's journal into `rows` with the handlers every append runs (the chunked read of
    `rebuild`, also `drr audit verify`'s check of the stored projections); returns the entries read.

    `part` (k, n): only the entries of the rounds in part k of n (`round_part`; the entries of no
    round, and those that store a Rules Submission, in part 0: the other parts write nothing, so
    they fold in read transactions beside part 0's). A round's row depends only on its own entries
    and the aggregates are sums over rounds, so n folds of the n parts, side by side, make the whole
    fold's rows and, added up, its aggregates
    (engine.store.derived_check splits its check so across cores)."""
    k, n = part if part is not None else (0, 1)
    handled: dict[str, bool] = {}  # stored spelling -> does a handler take it (through the registry)
    mark = "?" if conn.dialect.name == "sqlite" else "%s"
    query = (
        "SELECT seq, time, user_name, round_id, type, payload FROM journal "
        f"WHERE table_id = {mark} AND seq > {mark} ORDER BY seq LIMIT {REBUILD_CHUNK}"
    )
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    count, last = 0, 0
    try:
        while True:
            cursor.execute(query, (table, last))
            chunk = cursor.fetchall()
            for seq, time, user, round_id, type_name, payload in chunk:
                takes = handled.get(type_name)
                if takes is None:
                    takes = handled[type_name] = entry_type(type_name) in PROJECTIONS
                if not takes:
                    continue  # journaled only: its payload is not read at all
                if n > 1 and (0 if type_name in _STORES_RULES else round_part(round_id, n)) != k:
                    continue  # another part's round: folded there
                entry = Entry(table, seq, time, user, round_id, type_name, payload, "", "")
                if type_name in _WAGER_TYPES and round_id is not None:
                    wager = journal_types.read(
                        entry
                    )  # typed once: the wager's own rule below reads the cached one
                    if isinstance(wager, _round.WagerPlaced | _round.WagerRemoved):
                        rows.saw_wager(round_id, wager)  # for the wager handlers and settle
                _project(rows, entry)
            count += len(chunk)
            if len(chunk) < REBUILD_CHUNK:
                break
            last = int(chunk[-1][0])
            rows.flush()
    finally:
        cursor.close()
    rows.flush(everything=True)
    return count


register_projections(apply, apply_many)  # every journal append keeps these in its transaction
