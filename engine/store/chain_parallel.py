"""A long chain verified in parts side by side, each from a signed checkpoint, in workers and here.

The chain is cut at interval checkpoints (evenly spaced, `part_count` parts) whose signatures hold
under one of the table's keys (the key file's, or one it retired). This process scans the first
part as usual; each later part is scanned from its checkpoint's hash with that checkpoint's key in
force, by a forked worker or, once this process has finished the first part, here: the parts no
worker has started yet are taken back from the last one down, so no process waits while another
has a queue (the machine's other load decides who scans how much). The parts join when each one
ends on the next one's checkpoint hash with the same key in force; then their findings are the
chain's. A part's assumptions are only ever stricter than a sequential scan's, and whenever
anything does not join (a problem in any part, a key other than assumed, a checkpoint signature
that fails) the caller scans the chain sequentially, so every verdict is the sequential one
(engine.store.verify).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from engine.store import keys
from engine.store.chain_scan import Problem, Scan, scan
from engine.store.entry_check import entry_problem, key_change

PARALLEL_MIN = 250_000  # entries: below this, starting a worker costs more than it saves
PART_MIN = 100_000  # entries of a part at least: below, a part's start (query, result) weighs
MAX_PARTS = 32  # enough that the last part's wait is short, few enough that each part is long
WORKERS: int | None = None  # worker processes (None: one fewer than the cores; 0: every part here)


@dataclass(frozen=True)
class Part:
    """Entries start+1..upto, scanned from the signed checkpoint at `start`."""

    start: int
    start_hash: str
    key: str  # the key that signed the checkpoint at `start` (assumed in force there)
    macs: bool  # the entry at `start` carries a MAC (so every later one must)
    upto: int


@dataclass
class Half:
    """What a part's scan found (a picklable summary of its `Scan`)."""

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


def part_count(entries: int) -> int:
    """How many parts a chain of `entries` is cut into (at least two)."""
    return max(2, min(MAX_PARTS, entries // PART_MIN))


def cuts(head: int, every: int) -> list[int]:
    """The interval checkpoints (multiples of `every`) the parts of a chain of `head` entries start at."""
    n = part_count(head)
    return sorted({head * i // n // every * every for i in range(1, n)} - {0})


def scan_part(
    dbapi: Any,
    sqlite: bool,
    table: str,
    part: Part,
    *,
    mac_from: int | None,
    checkpoints: dict[int, tuple[str, str | None]],
    pinned: str | None,
    want: set[int],
    mac_key_of: Callable[[str], bytes | None],
    signature_holds: Callable[[str, int, str, str | None], bool],
) -> Half:
    """Scan one part through `dbapi` (a DBAPI connection in a read transaction); `checkpoints` are
    the part's (`of_part`)."""
    state = Scan(
        table=table,
        expected=part.start + 1,
        prev=part.start_hash,
        key=part.key,
        key_since=0,
        macs=part.macs,
        mac_from=mac_from,
        signed_ok=part.start,
        canonical=None,  # from inside the chain: either byte rule (chain_scan.Scan)
    )
    mine = dict(checkpoints)
    before = set(mine)
    problem = scan(
        dbapi,
        sqlite,
        state,
        checkpoints=mine,
        pinned=pinned,
        want=want,
        key_change=key_change,
        mac_key_of=mac_key_of,
        signature_holds=signature_holds,
        entry_problem=entry_problem,
        upto=part.upto,
    )
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
        sorted(before - set(mine)),
        state.hashes_at,
        state.round_ids,
    )


_WORKER_ENGINES: dict[str, Any] = {}  # in a worker: its engine, made once for all the parts it scans


def of_part(
    checkpoints: dict[int, tuple[str, str | None]], part: Part, last: bool
) -> dict[int, tuple[str, str | None]]:
    """The checkpoints a part must meet: those in it, and for the last part every later one (a
    checkpoint past the head is then left unmet, and the caller names it)."""
    return {s: v for s, v in checkpoints.items() if part.start < s and (last or s <= part.upto)}


def scan_in_worker(
    url: str,
    where: str,
    table: str,
    part: Part,
    mac_from: int | None,
    checkpoints: dict[int, tuple[str, str | None]],
    pinned: str | None,
    want: set[int],
) -> Half:
    """In a worker: scan `part` of `table` through its own connection (the module docstring)."""
    key_file = keys.load(where, table)
    engine = _WORKER_ENGINES.get(url)
    if engine is None:
        engine = _WORKER_ENGINES[url] = sa.create_engine(url)
    raw = engine.raw_connection()
    try:
        sqlite = engine.dialect.name == "sqlite"
        if sqlite:
            raw.driver_connection.execute("BEGIN")  # type: ignore[union-attr]
        half = scan_part(
            raw.driver_connection,
            sqlite,
            table,
            part,
            mac_from=mac_from,
            checkpoints=checkpoints,
            pinned=pinned,
            want=want,
            mac_key_of=(lambda public: key_file.mac_key_for(public)) if key_file else (lambda public: None),
            signature_holds=lambda public, seq, h, sig: keys.check_signature(public, table, seq, h, sig),
        )
        raw.rollback()
    finally:
        raw.close()
    return half


def available() -> bool:
    """A worker is forked (spawning would re-run the caller's main script, which `drr` as a library
    cannot require to be guarded), so only where fork exists and no Qt is loaded (a station's
    process is not forked): otherwise the chain is scanned in one process."""
    return (
        (os.cpu_count() or 1) >= 2
        and "fork" in multiprocessing.get_all_start_methods()
        and not any(name in sys.modules for name in ("PySide6", "PyQt6", "PyQt5", "PySide2"))
    )


def in_parts(
    state: Scan,
    parts: list[Part],
    *,
    first: Callable[[int], Problem | None],
    here: Callable[[Part, dict[int, tuple[str, str | None]]], Half],
    checkpoints: dict[int, tuple[str, str | None]],
    worker_args: dict[str, Any],
) -> tuple[Problem | None, list[Half | None] | None]:
    """Scan the chain up to the first part with `first(upto)` (it follows `state`), the parts in
    workers (`scan_in_worker` with `worker_args`) and with `here(part, its checkpoints)`; (the first
    part's problem, None) or (None, every part's findings in order, None when one is missing)."""
    mine = [of_part(checkpoints, p, i == len(parts) - 1) for i, p in enumerate(parts)]
    workers = WORKERS if WORKERS is not None else (os.cpu_count() or 2) - 1
    workers = min(workers, len(parts))
    pool = (
        ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) if workers > 0 else None
    )
    # One part in hand per worker, the next one given when it is done (the pool would queue a second
    # one early, which this process could not take back and would then wait for at the end).
    untaken = deque(range(len(parts)))
    futures: dict[int, Future[Half]] = {}
    lock = threading.RLock()
    stopped = False

    def give(done: Future[Half] | None = None) -> None:
        nonlocal stopped
        with lock:
            if done is not None and (done.cancelled() or done.exception() or done.result().problem):
                stopped = True  # they cannot join: nothing more to scan
            if stopped or not untaken or pool is None:
                return
            i = untaken.popleft()
            futures[i] = pool.submit(scan_in_worker, part=parts[i], checkpoints=mine[i], **worker_args)
        futures[i].add_done_callback(give)

    halves: list[Half | None] = [None] * len(parts)
    try:
        for _ in range(workers):
            give()
        problem = first(parts[0].start)
        if problem is not None:
            return problem, None
        while True:  # the parts no worker has taken: here, the last one first
            with lock:
                if stopped or not untaken:
                    break
                i = untaken.pop()
            halves[i] = here(parts[i], mine[i])
            if halves[i].problem is not None:  # type: ignore[union-attr]
                return None, halves  # they cannot join: the sequential scan decides
        with lock:
            stopped = True
            given = dict(futures)
        for i, future in given.items():
            try:
                halves[i] = future.result()
            except Exception:  # a worker that could not start or read: the sequential scan decides
                return None, None
    finally:
        with lock:
            stopped = True
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return None, halves


def join(first: Scan, second: Half, split: int, split_key: str) -> bool:
    """Fold a part's findings into the state of the chain before it; False when they do not join."""
    if second.problem is not None or first.bad_sig is not None or second.bad_sig is not None:
        return False
    if first.expected != split + 1 or first.key != split_key or first.signed_ok != split:
        return False
    first.expected, first.prev = second.expected, second.prev
    if second.key_since:
        first.key_since = second.key_since
    first.key = second.key
    first.macs = first.macs or second.macs  # a MAC seen before the split was seen in the chain
    first.signed_ok = second.signed_ok
    first.events += second.events
    first.checkpoints_seen += second.checkpoints_seen
    first.hashes_at.update(second.hashes_at)
    first.round_ids |= second.round_ids
    return True
