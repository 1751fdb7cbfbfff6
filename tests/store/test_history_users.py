"""History (list, show, export, import) and users (PINs, roles, lock-out), through the API and the CLI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.auth import AuthenticationFailed, PermissionDenied, User, require
from engine.errors import DrrError
from engine.store import Store
from engine.store.history import RoundFilter, count_rounds, export_rounds, import_csv, list_rounds, show_round
from engine.store.stats import table_stats
from engine.store.users import MAX_FAILURES, add_user, authenticate, list_users
from engine.store.verify import verify
from gui.cli import main
from tests.store.helpers import play_round


def _db(store: Store) -> str:
    return str(store.path)


def test_list_filters_and_json_lines(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    play_round(store, "T1", "R1", 17, paid="0.00", time="2026-01-01T10:00:00.000000Z")
    play_round(store, "T1", "R2", 5, paid="400.00", time="2026-01-02T10:00:00.000000Z")
    play_round(store, "T2", "R3", 17, paid="50.00", time="2026-01-03T10:00:00.000000Z")
    assert [r["round_id"] for r in list_rounds(store, RoundFilter(number=17))] == ["R1", "R3"]
    assert [r["round_id"] for r in list_rounds(store, RoundFilter(table="T1"))] == ["R1", "R2"]
    assert count_rounds(store, RoundFilter(min_payout=__import__("decimal").Decimal("50"))) == 2
    assert main(["history", "list", "--db", _db(store), "--since", "2026-01-02", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["round_id"] for x in lines] == ["R2", "R3"]
    first = lines[0]
    for key in ("round_id", "table", "time", "result", "lucky", "bonus_number", "wagered", "paid", "status"):
        assert key in first
    assert first["paid"] == "400.00" and first["lucky"] == [[17, "199"]] and first["status"] == "settled"


def test_show_recalls_every_entry_of_the_round(store: Store) -> None:
    play_round(store, "T1", "R1", 17)
    play_round(store, "T1", "R2", 3)
    recall = show_round(store, "R1")
    assert [e["type"] for e in recall["entries"]] == [
        "round.opened", "round.wager_placed", "round.bets_closed", "round.result", "round.settled",
    ]  # fmt: skip
    assert recall["round"]["result"] == 17
    with pytest.raises(DrrError, match="no round R9"):
        show_round(store, "R9")


def test_export_csv_and_jsonl(store: Store) -> None:
    play_round(store, "T1", "R1", 17, paid="12.50")
    out = io.StringIO()
    assert export_rounds(store, out, "csv") == 1
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert rows[0]["round_id"] == "R1" and rows[0]["paid"] == "12.50" and rows[0]["result"] == "17"
    out = io.StringIO()
    export_rounds(store, out, "jsonl")
    assert json.loads(out.getvalue())["wagered"] == "10.00"


def _one_row(tmp_path: Path, round_id: str) -> Path:
    path = tmp_path / f"{round_id}.csv"
    path.write_text(f"timestamp,number,round_id\n2026-03-03T08:00:00Z,1,{round_id}\n")
    return path


def test_import_goes_through_the_journal(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "wheel.csv"
    path.write_text(
        "timestamp,number\n2026-03-01T12:00:00Z,7\n2026-03-01T12:01:00Z,0\n2026-03-02T08:00:00,7\n"
    )
    report = import_csv(store, path, "T5")
    assert report.rounds == 3
    s = table_stats(store, "T5")
    assert s["counts"][7] == 2 and s["counts"][0] == 1
    assert verify(store, "T5").ok
    assert [r["time"][:10] for r in list_rounds(store, RoundFilter(table="T5"))] == ["2026-03-01"] * 2 + [
        "2026-03-02"
    ]
    with pytest.raises(DrrError, match="already in table T5"):
        import_csv(store, path, "T5")  # the same file twice is refused
    again = tmp_path / "again.csv"
    again.write_text("timestamp,number,round_id\n2026-03-03T09:00:00Z,4,new\n2026-03-03T09:01:00Z,5,old\n")
    import_csv(store, _one_row(tmp_path, "old"), "T5")
    with pytest.raises(DrrError) as err:
        import_csv(store, again, "T5")  # one row already there, named by its line; the other not written
    assert "1 bad row(s):\n  line 3: round old is already in table T5" in err.value.message
    assert count_rounds(store, RoundFilter(table="T5")) == 4


def test_import_reports_bad_rows_by_line_and_writes_nothing(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(
        "timestamp,number,round_id,table\n"
        "2026-03-01T12:00:00Z,7,A1,T5\n"
        "yesterday,7,A2,T5\n"
        "2026-03-01T12:02:00Z,37,A3,T5\n"
        "2026-03-01T12:03:00Z,8,A4,T6\n"
        "2026-03-01T12:04:00Z,9,A1,T5\n"
        "2026-03-01T12:05:00Z,\u00b3,A7,T5\n"
    )
    with pytest.raises(DrrError) as err:
        import_csv(store, path, "T5")
    message = err.value.message
    assert "line 3: timestamp 'yesterday'" in message
    assert "line 4: number '37'" in message
    assert "line 5: table 'T6'" in message
    assert "line 6: round_id 'A1' repeats line 2" in message
    assert "line 7: number '\u00b3' is not 0..36" in message  # a digit to str.isdigit, not to int()
    assert "line 2:" not in message
    with store.read() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM journal")).scalar() == 0
        assert conn.execute(sa.text("SELECT count(*) FROM rounds")).scalar() == 0


def test_import_cli(store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "w.csv"
    path.write_text("timestamp,number\n2026-03-01T12:00:00Z,7\n")
    assert main(["history", "import", str(path), "--db", _db(store), "--table", "T5"]) == 0
    assert "imported 1 rounds into table T5" in capsys.readouterr().out
    path.write_text("timestamp,number\n2026-03-01T12:00:00Z,x\n")
    assert main(["history", "import", str(path), "--db", _db(store), "--table", "T5"]) == 1
    assert "line 2: number 'x'" in capsys.readouterr().err


def test_roles_permission_table() -> None:
    require(User("pat", "pitboss"), "void_round")
    with pytest.raises(
        PermissionDenied, match="cara \\(croupier\\) may not void round: needs pitboss or admin"
    ):
        require(User("cara", "croupier"), "void_round")
    with pytest.raises(PermissionDenied):
        require(User("sam", "surveillance"), "enter_result")


def test_users_pins_are_salted_scrypt_and_logins_journaled(store: Store) -> None:
    admin = add_user(store, "ada", "admin", "123456", by=None)
    assert admin.role == "admin"
    with pytest.raises(AuthenticationFailed, match="has admins"):
        add_user(store, "eve", "admin", "999999", by=None)
    ada = authenticate(store, "ada", "123456")
    add_user(store, "cara", "croupier", "123456", by=ada)
    with store.read() as conn:
        hashes = [r[0] for r in conn.execute(sa.text("SELECT pin_hash FROM users ORDER BY name"))]
    assert all(h.startswith("scrypt$") and "123456" not in h for h in hashes) and hashes[0] != hashes[1]
    with pytest.raises(PermissionDenied):
        add_user(store, "x", "admin", "123456", by=authenticate(store, "cara", "123456"))
    types = [e.type for e in store.journal.entries("floor")]
    # The floor chain (the users' journal) names its key first, then every user change and sign-in.
    assert types == ["chain.keyed", "user.added", "user.login", "user.added", "user.login"]


def test_lockout_after_repeated_failures(store: Store) -> None:
    add_user(store, "ada", "admin", "123456", by=None)
    for _ in range(MAX_FAILURES - 1):
        with pytest.raises(AuthenticationFailed, match="wrong PIN"):
            authenticate(store, "ada", "0000")
    # The fifth wrong PIN locks the account but answers like any wrong PIN (issue 13: names and
    # account states cannot be probed); only the right PIN's holder is told until when.
    with pytest.raises(AuthenticationFailed, match="wrong PIN"):
        authenticate(store, "ada", "0000")
    with pytest.raises(AuthenticationFailed, match=r"locked out .* until"):
        authenticate(store, "ada", "123456")  # even the right PIN, until the lock-out ends
    types = [e.type for e in store.journal.entries("floor")]
    assert types.count("user.login_failed") == MAX_FAILURES + 1 and "user.locked_out" in types
    assert list_users(store)[0].locked_until is not None


def test_void_cli_for_pit_boss_croupier_and_wrong_pin(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _db(store)
    assert main(["users", "add", "ada", "--role", "admin", "--pin", "111111", "--db", db]) == 0
    common = ["--db", db, "--as", "ada", "--admin-pin", "111111"]
    assert main(["users", "add", "pat", "--role", "pitboss", "--pin", "222222", *common]) == 0
    assert main(["users", "add", "cara", "--role", "croupier", "--pin", "3333", *common]) == 0
    play_round(store, "T1", "R1", 17, paid="20.00")
    capsys.readouterr()

    void = ["history", "void", "R1", "--db", db, "--reason", "wrong wheel result"]
    assert main([*void, "--user", "cara", "--pin", "3333"]) == 3
    assert "cara (croupier) may not void round" in capsys.readouterr().err
    assert main([*void, "--user", "pat", "--pin", "9999"]) == 3
    assert "wrong PIN" in capsys.readouterr().err
    assert show_round(store, "R1")["round"]["status"] == "settled"
    assert main([*void, "--user", "pat", "--pin", "222222"]) == 0
    recall = show_round(store, "R1")
    assert recall["round"]["status"] == "void"
    last = recall["entries"][-1]
    assert (
        last["type"] == "round.voided"
        and last["user"] == "pat"
        and last["payload"]["reason"] == "wrong wheel result"
    )
    # Sign-ins go to the store's own "floor" chain (the users' journal), never a table's chain.
    floor_log = [e.type for e in store.journal.entries("floor")]
    assert floor_log.count("user.login_failed") == 1 and floor_log.count("user.login") == 4
    assert not [e for e in store.journal.entries("T1") if e.type.startswith("user.")]
    assert table_stats(store, "T1")["hold"]["wagered"] == "0.00"
    assert main(["users", "list", "--db", db]) == 3  # listing the users needs an admin (issue 13)
    assert "needs --user" in capsys.readouterr().err
    assert main(["users", "list", "--db", db, "--user", "ada", "--pin", "111111"]) == 0
    listing = capsys.readouterr().out
    assert "pat" in listing and "pitboss" in listing
    assert verify(store).ok


def test_listing_in_batches_sees_every_round_once(store: Store) -> None:
    for i in range(23):
        table = "T1" if i % 2 else "T2"
        play_round(store, table, f"R{i:02d}", i % 37, time=f"2026-04-01T10:00:{i // 3:02d}.000000Z")
    everything = [(r["table"], r["round_id"]) for r in list_rounds(store)]
    assert len(everything) == len(set(everything)) == 23
    assert [(r["table"], r["round_id"]) for r in list_rounds(store, batch=4)] == everything
    newest = [(r["table"], r["round_id"]) for r in list_rounds(store, batch=4, newest_first=True)]
    assert newest == everything[::-1]
    assert [
        (r["table"], r["round_id"]) for r in list_rounds(store, limit=5, offset=3, batch=2)
    ] == everything[3:8]


def test_import_cli_needs_a_pit_boss_once_the_store_has_users(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _db(store)
    path = tmp_path / "w.csv"
    path.write_text("timestamp,number\n2026-03-01T12:00:00Z,7\n")
    add_user(store, "ada", "admin", "111111", by=None)
    ada = authenticate(store, "ada", "111111")
    add_user(store, "cara", "croupier", "3333", by=ada)
    add_user(store, "pat", "pitboss", "222222", by=ada)
    imp = ["history", "import", str(path), "--db", db, "--table", "T5"]
    assert main(imp) == 3
    assert "needs a pit boss" in capsys.readouterr().err
    assert main([*imp, "--user", "cara", "--pin", "3333"]) == 3
    assert "may not import history" in capsys.readouterr().err
    assert main([*imp, "--user", "pat", "--pin", "222222"]) == 0
    imported = [e for e in store.journal.entries("T5") if e.type == "history.imported"]
    assert len(imported) == 1 and imported[0].user == "pat"
