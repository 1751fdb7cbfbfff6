"""`drr history import` against an insider's file (issue 24, finding 8): round ids ahead of the table's own,
the floor's reserved chain, over-long fields and impossible times are refused in one line each, nothing
written; the file is streamed and written in bounded batches inside one transaction."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy import Connection

from engine.errors import DrrError
from engine.store import Store, history
from engine.store.history import RoundFilter, count_rounds, import_csv
from engine.store.journal import Journal
from engine.store.records import Entry, NewEvent
from engine.store.verify import verify
from gui.cli import main
from tests.store.helpers import play_round


def _journal_rows(store: Store) -> int:
    with store.read() as conn:
        return int(conn.execute(sa.text("SELECT count(*) FROM journal")).scalar_one())


def _refused(store: Store, path: Path, table: str | None, capsys: pytest.CaptureFixture[str]) -> str:
    """The CLI's refusal: exit 1, no traceback, the bad row on one line; nothing written."""
    before = _journal_rows(store)
    args = ["history", "import", str(path), "--db", str(store.path)] + (["--table", table] if table else [])
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Error:" not in err.split("\n", 1)[0][:6]
    assert _journal_rows(store) == before
    return err


def test_a_round_id_ahead_of_the_tables_own_is_refused(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    play_round(store, "T1", "T1-000001", 17)  # the table's first round, numbered as the table does
    assert history.rounds_numbered(store, "T1") == 1
    path = tmp_path / "ahead.csv"
    path.write_text("timestamp,number,round_id\n2026-03-01T12:00:00Z,7,T1-000002\n")
    err = _refused(store, path, "T1", capsys)
    # the table's next round would be T1-000002: the import would make it fail on every start
    assert "line 2: round_id 'T1-000002' is ahead of table T1's own rounds (1 numbered so far)" in err
    path.write_text("timestamp,number,round_id\n2026-03-01T12:00:00Z,7,T1-1000000\n")
    assert "is ahead of table T1" in _refused(store, path, "T1", capsys)
    # an id of another system's numbering, or one the table already used up, is its own round
    path.write_text("timestamp,number,round_id\n2026-03-01T12:00:00Z,7,T1-x2\n2026-03-01T12:01:00Z,8,OLD-2\n")
    assert import_csv(store, path, "T1").rounds == 2
    assert verify(store, "T1").ok


def test_the_floor_chain_is_not_a_gaming_table(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "floor.csv"
    path.write_text("timestamp,number,table\n2026-03-01T12:00:00Z,7,floor\n")
    assert "line 2: table 'floor' is reserved" in _refused(store, path, None, capsys)
    path.write_text("timestamp,number\n2026-03-01T12:00:00Z,7\n")
    err = _refused(store, path, "floor", capsys)
    assert err.strip().splitlines() == [
        "drr: table 'floor' is reserved (the floor's own chain): nothing imported"
    ]


@pytest.mark.parametrize("size", [300, 200_000])
def test_an_over_long_field_is_one_line_not_a_traceback(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str], size: int
) -> None:
    path = tmp_path / "long.csv"
    path.write_text(
        "timestamp,number,round_id,note\n2026-03-01T12:00:00Z,7,A1,ok\n"
        f"2026-03-01T12:01:00Z,7,A2,{'x' * size}\n2026-03-01T12:02:00Z,7,A3,ok\n"
    )
    err = _refused(store, path, "T1", capsys)
    bad = [line for line in err.splitlines() if line.startswith("  line")]
    assert len(bad) == 1 and bad[0].startswith("  line 3: ")
    path.write_text(f"timestamp,number,round_id\n2026-03-01T12:00:00Z,7,{'r' * 65}\n")
    assert "line 2: round_id is longer than 64 characters" in _refused(store, path, "T1", capsys)


@pytest.mark.parametrize(
    "stamp",
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00+05:00", "1969-12-31T23:59:59Z", "9999-12-31T00:00:00Z"],
)
def test_an_impossible_time_is_refused(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str], stamp: str
) -> None:
    path = tmp_path / "old.csv"
    path.write_text(f"timestamp,number\n{stamp},7\n")
    assert f"line 2: timestamp '{stamp}' is not " in _refused(store, path, "T1", capsys)


def test_the_import_is_written_in_bounded_batches_all_or_nothing(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "IMPORT_BATCH", 300)
    path = tmp_path / "many.csv"
    rows = [f"2026-03-01T{i // 3600:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z,{i % 37}" for i in range(2500)]
    path.write_text("timestamp,number\n" + "\n".join(rows) + "\n")
    sizes: list[int] = []
    real = Journal.append_in

    def counted(self: Journal, conn: Connection, events: Iterable[NewEvent]) -> list[Entry]:
        events = list(events)
        sizes.append(len(events))
        if len(sizes) == 5 and fail:
            raise DrrError("disk full")
        return real(self, conn, events)

    monkeypatch.setattr(Journal, "append_in", counted)
    fail = True
    with pytest.raises(DrrError, match="disk full"):
        import_csv(store, path, "T1")
    assert _journal_rows(store) == 0 and count_rounds(store) == 0  # the batches before it rolled back
    fail, sizes[:] = False, []
    report = import_csv(store, path, "T1")
    assert max(sizes) == 300 and sum(sizes) == 2500  # never the whole file at once
    assert (report.rounds, report.first_seq, report.last_seq) == (2500, 1, 2500)
    assert count_rounds(store, RoundFilter(table="T1")) == 2500
    assert verify(store, "T1").ok  # the interval checkpoints and the witness's head, as one append


def test_repeats_and_earlier_imports_are_found_across_batches(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "ids.csv"
    lines = [f"2026-03-01T12:00:00Z,{i % 37},R{i}" for i in range(1200)] + ["2026-03-01T12:00:00Z,1,R7"]
    path.write_text("timestamp,number,round_id\n" + "\n".join(lines) + "\n")
    with pytest.raises(DrrError, match=r"line 1202: round_id 'R7' repeats line 9"):
        import_csv(store, path, "T1")
    path.write_text("timestamp,number,round_id\n" + "\n".join(lines[:1200]) + "\n")
    import_csv(store, path, "T1")
    path.write_text("timestamp,number,round_id\n" + "\n".join(lines[:1200][::-1]) + "\n")
    with pytest.raises(DrrError) as err:
        import_csv(store, path, "T1")
    assert "1200 bad row(s)" in err.value.message and "… and 1180 more" in err.value.message
    assert "line 2: round R1199 is already in table T1 (imported before?)" in err.value.message
