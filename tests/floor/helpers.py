"""Floor test helpers: a store (PostgreSQL with DRR_TEST_PG_URL, else SQLite), users, bulk spins."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.auth import User
from engine.store import Store, open_store
from engine.store.users import add_user
from tests.pg_schema import PG_URL, pg_schema_url

PINS = {"ada": "111111", "pat": "246810", "cody": "1357", "sam": "9753"}


@pytest.fixture
def store_url(tmp_path: Path) -> Iterator[str]:
    if PG_URL is None:
        yield f"sqlite:///{tmp_path / 'floor.sqlite'}"
        return
    with pg_schema_url("drr_floor") as url:
        yield url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    # A scratch store: no test here is about durability, and the demo floor's rounds are played
    # through the table service (a transaction per command) faster without waiting for the disk.
    with open_store(store_url, durable=False) as s:
        yield s


# The users add_users adds, by role.
USERS = {
    "admin": User("ada", "admin"),
    "pitboss": User("pat", "pitboss"),
    "croupier": User("cody", "croupier"),
    "surveillance": User("sam", "surveillance"),
}


def add_users(store: Store) -> dict[str, User]:
    """An admin, a pit boss, a croupier and a surveillance officer (PINS): USERS."""
    admin = USERS["admin"]
    add_user(store, "ada", "admin", PINS["ada"], by=None)
    for name, role in (("pat", "pitboss"), ("cody", "croupier"), ("sam", "surveillance")):
        add_user(store, name, role, PINS[name], by=admin)
    return dict(USERS)


def import_spins(store: Store, tmp_path: Path, table: str, numbers: list[int], start_hour: int = 0) -> None:
    """Bulk results through `history import` (one journal transaction)."""
    from engine.store.history import import_csv

    lines = ["timestamp,number"] + [
        f"2026-11-27T{start_hour + i // 3600:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z,{n}"
        for i, n in enumerate(numbers)
    ]
    path = tmp_path / f"import-{table}.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_csv(store, path, table)
