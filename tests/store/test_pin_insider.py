"""PINs against an insider (issue 24, finding 9): a pit boss's or admin's PIN has at least 6 digits
(the settings file may ask more), the hash is memory-hard scrypt of ~0.1 s, an old hash still verifies
and is re-hashed at its next sign-in, and the floor chain every host reads holds a keyed commitment
to the hash, never the hash (an old journal, with the hash in the clear, still verifies)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.auth import AuthenticationFailed, User
from engine.errors import DrrError
from engine.floor_events import PinHash, UserAdded
from engine.journal_types import Payload
from engine.store import Store, open_store, schema, users
from engine.store.users import add_user, authenticate, change_role, set_pin
from engine.store.users_check import users_problem
from engine.store.verify import verify
from gui.cli import main

ADA = User("ada", "admin")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with open_store(str(tmp_path / "t.sqlite"), table="T1", migrate=True) as s:
        add_user(s, "ada", "admin", "482913", by=None)
        yield s


def _todays_kdf(monkeypatch: pytest.MonkeyPatch) -> None:
    """The product's parameters, not the suite's quick ones (tests/conftest.py)."""
    n, r, p = users.PIN_KDF
    monkeypatch.setattr(users, "SCRYPT_N", n)
    monkeypatch.setattr(users, "SCRYPT_R", r)
    monkeypatch.setattr(users, "SCRYPT_P", p)


def _row_hash(store: Store, name: str) -> str:
    with store.read() as conn:
        u = schema.users
        return str(conn.execute(sa.select(u.c.pin_hash).where(u.c.name == name)).scalar_one())


def _floor_text(store: Store) -> str:
    return "\n".join(e.payload_text for e in store.journal.entries("floor"))


def test_a_pit_boss_or_admin_pin_has_six_digits_at_least(store: Store) -> None:
    with pytest.raises(DrrError, match="a pit boss's PIN is at least 6 digits"):
        add_user(store, "pat", "pitboss", "2468", by=ADA)
    with pytest.raises(DrrError, match="an admin's PIN is at least 6 digits"):
        add_user(store, "eve", "admin", "12345", by=ADA)
    add_user(store, "cora", "croupier", "1357", by=ADA)  # a croupier's may be 4
    with pytest.raises(DrrError, match="at least 8 digits"):
        add_user(store, "pat", "pitboss", "246802", by=ADA, supervisor_digits=8)
    add_user(store, "pat", "pitboss", "24680246", by=ADA, supervisor_digits=8)
    # A croupier's short PIN is not promoted with her: a new one first (the rule read from the journal).
    with pytest.raises(DrrError, match="set a PIN of at least 6 digits first"):
        change_role(store, "cora", "pitboss", by=ADA)
    with pytest.raises(DrrError, match="a pit boss's PIN is at least 6 digits"):
        set_pin(store, "pat", "1111", by=ADA)
    set_pin(store, "cora", "135790", by=ADA)
    change_role(store, "cora", "pitboss", by=ADA)
    assert authenticate(store, "cora", "135790") == User("cora", "pitboss")


def test_the_settings_file_raises_the_supervisor_digits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "drr.toml"
    settings.write_text("[users]\nsupervisor_pin_digits = 8\n")
    monkeypatch.setenv("DRR_CONFIG", str(settings))
    db = str(tmp_path / "cli.sqlite")
    assert main(["users", "add", "ada", "--role", "admin", "--pin", "4829131", "--db", db]) == 1
    assert "drr: an admin's PIN is at least 8 digits" in capsys.readouterr().err
    assert main(["users", "add", "ada", "--role", "admin", "--pin", "48291357", "--db", db]) == 0
    settings.write_text("[users]\nsupervisor_pin_digits = 4\n")  # fewer than 6 is not a setting
    assert main(["config", "check"]) == 1
    assert "users.supervisor_pin_digits" in capsys.readouterr().out + capsys.readouterr().err


def test_the_kdf_is_memory_hard_and_takes_about_a_tenth_of_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    n, r, p = users.PIN_KDF
    assert n * r * p >= 3 * 2**14 * 8  # three times the old n=16384, r=8 (31 hashes a second a core)
    assert 128 * n * r >= 48 * 2**20  # the memory one try needs: 48 MiB
    _todays_kdf(monkeypatch)
    started = time.perf_counter()
    made = PinHash.from_text(users.make_pin_hash("482913").text())
    took = time.perf_counter() - started
    assert (made.n, made.r, made.p) == users.PIN_KDF
    assert 0.03 < took < 10  # ~0.1 s on an idle core; the shared test machine is slower


def test_the_floor_chain_holds_a_commitment_not_the_hash(store: Store) -> None:
    add_user(store, "pat", "pitboss", "246802", by=ADA)
    set_pin(store, "pat", "135792", by=ADA)
    row = _row_hash(store, "pat")
    made = PinHash.from_text(row.split("#")[0])
    text = _floor_text(store)
    # what a reader of the chain would try PINs against: neither the salt nor the hash is on it
    assert made.salt not in text and made.digest not in text and '"pin":' not in text
    assert '"pin_commitment":' in text
    assert users_problem(store) is None and verify(store, "floor").ok
    # the hash in the row is bound to the journal: another one (with its own commitment key) is named
    forged, _ = users.make_pin_secret("999999", 6)
    with store.begin() as conn:
        conn.execute(sa.update(schema.users).where(schema.users.c.name == "pat").values(pin_hash=forged))
    assert "users row pat: the PIN hash is not the one the journal set" in (users_problem(store) or "")
    with pytest.raises(AuthenticationFailed, match="disagrees with the floor journal"):
        authenticate(store, "pat", "999999")


def _old_user(store: Store, name: str, role: str, pin: str) -> str:
    """A user as the journal wrote them before issue 24: the scrypt hash (n=16384, r=8) in the clear."""
    import hashlib
    import secrets

    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
    old = PinHash(2**14, 8, 1, salt.hex(), digest.hex())

    def decide(conn: sa.Connection) -> list[Payload]:
        return [UserAdded(name, role, old)]

    users._journal(store, decide, user=lambda _: "ada")
    return old.text()


def test_an_old_hash_verifies_and_is_rehashed_at_the_next_sign_in(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _todays_kdf(monkeypatch)
    old = _old_user(store, "olga", "croupier", "1357")
    assert _row_hash(store, "olga") == old  # the old journal's projection, as it was
    assert users_problem(store) is None and verify(store, "floor").ok  # an old journal verifies as it is
    assert authenticate(store, "olga", "1357") == User("olga", "croupier")
    new = _row_hash(store, "olga")
    h = PinHash.from_text(new.split("#")[0])
    assert (h.n, h.r, h.p) == users.PIN_KDF and h.digest not in _floor_text(store)
    entries = [e for e in store.journal.entries("floor") if e.payload.get("name") == "olga"]
    assert [e.type for e in entries[-2:]] == ["user.login", "user.pin_changed"]
    assert entries[-1].payload.get("rehash") is True and "pin_commitment" in entries[-1].payload
    assert users_problem(store) is None and verify(store, "floor").ok
    assert authenticate(store, "olga", "1357") == User("olga", "croupier")  # once: no second re-hash
    assert _row_hash(store, "olga") == new
    with pytest.raises(AuthenticationFailed):
        authenticate(store, "olga", "7531")


def test_an_old_store_file_verifies_after_rehash_on_reopen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`drr db rebuild` keeps a committed hash (the journal cannot give it back) and an old one alike."""
    path = str(tmp_path / "old.sqlite")
    with open_store(path, table="T1", migrate=True) as s:
        add_user(s, "ada", "admin", "482913", by=None)
        _old_user(s, "olga", "croupier", "1357")
    assert main(["db", "rebuild", "--db", path]) == 0
    with open_store(path, table="T1") as s:
        assert authenticate(s, "ada", "482913") == ADA
        assert authenticate(s, "olga", "1357") == User("olga", "croupier")
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM users WHERE pin_hash LIKE 'committed$%'").fetchone() == (0,)
    finally:
        conn.close()
    assert main(["audit", "verify", "--db", path]) == 0
