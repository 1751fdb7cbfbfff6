"""Old stores verify as they are on PostgreSQL too (issue 24, finding 11): a floor database of schema 0006 or
0007 — made by that schema's migrations only, on the real server, its rows written with that schema's
columns — is read by `drr audit verify` through temporary views (engine.store.migrate.read_as_today, in
`pg_temp`), without a table, column or row of it changed; a tampered one still fails in words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from engine.store import open_store
from engine.store.db import resolve_url
from engine.store.migrate import alembic_config
from gui.cli import main
from tests.pg_schema import PG_URL, pg_schema_url
from tests.store.helpers import play_round

pytestmark = pytest.mark.skipif(PG_URL is None, reason="needs the PostgreSQL of DRR_TEST_PG_URL")


@pytest.fixture
def pg_url() -> Iterator[str]:
    with pg_schema_url("drr_old") as url:
        yield url


def _today_rows(tmp_path: Path) -> dict[str, list[dict[str, Any]]]:
    """The rows a table writes today (journal, head, checkpoints, projections), to copy into an old schema."""
    with open_store(str(tmp_path / "today.sqlite"), table="T1") as today:
        for i in range(1, 4):
            play_round(today, "T1", f"T1-{i:06d}", 16 + i, paid="35.00" if i == 2 else "0.00")
        today.journal.checkpoint("T1")
        with today.engine.connect() as conn:
            return {
                t: [dict(r._mapping) for r in conn.execute(sa.text(f'SELECT * FROM "{t}"'))]
                for t in sa.inspect(conn).get_table_names()
                if t != "alembic_version"
            }


def _old_pg_store(url: str, revision: str, rows: dict[str, list[dict[str, Any]]]) -> sa.Engine:
    """Schema `revision` made on the server by the migrations up to it, then the rows with only the
    columns that schema had (the heads unsigned: no key signed them then)."""
    engine = sa.create_engine(resolve_url(url))
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
            # the old schema's table as the server has it (its types: SQLite's 0/1 become booleans)
            old = sa.Table(table, sa.MetaData(), autoload_with=conn)
            for item in items:
                values = {k: v for k, v in item.items() if k in old.c}
                if "sig" in values:
                    values["sig"] = None
                conn.execute(sa.insert(old).values(**values))
        columns = {t: {c["name"] for c in inspector.get_columns(t)} for t in ("journal", "chain_heads")}
        version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    assert version == revision and "mac" not in columns["journal"]  # a genuine old schema (0008 added it)
    assert ("sig" in columns["chain_heads"]) == (revision >= "0007")
    return engine


def _dump(engine: sa.Engine) -> str:
    """The schema's tables, columns and rows, in order: what an audit must not change."""
    out: list[str] = []
    with engine.connect() as conn:
        inspector = sa.inspect(conn)
        for table in sorted(inspector.get_table_names()):
            cols = sorted(c["name"] for c in inspector.get_columns(table))
            out.append(f"{table}: {cols}")
            rows = conn.execute(sa.text(f'SELECT * FROM "{table}"')).all()
            out.extend(sorted(repr(tuple(r)) for r in rows))
        out.append(repr(sorted(inspector.get_view_names())))
    return "\n".join(out)


@pytest.mark.parametrize("revision", ["0006", "0007"])
def test_an_old_postgresql_store_verifies_as_it_is(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str], revision: str
) -> None:
    engine = _old_pg_store(pg_url, revision, _today_rows(tmp_path))
    before = _dump(engine)
    assert main(["audit", "verify", "--db", pg_url]) == 0
    out = capsys.readouterr()
    assert "column" not in out.err and "Traceback" not in out.err, out.err
    assert out.out.startswith("OK: 15 events, 3 rounds"), out.out
    assert main(["audit", "verify", "--db", pg_url, "--table", "T1"]) == 0
    capsys.readouterr()
    assert _dump(engine) == before  # nothing added or changed: the views lived in the audit's connections
    with engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE journal SET payload = replace(payload, '35.00', '3500.00') WHERE seq = 10")
        )
    assert main(["audit", "verify", "--db", pg_url]) == 1
    err = capsys.readouterr().err
    assert "column" not in err and "Traceback" not in err and "entry 10" in err, err
    engine.dispose()
