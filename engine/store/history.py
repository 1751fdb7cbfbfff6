"""Round history: filtered listing and paging (from `rounds`), full recall (from the journal),
CSV/JSON-lines export, CSV import of results (all rows or none), and voiding a round.

Imported results enter through the journal as `history.imported` events (one transaction), so the
chain stays whole and the projections count them like live spins.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

import sqlalchemy as sa

from engine.auth import User, require
from engine.errors import DrrError
from engine.floor_events import HistoryImported
from engine.journal_types import write
from engine.round import RoundVoided
from engine.sequential import DEFAULT_THRESHOLDS, Thresholds
from engine.store import schema
from engine.store.canonical import format_time, parse_time
from engine.store.db import Store, check_table_id
from engine.store.journal import CHECKPOINT_EVERY, ENTRY_COLUMNS
from engine.store.projections import from_units, to_units
from engine.store.records import Entry, NewEvent
from engine.table_events import BiasAlarm

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


@dataclass(frozen=True)
class RoundRecord:
    """One `rounds` row, typed once (money exact): what the history lists and pages, recall, the
    floor's actions and the history browser read of a round. `as_json` is the history's JSON object
    (`drr history list --json`, `show --json`, the export)."""

    round_id: str
    table: str
    time: str  # when it opened
    status: str
    result: int | None
    lucky: tuple[tuple[int, str], ...]  # the Lucky Numbers drawn and their odds ("199/2")
    bonus_number: int | None
    wagered: Decimal
    paid: Decimal  # what the wagers won, stakes not included
    returned: Decimal  # paid plus the winners' stakes (a void: every stake)
    manual: bool
    irregularities: int
    dealer: str | None
    direction: str | None
    source: str  # "table" or "import"
    closed_at: str | None
    result_at: str | None
    settled_at: str | None
    note: str | None
    rules_sha256: str | None  # the Rules Submission it was played under (None: imported)
    lucky_hit: bool  # (the history browser's columns; not in the JSON object)
    bonus_hit: bool

    @classmethod
    def of(cls, row: Any) -> RoundRecord:
        """`row`: a `rounds` row (every column)."""
        return cls(
            round_id=row.round_id,
            table=row.table_id,
            time=row.opened_at,
            status=row.status,
            result=row.result,
            lucky=tuple((int(n), str(odds)) for n, odds in json.loads(row.lucky)) if row.lucky else (),
            bonus_number=row.bonus_number,
            wagered=from_units(row.wagered),
            paid=from_units(row.paid),
            returned=from_units(row.returned),
            manual=bool(row.manual),
            irregularities=int(row.irregularities),
            dealer=row.dealer,
            direction=row.direction,
            source=row.source,
            closed_at=row.closed_at,
            result_at=row.result_at,
            settled_at=row.settled_at,
            note=row.note,
            rules_sha256=row.rules_sha256,
            lucky_hit=bool(row.lucky_hit),
            bonus_hit=bool(row.bonus_hit),
        )

    @property
    def lucky_numbers(self) -> tuple[int, ...]:
        return tuple(n for n, _ in self.lucky)

    @property
    def irregular(self) -> bool:
        return self.irregularities > 0 or self.manual or self.status == "void"

    def as_json(self) -> dict[str, Any]:
        """The round as the history's JSON object (money as decimal strings)."""
        shown = (f.name for f in fields(self) if f.name not in ("lucky_hit", "bonus_hit"))
        record = {name: getattr(self, name) for name in shown}
        money = {k: str(record[k]) for k in ("wagered", "paid", "returned")}
        return {**record, **money, "lucky": [list(pair) for pair in self.lucky]}


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
        yield from (RoundRecord.of(row).as_json() for row in rows)
        done += len(rows)
        if len(rows) < size:
            return
        after = (rows[-1].opened_at, rows[-1].table_id, rows[-1].round_id)


def find_round(
    store: Store, round_id: str, table: str | None = None, *, several: str = "name one with --table"
) -> RoundRecord:
    """The round's record (on `table`, when given); DrrError when the store has none, or has it on
    several tables (`several`: how the caller names one)."""
    r = schema.rounds
    with store.read() as conn:
        rows = conn.execute(RoundFilter(table=table, round_id=round_id).apply(sa.select(r))).all()
    if not rows:
        where = f" on table {table}" if table else ""
        raise DrrError(f"no round {round_id}{where} in {store.where}")
    if len(rows) > 1:
        tables = ", ".join(row.table_id for row in rows)
        raise DrrError(f"round {round_id} exists on several tables ({tables}): {several}")
    return RoundRecord.of(rows[0])


def show_round(store: Store, round_id: str, table: str | None = None) -> dict[str, Any]:
    """Full recall: the round's projection and every journal entry of it, in order."""
    record = find_round(store, round_id, table)
    entries = store.journal.round_entries(round_id, record.table)
    return {"round": record.as_json(), "entries": [e.as_dict() for e in entries]}


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
    # The sequential bias alarms the imported spins tripped, journaled on their tables' chains
    # (engine.table.bias_watch, issue 27), in spin order.
    alarms: tuple[BiasAlarm, ...] = ()
    tables: tuple[str, ...] = ()  # every table the file's rows went to


# What an imported row may hold: a field longer than this is refused (no column needs more; a
# round id is stored in 64 characters), and only times in the span a wheel result can have.
MAX_FIELD = 256
MAX_ROUND_ID = 64
EARLIEST_IMPORT = datetime(1970, 1, 1, tzinfo=UTC)
# table names that are not a gaming table's: the floor's own chain (users, alerts, floor actions)
RESERVED_TABLES = frozenset({"floor"})
# rows written per batch inside the import's one transaction (the memory an import needs is this
# many entries, whatever the file's length)
IMPORT_BATCH = 5000
_SHOWN_ERRORS = 20


def rounds_numbered(store: Store, table: str) -> int:
    """How many round numbers the table has used: its `round.opened` entries, plus the rounds a
    quarantined store used before (`table.quarantined` rounds_before). The table's next round is
    `<table>-<this + 1>` (engine.table.round_commands)."""
    from engine.entry_types import EntryType
    from engine.journal_types import read, spellings
    from engine.table_events import Quarantined

    j = schema.journal
    with store.read() as conn:
        opened = conn.execute(
            sa.select(sa.func.count()).where(
                j.c.table_id == table, j.c.type.in_(spellings(EntryType.ROUND_OPENED))
            )
        ).scalar_one()
        quarantines = conn.execute(
            sa.select(*ENTRY_COLUMNS).where(
                j.c.table_id == table, j.c.type.in_(spellings(EntryType.TABLE_QUARANTINED))
            )
        ).all()
    before = 0
    for row in quarantines:
        p = read(Entry(*row))
        if isinstance(p, Quarantined):
            before += p.rounds_before
    return int(opened) + before


class _ImportCheck:
    """The checks of one import file's rows, row by row in bounded memory: the round ids seen so far
    are kept in a temporary SQLite file (not in memory), the store is asked about existing rounds
    500 ids at a time, and only the first errors are kept (with a count of the rest)."""

    def __init__(self, store: Store, table: str | None, digest: str) -> None:
        import tempfile

        self.store, self.table, self.digest = store, table, digest
        self.errors: list[str] = []
        self.bad = 0
        self.rows = 0
        self._numbered: dict[str, int] = {}
        self._dir = tempfile.TemporaryDirectory(prefix="drr-import-")
        self._seen = sqlite3.connect(str(Path(self._dir.name) / "seen.sqlite"))
        self._seen.execute("CREATE TABLE seen (tbl TEXT, rid TEXT, line INTEGER, PRIMARY KEY (tbl, rid))")
        self._pending: dict[str, list[tuple[str, int]]] = {}

    def close(self) -> None:
        self._seen.close()
        self._dir.cleanup()

    def error(self, text: str) -> None:
        self.bad += 1
        if len(self.errors) < _SHOWN_ERRORS:
            self.errors.append(text)

    def _ahead(self, table: str, round_id: str) -> str | None:
        prefix = f"{table[:50]}-"
        tail = round_id[len(prefix) :]
        if not (round_id.startswith(prefix) and tail.isascii() and tail.isdigit()):
            return None
        if table not in self._numbered:
            self._numbered[table] = rounds_numbered(self.store, table)
        used = self._numbered[table]
        if int(tail) <= used:
            return None
        return (
            f"round_id {round_id!r} is ahead of table {table}'s own rounds ({used} numbered so far): "
            "the table would number a later round the same"
        )

    def row(self, line: int, row: dict[str, Any]) -> NewEvent | None:
        """The row's event, or None (its problems noted under its line)."""
        self.rows += 1
        problems: list[str] = []
        long = sorted(str(k) for k, v in row.items() if isinstance(v, str) and len(v) > MAX_FIELD)
        if long or None in row:
            if long:
                problems.append(f"field(s) {', '.join(long)} longer than {MAX_FIELD} characters")
            if None in row:
                problems.append("more fields than the header names")
            self.error(f"line {line}: " + "; ".join(problems))
            return None
        stamp = (row.get("timestamp") or "").strip()
        when: str | None = None
        try:
            moment = parse_time(stamp)
        except (ValueError, OverflowError):
            problems.append(f"timestamp {stamp!r} is not an ISO 8601 time")
        else:
            latest = datetime.now(UTC) + timedelta(days=1)
            if not EARLIEST_IMPORT <= moment <= latest:
                problems.append(f"timestamp {stamp!r} is not a possible time (1970 to today)")
            else:
                when = format_time(moment)
        raw = (row.get("number") or "").strip()
        number = int(raw) if raw.isascii() and raw.isdigit() else -1  # (int("³") would raise)
        if not 0 <= number <= 36:
            problems.append(f"number {raw!r} is not 0..36")
        row_table = (row.get("table") or "").strip() or self.table
        if row_table is None:
            problems.append("no table (give --table or a table column)")
        elif self.table is not None and row_table != self.table:
            problems.append(f"table {row_table!r} is not the --table {self.table!r}")
        elif row_table.lower() in RESERVED_TABLES:
            problems.append(f"table {row_table!r} is reserved (the floor's own chain), not a gaming table")
        else:
            try:
                check_table_id(row_table)
            except DrrError as exc:
                problems.append(exc.message)
        round_id = (row.get("round_id") or "").strip() or f"imp-{self.digest}-{line}"
        if len(round_id) > MAX_ROUND_ID:
            problems.append(f"round_id is longer than {MAX_ROUND_ID} characters")
        elif row_table is not None and not problems:
            ahead = self._ahead(row_table, round_id)
            if ahead:
                problems.append(ahead)
            else:
                try:
                    self._seen.execute("INSERT INTO seen VALUES (?, ?, ?)", (row_table, round_id, line))
                except sqlite3.IntegrityError:
                    first = self._seen.execute(
                        "SELECT line FROM seen WHERE tbl = ? AND rid = ?", (row_table, round_id)
                    ).fetchone()[0]
                    problems.append(f"round_id {round_id!r} repeats line {first}")
                else:
                    self._pending.setdefault(row_table, []).append((round_id, line))
                    if len(self._pending[row_table]) >= 500:
                        self._check_existing(row_table)
        if problems or when is None or row_table is None:
            self.error(f"line {line}: " + "; ".join(problems))
            return None
        return write(HistoryImported(number, when, "csv"), table=row_table, round_id=round_id)

    def _check_existing(self, table: str) -> None:
        chunk = self._pending.pop(table, [])
        if not chunk:
            return
        lines = dict(chunk)
        r = schema.rounds
        query = sa.select(r.c.round_id).where(r.c.table_id == table, r.c.round_id.in_(list(lines)))
        with self.store.read() as conn:
            found = sorted((lines[rid], rid) for rid in conn.execute(query).scalars())
        for line, rid in found:
            self.error(f"line {line}: round {rid} is already in table {table} (imported before?)")

    def finish(self) -> None:
        for table in list(self._pending):
            self._check_existing(table)


def _rows(path: Path, table: str | None, check: _ImportCheck) -> Iterator[NewEvent | None]:
    """The file's rows through `check`, streamed (a row's event, or None for a bad row)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            try:
                fields = [f.strip().lower() for f in reader.fieldnames or []]
            except csv.Error as exc:
                check.error(f"line 1: {exc}")
                return
            if any(len(f) > MAX_FIELD for f in fields):
                check.error(f"line 1: a column name is longer than {MAX_FIELD} characters")
                return
            missing = [c for c in ("timestamp", "number") if c not in fields]
            if missing:
                check.error(
                    f"line 1: missing column(s) {', '.join(missing)}"
                    " (need timestamp, number; optional round_id, table)"
                )
                return
            reader.fieldnames = fields
            done = 1  # the last line of the last row read
            while True:
                try:
                    row = next(reader)
                except StopIteration:
                    return
                except csv.Error as exc:  # e.g. a field over the csv module's limit: the reader stops
                    check.error(f"line {done + 1}: {exc}; the rest of the file is not read")
                    return
                done = reader.line_num
                yield check.row(done, row)
    except UnicodeDecodeError:
        check.error(f"{path} is not UTF-8 text (after {check.rows} rows)")
    except OSError as exc:
        raise DrrError(f"cannot read {path}: {exc.strerror}") from exc


def _file_digest(path: Path) -> str:
    sha = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                sha.update(block)
    except OSError as exc:
        raise DrrError(f"cannot read {path}: {exc.strerror}") from exc
    return sha.hexdigest()


def import_csv(
    store: Store,
    path: Path | str,
    table: str | None,
    *,
    user: User | str | None = None,
    bias_thresholds: Thresholds | None = None,
) -> ImportReport:
    """Import results from CSV: every row is checked first; any bad row (named by line) refuses the file.

    A logged-in `User` must hold "import_history"; a plain name is journaled as given (for tools).
    Timestamps without an offset are read as UTC. The file is read twice, streamed (checked, then
    written in batches inside one transaction): the memory needed does not grow with its length.
    Every import then runs the imported tables' sequential bias tests (`bias_thresholds`: the settings
    file's, engine.config.bias_thresholds; None, the embedded defaults), and what trips is journaled
    on the table's chain (`ImportReport.alarms`): this is the one place every import passes.
    """
    if isinstance(user, User):
        require(user, "import_history")
    who = user.name if isinstance(user, User) else user
    path = Path(path)
    if table is not None and table.lower() in RESERVED_TABLES:
        raise DrrError(f"table {table!r} is reserved (the floor's own chain): nothing imported")
    digest = _file_digest(path)
    check = _ImportCheck(store, table, digest[:10])
    try:
        for _ in _rows(path, table, check):
            pass
        check.finish()
        if not check.bad and not check.rows:
            check.error("no rows to import")
    finally:
        check.close()
    if check.bad:
        shown = check.errors + (
            [f"… and {check.bad - len(check.errors)} more"] if check.bad > len(check.errors) else []
        )
        raise DrrError(f"{path}: nothing imported, {check.bad} bad row(s):\n  " + "\n  ".join(shown))
    report = _write_import(store, path, table, digest, who)
    from engine.table.bias_watch import watch_tables  # the table's watch: above the store

    tables = report.tables or (report.table,)
    alarms = watch_tables(store, tables, bias_thresholds or DEFAULT_THRESHOLDS)
    return replace(report, alarms=tuple(alarms), tables=tables)


def _write_import(store: Store, path: Path, table: str | None, digest: str, who: str | None) -> ImportReport:
    """The checked file written: in batches, all in one transaction (every row, or none)."""
    changed = DrrError(f"{path} changed while it was imported: nothing imported")
    again = _ImportCheck(store, table, digest[:10])
    count, first, last_table = 0, None, None
    kept: list[Entry] = []  # for the witness: each batch's last entry and the interval checkpoints
    try:
        with store.begin() as conn:
            batch: list[NewEvent] = []

            def flush() -> None:
                nonlocal first
                written = store.journal.append_in(conn, batch)
                batch.clear()
                if first is None and written:
                    first = written[0].seq
                kept.extend(e for e in written if e.seq % CHECKPOINT_EVERY == 0)
                kept.extend({e.table: e for e in written}.values())  # each table's last

            for event in _rows(path, table, again):
                if event is None:
                    raise changed
                batch.append(NewEvent(event.table, event.type, event.payload, event.round_id, who))
                last_table = event.table
                count += 1
                if len(batch) >= IMPORT_BATCH:
                    flush()
            if batch:
                flush()
            if again.bad or count == 0 or _file_digest(path) != digest:
                raise changed
    finally:
        again.close()
    store.journal.witness(kept)
    assert last_table is not None
    tables = tuple(dict.fromkeys(e.table for e in kept))
    return ImportReport(count, last_table, first, kept[-1].seq if kept else None, tables=tables)


def void_round(store: Store, round_id: str, reason: str, user: User, *, table: str | None = None) -> None:
    """Void a round (pit boss): its wagers are returned; journaled with who and why."""
    require(user, "void_round")
    if not reason.strip():
        raise DrrError("a void needs a reason")
    record = find_round(store, round_id, table)
    if record.status == "void":
        raise DrrError(f"round {round_id} is already void")
    voided = RoundVoided(reason.strip(), by=user.name, role=user.role, previous_status=record.status)
    from engine.store.forwarded import journal_action  # on a forwarded copy: the floor's own chain

    journal_action(store, write(voided, table=record.table, round_id=round_id, user=user.name))
