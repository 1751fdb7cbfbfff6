"""Issue 13: the floor keeps every table's signed heads (the signature with the head, and a history of
the signed heads received), so a rolled-back or truncated journal is caught by the floor copy, and
`drr audit verify` on the floor store checks them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.floor.demo import play_rounds
from engine.store import Store, open_store, schema
from engine.store.forward import ChainDivergence, Forwarder
from engine.store.keys import check_signature, load
from engine.store.verify import verify
from tests.store.helpers import play_round


def _head(store: Store, table: str) -> tuple[int, str, str | None]:
    h = schema.chain_heads
    with store.read() as conn:
        row = conn.execute(sa.select(h.c.seq, h.c.hash, h.c.sig).where(h.c.table_id == table)).one()
    return int(row.seq), row.hash, row.sig


def _kept(central: Store, table: str) -> list[tuple[int, str, str]]:
    t = schema.signed_heads
    with central.read() as conn:
        rows = conn.execute(
            sa.select(t.c.seq, t.c.hash, t.c.sig).where(t.c.table_id == table).order_by(t.c.seq)
        )
        return [(int(s), h, sig) for s, h, sig in rows]


def _forward(local: Store, central: Store, table: str, **kw: float) -> int:
    return Forwarder(local, central, [table], **kw).forward_once()  # type: ignore[arg-type]


def test_the_floor_keeps_the_signed_head_and_a_history_of_them(
    tmp_path: Path, central: Store, table_id: str
) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table=table_id) as local:
        play_rounds(local, table_id, 3)
        _forward(local, central, table_id, keep_every_s=0)
        first = _head(local, table_id)
        assert first[2] is not None and _head(central, table_id) == first  # the signature came with the head
        play_rounds(local, table_id, 2)
        _forward(local, central, table_id, keep_every_s=0)
        second = _head(local, table_id)
        assert _head(central, table_id) == second
        public = load(local.where, table_id).public  # type: ignore[union-attr]
    kept = _kept(central, table_id)
    assert kept == [first, second]
    assert all(check_signature(public, table_id, s, h, sig) for s, h, sig in kept)
    report = verify(central, table_id)
    assert report.ok, report.problem
    assert table_id in report.keys


def test_heads_received_close_together_keep_one_row_but_the_head_is_signed(
    tmp_path: Path, central: Store, table_id: str
) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table=table_id) as local:
        play_rounds(local, table_id, 2)
        _forward(local, central, table_id)
        first = _head(local, table_id)
        play_rounds(local, table_id, 1)
        _forward(local, central, table_id)
        assert _head(central, table_id) == _head(local, table_id)
    assert _kept(central, table_id) == [first]
    assert verify(central, table_id).ok


def test_a_batch_short_of_the_head_leaves_no_stale_signature(
    tmp_path: Path, central: Store, table_id: str
) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table=table_id) as local:
        play_rounds(local, table_id, 3)
        Forwarder(local, central, [table_id], batch=7).forward_batch(table_id)
        seq, _, sig = _head(central, table_id)
        assert seq == 7 and sig is None
        assert verify(central, table_id).ok  # an unsigned head until the floor reaches the table's
        _forward(local, central, table_id)
        assert _head(central, table_id) == _head(local, table_id)
    assert verify(central, table_id).ok


def _cut_floor(central: Store, table: str, seq: int, hash_: str, sig: str) -> None:
    """Cut the floor's copy back to a genuinely signed earlier head, as someone with the floor database
    (but not the table's key) could."""
    j, h, c = schema.journal, schema.chain_heads, schema.checkpoints
    with central.begin() as conn:
        conn.execute(sa.delete(j).where(j.c.table_id == table, j.c.seq > seq))
        conn.execute(sa.delete(c).where(c.c.table_id == table, c.c.seq > seq))
        conn.execute(sa.update(h).where(h.c.table_id == table).values(seq=seq, hash=hash_, sig=sig))


def test_a_floor_copy_cut_behind_a_received_signed_head_fails_verify(
    tmp_path: Path, central: Store, table_id: str
) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table=table_id) as local:
        play_rounds(local, table_id, 3)
        _forward(local, central, table_id, keep_every_s=0)
        play_rounds(local, table_id, 2)
        _forward(local, central, table_id, keep_every_s=0)
    (first, fhash, fsig), (second, _, _) = _kept(central, table_id)
    _cut_floor(central, table_id, first, fhash, fsig)
    report = verify(central, table_id)
    assert not report.ok and report.bad_seq == first + 1
    assert f"the floor received the table's signed head at entry {second}" in (report.problem or "")


@pytest.mark.parametrize("forgery", ["signature", "hash"])
def test_a_forged_signed_head_row_fails_verify(
    forgery: str, tmp_path: Path, central: Store, table_id: str
) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table=table_id) as local:
        play_rounds(local, table_id, 2)
        _forward(local, central, table_id)
    ((seq, _, sig),) = _kept(central, table_id)
    t = schema.signed_heads
    change = (
        {"sig": sig[:-2] + ("00" if sig[-2:] != "00" else "11")}
        if forgery == "signature"
        else {"hash": "ab" * 32}
    )
    with central.begin() as conn:
        conn.execute(sa.update(t).where(t.c.table_id == table_id, t.c.seq == seq).values(**change))
    report = verify(central, table_id)
    assert not report.ok and report.bad_seq == seq
    assert ("forged" if forgery == "signature" else "rewritten") in (report.problem or "")


@pytest.mark.parametrize("after", ["cut_back", "played_on"])
def test_a_rolled_back_table_journal_is_caught_by_the_floor_copy(
    after: str, tmp_path: Path, central: Store, table_id: str
) -> None:
    """A table journal restored from an older copy (every signature in it genuine) is refused by the
    forwarder with an alert, whether it is shorter than the floor's copy or has been played on past it."""
    path = tmp_path / "t.sqlite"
    with open_store(str(path), table=table_id) as local:
        play_rounds(local, table_id, 2)
    shutil.copy(path, tmp_path / "backup.sqlite")
    with open_store(str(path), table=table_id) as local:
        play_rounds(local, table_id, 3)
        _forward(local, central, table_id)
    shutil.copy(tmp_path / "backup.sqlite", path)
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    with open_store(str(path), table=table_id) as local:
        if after == "played_on":
            for i in range(10):
                play_round(local, table_id, f"again-{i}", i)
            assert _head(local, table_id)[0] > _head(central, table_id)[0]
        with pytest.raises(ChainDivergence, match="diverge"):
            _forward(local, central, table_id)
    alerts = [e.payload for e in central.journal.entries("floor") if e.type == "alert.raised"]
    assert [a["kind"] for a in alerts] == ["chain_divergence"]
