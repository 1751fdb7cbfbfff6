"""Demo floors played once per test process and copied into each test's store (with their keys).

A demo round costs about a second (every command a journal transaction through the table service), and
many tests only read the same floor or act on it and look at what changed: the floor is played once,
on a template store with a key folder of its own, and each test gets a copy of it in its own store
(its own SQLite file, or its own PostgreSQL schema) with the same table keys and witnesses written for
the copy's location (engine.store.keys.copy_to), exactly as if the test had played it there itself:
the same entries, hashes, MACs, signatures and derived rows. The copy is made before the test's store is
opened, so nothing the store keeps in memory predates it.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from engine.floor.demo import fill_demo_floor
from engine.store import Store, keys, open_store
from tests.floor.helpers import add_users, import_spins
from tests.pg_schema import pg_schema_url

# What a template is played from (a demo floor's tables, round counts, options and users; or a test
# module's own name for its fill): equal specs, equal stores.
Spec = tuple[Any, ...]


@dataclass
class _Template:
    url: str
    where: str  # the template store's location (its key files are named for it)
    key_dir: Path
    schema: str | None  # PostgreSQL: the template's schema; SQLite: None
    path: Path | None  # SQLite: the template's file


def _schema_of(url: str) -> str:
    """The schema a pg_schema_url URL puts first on the search path."""
    options = str(sa.engine.make_url(url).query["options"])
    return options.removeprefix("-csearch_path=")


@dataclass
class PlayedFloors:
    """Templates by spec, played on first use in this process; `copy_into` gives a test its copy."""

    base: Path
    _stack: ExitStack = field(default_factory=ExitStack)
    _templates: dict[tuple[bool, Spec], _Template] = field(default_factory=dict)

    def _build(self, on_postgresql: bool, fill: Callable[[Store], object]) -> _Template:
        n = len(self._templates)
        key_dir = self.base / f"keys-{n}"
        key_dir.mkdir()
        if on_postgresql:
            url = self._stack.enter_context(pg_schema_url("drr_played"))
            schema: str | None = _schema_of(url)
            path = None
        else:
            path = self.base / f"floor-{n}.sqlite"
            url, schema = f"sqlite:///{path}", None
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv(keys.KEY_DIR_ENV, str(key_dir))  # the template's own keys, not the test's
            with open_store(url, durable=False) as store:
                fill(store)
                where = store.where
        return _Template(url, where, key_dir, schema, path)

    def copy_into(self, url: str, spec: Spec, fill: Callable[[Store], object]) -> None:
        """The floor `spec` (played by `fill` on a template the first time) copied to the empty store at
        `url` (a SQLite file not yet there, or a fresh pg_schema_url schema), and its keys into the key
        folder in force (the test's)."""
        on_postgresql = sa.engine.make_url(url).get_backend_name() == "postgresql"
        template = self._templates.get((on_postgresql, spec))
        if template is None:
            template = self._templates[on_postgresql, spec] = self._build(on_postgresql, fill)
        if template.path is not None:
            target = Path(sa.engine.make_url(url).database or "")
            with sqlite3.connect(template.path) as src, sqlite3.connect(target) as dst:
                src.backup(dst)  # the whole file, consistent, whatever its journal mode left beside it
            src.close()
            dst.close()
            with open_store(url, durable=False, migrate=False) as store:
                where = store.where
        else:
            with open_store(url, durable=False) as store:  # the schema, made by the store's own migrations
                where = store.where
            engine = sa.create_engine(url)
            try:
                with engine.begin() as conn:
                    for name in sa.inspect(conn).get_table_names(schema=template.schema):
                        if name != "alembic_version":  # (the copy's migrations wrote its own)
                            source = f'"{template.schema}"."{name}"'
                            conn.execute(sa.text(f'INSERT INTO "{name}" SELECT * FROM {source}'))
            finally:
                engine.dispose()
        # Every key file named for the template (the tables' and, on PostgreSQL, the floor chain's
        # writer key), under the same name for the copy.
        old_id, new_id = keys.store_id(template.where), keys.store_id(where)
        for key_file in sorted(template.key_dir.glob(f"*@{old_id}.key")):
            key = keys.load(template.where, "", path=key_file)
            assert key is not None, key_file
            target = keys.key_dir() / key_file.name.replace(f"@{old_id}.key", f"@{new_id}.key")
            copied = keys.copy_to(key, where, path=target)
            if key.mac_from is not None:
                keys.update(copied, mac_from=key.mac_from)

    def close(self) -> None:
        self._stack.close()


def copy_demo_floor(
    floors: PlayedFloors, url: str, tables: dict[str, int], *, users: bool = False, **options: Any
) -> None:
    """The store at `url` as `fill_demo_floor(store, tables, **options)` leaves it (after
    `add_users(store)` with `users`), played once in this process and copied (see the module's note)."""

    def fill(store: Store) -> None:
        if users:
            add_users(store)
        fill_demo_floor(store, tables, **options)

    floors.copy_into(url, ("demo", tuple(tables.items()), tuple(sorted(options.items())), users), fill)


# The surveillance station's floor (tests/gui/test_surveillance.py, test_surveillance_ack.py): six bonus
# games (rounds 12, 24, …, 72) and two manual results (26, 76) on T1, and on T3 3,000 imported results,
# every fifth a 17 (a planted bias). The import is part of the template, so each test copies it instead
# of importing it again (issue 29.2: a fast suite).
SURVEILLANCE_T3 = [(n * 11) % 37 if n % 5 else 17 for n in range(3000)]


def copy_surveillance_floor(floors: PlayedFloors, url: str) -> None:
    """The store at `url` as the demo floor {"T1": 80, "T2": 10} (bonus_every=12) and then
    `import_spins(store, …, "T3", SURVEILLANCE_T3)` leave it, played once in this process and copied."""

    def fill(store: Store) -> None:
        fill_demo_floor(store, {"T1": 80, "T2": 10}, bonus_every=12)
        with tempfile.TemporaryDirectory() as scratch:  # the CSV the import reads
            import_spins(store, Path(scratch), "T3", SURVEILLANCE_T3)

    floors.copy_into(url, ("surveillance",), fill)


DemoFloor = Callable[..., Store]


@pytest.fixture
def demo_floor(store_url: str, played_floors: PlayedFloors) -> Iterator[DemoFloor]:
    """`demo_floor(tables, users=False, **options)`: the test's store (`store_url`), opened, holding
    the demo floor `copy_demo_floor` gives; once per test."""
    with ExitStack() as stack:

        def make(tables: dict[str, int], *, users: bool = False, **options: Any) -> Store:
            copy_demo_floor(played_floors, store_url, tables, users=users, **options)
            return stack.enter_context(open_store(store_url, durable=False))

        yield make
