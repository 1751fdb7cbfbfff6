"""Issue 13 (3): every user change is a journaled entry on the store's own floor chain and the users
table is its projection — rebuilt from it by `drr db rebuild`, checked column by column by `drr
audit verify` (PIN hash, count of wrong PINs and lock-out included), weak scrypt parameters refused,
the floor chain signed by its own key so it cannot be rewritten either."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine.auth import AuthenticationFailed, User
from engine.errors import DrrError
from engine.floor_events import PinHash
from engine.store import open_store
from engine.store.canonical import GENESIS_HASH, entry_hash
from engine.store.users import (
    MAX_FAILURES,
    add_user,
    authenticate,
    change_role,
    disable_user,
    enable_user,
    list_users,
    set_pin,
    unlock_user,
)
from engine.store.users_check import users_problem
from gui.cli import main

ADA = User("ada", "admin")


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "t.sqlite")
    with open_store(path, table="T1", migrate=True) as store:
        add_user(store, "ada", "admin", "482913", by=None)
        add_user(store, "cora", "croupier", "135790", by=ADA)
        add_user(store, "pat", "pitboss", "246802", by=ADA)
    return path


def _floor(path: str) -> list[tuple[str, dict[str, object]]]:
    with open_store(path, table="T1") as store:
        return [(e.type, dict(e.payload)) for e in store.journal.entries("floor")]


def _sql(path: str, *statements: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in statements:
        conn.execute(statement)
    conn.close()


def _audit_fails(path: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["audit", "verify", "--db", path]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    return err


def test_every_user_change_is_journaled_and_the_users_table_is_rebuilt_from_it(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with open_store(db, table="T1") as store:
        change_role(store, "cora", "pitboss", by=ADA)
        set_pin(store, "cora", "111222", by=ADA)
        disable_user(store, "pat", by=ADA)
        enable_user(store, "pat", by=ADA)
        for _ in range(MAX_FAILURES):
            with pytest.raises(AuthenticationFailed):
                authenticate(store, "pat", "000000")
        unlock_user(store, "pat", by=ADA)
        before = list_users(store)
        assert users_problem(store) is None
    types = [t for t, _ in _floor(db)]
    for t in ("user.added", "user.role_changed", "user.pin_changed", "user.disabled", "user.enabled",
              "user.login_failed", "user.locked_out", "user.unlocked"):  # fmt: skip
        assert t in types, t
    added = [p for t, p in _floor(db) if t == "user.added"]
    assert all("pin" not in p for p in added)  # no PIN hash on the chain (issue 24): a commitment to it
    pin = added[0]["pin_commitment"]
    assert pin["scheme"] == "hmac-sha256" and len(pin["commitment"]) == 64 and pin["min_digits"] == 6
    # The users table is a projection: `drr db rebuild` makes it again from the floor chain, keeping
    # each row's PIN hash where it is the one the journal's commitment names.
    assert main(["db", "rebuild", "--db", db]) == 0
    with open_store(db, table="T1") as store:
        assert list_users(store) == before
        assert authenticate(store, "cora", "111222") == User("cora", "pitboss")  # the new PIN, the new role
    assert main(["audit", "verify", "--db", db]) == 0
    # Emptied, the table comes back from the journal without the hashes (the journal does not hold
    # them): every user, role and state as before, no PIN until one is set; verify names the loss.
    _sql(db, "DELETE FROM users")
    assert main(["db", "rebuild", "--db", db]) == 0
    with open_store(db, table="T1") as store:
        assert [(u.name, u.role, u.disabled) for u in list_users(store)] == [
            (u.name, u.role, u.disabled) for u in before
        ]
        with pytest.raises(AuthenticationFailed):
            authenticate(store, "cora", "111222")
    capsys.readouterr()
    assert main(["audit", "verify", "--db", db]) == 1
    assert "the PIN hash was lost outside the journal" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("statement", "named"),
    [
        # A PIN hash swapped for one the intruder knows (was not checked: not journaled).
        ("UPDATE users SET pin_hash = (SELECT pin_hash FROM users WHERE name = 'cora') WHERE name = 'ada'",
         "users row ada: the PIN hash is not the one the journal set"),
        # The count of wrong PINs reset, so the brute force goes on (was not checked).
        ("UPDATE users SET failures = 0 WHERE name = 'pat'",
         "users row pat: the count of wrong PINs is 0, the journal says 3"),
        ("UPDATE users SET disabled = 0 WHERE name = 'cora'", "users row cora: disabled is false"),
        ("DELETE FROM users WHERE name = 'pat'", "users row pat of the journal is missing"),
        ("UPDATE users SET created_at = '2020-01-01T00:00:00.000000Z' WHERE name = 'pat'",
         "users row pat: created_at"),
    ],
)  # fmt: skip
def test_a_user_changed_with_plain_sql_is_caught(
    db: str, statement: str, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with open_store(db, table="T1") as store:
        for _ in range(3):
            with pytest.raises(AuthenticationFailed):
                authenticate(store, "pat", "000000")
        disable_user(store, "cora", by=ADA)
    assert main(["audit", "verify", "--db", db]) == 0
    _sql(db, statement)
    err = _audit_fails(db, capsys)
    assert named in err and ("changed outside" in err or "removed outside" in err), err


def test_a_lock_out_lifted_with_plain_sql_is_caught(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with open_store(db, table="T1") as store:
        for _ in range(MAX_FAILURES):
            with pytest.raises(AuthenticationFailed):
                authenticate(store, "pat", "000000")
    _sql(db, "UPDATE users SET locked_until = NULL WHERE name = 'pat'")
    assert "users row pat: locked until is none, the journal says 20" in _audit_fails(db, capsys)


def test_weak_scrypt_parameters_are_refused(db: str) -> None:
    with pytest.raises(ValueError, match="weak scrypt parameters: n=1024"):
        PinHash(1024, 8, 1, "00" * 16, "11" * 32)
    weak = {"scheme": "scrypt", "n": 2, "r": 1, "p": 1, "salt": "00" * 16, "hash": "11" * 32}
    with open_store(db, table="T1") as store:
        # An entry with weak parameters is not written (the projection reads it through its class).
        with pytest.raises(DrrError, match="weak scrypt parameters"):
            store.journal.append(
                "floor", "user.pin_changed", {"name": "pat", "pin": weak}, round_id=None, user="x"
            )
        assert users_problem(store) is None
    # A weak hash put in the row with plain SQL (the issue: an admin with weak parameters) never
    # matches, even its own PIN, and the audit names it.
    import hashlib

    digest = hashlib.scrypt(b"999999", salt=b"\0" * 16, n=2, r=1, p=1, dklen=32).hex()
    _sql(db, f"UPDATE users SET pin_hash = 'scrypt$2$1$1${'00' * 16}${digest}' WHERE name = 'pat'")
    with open_store(db, table="T1") as store:
        with pytest.raises(AuthenticationFailed):
            authenticate(store, "pat", "999999")
        assert "users row pat: the PIN hash is not the one the journal set" in (users_problem(store) or "")


def test_a_rewritten_floor_chain_is_caught_by_its_key(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    # The auditor's rewrite of issue 13, on the users' journal: cora added as admin instead of croupier,
    # every later hash, the head and the users row made to agree. Only the floor key's signature tells.
    conn = sqlite3.connect(db, isolation_level=None)
    conn.row_factory = sqlite3.Row
    rows = [dict(r) for r in conn.execute("SELECT * FROM journal WHERE table_id = 'floor' ORDER BY seq")]
    prev = GENESIS_HASH
    for row in rows:
        body = json.loads(row["payload"])
        if row["type"] == "user.added" and body["name"] == "cora":
            body["role"] = "admin"
            row["payload"] = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        row["prev_hash"] = prev
        row["hash"] = prev = entry_hash(
            table="floor", seq=row["seq"], time=row["time"], user=row["user_name"], round_id=row["round_id"],
            type=row["type"], payload=json.loads(row["payload"]), prev_hash=prev,
        )  # fmt: skip
    conn.execute("BEGIN")
    for row in rows:
        conn.execute(
            "UPDATE journal SET payload = ?, prev_hash = ?, hash = ? WHERE table_id = 'floor' AND seq = ?",
            (row["payload"], row["prev_hash"], row["hash"], row["seq"]),
        )
    conn.execute("UPDATE chain_heads SET hash = ? WHERE table_id = 'floor'", (prev,))
    conn.execute("UPDATE users SET role = 'admin' WHERE name = 'cora'")
    conn.execute("COMMIT")
    conn.close()
    err = _audit_fails(db, capsys)
    assert "table floor entry 3: its MAC does not match the table's key" in err, (
        err
    )  # the exact entry (chain's MACs)


def test_the_floor_chain_is_never_forwarded(db: str, tmp_path: Path) -> None:
    from engine.store.forward import Forwarder

    with open_store(db, table="T1") as store, pytest.raises(DrrError, match="is not forwarded"):
        Forwarder(store, str(tmp_path / "central.sqlite"), ["floor"])


def test_the_users_commands_journal_each_change(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    admin = ["--db", db, "--as", "ada", "--admin-pin", "482913"]
    assert main(["users", "role", "cora", "--role", "pitboss", *admin]) == 0
    assert main(["users", "pin", "cora", "--pin", "111222", *admin]) == 0
    assert main(["users", "disable", "cora", *admin]) == 0
    assert main(["users", "enable", "cora", *admin]) == 0
    assert main(["users", "unlock", "cora", *admin]) == 1  # nothing to unlock: one line, nothing journaled
    assert main(["users", "role", "ada", "--role", "croupier", *admin]) == 1  # the last active admin
    assert (
        main(["users", "role", "cora", "--role", "admin", "--db", db, "--as", "pat", "--admin-pin", "246802"])
        == 3
    )
    err = capsys.readouterr().err
    assert "not locked out" in err and "last active admin" in err and "may not manage users" in err
    changes = [t for t, _ in _floor(db) if t in ("user.role_changed", "user.pin_changed", "user.disabled",
                                                  "user.enabled", "user.unlocked")]  # fmt: skip
    assert changes == ["user.role_changed", "user.pin_changed", "user.disabled", "user.enabled"]
    assert main(["audit", "verify", "--db", db]) == 0
