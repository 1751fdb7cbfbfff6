"""A chain held against its key after its hashes held (a step of engine.store.chain_walk): the key in
force against the pinned one, the head and checkpoint signatures, the key file's witness; a signature
range narrowed to the first entry the reference check refuses."""

from __future__ import annotations

import contextlib
import re
from typing import Any

from engine.errors import DrrError
from engine.store import keys
from engine.store.db import Store
from engine.store.entry_check import entry_problem
from engine.store.journal import Journal
from engine.store.verify_report import VerifyReport, fail


def against_key(
    report: VerifyReport,
    name: str,
    last: int,
    head_hash: str,
    head_row: Any,
    key: str | None,
    key_since: int,
    pinned: str | None,
    key_file: Any,
    signed_ok: int,
    bad_sig: int | None,
    hashes_at: dict[int, str],
    checkpoints: dict[int, tuple[str, str | None]],
    *,
    per_entry: bool = False,
) -> VerifyReport | None:
    """The signature checks of one chain after its hashes held (see the module docstring);
    `per_entry`: every entry's own signature was checked in the pass (engine.store.floor_sign)."""
    witness = witness_problem(key_file, last)
    if witness is not None:
        return fail(report, name, None, witness)
    journaled = key_file is not None and key_file.journaled
    if last == 0 and journaled:
        return fail(
            report,
            name,
            1,
            f"the journal is missing or empty, but the table's key {key_file.path} says it had entries "
            f"(up to {key_file.high_water[0] if key_file.high_water else 'at least its key entry'})",
        )
    if key is None:
        if pinned is not None and journaled:
            return fail(
                report, name, 1, "the journal names no signing key, but the table has one (rewritten)"
            )
        return None
    if pinned is not None and key != pinned:
        return fail(
            report,
            name,
            key_since,
            f"the chain is signed by key {keys.fingerprint(key)}, not the table's key "
            f"{keys.fingerprint(pinned)} (rewritten with another key)",
        )
    if per_entry:  # no head or checkpoint signature to hold it against: its last entry's signature is
        return against_witness(report, name, last, key_file, hashes_at, checkpoints)
    first_bad = signed_ok + 1 if signed_ok else key_since
    if bad_sig is not None:
        return fail(
            report,
            name,
            first_bad,
            f"not covered by the table's signature: the checkpoint at {bad_sig} is not signed by its key "
            f"(an entry from {first_bad} to {bad_sig} was rewritten, removed, inserted or reordered)",
        )
    head_sig = getattr(head_row, "sig", None) if head_row is not None else None
    if keys.check_signature(key, name, last, head_hash, head_sig):
        return against_witness(report, name, last, key_file, hashes_at, checkpoints)
    if head_sig is None and pinned is None:
        return None  # an unsigned copy (e.g. the floor's), no key to hold it against
    return fail(
        report,
        name,
        first_bad,
        f"not covered by the table's signature: the head (entry {last}) is not signed by its key "
        f"(an entry from {first_bad} to {last} was rewritten, removed, inserted, reordered or appended, "
        "or the journal was cut)",
    )


def witness_problem(key_file: Any, entries: int) -> str | None:
    """The key file's witness (engine.store.keys), MAC'd whole: edited or copied, or missing beside a
    journal that has entries (deleted: it would be re-created knowing nothing), in words; None if sound."""
    if key_file is None or not isinstance(getattr(key_file, "witness_state", None), str):
        return None
    where = keys.witness_path(key_file.path)
    if key_file.witness_state == "forged":
        return (
            f"the table key's witness {where} fails its MAC (edited by hand, or copied from another table "
            "or key): what it says the key signed cannot be believed; restore it from the backup "
            "(docs/backup-restore.md)"
        )
    if key_file.witness_state == "none" and entries > 0:
        return (
            f"the table key's witness {where} is missing, but the journal has {entries} entries (deleted "
            "or moved: without it a rollback of the journal is not caught); restore it from the backup "
            "(docs/backup-restore.md)"
        )
    return None


def against_witness(
    report: VerifyReport,
    name: str,
    last: int,
    key_file: Any,
    hashes_at: dict[int, str],
    checkpoints: dict[int, tuple[str, str | None]],
    *,
    whose: str = "the table's key file",
) -> VerifyReport | None:
    """The key's witness (engine.store.keys): the last head and checkpoint it saw signed are there."""
    if key_file is not None and key_file.high_water is not None:
        hw_seq, hw_hash = key_file.high_water
        if hw_seq > last:
            return fail(
                report,
                name,
                last + 1,
                f"missing: {whose} saw entry {hw_seq} signed, the journal ends at {last} "
                "(truncated or rolled back)",
            )
        if hashes_at.get(hw_seq) != hw_hash:
            return fail(report, name, hw_seq, f"differs from the entry {whose} saw signed (rewritten)")
    if key_file is not None and key_file.checkpoint is not None and key_file.checkpoint not in checkpoints:
        return fail(
            report, name, key_file.checkpoint, "its signed checkpoint is missing (checkpoint rows removed)"
        )
    return None


def refine(store: Store, failed: VerifyReport) -> VerifyReport:
    """A signature names a range: the first entry in it that the reference check refuses, if any
    (a payload not in canonical form hashes the fast way only if the forger hashed it so)."""
    detail = failed.detail or ""
    if failed.bad_seq is None or "not covered by the table's signature" not in detail:
        return failed
    found = re.search(r"from (\d+) to (\d+)", detail)
    if found is None:
        return failed
    lo, hi = int(found.group(1)), int(found.group(2))
    with contextlib.suppress(DrrError):  # an older schema's copy: the range stands
        for entry in Journal(store).entries(failed.bad_table or "", lo):
            if entry.seq > hi:
                break
            problem = entry_problem(entry, None)
            if problem is not None:
                return fail(failed, failed.bad_table or "", entry.seq, problem)
    return failed
