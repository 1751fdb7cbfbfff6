"""The way back from the floor (engine.floor.inbox): a pit boss's action journaled at the floor database
as `floor.action` (the table's chain there is the forwarded copy) is taken into the table's own journal
by its forwarder, decided again there, once, with a `table.floor_action_taken` marker in the same batch;
refused, with why, when the table moved on or the floor entry is not a floor user's."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from engine.auth import User
from engine.bets import inside_bet
from engine.floor import actions
from engine.floor.actions import current_settings
from engine.floor.describe import describe
from engine.floor.inbox import FloorInbox, last_taken
from engine.floor_events import FloorAction
from engine.journal_types import write
from engine.rng import SeededRng
from engine.store import Store, schema
from engine.store.forward import Forwarder
from engine.store.users import FLOOR, add_user
from engine.store.verify import verify
from engine.table.service import TableService
from tests.payloads import RULES_SHA
from tests.pg_schema import PG_URL
from tests.store.helpers import play_round
from tests.table.helpers import CROUPIER, wheel

PAT = User("pat", "pitboss")
ADMIN = User("ada", "admin")


def _floor(store: Store, central: Store, table: str) -> Forwarder:
    """Two settled rounds at the table, forwarded; the floor has a pit boss pat."""
    play_round(store, table, f"{table}-000001", 9, paid="18.00")
    play_round(store, table, f"{table}-000002", 17, paid="0.00")
    add_user(central, "ada", "admin", "481200", by=None)
    add_user(central, "pat", "pitboss", "246810", by=ADMIN)
    forwarder = Forwarder(store, central, [table])
    assert forwarder.forward_once() > 0
    return forwarder


def _tail(store: Store, table: str, n: int) -> list[Any]:
    return list(store.journal.entries(table))[-n:]


def test_a_void_at_the_floor_is_taken_into_the_tables_journal_once_with_its_marker(
    store: Store, central: Store, table_id: str
) -> None:
    forwarder = _floor(store, central, table_id)
    round_id = f"{table_id}-000001"
    actions.void(central, round_id, "ball left the wheel", PAT, table=table_id)
    floor_action = [e for e in central.journal.entries(FLOOR) if e.type == "floor.action"][-1]

    taken = FloorInbox(store, central, table_id).take()

    assert [(t.action, t.outcome) for t in taken] == [("round.voided", "taken")]
    marker, voided = _tail(store, table_id, 2)
    assert marker.type == "table.floor_action_taken" and voided.type == "round.voided"
    assert voided.seq == marker.seq + 1  # one batch: never an action without its marker
    assert marker.payload == {
        "floor_seq": floor_action.seq,
        "floor_hash": floor_action.hash,
        "action": "round.voided",
        "outcome": "taken",
    }
    assert voided.user == "pat" and voided.payload["reason"] == "ball left the wheel"
    assert actions.round_row(store, round_id, table_id).status == "void"
    # Taken once: again in this process, and by a forwarder started afresh (it reads the marker).
    assert FloorInbox(store, central, table_id).take() == []
    assert last_taken(store, table_id) == floor_action.seq
    # The floor sees the table's answer in the next forward, and both stores verify.
    assert forwarder.forward_once() == 2
    assert [e.type for e in _tail(central, table_id, 2)] == ["table.floor_action_taken", "round.voided"]
    assert verify(store, table_id).ok and verify(central, table_id).ok


def test_settings_changed_at_the_floor_are_in_force_at_the_table(
    store: Store, central: Store, table_id: str
) -> None:
    _floor(store, central, table_id)
    actions.change_settings(central, table_id, {"max_bet": "500"}, "new limits", PAT)
    assert current_settings(store, table_id).get("max_bet") is None

    (taken,) = FloorInbox(store, central, table_id).take()

    assert taken.outcome == "taken"
    assert current_settings(store, table_id)["max_bet"] == "500"


def test_a_wheel_service_at_the_floor_is_taken_and_restarts_the_tables_bias_tests(
    store: Store, central: Store, table_id: str
) -> None:
    from engine.table.bias_watch import BiasWatch

    _floor(store, central, table_id)
    assert BiasWatch(table_id).spins_to_replay(store) == 2  # the two settled rounds
    actions.wheel_serviced(central, table_id, "wheel change", "new wheel fitted", PAT)

    (taken,) = FloorInbox(store, central, table_id).take()

    assert (taken.action, taken.outcome) == ("table.wheel_serviced", "taken"), taken
    marker, serviced = _tail(store, table_id, 2)
    assert marker.type == "table.floor_action_taken" and serviced.type == "table.wheel_serviced"
    assert serviced.user == "pat" and serviced.payload["what"] == "wheel change"
    said = describe(marker.type, marker.payload)  # what recall shows the pit boss
    assert said == "the pit boss's wheel service at the floor, taken in by the table"
    assert BiasWatch(table_id).spins_to_replay(store) == 0  # every test starts afresh from the next spin


def test_a_correction_is_refused_when_the_table_has_another_result_since(
    store: Store, central: Store, table_id: str
) -> None:
    _floor(store, central, table_id)
    round_id = f"{table_id}-000002"
    actions.correct_result(store, round_id, 20, "misread at the table", PAT, table=table_id)
    actions.correct_result(central, round_id, 18, "misread, seen on camera", PAT, table=table_id)

    (taken,) = FloorInbox(store, central, table_id).take()

    assert taken.outcome == "refused"
    assert taken.why is not None and "has the result 20 at the table, 17 at the floor" in taken.why
    (marker,) = _tail(store, table_id, 1)
    assert marker.type == "table.floor_action_taken" and marker.payload["outcome"] == "refused"
    assert marker.payload["why"] == taken.why
    said = describe(marker.type, marker.payload)  # what recall shows the pit boss
    assert said.startswith("the pit boss's result correction at the floor, refused by the table: round")
    assert actions.round_row(store, round_id, table_id).result == 20  # unchanged


def test_a_void_is_refused_when_the_round_moved_on_since_the_floors_copy(
    store: Store, central: Store, table_id: str
) -> None:
    forwarder = _floor(store, central, table_id)
    round_id = f"{table_id}-000003"
    store.journal.append(
        table_id,
        "round.opened",
        {"round_id": round_id, "rules_sha256": RULES_SHA},
        round_id=round_id,
        user="dana",
    )
    forwarder.forward_once()
    actions.void(central, round_id, "dispute", PAT, table=table_id)  # the floor's copy: open
    # Meanwhile the round is played out and settled at the table.
    draw = {"lucky": {"17": "199"}, "bonus_number": 0}
    store.journal.append(table_id, "round.bets_closed", {"draw": draw}, round_id=round_id, user=None)
    result = {"number": 9, "source": "sensor", "reason": "", "direction": "cw"}
    store.journal.append(table_id, "round.result", result, round_id=round_id, user=None)
    settled = {"total_wagered": "0.00", "total_paid": "0.00", "total_returned": "0.00"}
    store.journal.append(table_id, "round.settled", settled, round_id=round_id, user=None)
    assert actions.round_row(store, round_id, table_id).status == "settled"

    (taken,) = FloorInbox(store, central, table_id).take()

    assert taken.outcome == "refused"
    assert taken.why is not None and "is settled at the table, open when it was voided" in taken.why
    assert actions.round_row(store, round_id, table_id).status == "settled"


def test_a_floor_action_not_made_by_a_floor_pit_boss_is_refused(
    store: Store, central: Store, table_id: str
) -> None:
    _floor(store, central, table_id)
    add_user(central, "cleo", "croupier", "1357", by=ADMIN)
    round_id = f"{table_id}-000001"
    voided = {"type": "round.voided", "reason": "forged", "by": "mallory", "previous_status": "settled"}
    for who in ("mallory", "cleo", None):  # not a user; a croupier; nobody
        forged = write(
            FloorAction(table_id, "round.voided", voided), table=FLOOR, round_id=round_id, user=who
        )
        central.journal.append_many([forged])

    taken = FloorInbox(store, central, table_id).take()

    assert [t.outcome for t in taken] == ["refused"] * 3
    assert "'mallory' is not a user of the floor database" in str(taken[0].why)
    assert "croupier" in str(taken[1].why) and "names no user" in str(taken[2].why)
    assert actions.round_row(store, round_id, table_id).status == "settled"  # nothing voided


def test_an_approval_at_the_floor_reaches_the_waiting_croupier_without_a_command(
    store: Store, central: Store, table_id: str
) -> None:
    """The table waits for a pit boss's approval of a large payout; the pit boss approves at the floor;
    the forwarder takes it back and the running table service shows it within a second."""
    from engine.store.db import open_store

    add_user(central, "ada", "admin", "481200", by=None)
    add_user(central, "pat", "pitboss", "246810", by=ADMIN)

    async def go() -> None:
        svc = TableService(
            store,
            table_id,
            rng=SeededRng(7),
            allow_seeded_rng=True,
            claim=False,
            approval_threshold=Decimal("100"),
        )
        await svc.start()
        await svc.open_bets(CROUPIER)
        await svc.place_wager(CROUPIER, "anna", inside_bet([17]), Decimal(10))
        await svc.no_more_bets(CROUPIER)
        await wheel(svc, {"type": "result", "number": 17})
        await svc.confirm_result(CROUPIER)
        assert svc.approval_needed() is not None
        round_id = svc.state.round_id
        assert round_id is not None
        seen: list[str] = []
        svc.subscribe(lambda e: seen.append(e.type))
        forwarder = Forwarder(store, central, [table_id])
        forwarder.forward_once()
        actions.approve_payout(central, round_id, "camera checked", PAT, table=table_id)
        # Another process, as the forwarder runs beside the station on the table's PC.
        with open_store(str(store.where)) as own:
            (taken,) = FloorInbox(own, central, table_id).take()
        assert taken.outcome == "taken", taken.why
        for _ in range(30):  # no command: the service's watch for other writers folds it
            if svc.approval_needed() is None:
                break
            await asyncio.sleep(0.1)
        assert svc.approval_needed() is None and "round.payout_approved" in seen
        await svc.settle(CROUPIER)
        assert svc.phase == "settled"
        await svc.close()

    asyncio.run(go())


def test_drr_db_forward_once_takes_the_floor_actions_and_says_so(
    store: Store, central: Store, central_url: str, table_id: str, tmp_path: Path
) -> None:
    _floor(store, central, table_id)
    actions.change_settings(central, table_id, {"max_bet": "500"}, "new limits", PAT)
    drr = str(Path(sys.executable).with_name("drr"))
    argv = [
        drr,
        "db",
        "forward",
        "--db",
        str(store.where),
        "--to",
        central_url,
        "--table",
        table_id,
        "--once",
    ]
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "floor action table.settings_changed" in done.stdout and ": taken" in done.stdout
    assert current_settings(store, table_id)["max_bet"] == "500"
    assert [e.type for e in _tail(central, table_id, 2)] == [
        "table.floor_action_taken",
        "table.settings_changed",
    ]


@pytest.mark.skipif(PG_URL is None, reason="the floor chain is signed entry by entry on PostgreSQL only")
def test_a_floor_action_whose_writer_signature_was_stripped_or_whose_payload_was_edited_is_refused(
    store: Store, central: Store, table_id: str
) -> None:
    """Someone who can write the floor database edits a pit boss's genuine floor action (another round,
    a signature removed): the table refuses it rather than journal what no floor station signed."""
    _floor(store, central, table_id)
    actions.void(central, f"{table_id}-000002", "dispute", PAT, table=table_id)
    actions.void(central, f"{table_id}-000001", "dispute", PAT, table=table_id)
    edited, stripped = [e for e in central.journal.entries(FLOOR) if e.type == "floor.action"][-2:]
    j = schema.journal
    with central.begin() as conn:
        conn.execute(sa.update(j).where(j.c.table_id == FLOOR, j.c.seq == stripped.seq).values(sig=None))
        text = edited.payload_text.replace('"reason":"dispute"', '"reason":"ball left the wheel"')
        conn.execute(sa.update(j).where(j.c.table_id == FLOOR, j.c.seq == edited.seq).values(payload=text))

    taken = FloorInbox(store, central, table_id).take()

    assert [t.outcome for t in taken] == ["refused", "refused"]
    assert "hash" in str(taken[0].why) or "edited" in str(taken[0].why)
    assert "carries no writer's signature" in str(taken[1].why)
    assert actions.round_row(store, f"{table_id}-000001", table_id).status == "settled"
