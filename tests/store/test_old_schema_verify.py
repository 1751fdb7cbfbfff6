"""Old stores verify as they are (issue 24, finding 11): a genuine schema-0006 or -0007 store — made by that
schema's migrations only, its rows written with that schema's columns — is read by `drr audit verify`
without "no such column: chain_heads.sig" / "journal.mac", and without a byte of it changed; a
tampered one still fails."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from engine.store import open_store
from engine.store.migrate import alembic_config
from gui.cli import main
from tests.store.helpers import play_round


def _old_store(tmp_path: Path, revision: str) -> Path:
    """A store of schema `revision`: that revision's migrations, then the rows a table of that time
    wrote — the journal, its head and checkpoints, the projections — with only the columns it had."""
    with open_store(str(tmp_path / "today.sqlite"), table="T1") as today:
        for i in range(1, 4):
            play_round(today, "T1", f"T1-{i:06d}", 16 + i, paid="35.00" if i == 2 else "0.00")
        today.journal.checkpoint("T1")
        source = today.engine
        with source.connect() as conn:
            rows = {t: [dict(r._mapping) for r in conn.execute(sa.text(f'SELECT * FROM "{t}"'))] for t in
                    sa.inspect(conn).get_table_names() if t != "alembic_version"}  # fmt: skip
    path = tmp_path / f"schema-{revision}.sqlite"
    engine = sa.create_engine(f"sqlite:///{path}")
    cfg = alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
    with engine.begin() as conn:
        inspector = sa.inspect(conn)
        old_tables = set(inspector.get_table_names())
        for table, items in rows.items():
            if table not in old_tables or not items:
                continue
            have = {c["name"] for c in inspector.get_columns(table)}
            for item in items:
                values = {k: v for k, v in item.items() if k in have}
                if "sig" in values:
                    values["sig"] = None  # unsigned then: no key of this store signed its heads
                names = ", ".join(f'"{k}"' for k in values)
                marks = ", ".join(f":{k}" for k in values)
                conn.execute(sa.text(f'INSERT INTO "{table}" ({names}) VALUES ({marks})'), values)
        columns = {t: {c["name"] for c in inspector.get_columns(t)} for t in ("journal", "chain_heads")}
    engine.dispose()
    assert "mac" not in columns["journal"]  # a genuine old schema: no MAC column (0008)
    assert ("sig" in columns["chain_heads"]) == (revision >= "0007")
    return path


def _dump(path: Path) -> str:
    """The store's schema and rows, in order (the file's header bytes change with the WAL mode)."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        return "\n".join(conn.iterdump())
    finally:
        conn.close()


@pytest.mark.parametrize("revision", ["0006", "0007"])
def test_an_old_store_verifies_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], revision: str
) -> None:
    path = _old_store(tmp_path, revision)
    before = _dump(path)
    assert main(["audit", "verify", "--db", str(path)]) == 0
    out = capsys.readouterr()
    assert "no such column" not in out.err and out.out.startswith("OK: 15 events, 3 rounds")
    assert main(["audit", "verify", "--db", str(path), "--table", "T1"]) == 0
    capsys.readouterr()
    assert _dump(path) == before  # the evidence is not altered: no table, column or row added or changed
    # a tampered old store still fails, in words
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE journal SET payload = replace(payload, '35.00', '3500.00') WHERE seq = 10")
        )
    engine.dispose()
    assert main(["audit", "verify", "--db", str(path)]) == 1
    err = capsys.readouterr().err
    assert "no such column" not in err and "Traceback" not in err and "entry 10" in err
