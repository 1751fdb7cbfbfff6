"""Round history: filtered listing and paging (from `rounds`), full recall (from the journal),
CSV/JSON-lines export, CSV import of results (all rows or none), and voiding a round.

Imported results enter through the journal as `history.imported` events (one transaction), so the
chain stays whole and the projections count them like live spins.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

import sqlalchemy as sa

from engine.auth import User, require
from engine.errors import DrrError
from engine.floor_events import HistoryImported
from engine.journal_types import write
from engine.round import RoundVoided
from engine.store import schema
from engine.store.canonical import format_time, parse_time
from engine.store.db import Store, check_table_id
from engine.store.projections import from_units, to_units
from engine.store.records import NewEvent

EXPORT_COLUMNS = (
    "round_id", "table", "time", "status", "result", "lucky", "bonus_number", "wagered", "paid",
    "returned", "manual", "irregularities", "dealer", "direction", "source",
)  # fmt: skip


@dataclass(frozen=True)
class RoundFilter:
    table: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    number: int | None = None
    min_payout: Decimal | None = None
    status: str | None = None
    dealer: str | None = None
    round_id: str | None = None

    def apply(self, query: sa.Select) -> sa.Select:  # type: ignore[type-arg]
        r = schema.rounds
        if self.table is not None:
            query = query.where(r.c.table_id == self.table)
        if self.since is not None:
            query = query.where(r.c.opened_at >= format_time(self.since))
        if self.until is not None:
            query = query.where(r.c.opened_at < format_time(self.until))
        if self.number is not None:
            query = query.where(r.c.result == self.number)
        if self.min_payout is not None:
            query = query.where(r.c.paid >= to_units(self.min_payout, "--min-payout"))
        if self.status is not None:
            query = query.where(r.c.status == self.status)
        if self.dealer is not None:
            query = query.where(r.c.dealer == self.dealer)
        if self.round_id is not None:
            query = query.where(r.c.round_id == self.round_id)
        return query


def round_record(row: Any) -> dict[str, Any]:
    """A `rounds` row as the history's JSON object (money as decimal strings)."""
    return {
        "round_id": row.round_id,
        "table": row.table_id,
        "time": row.opened_at,
        "status": row.status,
        "result": row.result,
        "lucky": json.loads(row.lucky) if row.lucky else [],
        "bonus_number": row.bonus_number,
        "wagered": str(from_units(row.wagered)),
        "paid": str(from_units(row.paid)),
        "returned": str(from_units(row.returned)),
        "manual": bool(row.manual),
        "irregularities": row.irregularities,
        "dealer": row.dealer,
        "direction": row.direction,
        "source": row.source,
        "closed_at": row.closed_at,
        "result_at": row.result_at,
        "settled_at": row.settled_at,
        "note": row.note,
        "rules_sha256": row.rules_sha256,  # the Rules Submission it was played under (None: imported)
    }


def count_rounds(store: Store, flt: RoundFilter = RoundFilter()) -> int:
    with store.read() as conn:
        return int(
            conn.execute(flt.apply(sa.select(sa.func.count()).select_from(schema.rounds))).scalar_one()
        )


def list_rounds(
    store: Store,
    flt: RoundFilter = RoundFilter(),
    *,
    limit: int | None = None,
    offset: int = 0,
    newest_first: bool = False,
    batch: int = 5000,
) -> Iterator[dict[str, Any]]:
    """Rounds matching `flt` in time order (a page with `limit`/`offset`), read in batches.

    After the first batch each one continues after the last row seen (keyset), so exporting a
    million rounds reads each row once instead of skipping ever longer prefixes.
    """
    r = schema.rounds
    key = (r.c.opened_at, r.c.table_id, r.c.round_id)
    order = tuple(c.desc() for c in key) if newest_first else key
    done = 0
    after: tuple[Any, ...] | None = None
    while limit is None or done < limit:
        size = batch if limit is None else min(batch, limit - done)
        query = flt.apply(sa.select(r)).order_by(*order).limit(size)
        if after is None:
            query = query.offset(offset)
        else:
            past = (
                sa.tuple_(*key) < sa.tuple_(*after) if newest_first else sa.tuple_(*key) > sa.tuple_(*after)
            )
            query = query.where(past)
        with store.read() as conn:
            rows = conn.execute(query).all()
        yield from (round_record(row) for row in rows)
        done += len(rows)
        if len(rows) < size:
            return
        after = (rows[-1].opened_at, rows[-1].table_id, rows[-1].round_id)


def _find_round(store: Store, round_id: str, table: str | None) -> Any:
    r = schema.rounds
    with store.read() as conn:
        rows = conn.execute(RoundFilter(table=table, round_id=round_id).apply(sa.select(r))).all()
    if not rows:
        where = f" on table {table}" if table else ""
        raise DrrError(f"no round {round_id}{where} in {store.where}")
    if len(rows) > 1:
        tables = ", ".join(row.table_id for row in rows)
        raise DrrError(f"round {round_id} exists on several tables ({tables}): name one with --table")
    return rows[0]


def show_round(store: Store, round_id: str, table: str | None = None) -> dict[str, Any]:
    """Full recall: the round's projection and every journal entry of it, in order."""
    row = _find_round(store, round_id, table)
    entries = store.journal.round_entries(round_id, row.table_id)
    return {"round": round_record(row), "entries": [e.as_dict() for e in entries]}


def export_rounds(store: Store, out: TextIO, fmt: str, flt: RoundFilter = RoundFilter()) -> int:
    """Write the rounds matching `flt` as CSV (a header row) or JSON lines; returns the count."""
    if fmt not in ("csv", "jsonl"):
        raise DrrError(f"unknown export format {fmt!r}: use csv or jsonl")
    writer = csv.writer(out) if fmt == "csv" else None
    if writer is not None:
        writer.writerow(EXPORT_COLUMNS)
    count = 0
    for record in list_rounds(store, flt):
        if writer is not None:
            flat = dict(
                record, table=record["table"], lucky=json.dumps(record["lucky"], separators=(",", ":"))
            )
            writer.writerow(["" if flat[c] is None else flat[c] for c in EXPORT_COLUMNS])
        else:
            out.write(json.dumps(record, sort_keys=True) + "\n")
        count += 1
    return count


@dataclass(frozen=True)
class ImportReport:
    rounds: int
    table: str
    first_seq: int | None
    last_seq: int | None


def _parse_import(
    text: str, table: str | None, digest: str
) -> tuple[list[NewEvent], list[str], dict[tuple[str, str], int]]:
    """The rows as journal events, the bad rows by line, and each event's line (table, round id -> line)."""
    reader = csv.DictReader(io.StringIO(text))
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    missing = [c for c in ("timestamp", "number") if c not in fields]
    if missing:
        return (
            [],
            [
                f"line 1: missing column(s) {', '.join(missing)}"
                " (need timestamp, number; optional round_id, table)"
            ],
            {},
        )
    reader.fieldnames = fields
    events: list[NewEvent] = []
    errors: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    for row in reader:
        line = reader.line_num
        problems = []
        stamp = (row.get("timestamp") or "").strip()
        try:
            when = format_time(parse_time(stamp))
        except ValueError:
            problems.append(f"timestamp {stamp!r} is not an ISO 8601 time")
        raw = (row.get("number") or "").strip()
        number = int(raw) if raw.isascii() and raw.isdigit() else -1  # (int("³") would raise)
        if not 0 <= number <= 36:
            problems.append(f"number {raw!r} is not 0..36")
        row_table = (row.get("table") or "").strip() or table
        if row_table is None:
            problems.append("no table (give --table or a table column)")
        elif table is not None and row_table != table:
            problems.append(f"table {row_table!r} is not the --table {table!r}")
        else:
            try:
                check_table_id(row_table)
            except DrrError as exc:
                problems.append(exc.message)
        round_id = (row.get("round_id") or "").strip() or f"imp-{digest}-{line}"
        if row_table is not None and (row_table, round_id) in seen:
            problems.append(f"round_id {round_id!r} repeats line {seen[(row_table, round_id)]}")
        if problems:
            errors.append(f"line {line}: " + "; ".join(problems))
            continue
        assert row_table is not None
        seen[(row_table, round_id)] = line
        events.append(write(HistoryImported(number, when, "csv"), table=row_table, round_id=round_id))
    return events, errors, seen


def _already_there(store: Store, events: list[NewEvent], lines: dict[tuple[str, str], int]) -> list[str]:
    r = schema.rounds
    by_table: dict[str, list[str]] = {}
    for event in events:
        by_table.setdefault(event.table, []).append(str(event.round_id))
    found: list[tuple[int, str]] = []
    with store.read() as conn:
        for table, ids in by_table.items():
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                query = sa.select(r.c.round_id).where(r.c.table_id == table, r.c.round_id.in_(chunk))
                found += [
                    (
                        lines[(table, rid)],
                        f"line {lines[(table, rid)]}: round {rid} is already in table {table}",
                    )
                    for rid in conn.execute(query).scalars()
                ]
    return [text + " (imported before?)" for _, text in sorted(found)]


def import_csv(
    store: Store, path: Path | str, table: str | None, *, user: User | str | None = None
) -> ImportReport:
    """Import results from CSV: every row is checked first; any bad row (named by line) refuses the file.

    A logged-in `User` must hold "import_history"; a plain name is journaled as given (for tools).
    Timestamps without an offset are read as UTC.
    """
    if isinstance(user, User):
        require(user, "import_history")
    who = user.name if isinstance(user, User) else user
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DrrError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DrrError(f"{path} is not UTF-8 text") from None
    digest = hashlib.sha256(raw).hexdigest()[:10]
    events, errors, lines = _parse_import(text, table, digest)
    if not errors and not events:
        errors.append("no rows to import")
    if not errors:
        errors.extend(_already_there(store, events, lines))
    if errors:
        shown = errors[:20] + ([f"… and {len(errors) - 20} more"] if len(errors) > 20 else [])
        raise DrrError(f"{path}: nothing imported, {len(errors)} bad row(s):\n  " + "\n  ".join(shown))
    events = [NewEvent(e.table, e.type, e.payload, e.round_id, who) for e in events]
    written = store.journal.append_many(events)
    return ImportReport(len(written), events[0].table, written[0].seq, written[-1].seq)


def void_round(store: Store, round_id: str, reason: str, user: User, *, table: str | None = None) -> None:
    """Void a round (pit boss): its wagers are returned; journaled with who and why."""
    require(user, "void_round")
    if not reason.strip():
        raise DrrError("a void needs a reason")
    row = _find_round(store, round_id, table)
    if row.status == "void":
        raise DrrError(f"round {round_id} is already void")
    voided = RoundVoided(reason.strip(), by=user.name, role=user.role, previous_status=row.status)
    from engine.store.forwarded import journal_action  # on a forwarded copy: the floor's own chain

    journal_action(store, write(voided, table=row.table_id, round_id=round_id, user=user.name))
