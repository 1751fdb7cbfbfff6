"""Issue 13: a pit-boss action taken at the floor database on a table whose chain there is the
forwarded copy is journaled on the floor's own chain (`floor.action`), never in the copy — which
would then differ from the table's own journal and stop every later forward."""

from __future__ import annotations

from engine.auth import User
from engine.floor.actions import change_settings, correct_result, void
from engine.store import Store
from engine.store.forward import Forwarder
from engine.store.forwarded import is_forwarded
from engine.store.verify import verify
from tests.store.helpers import play_round

PAT = User("pat", "pitboss")


def test_floor_actions_on_a_forwarded_copy_go_to_the_floor_chain(
    store: Store, central: Store, table_id: str
) -> None:
    play_round(store, table_id, f"{table_id}-000001", 9, paid="18.00")
    play_round(store, table_id, f"{table_id}-000002", 17, paid="0.00")
    forwarder = Forwarder(store, central, [table_id])
    assert forwarder.forward_once() > 0
    assert is_forwarded(central, table_id) and not is_forwarded(store, table_id)
    copy_before = [e.hash for e in central.journal.entries(table_id)]

    change_settings(central, table_id, {"max_bet": "500"}, "new limits", PAT)
    correct_result(central, f"{table_id}-000002", 18, "misread", PAT, table=table_id)
    void(central, f"{table_id}-000001", "ball left the wheel", PAT, table=table_id)

    assert [e.hash for e in central.journal.entries(table_id)] == copy_before  # the copy untouched
    actions = [e for e in central.journal.entries("floor") if e.type == "floor.action"]
    assert [(e.payload["table"], e.payload["action"]) for e in actions] == [
        (table_id, "table.settings_changed"),
        (table_id, "round.result_corrected"),
        (table_id, "round.voided"),
    ]
    assert actions[-1].round_id == f"{table_id}-000001" and actions[-1].user == "pat"
    assert actions[-1].payload["payload"]["reason"] == "ball left the wheel"
    # The table goes on and its journal is still forwarded (was: ChainDivergence, forwarding stopped).
    play_round(store, table_id, f"{table_id}-000003", 3)
    assert Forwarder(store, central, [table_id]).forward_once() > 0
    assert verify(central, table_id).ok


def test_on_the_tables_own_store_an_action_goes_to_the_tables_chain(store: Store) -> None:
    play_round(store, "T1", "T1-000001", 9)
    void(store, "T1-000001", "ball left the wheel", PAT, table="T1")
    assert list(store.journal.entries("T1"))[-1].type == "round.voided"
    assert not [e for e in store.journal.entries("floor") if e.type == "floor.action"]
