"""The database under a store: one SQLAlchemy engine, its transactions and one-line errors (`Database`).

Below the journal and the migrations, which take a `Database`; engine.store.db's `Store` is a
`Database` with its journal and owner claims, and `open_store` makes one. Every database failure
that reaches a person is translated to a one-line `DrrError` (`translate_errors`): locked file, full
disk, corrupt file, unreachable server. `exec_fast` runs the append path's few statements compiled
once; `notify_head` wakes the stations that follow a chain on PostgreSQL.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.engine import Connection, Engine, make_url

from engine.errors import DrrError

# Re-exported: the store's callers import it from here (the rule itself is in engine.table_ids).
from engine.table_ids import check_table_id as check_table_id

# PostgreSQL NOTIFY channel: "<schema>:<table>:<seq>" when a chain's head moves (`notify_head`). The
# channel is database-wide, so the payload names the schema: a station on one floor store (a schema)
# never wakes for another's tables in the same database.
CHANNEL = "drr_journal"


def notify_head(conn: Connection, table: str, seq: int, channel: str = CHANNEL) -> None:
    """NOTIFY (delivered at commit) that `table`'s chain reached `seq`, in this connection's schema."""
    conn.execute(
        sa.text("SELECT pg_notify(:ch, current_schema() || ':' || :msg)"),
        {"ch": channel, "msg": f"{table}:{seq}"},
    )


_COMPILED: dict[tuple[str, Hashable], Any] = {}


def exec_fast(conn: Connection, key: Hashable, statement: Any, values: dict[str, Any]) -> Any:
    """Execute `statement` (bound by name from `values`) compiled once per dialect under `key`: the
    append path and its projections run a few such statements per entry, hundreds of times a second,
    and SQLAlchemy's per-call statement building and caching cost several times the SQL itself.

    On SQLite the statement goes straight to the driver's cursor (inside the same transaction; no
    type processing: a Boolean comes back as 0/1); the result offers `fetchone()`, `fetchall()` and
    `rowcount` either way. A statement built per call must not be passed here: `key` names it.
    """
    compiled = _COMPILED.get((conn.dialect.name, key))
    if compiled is None:
        compiled = _COMPILED[(conn.dialect.name, key)] = statement.compile(dialect=conn.dialect)
    if compiled.positional:
        params = tuple(values[k] for k in compiled.positiontup)
        if conn.dialect.name == "sqlite":
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            cursor.execute(compiled.string, params)
            return cursor
        return conn.exec_driver_sql(compiled.string, params)
    return conn.exec_driver_sql(compiled.string, values)


BUSY_TIMEOUT_MS = 5000


def redact(url: str) -> str:
    """The URL with any password hidden, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except exc.ArgumentError:
        return url


def _describe(error: BaseException) -> str:
    orig = getattr(error, "orig", None) or error
    return str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__


def database_error(error: BaseException, where: str) -> DrrError:
    """A person-readable DrrError for a driver failure on the store `where`."""
    text = _describe(error)
    low = text.lower()
    if "database is locked" in low or "database table is locked" in low:
        return DrrError(
            f"{where} is locked by another process (waited {BUSY_TIMEOUT_MS / 1000:g} s); nothing written"
        )
    if "disk is full" in low or "no space left" in low:
        return DrrError(f"the disk holding {where} is full; nothing was written, the journal is intact")
    if "not a database" in low or "malformed" in low or "corrupt" in low:
        return DrrError(f"{where} is not a readable store (corrupt or not a SQLite file): {text}")
    if "unable to open database" in low or "readonly" in low or "read-only" in low:
        return DrrError(f"cannot open {where} for writing: {text}")
    if "connection" in low or "could not" in low or "timeout" in low or "server" in low:
        return DrrError(f"cannot reach the database {where}: {text}")
    return DrrError(f"database error on {where}: {text}")


class WalLost(DrrError):
    """The SQLite store's `-wal` file was deleted (or replaced) under the open store: what was
    committed since the last checkpoint lived only there. Every later write is refused."""


@dataclass
class Database:
    """An open database: one SQLAlchemy engine plus what it needs to write safely and speak clearly."""

    engine: Engine
    url: str
    path: Path | None
    upgraded_from: str | None = None  # the schema revision found when open_store had to migrate
    _writer: Connection | None = None
    _writer_lock: threading.RLock = field(default_factory=threading.RLock)
    _wal_id: tuple[int, int] | None = None  # (device, inode) of the -wal file the writer writes to
    _wal_lost: str | None = None
    # What `change_mark` counts: the writer connections opened, and the write transactions begun on them.
    _writer_epoch: int = 0
    _writes_begun: int = 0

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @property
    def where(self) -> str:
        return str(self.path) if self.path is not None else redact(self.url)

    @contextlib.contextmanager
    def begin(self) -> Iterator[Connection]:
        """A write transaction (SQLite: BEGIN IMMEDIATE, so writers queue instead of deadlocking).

        On SQLite one connection is kept for writing (a process has one writer at a time anyway), which
        spares the pool's check-out and reset on every journal append.
        """
        if not self.is_sqlite:
            with translate_errors(self.where), self.engine.begin() as conn:
                yield conn
            return
        with self._writer_lock, translate_errors(self.where):
            if self._writer is None or self._writer.closed or self._writer.invalidated:
                self._open_writer()
            assert self._writer is not None
            if self._writer.in_transaction():
                raise RuntimeError("nested write transaction on one store")
            self._check_wal(self._writer)
            self._writes_begun += 1
            with self._writer.begin():
                yield self._writer

    def _open_writer(self) -> None:
        self._writer = self.engine.connect()
        self._writer_epoch += 1
        self._wal_id = None  # (a writer closed last may have let SQLite remove its -wal)

    def change_mark(self) -> tuple[int, int, int] | None:
        """SQLite: a mark that stays the same for as long as nothing is written to the store, by this
        process or another (None on PostgreSQL: there, ask the journal). A reader that took the mark
        inside its own write transaction, or after it caught up, and finds it unchanged later knows
        there is nothing new to read, without a query: `PRAGMA data_version` on the writer's
        connection moves only when another connection commits (not for the writer's own commits),
        and every write transaction this process begins on it is counted here.

        The table service asks before every command (engine.table.service_core `_catch_up`); most
        of the time nobody else wrote, and the read it spares was a third of a soak's time."""
        if not self.is_sqlite:
            return None
        with self._writer_lock, translate_errors(self.where):
            if self._writer is None or self._writer.closed or self._writer.invalidated:
                self._open_writer()
            assert self._writer is not None
            driver: Any = self._writer.connection.driver_connection
            row = driver.execute("PRAGMA data_version").fetchone()
            return (self._writer_epoch, int(row[0]), self._writes_begun)

    def _check_wal(self, writer: Connection) -> None:
        """Before each write: the `-wal` file the writer appends to is still the one at its path. A
        WAL file deleted under an open store takes every entry committed since the last checkpoint
        with it when the process ends (it lives on only in the open, unlinked file): the pages are
        copied into the main file at once (a checkpoint through the open file), and the write, and
        every later one, is refused with what happened (WalLost): the table stops and says so."""
        if self.path is None:
            return
        if self._wal_lost is not None:
            raise WalLost(self._wal_lost)
        wal = Path(f"{self.path}-wal")
        try:
            st = wal.stat()
            now: tuple[int, int] | None = (st.st_dev, st.st_ino)
        except OSError:
            now = None
        if self._wal_id is None or now == self._wal_id:
            self._wal_id = now if now is not None else self._wal_id
            return
        saved = "copied into the store file"
        try:
            driver = writer.connection.driver_connection
            busy = driver.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()  # type: ignore[union-attr]
            if busy is not None and busy[0]:
                saved = "not all copied into the store file (a reader held it): do not stop the process yet"
        except sqlite3.Error as error:
            saved = f"NOT copied into the store file ({error}): do not stop the process, call the supplier"
        what = "deleted" if now is None else "replaced by another file"
        self._wal_lost = (
            f"the store's write-ahead log {wal} was {what} while the table was writing (by hand, a "
            f"cleaner or an insider): the entries committed since its last checkpoint were {saved}; "
            "nothing more is written: the table stops. Restart it (the journal is verified at the start) "
            "and find out who removed the file"
        )
        raise WalLost(self._wal_lost)

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction: one consistent snapshot, never blocks the table's writer."""
        with translate_errors(self.where), self.engine.connect() as raw:
            conn = raw.execution_options(drr_read=True)
            with conn.begin():
                yield conn

    def close(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(exc.SQLAlchemyError):
                self._writer.close()
            self._writer = None
        self.engine.dispose()


@contextlib.contextmanager
def translate_errors(where: str) -> Iterator[None]:
    try:
        yield
    except (exc.OperationalError, exc.DatabaseError, exc.InterfaceError) as error:
        if isinstance(error, exc.IntegrityError):
            raise
        raise database_error(error, where) from error
    except sqlite3.DatabaseError as error:  # the append path talks to the sqlite3 cursor directly
        if isinstance(error, sqlite3.IntegrityError):
            raise
        raise database_error(error, where) from error
