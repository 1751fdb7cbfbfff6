"""A long chain verified in two processes: the second half by a worker, from a signed checkpoint.

The chain is cut at an interval checkpoint near its middle whose signature holds under one of the
table's keys (the key file's, or one it retired). This process scans the first half as usual; a
spawned worker scans the second half from that checkpoint's hash, with that key in force. The halves
join when the first half ends on the checkpoint's hash with the same key in force; then the second
half's findings are the chain's. The worker's assumptions are only ever stricter than a sequential
scan's, and whenever anything does not join (a problem in either half, a key other than assumed, a
checkpoint signature that fails) the caller scans the chain sequentially, so every verdict is the
sequential one (engine.store.verify).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from engine.store.chain_scan import Problem, Scan

PARALLEL_MIN = 250_000  # entries: below this, starting a worker costs more than it saves


@dataclass
class Half:
    """What the worker found in its half (a picklable summary of its `Scan`)."""

    problem: Problem | None
    expected: int
    prev: str
    key: str | None
    key_since: int
    macs: bool
    signed_ok: int
    bad_sig: int | None
    events: int
    checkpoints_seen: int
    reached: list[int] = field(default_factory=list)
    hashes_at: dict[int, str] = field(default_factory=dict)
    round_ids: set[str] = field(default_factory=set)


def scan_half(
    url: str,
    where: str,
    table: str,
    start: int,
    start_hash: str,
    key: str,
    macs: bool,
    mac_from: int | None,
    upto: int,
    checkpoints: dict[int, tuple[str, str | None]],
    pinned: str | None,
    want: set[int],
) -> Half:
    """In the worker: scan entries start+1..upto of `table` (the module docstring)."""
    import sqlalchemy as sa

    from engine.store import keys
    from engine.store.chain_scan import scan
    from engine.store.verify import _key_change, entry_problem

    key_file = keys.load(where, table)
    engine = sa.create_engine(url)
    state = Scan(
        table=table,
        expected=start + 1,
        prev=start_hash,
        key=key,
        key_since=0,
        macs=macs,
        mac_from=mac_from,
        signed_ok=start,
    )
    mine = dict(checkpoints)
    try:
        raw = engine.raw_connection()
        try:
            sqlite = engine.dialect.name == "sqlite"
            if sqlite:
                raw.driver_connection.execute("BEGIN")  # type: ignore[union-attr]
            problem = scan(
                raw.driver_connection,
                sqlite,
                state,
                checkpoints=mine,
                pinned=pinned,
                want=want,
                key_change=_key_change,
                mac_key_of=(lambda public: key_file.mac_key_for(public))
                if key_file
                else (lambda public: None),
                signature_holds=lambda public, seq, h, sig: keys.check_signature(public, table, seq, h, sig),
                entry_problem=entry_problem,
                upto=upto,
            )
            raw.rollback()
        finally:
            raw.close()
    finally:
        engine.dispose()
    return Half(
        problem,
        state.expected,
        state.prev,
        state.key,
        state.key_since,
        state.macs,
        state.signed_ok,
        state.bad_sig,
        state.events,
        state.checkpoints_seen,
        sorted(set(checkpoints) - set(mine)),
        state.hashes_at,
        state.round_ids,
    )


def available() -> bool:
    """A worker is forked (spawning would re-run the caller's main script, which `drr` as a library
    cannot require to be guarded), so only where fork exists and no Qt is loaded (a station's
    process is not forked): otherwise the chain is scanned in one process."""
    return (
        (os.cpu_count() or 1) >= 2
        and "fork" in multiprocessing.get_all_start_methods()
        and not any(name in sys.modules for name in ("PySide6", "PyQt6", "PyQt5", "PySide2"))
    )


def start_worker(**kwargs: Any) -> tuple[ProcessPoolExecutor, Future[Half]]:
    """The worker scanning the second half (see `available`)."""
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    return pool, pool.submit(scan_half, **kwargs)


def join(first: Scan, second: Half, split: int, split_key: str) -> bool:
    """Fold the second half into the first half's state; False when they do not join."""
    if second.problem is not None or first.bad_sig is not None or second.bad_sig is not None:
        return False
    if first.expected != split + 1 or first.key != split_key or first.signed_ok != split:
        return False
    first.expected, first.prev = second.expected, second.prev
    if second.key_since:
        first.key_since = second.key_since
    first.key, first.macs = second.key, second.macs
    first.signed_ok = second.signed_ok
    first.events += second.events
    first.checkpoints_seen += second.checkpoints_seen
    first.hashes_at.update(second.hashes_at)
    first.round_ids |= second.round_ids
    return True
