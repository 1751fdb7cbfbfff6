"""Opening a store: URL resolution, SQLite pragmas, migrations on open, owner locks, its journal.

`open_store(url, table=…)` accepts `sqlite:///PATH`, a bare file path, `postgresql+psycopg://…`
(`postgresql://` and `postgres://` are read as psycopg 3) or nothing (the table's SQLite file in the
platform's user data directory). A `Store` is the database under it (engine.store.database: its
transactions and one-line errors) with its journal (`Store.journal`, engine.store.journal) and this
process's owner claims; this module sits above both, and above the migrations it runs on open.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.engine import Connection, Engine, make_url

from engine.errors import DrrError
from engine.store import schema
from engine.store.canonical import now_text
from engine.store.database import (
    BUSY_TIMEOUT_MS,
    CHANNEL,
    Database,
    check_table_id,
    exec_fast,
    notify_head,
    redact,
    translate_errors,
)
from engine.store.journal import Journal
from engine.store.migrate import ensure_current

# The database layer's names (engine.store.database) are also taken from here, where they were first.
__all__ = [
    "APP_NAME",
    "CHANNEL",
    "DEFAULT_TABLE",
    "Database",
    "OwnerClaim",
    "Store",
    "check_table_id",
    "default_db_path",
    "exec_fast",
    "make_url",
    "notify_head",
    "open_store",
    "redact",
    "resolve_url",
    "translate_errors",
]

APP_NAME = "diamond-rush-roulette"
DEFAULT_TABLE = "1"


def default_db_path(table: str = DEFAULT_TABLE) -> Path:
    import platformdirs

    return platformdirs.user_data_path(APP_NAME) / f"table-{check_table_id(table)}.sqlite"


def resolve_url(url: str | None, table: str = DEFAULT_TABLE) -> str:
    """The SQLAlchemy URL for a `--db` value; refuses unknown schemes with the accepted ones named."""
    if url is None or url == "":
        return f"sqlite:///{default_db_path(table)}"
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser().absolute()}"
    scheme = url.split("://", 1)[0].lower()
    if scheme == "sqlite" or scheme == "sqlite+pysqlite":
        return url
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    raise DrrError(
        f"unknown --db scheme {scheme!r} in {redact(url)}: use sqlite:///PATH, a file path or postgresql://…"
    )


@dataclass
class OwnerClaim:
    """This process owns a table's journal until `release()` (or until it dies: the OS lock goes with it)."""

    store: Store
    table: str
    station: str
    _fd: int | None = None
    _pg: Connection | None = None
    _pg_key: int = 0
    released: bool = False

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        with contextlib.suppress(DrrError):
            # A clean shutdown leaves a checkpoint (count + head hash): a later truncation shows.
            self.store.journal.checkpoint(self.table, "shutdown")
        with contextlib.suppress(DrrError), self.store.begin() as conn:
            conn.execute(sa.delete(schema.owners).where(schema.owners.c.table_id == self.table))
        if self._fd is not None:
            _unlock_fd(self._fd)
            os.close(self._fd)
        if self._pg is not None:
            # A session-level advisory lock outlives close() on a pooled connection: unlock it now
            # (synchronous), and end the session too in case the unlock could not run.
            with contextlib.suppress(exc.SQLAlchemyError):
                self._pg.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": self._pg_key})
                self._pg.commit()
            with contextlib.suppress(exc.SQLAlchemyError):
                self._pg.invalidate()
                self._pg.close()


@contextlib.contextmanager
def stopped_table(path: Path) -> Iterator[None]:
    """Hold a SQLite store's owner lock without writing to the store (a restore replacing the file):
    refused, naming the owner, while a station or command has the table open."""
    lock_path = path.with_name(path.name + ".owner")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise DrrError(f"cannot open the owner file {lock_path}: {error.strerror}") from error
    try:
        if not _lock_fd(fd):
            try:
                owner = json.loads(lock_path.read_text(encoding="utf-8") or "null")
            except (OSError, ValueError):
                owner = None
            raise DrrError(f"table store {path} is in use by {_owner_text(owner)}: stop it first")
        try:
            yield
        finally:
            _unlock_fd(fd)
    finally:
        os.close(fd)


def _lock_fd(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        os.lseek(fd, 1 << 20, os.SEEK_SET)  # lock a byte far from the readable owner text
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _unlock_fd(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        import msvcrt

        os.lseek(fd, 1 << 20, os.SEEK_SET)
        with contextlib.suppress(OSError):
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


def _owner_text(owner: dict[str, Any] | None) -> str:
    if not owner:
        return "another process"
    get = owner.get
    return f"{get('station', '?')} (pid {get('pid', '?')} on {get('host', '?')}, since {get('since', '?')})"


@dataclass
class Store(Database):
    """An open store: its database (engine.store.database), its journal and this process's owner claims."""

    claims: list[OwnerClaim] = field(default_factory=list)

    @property
    def journal(self) -> Journal:
        return Journal(self)

    def claim(self, table: str, station: str = "table") -> OwnerClaim:
        """Become the one writer of `table`; refused, naming the owner, while another process holds it."""
        check_table_id(table)
        me = {"pid": os.getpid(), "host": socket.gethostname(), "station": station, "since": now_text()}
        claim = OwnerClaim(self, table, station)
        if self.path is not None:
            lock_path = self.path.with_name(self.path.name + ".owner")
            try:
                fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as error:
                raise DrrError(f"cannot create the owner file {lock_path}: {error.strerror}") from error
            if not _lock_fd(fd):
                os.close(fd)
                try:
                    owner = json.loads(lock_path.read_text(encoding="utf-8") or "null")
                except (OSError, ValueError):
                    owner = None
                raise DrrError(f"table store {self.path} is already in use by {_owner_text(owner)}")
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)  # (no os.pwrite on Windows)
            os.write(fd, json.dumps(me).encode())
            os.fsync(fd)
            claim._fd = fd
        else:
            conn = self.engine.connect()
            # Advisory locks are database-wide: the key names the schema too, so the same table id in
            # two schemas of one database (two floors, or two test runs side by side) are two tables.
            where = conn.execute(sa.text("SELECT current_schema()")).scalar()
            key = zlib.crc32(f"drr-table:{where}:{table}".encode())
            got = conn.execute(sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar()
            conn.commit()
            if not got:
                conn.close()
                with self.read() as rc:
                    row = rc.execute(
                        sa.select(schema.owners).where(schema.owners.c.table_id == table)
                    ).first()
                raise DrrError(
                    f"table {table} is already in use by {_owner_text(dict(row._mapping) if row else None)}"
                )
            claim._pg, claim._pg_key = conn, key
        with self.begin() as conn:
            conn.execute(sa.delete(schema.owners).where(schema.owners.c.table_id == table))
            conn.execute(sa.insert(schema.owners).values(table_id=table, **me))
        self.claims.append(claim)
        return claim

    def close(self) -> None:
        for claim in self.claims:
            claim.release()
        self.claims.clear()
        super().close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _read_only_sqlite_engine(path: Path) -> Engine:
    """A store in a directory nobody may write (a read-only mount, a write-protected backup copy):
    readable by the audit, history and stats commands; any write fails as read-only.

    A WAL database normally needs its -shm file created beside it. Without a -wal file every page is
    in the main file and it is opened immutable (no locks, no -shm); with a -wal file and its -shm the
    pair is read as it is; a -wal without its -shm cannot be read in place."""
    from urllib.parse import quote

    wal = path.with_name(path.name + "-wal")
    shm = path.with_name(path.name + "-shm")
    has_wal = wal.exists() and wal.stat().st_size > 0
    if has_wal and not shm.exists():
        raise DrrError(
            f"{path} is in a read-only directory with a -wal file but no -shm file: "
            "copy the files to a writable directory to read them"
        )
    uri = f"file:{quote(str(path))}?mode=ro" + ("" if has_wal else "&immutable=1")

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        conn.isolation_level = None
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA query_only=ON")
        return conn

    engine = sa.create_engine("sqlite://", creator=connect)

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN")

    return engine


def _sqlite_engine(url: str, *, durable: bool = True) -> Engine:
    engine = sa.create_engine(url)
    synchronous = "FULL" if durable else "OFF"

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Transactions are ours (BEGIN IMMEDIATE below), not the sqlite3 module's implicit ones.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA synchronous={synchronous}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # Straight to the driver (every journal append begins here; through exec_driver_sql this one
        # statement cost as much as the append's own SQL). Its errors are sqlite3's: translate_errors.
        read = conn.get_execution_options().get("drr_read")
        conn.connection.driver_connection.execute("BEGIN" if read else "BEGIN IMMEDIATE")  # type: ignore[union-attr]

    return engine


def open_store(
    url: str | None = None,
    *,
    table: str = DEFAULT_TABLE,
    migrate: bool = True,
    allow_older: bool = False,
    durable: bool = True,
) -> Store:
    """Open (and with `migrate`, create or upgrade) the store at `url`; see the module docstring.

    `durable=False` is for scratch stores only (a demo floor, screenshots, tests): commits return
    without waiting for the disk (SQLite synchronous=OFF, PostgreSQL synchronous_commit=off), so a
    power cut may lose the last ones. Every table and station keeps the default."""
    full = resolve_url(url, table)
    parsed = make_url(full)
    path: Path | None = None
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            raise DrrError("an in-memory SQLite store cannot be shared or kept; give a file path")
        path = Path(parsed.database).expanduser().absolute()
        if not path.exists():
            if not migrate:
                raise DrrError(f"no store at {path} (create it with: drr db upgrade --db {path})")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise DrrError(f"cannot create the directory for {path}: {error.strerror}") from error
        if not migrate and path.exists() and not os.access(path.parent, os.W_OK):
            engine = _read_only_sqlite_engine(path)  # e.g. a backup on write-protected media
        else:
            engine = _sqlite_engine(f"sqlite:///{path}", durable=durable)
    else:
        engine = sa.create_engine(full, connect_args={"connect_timeout": 5}, pool_pre_ping=True)
        if not durable:

            @event.listens_for(engine, "connect")
            def _no_flush_wait(dbapi_conn: Any, _record: Any) -> None:
                cur = dbapi_conn.cursor()
                cur.execute("SET synchronous_commit = off")
                cur.close()
                dbapi_conn.commit()

    store = Store(engine, full, path)
    try:
        ensure_current(store, migrate=migrate, allow_older=allow_older)
    except BaseException:
        engine.dispose()
        raise
    return store
