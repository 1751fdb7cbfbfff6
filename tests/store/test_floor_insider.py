"""Issue 24: someone with write access to the floor database (psql, no key) cannot make a table act.

A floor action is taken only when its entry is in its place in the floor chain (it follows the entry
before it, its hash recomputes) and, on PostgreSQL, is signed by a writer whose enrolment the floor's
root key signed; the role of its user is folded from that verified chain, never read from the users
table; a refused row is journaled as refused and never moves the inbox past the later legitimate
actions (engine.floor.inbox, engine.store.floor_sign.TrustedFloor)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.auth import User
from engine.floor import actions
from engine.floor.actions import current_settings
from engine.floor.inbox import FloorInbox
from engine.floor_events import FloorAction, WriterEnrolled
from engine.journal_types import write
from engine.store import Store, keys, open_store
from engine.store.canonical import entry_hash
from engine.store.forward import Forwarder
from engine.store.records import NewEvent
from engine.store.users import FLOOR, add_user
from tests.pg_schema import PG_URL
from tests.store.helpers import play_round

PAT = User("pat", "pitboss")
ADMIN = User("ada", "admin")
needs_pg = pytest.mark.skipif(PG_URL is None, reason="the floor chain is signed entry by entry on PostgreSQL")


def _floor(store: Store, central: Store, table: str) -> Forwarder:
    play_round(store, table, f"{table}-000001", 9, paid="18.00")
    play_round(store, table, f"{table}-000002", 17, paid="0.00")
    add_user(central, "ada", "admin", "481293", by=None)
    add_user(central, "pat", "pitboss", "246824", by=ADMIN)
    add_user(central, "cleo", "croupier", "135713", by=ADMIN)
    forwarder = Forwarder(store, central, [table])
    assert forwarder.forward_once() > 0
    return forwarder


def _public(private: Ed25519PrivateKey) -> str:
    return private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def _insert(
    central: Store, events: Sequence[NewEvent], *, signer: Ed25519PrivateKey | None, seq: int | None = None
) -> list[int]:
    """The rows an insider writes with psql at the floor chain's tail (or at `seq`): hashes that link and
    recompute, signed by the insider's own key (or unsigned), the head moved on. Returns their seqs."""
    done: list[int] = []
    with central.begin() as conn:
        last = conn.execute(
            sa.text("SELECT seq, hash, time FROM journal WHERE table_id = 'floor' ORDER BY seq DESC LIMIT 1")
        ).one()
        at, prev = (seq - 1, "f" * 64) if seq is not None else (int(last.seq), str(last.hash))
        for e in events:
            at += 1
            payload = dict(e.payload)
            text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            digest = entry_hash(
                table=FLOOR, seq=at, time=last.time, user=e.user, round_id=e.round_id, type=e.type,
                payload=payload, prev_hash=prev,
            )  # fmt: skip
            row: dict[str, Any] = {
                "table_id": FLOOR, "seq": at, "time": last.time, "user_name": e.user, "round_id": e.round_id,
                "type": e.type, "payload": text, "prev_hash": prev, "hash": digest,
            }  # fmt: skip
            if signer is not None and not central.is_sqlite:
                row["signer"] = _public(signer)
                row["sig"] = signer.sign(keys.signed_message(FLOOR, at, digest)).hex()
            cols = list(row)
            conn.execute(
                sa.text(
                    f"INSERT INTO journal ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)})"
                ),
                row,
            )
            prev = digest
            done.append(at)
        if seq is None:
            conn.execute(
                sa.text("UPDATE chain_heads SET seq = :s, hash = :h WHERE table_id = 'floor'"),
                {"s": at, "h": prev},
            )
    return done


def _void(table: str, round_id: str, user: str = "pat") -> NewEvent:
    voided = {"type": "round.voided", "reason": "forged", "by": user, "previous_status": "settled"}
    return write(FloorAction(table, "round.voided", voided), table=FLOOR, round_id=round_id, user=user)


@needs_pg
def test_a_forged_enrolment_and_the_void_it_signs_are_refused_and_journaled_as_refused(
    store: Store, central: Store, table_id: str
) -> None:
    _floor(store, central, table_id)
    mallory = Ed25519PrivateKey.generate()
    round_id = f"{table_id}-000001"
    enrolment = write(
        WriterEnrolled(_public(mallory), "evil"), table=FLOOR
    )  # signed by mallory, not the root
    _insert(central, [enrolment, _void(table_id, round_id)], signer=mallory)

    taken = FloorInbox(store, central, table_id).take()

    assert [t.outcome for t in taken] == ["refused"]
    assert "no enrolment by the floor's root key admits" in str(taken[0].why)
    assert actions.round_row(store, round_id, table_id).status == "settled"  # the table never acted
    marker = list(store.journal.entries(table_id))[-1]
    assert marker.type == "table.floor_action_taken" and marker.payload["outcome"] == "refused"


@needs_pg
@pytest.mark.parametrize("setting", ["max_bet", "large_payout"])
def test_a_forged_enrolment_cannot_raise_the_limits(
    store: Store, central: Store, table_id: str, setting: str
) -> None:
    _floor(store, central, table_id)
    mallory = Ed25519PrivateKey.generate()
    change = {"type": "table.settings_changed", "changes": {setting: "1000000"}, "reason": "vip", "by": "pat"}
    forged = write(FloorAction(table_id, "table.settings_changed", change), table=FLOOR, user="pat")
    _insert(central, [write(WriterEnrolled(_public(mallory), "evil"), table=FLOOR), forged], signer=mallory)

    (taken,) = FloorInbox(store, central, table_id).take()

    assert taken.outcome == "refused"
    assert current_settings(store, table_id).get(setting) != "1000000"


def test_a_refused_row_never_silences_the_legitimate_actions_after_it(
    store: Store, central: Store, table_id: str
) -> None:
    """An unsigned row, and one inserted far ahead of the chain's head: both refused, with why; the pit
    boss's genuine void after them is taken (the inbox resumes after the newest action *taken*)."""
    _floor(store, central, table_id)
    _insert(central, [_void(table_id, f"{table_id}-000002")], signer=None)
    _insert(central, [_void(table_id, f"{table_id}-000002")], signer=None, seq=1_000_000)
    first = FloorInbox(store, central, table_id).take()
    assert [t.outcome for t in first] == ["refused", "refused"], first
    assert "inserted out of the chain" in str(first[1].why)

    actions.void(central, f"{table_id}-000001", "ball left the wheel", PAT, table=table_id)
    for inbox in (FloorInbox(store, central, table_id),):  # a forwarder started afresh
        taken = inbox.take()
        assert [(t.action, t.outcome) for t in taken] == [("round.voided", "taken")], taken
        assert inbox.take() == []
    assert actions.round_row(store, f"{table_id}-000001", table_id).status == "void"
    refused = [e for e in store.journal.entries(table_id) if e.type == "table.floor_action_taken"]
    assert [e.payload["outcome"] for e in refused] == ["refused", "refused", "taken"]  # each answered once


@pytest.fixture(params=["central", "sqlite"])
def any_central(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """The floor database of the run (PostgreSQL with DRR_TEST_PG_URL) and a SQLite one."""
    if request.param == "central":
        yield request.getfixturevalue("central")
        return
    with open_store(f"sqlite:///{tmp_path / 'floor.sqlite'}") as s:
        yield s


def test_a_role_edited_in_the_users_table_does_not_let_a_croupier_void(
    store: Store, any_central: Store, table_id: str
) -> None:
    central = any_central
    _floor(store, central, table_id)
    with central.begin() as conn:
        conn.execute(sa.text("UPDATE users SET role = 'pitboss' WHERE name = 'cleo'"))
    # The croupier's void, written through the floor's own code (her station's key signs it).
    actions.void(central, f"{table_id}-000001", "forged", User("cleo", "pitboss"), table=table_id)

    (taken,) = FloorInbox(store, central, table_id).take()

    assert taken.outcome == "refused" and "croupier" in str(taken.why), taken
    assert actions.round_row(store, f"{table_id}-000001", table_id).status == "settled"


def test_a_role_edited_in_the_users_table_refuses_the_sign_in_and_a_croupier_cannot_void(
    store: Store, any_central: Store, table_id: str
) -> None:
    """`update users set role='pitboss'`: the sign-in takes the role from the floor journal, sees the
    row disagree and refuses in one line (journaled); put back, the croupier signs in as a croupier."""
    from engine.auth import AuthenticationFailed, PermissionDenied
    from engine.store.users import authenticate

    central = any_central
    _floor(store, central, table_id)
    with central.begin() as conn:
        conn.execute(sa.text("UPDATE users SET role = 'pitboss' WHERE name = 'cleo'"))
    with pytest.raises(AuthenticationFailed, match="disagrees with the floor journal"):
        authenticate(central, "cleo", "135713", table=table_id)
    last = list(central.journal.entries(FLOOR))[-1]
    assert (
        last.type == "user.login_failed" and last.payload["why"] == "users table disagrees with the journal"
    )
    with central.begin() as conn:
        conn.execute(sa.text("UPDATE users SET role = 'croupier' WHERE name = 'cleo'"))
    cleo = authenticate(central, "cleo", "135713", table=table_id)
    assert cleo.role == "croupier"
    with pytest.raises(PermissionDenied):
        actions.void(central, f"{table_id}-000001", "forged", cleo, table=table_id)


def test_the_pit_boss_is_told_a_void_at_the_floor_is_sent_not_done(
    store: Store, central: Store, central_url: str, table_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from gui.cli import main

    _floor(store, central, table_id)
    argv = ["history", "void", f"{table_id}-000001", "--db", central_url, "--table", table_id]
    code = main([*argv, "--reason", "dispute", "--user", "pat", "--pin", "246824"])
    said = capsys.readouterr().out.strip()
    assert code == 0 and "sent to table" in said and "drr history show" in said, said
    assert actions.round_row(store, f"{table_id}-000001", table_id).status == "settled"  # not yet
