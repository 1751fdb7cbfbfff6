"""Issue 24 finding 5: a key rotation and a quarantine killed at every point leave a table that starts,
with the right key and the damaged store recorded as it was; round ids are never reused across a
quarantine or a restore.

The kills are real: a child process runs the procedure with one step replaced by `os._exit(9)` (no
`finally`, no flush, no commit: what a SIGKILL at that instant leaves), then this process looks at the
files it left."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine.store import keys, open_store
from engine.store.backup import backup, restore
from engine.store.evidence import check_for_start, quarantine
from engine.store.verify import verify
from tests.table.helpers import voided_session

ROOT = Path(__file__).resolve().parents[2]


def _round_ids(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        query = "SELECT round_id FROM journal WHERE type = 'round.opened' ORDER BY seq"
        rows = conn.execute(query).fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows]


def _killed(script: str) -> None:
    """Run `script` in a child that must die by its own os._exit(9) at the point it patches."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 9, (done.returncode, done.stdout, done.stderr)


# Each point, as a patch the child makes before it rotates the key (the names exist before the fix too:
# the key file's write, its rename into place, the commit's witness).
ROTATION_POINTS = {
    # the new key file written under its temporary name, not yet renamed over the old one
    "first key-file rename": """
real = os.replace
def crash(src, dst, *a, **k):
    if str(dst).endswith('.key'):
        os._exit(9)
    return real(src, dst, *a, **k)
os.replace = crash
""",
    # the first key file written in full (before the fix: the new key alone, the old signing key gone)
    "after the first key-file write": """
real = keys._write
def crash(*a, **k):
    real(*a, **k)
    os._exit(9)
keys._write = crash
""",
    # the rotation's entry committed, nothing after it
    "after the entry commits": """
from engine.store.journal import Journal
def crash(self, *a, **k):
    os._exit(9)
Journal.witness = crash
""",
    # the second key file written under its temporary name, not yet renamed
    "second key-file rename": """
real = os.replace
seen = []
def crash(src, dst, *a, **k):
    if str(dst).endswith('.key'):
        seen.append(dst)
        if len(seen) == 2:
            os._exit(9)
    return real(src, dst, *a, **k)
os.replace = crash
""",
}


@pytest.mark.parametrize("point", sorted(ROTATION_POINTS))
def test_a_rotation_killed_at_any_point_leaves_a_table_that_starts_with_the_right_key(
    tmp_path: Path, point: str
) -> None:
    path = tmp_path / "table.sqlite"
    asyncio.run(voided_session(path, 1))
    old = keys.load(str(path), "T1")
    assert old is not None
    script = (
        "import os\nfrom pathlib import Path\nfrom engine.store import keys, open_store\n"
        "from engine.store.evidence import rotate_key\n"
        + ROTATION_POINTS[point]
        + f"\nwith open_store({str(path)!r}, table='T1') as store:\n"
        "    rotate_key(store, 'T1', user='admin')\n"
        "os._exit(3)  # the point was never reached\n"
    )
    _killed(script)
    keys._CACHE.clear()
    with open_store(str(path), table="T1") as store:
        key = check_for_start(store, "T1")  # no "rewritten with another key", no missing key
        report = verify(store, "T1")
        assert report.ok, report.problem
        rotated = any(e.type == "table.key_rotated" for e in store.journal.entries("T1"))
    # The key in force is the one the journal handed the table to: the new key once the entry
    # committed, else the old one (still able to sign).
    assert (key.public != old.public) == rotated, (point, rotated)
    assert getattr(key, "pending", None) is None  # no rotation left half-done
    asyncio.run(voided_session(path, 1))  # the table plays on, its head signed by that key
    keys._CACHE.clear()
    with open_store(str(path), table="T1") as store:
        assert verify(store, "T1").ok
        assert keys.load(store.where, "T1").public == key.public  # type: ignore[union-attr]


def _damaged(tmp_path: Path) -> Path:
    """A store of two sessions (rounds T1-000001..3) whose checkpoint rows were removed (it fails)."""
    path = tmp_path / "table.sqlite"
    asyncio.run(voided_session(path, 2))
    asyncio.run(voided_session(path, 1))
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DELETE FROM checkpoints")
    conn.close()
    with open_store(str(path), table="T1") as store:
        assert not verify(store, "T1").ok
    return path


QUARANTINE_POINTS = {
    # the damaged files copied aside, before the first original is removed
    "before the originals go": """
real = Path.unlink
def crash(self, *a, **k):
    os._exit(9)
Path.unlink = crash
""",
    # the damaged files gone from their place, the new store not yet made (the second open_store)
    "before the new store is made": """
import engine.store.evidence as ev
real = ev.open_store
calls = []
def crash(*a, **k):
    calls.append(a)
    if len(calls) == 2:
        os._exit(9)
    return real(*a, **k)
ev.open_store = crash
""",
    # the new store made, its table.quarantined entry not committed
    "before the new chain's entry commits": """
from engine.store.journal import Journal
def crash(self, *a, **k):
    os._exit(9)
Journal.append_many = crash
""",
}


@pytest.mark.parametrize("point", sorted(QUARANTINE_POINTS))
def test_a_quarantine_killed_at_any_point_is_finished_by_the_next_with_the_damaged_store_as_it_was(
    tmp_path: Path, point: str
) -> None:
    path = _damaged(tmp_path)
    damaged = hashlib.sha256(path.read_bytes()).hexdigest()
    old_rounds = set(_round_ids(path))
    script = (
        "import os\nfrom pathlib import Path\nfrom engine.store import keys, open_store\n"
        "from engine.store.evidence import quarantine\n"
        + QUARANTINE_POINTS[point]
        + f"\nquarantine(Path({str(path)!r}), 'T1', user='admin')\nos._exit(3)\n"
    )
    _killed(script)
    keys._CACHE.clear()
    result = quarantine(path, "T1", user="admin")  # the second quarantine, after the killed one
    assert hashlib.sha256(result.moved_to.read_bytes()).hexdigest() == damaged  # the evidence, untouched
    with open_store(str(path), table="T1") as store:
        assert verify(store, "T1").ok
        entries = list(store.journal.entries("T1"))
    assert [e.type for e in entries][:1] == ["table.quarantined"]
    assert sum(e.type == "table.quarantined" for e in entries) == 1
    body = json.loads(entries[0].payload_text)
    assert body["damaged_sha256"] == damaged and body["damaged_store"] == str(result.moved_to)
    asyncio.run(voided_session(path, 1))
    new_rounds = _round_ids(path)
    assert new_rounds == ["T1-000004"] and not old_rounds & set(new_rounds)


def test_round_ids_are_not_reused_after_a_restore_of_an_older_backup(tmp_path: Path) -> None:
    """Restored to a backup taken before round 3: the restored store is refused (a rollback), quarantined,
    and the next round is T1-000004, not a second T1-000003 (the witness remembers the rounds opened)."""
    path = tmp_path / "table.sqlite"
    asyncio.run(voided_session(path, 2))
    backup(path, "T1", tmp_path / "backup")
    asyncio.run(voided_session(path, 1))
    lost = set(_round_ids(path))
    assert lost == {"T1-000001", "T1-000002", "T1-000003"}
    done = restore(tmp_path / "backup", path, "T1")
    assert not done.verified.ok  # the rollback is caught (the witness saw more)
    quarantine(path, "T1", user="admin")
    asyncio.run(voided_session(path, 1))
    assert _round_ids(path) == ["T1-000004"]
