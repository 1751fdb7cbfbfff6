"""The journal as evidence: the start check, quarantine and key rotation (docs/journal-evidence.md).

- `check_for_start(store, table)`: the table's key (created on the first start), and the whole chain
  verified against it; a journal that fails, or is missing/empty where the key says entries existed
  (a SQLite file erased to 0 bytes is refused before it is opened: engine.store.db),
  is refused with what is wrong, and nothing is written to it (the evidence stays as it is); a
  journal up to `DERIVED_AT_START` entries has its derived tables folded again too (a disagreement
  refuses the start with a critical alert), a longer one is checked while the table deals
  (engine.table.derived_watch, which tilts the table on a disagreement).
- `quarantine(path, table)`: the only way on from a refused SQLite store: the damaged file (with its
  -wal/-shm) is moved aside untouched, and a new store is started whose first entry,
  `table.quarantined`, names the damaged file, its SHA-256, the problem and the last good signed head
  of its chain.
- `rotate_key(store, table)`: a new key, handed over by a `table.key_rotated` entry signed by the old.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from engine.errors import DrrError
from engine.store import key_rotation, keys, schema
from engine.store.chain_signatures import witness_problem
from engine.store.db import Store, erased, open_store
from engine.store.journal import Journal
from engine.store.records import NewEvent
from engine.store.verify import VerifyReport, derived_problem, verify

FULL_AT_START = 200_000  # entries: longer journals are verified from the last verified position
# entries: a journal up to this long has its derived tables (rounds, daily totals, …) folded again and
# held against the stored rows before the table deals (engine.store.derived_check: about 8.6 s for
# 20,000 entries on a loaded 2-core machine, so no more); a longer one is folded on a read snapshot
# while the table deals, and a disagreement tilts it (engine.table.derived_watch)
DERIVED_AT_START = 20_000
PROCEDURE = "docs/journal-evidence.md: keep the file, then `drr db quarantine --db PATH --table T`"


def check_for_start(store: Store, table: str) -> keys.TableKey:
    """The table's key (made now if it has none) after the chain verified against it; DrrError if not.
    A signed chain whose key file is gone is refused as that, in words, and no new key is written: a
    new key would make the chain read as rewritten with another key."""
    with store.read() as conn:
        head = conn.execute(
            sa.select(schema.chain_heads.c.seq, schema.chain_heads.c.sig).where(
                schema.chain_heads.c.table_id == table
            )
        ).first()
        has = (
            head is not None
            or conn.execute(
                sa.select(schema.journal.c.seq).where(schema.journal.c.table_id == table).limit(1)
            ).first()
            is not None
        )
    if head is not None and head.sig is not None and keys.load(store.where, table) is None:
        raise DrrError(
            f"table {table}: the journal ({head.seq} entries, signed) is here but the table's key file "
            f"{keys.key_path(store.where, table)} is missing (deleted, moved, or another key folder: see "
            f"`drr config show`); restore it from the backup (docs/backup-restore.md). The table does not "
            f"start without it, and nothing was written"
        )
    key_rotation.settle(store, table)  # a rotation a kill interrupted: finished or dropped
    key, _ = keys.ensure(store.where, table)
    witness = witness_problem(key, _entries(store, table) if has else 0)
    if witness is not None:
        raise DrrError(f"table {table}: {witness}. The table does not start, and nothing was written")
    if not has and not key.journaled:
        return key  # a new table: its first table.started journals the key
    # From the last position a verification found good (the witness's MAC'd mark): a restart stays
    # quick on a years-long journal; `drr audit verify` checks the whole chain (docs/journal-evidence.md).
    # A journal short enough to verify whole in about a second is verified whole at every start.
    with store.read() as conn:
        length = conn.execute(
            sa.select(schema.chain_heads.c.seq).where(schema.chain_heads.c.table_id == table)
        ).scalar()
    report = verify(store, table, incremental=int(length or 0) > FULL_AT_START)
    if not report.ok:
        where = f"journal entry {report.bad_seq} " if report.bad_seq is not None else "journal: "
        raise DrrError(
            f"table {table}: {where}{report.detail}; the table does not start on a journal that fails "
            f"verification. The store {store.where} is kept as it is (nothing written); {PROCEDURE}"
        )
    if derived_at_start(int(length or 0)):
        derived = derived_problem(store, [table])
        if derived is not None:
            derived_alert(store, table, derived)
            raise DrrError(
                f"{derived}: the derived tables disagree with the verified journal, and the table does "
                "not start on them (history and reports would show them); a critical alert is journaled. "
                f"Keep a copy of {store.where} as evidence, then `drr db rebuild --db PATH --table {table}` "
                "recomputes them from the journal"
            )
    return key


def derived_at_start(length: int) -> bool:
    """Whether the start folds a journal of `length` entries again before the table deals; a longer
    one is checked while the table deals, on a read snapshot (engine.table.derived_watch)."""
    return length <= DERIVED_AT_START


def derived_alert(store: Store, table: str, problem: str) -> None:
    """A critical `alert.raised` (kind derived_mismatch) on the store's floor chain, best effort (the
    refusal or the tilt itself says it all if even that cannot be written)."""
    import contextlib
    from datetime import UTC, datetime

    from engine.floor_events import AlertRaised
    from engine.journal_types import write
    from engine.store.canonical import format_time
    from engine.store.users_journal import FLOOR

    at = format_time(datetime.now(UTC))
    alert = AlertRaised(
        f"derived-mismatch:{table}:{at}", table, "critical", "derived_mismatch", problem, at=at
    )
    with contextlib.suppress(DrrError):
        store.journal.append_many([write(alert, table=FLOOR)])


def _entries(store: Store, table: str) -> int:
    j = schema.journal
    with store.read() as conn:
        return int(conn.execute(sa.select(sa.func.max(j.c.seq)).where(j.c.table_id == table)).scalar() or 0)


def started(store: Store, table: str) -> None:
    """After a signed start is durable: the witness knows the chain has entries (the first start) and
    from which entry on every entry carries its MAC (the first start with MACs: entry 1 on a new
    chain, else this start's head), so MACs stripped from the chain are caught."""
    key = keys.load(store.where, table)
    head = Journal(store).head(table)
    if key is None or head is None:
        return
    changes: dict[str, object] = {}
    if not key.journaled:
        changes.update(journaled=True, high_water=head)
    if key.mac_from is None:
        j = schema.journal
        with store.read() as conn:
            first = conn.execute(sa.select(j.c.mac).where(j.c.table_id == table, j.c.seq == 1)).scalar()
        changes["mac_from"] = 1 if first is not None else head[0]
    if changes:
        keys.update(key, **changes)


@dataclass(frozen=True)
class QuarantineReport:
    moved_to: Path
    report: VerifyReport
    last_good: tuple[int, str, str | None]


def _last_good(store: Store, table: str, report: VerifyReport) -> tuple[int, str, str | None]:
    """The last signed checkpoint (or head) before the first bad entry whose signature holds."""
    key = keys.load(store.where, table)
    bad = report.bad_seq if report.bad_seq is not None else 1
    cp, j, h = schema.checkpoints, schema.journal, schema.chain_heads
    with store.read() as conn:
        rows = conn.execute(
            sa.select(cp.c.seq, cp.c.hash, cp.c.sig)
            .where(cp.c.table_id == table, cp.c.seq < bad)
            .order_by(cp.c.seq.desc())
        ).all()
        head = conn.execute(sa.select(h.c.seq, h.c.hash, h.c.sig).where(h.c.table_id == table)).first()
        candidates = list(rows)
        if head is not None and int(head.seq) < bad:
            candidates.insert(0, head)
        for row in candidates:
            stored = conn.execute(
                sa.select(j.c.hash).where(j.c.table_id == table, j.c.seq == row.seq)
            ).scalar()
            if stored != row.hash:
                continue
            if key is None or keys.check_signature(key.public, table, int(row.seq), row.hash, row.sig):
                return int(row.seq), str(row.hash), row.sig
    return 0, "0" * 64, None


def _rounds_used(store: Store, table: str) -> int:
    """The highest round number the damaged journal used (by its round ids, and its count of openings)."""
    from engine.entry_types import EntryType
    from engine.journal_types import spellings

    j = schema.journal
    with store.read() as conn:
        ids = (
            conn.execute(
                sa.select(j.c.round_id).where(
                    j.c.table_id == table, j.c.type.in_(spellings(EntryType.ROUND_OPENED))
                )
            )
            .scalars()
            .all()
        )
    numbers = [int(r.rsplit("-", 1)[1]) for r in ids if r and "-" in r and r.rsplit("-", 1)[1].isdigit()]
    return max([len(ids), *numbers])


SUFFIXES = ("", "-wal", "-shm")


def intent_path(path: Path) -> Path:
    """Where a quarantine under way writes what it is doing (before the damaged files go)."""
    return path.with_name(f"{path.name}.quarantine")


def quarantine(path: Path, table: str, *, user: str) -> QuarantineReport:
    """Move a SQLite store that fails verification aside and start a new one linked to its last good
    signed head (see the module docstring). Refused on a store that verifies.

    Crash-safe at every point: the damaged files are copied aside (each under a temporary name,
    fsynced, then renamed), their copy's SHA-256 held against the original's, and what the
    quarantine does (the copy, its digest, the problem, the last good head, the rounds used) is
    written to `<store>.quarantine` before the originals are removed; a quarantine run again after a
    kill takes up that record (`_resume`) instead of recording the empty new store as the damaged one.
    """
    path = path.expanduser().absolute()
    if intent_path(path).exists():
        return _resume(path, table, user=user)
    if not path.exists() or erased(path):
        # Missing, or erased to 0 bytes (refused at every open where the witness knew entries, and
        # not opened here either: the schema would be written into the evidence).
        where = str(path)
        problem = "is missing" if not path.exists() else "is empty (0 bytes): its journal was erased"
        report = VerifyReport(ok=False, problem=f"table {table}: the store {path} {problem}")
        last_good: tuple[int, str, str | None] = (0, "0" * 64, None)
        digest = "missing" if not path.exists() else hashlib.sha256(b"").hexdigest()
        rounds_before = 0
    else:
        with open_store(str(path), table=table, migrate=False, allow_older=True) as store:
            where = store.where
            try:
                report = verify(store, table)
            except DrrError as error:
                report = VerifyReport(ok=False, problem=str(error))
            if report.ok:
                raise DrrError(f"the journal of table {table} in {path} verifies: nothing to quarantine")
            last_good = _last_good(store, table, report)
            rounds_before = _rounds_used(store, table)
        digest = _sha256(path)
    key = keys.load(where, table)
    if key is None:
        raise DrrError(f"table {table} has no key for {where}: nothing says which chain this store continues")
    # The witness knows rounds the damaged (or rolled-back) journal may have lost: never reused.
    rounds_before = max(rounds_before, key.rounds)
    moved = path.with_name(f"{path.name}.quarantined-{report_time()}")
    if path.exists():
        for suffix in SUFFIXES:
            if Path(f"{path}{suffix}").exists():
                _copy_durably(Path(f"{path}{suffix}"), Path(f"{moved}{suffix}"))
        if _sha256(moved) != digest:
            raise DrrError(
                f"the copy {moved} of {path} differs from it: nothing removed, nothing quarantined"
            )
    intent = {
        "table": table,
        "moved": str(moved),
        "sha256": digest,
        "problem": report.problem or "",
        "last_good": list(last_good),
        "rounds_before": rounds_before,
        "key": key.public,
    }
    _write_durably(intent_path(path), (json.dumps(intent, sort_keys=True) + "\n").encode())
    return _finish(path, table, intent, report, user=user)


def _resume(path: Path, table: str, *, user: str) -> QuarantineReport:
    """A quarantine a kill interrupted: the damaged copy as its record names it, the originals (if
    still here) removed, a new store begun but not finished removed, then the new chain started."""
    record = intent_path(path)
    try:
        intent = json.loads(record.read_text("utf-8"))
        moved, digest = Path(intent["moved"]), str(intent["sha256"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DrrError(f"the quarantine record {record} is not readable ({error}): nothing done") from error
    if intent.get("table") != table:
        raise DrrError(f"the quarantine under way at {record} is of table {intent.get('table')}, not {table}")
    if digest != "missing" and (not moved.exists() or _sha256(moved) != digest):
        raise DrrError(
            f"the quarantine record {record} names the damaged copy {moved}, which is missing or differs "
            "from the digest recorded: nothing done (keep every file and call the supplier)"
        )
    report = VerifyReport(ok=False, problem=str(intent["problem"]))
    return _finish(path, table, intent, report, user=user)


def _finish(
    path: Path, table: str, intent: dict[str, Any], report: VerifyReport, *, user: str
) -> QuarantineReport:
    """Remove the originals (copied), start the new store with its `table.quarantined` entry, then
    drop the record; each step is redone safely after a kill."""
    moved, digest = Path(intent["moved"]), str(intent["sha256"])
    seq, hash_, sig = intent["last_good"]
    last_good = (int(seq), str(hash_), sig)
    if path.exists() and not _is_new_chain(path, table, str(moved)):
        if _sha256(path) != digest and not _unfinished(path, table):
            raise DrrError(
                f"{path} is neither the damaged store recorded in {intent_path(path)} nor a new store "
                "this quarantine began: nothing removed"
            )
        for suffix in ("-shm", "-wal", ""):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    where = str(path)
    with open_store(where, table=table) as fresh:
        where = fresh.where
        if not _is_new_chain(path, table, str(moved)):
            entry = quarantined_entry(
                table, user, str(moved), digest, report, last_good, str(intent["key"]),
                int(intent["rounds_before"]),
            )  # fmt: skip
            fresh.journal.append_many([entry])
        head = fresh.journal.checkpoint(table, "quarantine")
    key = keys.load(where, table)
    if key is None:
        raise DrrError(f"table {table} has no key for {where}: nothing says which chain this store continues")
    # The new store: MAC'd from its first entry, nothing of it verified yet (the old store's mark
    # named entries of the quarantined file).
    keys.update(
        key, journaled=True, high_water=head, checkpoint=head[0] if head else None, mac_from=1, verified=None
    )
    intent_path(path).unlink(missing_ok=True)
    return QuarantineReport(moved, report, last_good)


def _first_entry(path: Path, table: str) -> tuple[int, str | None, str | None] | None:
    """(entries, first type, first payload) of `table` in the SQLite file, None if it is no store."""
    import sqlite3

    if erased(path):
        return (0, None, None)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            count = conn.execute("SELECT count(*) FROM journal WHERE table_id = ?", (table,)).fetchone()[0]
            first = conn.execute(
                "SELECT type, payload FROM journal WHERE table_id = ? ORDER BY seq LIMIT 1", (table,)
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return (int(count), *(first or (None, None)))


def _unfinished(path: Path, table: str) -> bool:
    """A new store this quarantine began, its first entry not committed (no entry of the table)."""
    found = _first_entry(path, table)
    return found is not None and found[0] == 0


def _is_new_chain(path: Path, table: str, moved: str) -> bool:
    """The new store, its first entry (`table.quarantined` naming the copy) committed."""
    found = _first_entry(path, table)
    if found is None or found[0] == 0 or found[1] != "table.quarantined":
        return False
    try:
        return bool(json.loads(found[2] or "{}").get("damaged_store") == moved)
    except ValueError:
        return False


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _copy_durably(src: Path, dst: Path) -> None:
    """`src` copied to `dst` through a temporary name, fsynced before the rename (and the folder after)."""
    import shutil

    part = dst.with_name(f"{dst.name}.part")
    with open(src, "rb") as fin, open(part, "wb") as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)
        fout.flush()
        os.fsync(fout.fileno())
    os.replace(part, dst)
    _sync_dir(dst.parent)


def _write_durably(path: Path, data: bytes) -> None:
    part = path.with_name(f"{path.name}.part")
    with open(part, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(part, path)
    _sync_dir(path.parent)


def _sync_dir(directory: Path) -> None:
    import contextlib

    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def quarantined_entry(
    table: str,
    user: str,
    damaged: str,
    digest: str,
    report: VerifyReport,
    last_good: tuple[int, str, str | None],
    key: str,
    rounds_before: int,
) -> NewEvent:
    """The new chain's first entry, `table.quarantined`, linking it to the damaged store's last good
    signed head (the SQLite file moved aside, or the PostgreSQL rows moved to a quarantine schema)."""
    from engine.journal_types import write
    from engine.table_events import Quarantined

    event = Quarantined(
        damaged_store=damaged,
        damaged_sha256=digest,
        problem=report.problem or "",
        last_good_seq=last_good[0],
        last_good_hash=last_good[1],
        last_good_sig=last_good[2],
        key=key,
        rounds_before=rounds_before,
    )
    return write(event, table=table, round_id=None, user=user)


def report_time() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def rotate_key(store: Store, table: str, *, user: str) -> tuple[str, str]:
    """Replace the table's key: the rotation is journaled, signed by the old key; (old, new) fingerprints.
    Written ahead (engine.store.key_rotation): a kill at any point leaves a table that starts."""
    import contextlib

    from engine.store import floor_sign

    if floor_sign.applies(store, table):
        raise DrrError(
            "the floor chain of a PostgreSQL floor database is signed by its enrolled writers' keys: "
            "drr db rotate-key does not rotate its root key (not supported; see docs/journal-evidence.md)"
        )
    from engine.journal_types import write
    from engine.table_events import KeyRotated

    old = key_rotation.settle(store, table)
    if old is None:
        raise DrrError(
            f"table {table} has no key for {store.where} to rotate (it is made at the first start)"
        )
    report = verify(store, table)
    if not report.ok:
        raise DrrError(f"the key of table {table} is not rotated on a journal that fails: {report.problem}")
    ahead = keys.begin_rotation(keys.load(store.where, table) or old)
    new = keys.pending_key(ahead)
    signature = old.sign_raw(keys.rotation_message(table, old.public, new.public))
    event = write(KeyRotated(old.public, new.public, signature), table=table, round_id=None, user=user)
    try:
        store.journal.append_many([event], sign_with={table: new})
    except BaseException:
        # committed or not, as the journal says (a kill here: `settle` at the next start)
        with contextlib.suppress(Exception):
            key_rotation.settle(store, table)
        raise
    keys.finish_rotation(keys.load(store.where, table) or ahead)
    return keys.fingerprint(old.public), keys.fingerprint(new.public)
