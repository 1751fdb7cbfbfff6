"""Issue 13, the last gap: the floor chain of a PostgreSQL floor database is signed entry by entry by
its writers' keys (engine.store.floor_sign), enrolled by the floor's root key. Someone who can write the
floor database but holds no key cannot rewrite, insert, promote, remove, reorder or cut floor-chain
entries (users included), nor admit a key of their own, without `drr audit verify` naming the first
bad entry. Every tampering here passed `drr audit verify` before the floor chain was signed."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.auth import AuthenticationFailed, User
from engine.errors import DrrError
from engine.store import floor_sign, keys, open_store
from engine.store.canonical import GENESIS_HASH, canonical_json, entry_hash
from engine.store.users import add_user, authenticate
from gui.cli import main
from tests.pg_schema import PG_URL, pg_schema_url

pytestmark = pytest.mark.skipif(PG_URL is None, reason="needs DRR_TEST_PG_URL (a real PostgreSQL)")

ADA = User("ada", "admin")
Row = dict[str, Any]


@pytest.fixture
def url() -> Iterator[str]:
    with pg_schema_url("drr_floorsign") as u:
        yield u


@pytest.fixture
def floor(url: str) -> str:
    """A floor database with users, sign-ins and wrong PINs, written by this host (the root key is
    here: its writer key is enrolled at its first write)."""
    with open_store(url) as store:
        add_user(store, "ada", "admin", "482913", by=None)
        add_user(store, "cora", "croupier", "135790", by=ADA)
        add_user(store, "pat", "pitboss", "246802", by=ADA)
        authenticate(store, "cora", "135790", table="T1", station="croupier")
        for _ in range(2):
            with pytest.raises(AuthenticationFailed):
                authenticate(store, "pat", "000000", table="T1")
        time.sleep(keys.WITNESS_EVERY + 0.05)  # the witness follows at most every 0.25 s
        authenticate(store, "pat", "246802", table="T1", station="pitboss")
    return url


def _rows(url: str) -> list[Row]:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(sa.text(
            "SELECT * FROM journal WHERE table_id = 'floor' ORDER BY seq"))]  # fmt: skip
    engine.dispose()
    return rows


def _write_back(url: str, rows: list[Row], *, users: str | None = None) -> None:
    """The chain replaced by `rows`, renumbered, every hash, the head and the users row recomputed
    (what someone who can write the floor database, but holds no key, can do)."""
    prev = GENESIS_HASH
    for seq, row in enumerate(rows, start=1):
        row["seq"], row["prev_hash"] = seq, prev
        row["payload"] = canonical_json(json.loads(row["payload"]))
        row["hash"] = prev = entry_hash(
            table="floor", seq=seq, time=row["time"], user=row["user_name"], round_id=row["round_id"],
            type=row["type"], payload=json.loads(row["payload"]), prev_hash=prev,
        )  # fmt: skip
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM journal WHERE table_id = 'floor'"))
        conn.execute(sa.text("DELETE FROM checkpoints WHERE table_id = 'floor'"))
        cols = list(rows[0])
        conn.execute(
            sa.text(f"INSERT INTO journal ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)})"),
            rows,
        )
        conn.execute(
            sa.text("UPDATE chain_heads SET seq = :s, hash = :h WHERE table_id = 'floor'"),
            {"s": len(rows), "h": prev},
        )
        if users:
            conn.execute(sa.text(users))
    engine.dispose()


def _sign(private: Ed25519PrivateKey, row: Row) -> None:
    row["signer"] = (
        private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
    )
    row["sig"] = private.sign(keys.signed_message("floor", row["seq"], row["hash"])).hex()


def _audit(url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["audit", "verify", "--db", url, *extra])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, (out.err or out.out).strip()


def _fails_at(url: str, capsys: pytest.CaptureFixture[str], seq: int, what: str) -> None:
    code, said = _audit(url, capsys)
    assert code == 1 and len(said.splitlines()) == 1, said
    assert f"table floor entry {seq}: " in said and what in said, said


def _at(rows: list[Row], test: Callable[[Row], bool]) -> int:
    return next(i for i, r in enumerate(rows) if test(r))


def _promotion(like: Row) -> Row:
    """cora made an admin, as an entry like `like` (its writer key and signature copied)."""
    payload = json.dumps({"name": "cora", "role": "admin", "old_role": "croupier"})
    return dict(like, type="user.role_changed", user_name="ada", payload=payload)


def _added(name: str) -> Callable[[Row], bool]:
    return lambda r: r["type"] == "user.added" and json.loads(r["payload"])["name"] == name


def test_every_floor_entry_is_signed_by_an_enrolled_writer_and_verifies(
    floor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(floor)
    assert [r["type"] for r in rows[:3]] == ["chain.keyed", "chain.writer_enrolled", "user.added"]
    root = keys.load(floor_sign_where(floor), "floor")
    assert root is not None and json.loads(rows[0]["payload"])["key"] == root.public
    assert rows[0]["signer"] == rows[1]["signer"] == root.public  # the root signs the keying and enrolment
    writer = json.loads(rows[1]["payload"])["key"]
    assert writer != root.public and all(r["signer"] == writer for r in rows[2:])
    assert all(keys.check_signature(r["signer"], "floor", r["seq"], r["hash"], r["sig"]) for r in rows)
    assert all(r["mac"] is None for r in rows)  # no one key's MACs: no host holds another's key
    code, said = _audit(floor, capsys)
    assert code == 0 and f"table floor signed by key {keys.fingerprint(root.public)}" in said, said


def floor_sign_where(url: str) -> str:
    with open_store(url) as store:
        return store.where


def test_a_rewritten_entry_with_every_hash_recomputed_is_named(
    floor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(floor)
    i = _at(rows, _added("cora"))
    body = json.loads(rows[i]["payload"])
    body["role"] = "admin"  # cora added as an admin: her later sign-in and the users row agree
    rows[i]["payload"] = json.dumps(body)
    _write_back(floor, rows, users="UPDATE users SET role = 'admin' WHERE name = 'cora'")
    _fails_at(floor, capsys, i + 1, "its signature does not match its writer's key")


def test_an_inserted_user_is_named(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(floor)
    i = _at(rows, _added("pat"))
    mallory = dict(
        rows[i], payload=rows[i]["payload"].replace('"pat"', '"mallory"').replace("pitboss", "admin")
    )
    mallory["signer"] = mallory["sig"] = None
    rows.insert(i + 1, mallory)
    copy = "SELECT 'mallory', 'admin', pin_hash, disabled, failures, locked_until, created_at FROM users"
    _write_back(floor, rows, users=f"INSERT INTO users {copy} WHERE name = 'pat'")
    _fails_at(floor, capsys, i + 2, "carries no writer's signature")


def test_a_promotion_appended_with_a_copied_signature_is_named(
    floor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(floor)
    rows.append(_promotion(rows[-1]))  # the writer key and signature of the entry before it, copied
    _write_back(floor, rows, users="UPDATE users SET role = 'admin' WHERE name = 'cora'")
    _fails_at(floor, capsys, len(rows), "its signature does not match its writer's key")


def test_a_removed_entry_is_named(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(floor)
    i = max(i for i, r in enumerate(rows) if r["type"] == "user.login_failed")
    del rows[i]  # the second wrong PIN forgotten (the sign-in after it cleared the count anyway)
    _write_back(floor, rows)
    _fails_at(floor, capsys, i + 1, "its signature does not match")


def test_two_swapped_entries_are_named(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(floor)
    i = _at(rows, _added("cora"))
    rows[i], rows[i + 1] = rows[i + 1], rows[i]
    _write_back(floor, rows)
    _fails_at(floor, capsys, i + 1, "its signature does not match")


def test_an_entry_signed_by_a_key_no_root_enrolled_is_named(
    floor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(floor)
    rows.append(_promotion(rows[-1]))
    _write_back(floor, rows, users="UPDATE users SET role = 'admin' WHERE name = 'cora'")
    rows = _rows(floor)
    _sign(Ed25519PrivateKey.generate(), rows[-1])  # a valid signature, by the intruder's own key
    _write_back(floor, rows)
    _fails_at(floor, capsys, len(rows), "which no enrolment by the floor's root key admits")


@pytest.mark.parametrize("claimed", ["own", "root"])
def test_a_forged_enrolment_is_named(floor: str, claimed: str, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(floor)
    mine = Ed25519PrivateKey.generate()
    public = mine.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
    rows.append(dict(rows[1], payload=json.dumps({"key": public, "host": "evil", "by": "ada"})))
    rows.append(_promotion(rows[-2]))
    _write_back(floor, rows, users="UPDATE users SET role = 'admin' WHERE name = 'cora'")
    rows = _rows(floor)
    for row in rows[-2:]:
        _sign(mine, row)
    if claimed == "root":  # the enrolment claims the root key as its signer
        rows[-2]["signer"] = rows[0]["signer"]
    _write_back(floor, rows)
    what = "not signed by the floor's root key" if claimed == "own" else "its signature does not match"
    _fails_at(floor, capsys, len(rows) - 1, what)


def test_a_cut_tail_is_caught_by_the_writers_witness(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(floor)
    writer = keys.load(floor_sign_where(floor), "floor", path=floor_sign.writer_path(floor_sign_where(floor)))
    assert writer is not None and writer.high_water == (len(rows), rows[-1]["hash"])
    _write_back(floor, rows[:-2])  # the last sign-in and wrong PIN gone, the head moved back: all signed
    _fails_at(floor, capsys, len(rows) - 1, f"missing: the floor writer key file {writer.path.name} saw "
                                            f"entry {len(rows)} signed")  # fmt: skip


def test_a_chain_stripped_of_its_keying_or_rekeyed_by_the_intruder_is_named(
    floor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(floor)
    plain = [dict(r, signer=None, sig=None) for r in rows[2:]]  # unsigned from entry 1, as before keys
    _write_back(floor, plain)
    _fails_at(floor, capsys, 1, "the journal names no signing key")
    # Keyed again by a root key of the intruder's, who enrolls a writer of their own and signs it all.
    root, writer = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    hexes = [k.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
             for k in (root, writer)]  # fmt: skip
    forged = [dict(rows[0], payload=json.dumps({"key": hexes[0]})),
              dict(rows[1], payload=json.dumps({"key": hexes[1], "host": "evil"})), *plain]  # fmt: skip
    _write_back(floor, forged)
    forged = _rows(floor)
    for i, row in enumerate(forged):
        _sign(root if i < 2 else writer, row)
    _write_back(floor, forged)
    _fails_at(floor, capsys, 1, "(rewritten with another key)")


def test_a_station_without_the_root_key_is_refused_until_the_admin_enrolls_it(
    floor: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    admin_keys = keys.key_dir()
    before = len(_rows(floor))
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "pit-2-keys"))  # another PC: its own key directory
    monkeypatch.setattr(floor_sign, "this_host", lambda: "pit-2")
    with open_store(floor) as store, pytest.raises(DrrError) as refused:
        authenticate(store, "pat", "246802", station="pitboss")
    said = refused.value.message
    assert "is not enrolled" in said and "drr db enroll --db URL --host pit-2 --key " in said, said
    assert len(_rows(floor)) == before  # nothing written
    capsys.readouterr()
    assert main(["db", "writer-key", "--db", floor]) == 0
    printed = capsys.readouterr().out
    station_key = printed.split("writer key ")[1].split()[0]
    assert "host pit-2" in printed and "not enrolled" in printed and station_key in said
    monkeypatch.setenv("DRR_KEY_DIR", str(admin_keys))  # on the admin's PC, with the root key
    assert (
        main(["db", "enroll", "--db", floor, "--host", "pit-2", "--key", station_key, "--user", "ada"]) == 0
    )
    assert "enrolled on the floor chain" in capsys.readouterr().out
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "pit-2-keys"))
    with open_store(floor) as store:
        assert authenticate(store, "pat", "246802", station="pitboss") == User("pat", "pitboss")
    rows = _rows(floor)
    assert rows[-2]["type"] == "chain.writer_enrolled" and rows[-1]["signer"] == station_key
    code, said = _audit(floor, capsys)  # at the station: every signature holds, the root not pinned here
    assert code == 0 and "key not pinned" in said, said
    monkeypatch.setenv("DRR_KEY_DIR", str(admin_keys))
    code, said = _audit(floor, capsys)
    assert code == 0 and "key not pinned" not in said, said
    # Enrolling needs the root key: the station cannot enrol itself (or a key of an intruder's).
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path / "pit-2-keys"))
    assert main(["db", "enroll", "--db", floor, "--host", "x", "--key", "ab" * 32, "--user", "pat"]) == 1
    assert "root key" in capsys.readouterr().err


def test_drr_db_upgrade_keys_the_floor_chain(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["db", "upgrade", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "floor chain: root key" in out and "created at" in out, out
    rows = _rows(url)
    assert [r["type"] for r in rows] == ["chain.keyed"]
    assert main(["db", "upgrade", "--db", url]) == 0
    assert "floor chain: keyed by root key" in capsys.readouterr().out
    assert len(_rows(url)) == 1
    code, said = _audit(
        url, capsys, "--table", "floor", "--public-key", json.loads(rows[0]["payload"])["key"]
    )
    assert code == 0, said
    code, said = _audit(url, capsys, "--table", "floor", "--public-key", "cd" * 32)
    assert code == 1 and "not the table's key" in said, said


def test_a_long_floor_batch_goes_in_signed_too(floor: str, capsys: pytest.CaptureFixture[str]) -> None:
    # A run of 64 entries or more goes into PostgreSQL by COPY (engine.store.journal), which dropped
    # the writer's signature (and the MAC) of every entry.
    from engine.floor_events import UserLogin
    from engine.journal_types import write

    with open_store(floor) as store:
        store.journal.append_many(
            [write(UserLogin("pat", "pitboss", "pitboss", "pit-1"), table="floor")] * 100
        )
    rows = _rows(floor)
    assert all(r["signer"] and r["sig"] for r in rows)
    code, said = _audit(floor, capsys)
    assert code == 0, said


def test_rotate_key_refuses_the_floor_chain_of_a_postgresql_floor_in_one_line(floor: str) -> None:
    from engine.store.evidence import rotate_key

    with open_store(floor) as store, pytest.raises(DrrError, match="does not rotate its root key"):
        rotate_key(store, "floor", user="ada")
