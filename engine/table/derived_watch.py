"""The start's check of a long journal's derived tables, in a worker thread while the table deals.

A journal longer than engine.store.evidence.DERIVED_AT_START is not folded again before the table
deals (that fold is seconds per 20,000 entries). `DerivedWatch` folds it instead in a daemon thread
on one read snapshot (engine.store.derived_check.snapshot_problem: no write lock, nothing written) and
hands its verdict back to the table service's event loop, where the service journals what follows (a
`table.tilted` of cause "derived" and a critical alert, or the clear of an earlier such tilt). The
thread itself never writes; a stop (`cancel`) ends its fold at the next round it touches, and a
verdict that arrives after the stop is dropped.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.store.db import Store
from engine.store.derived_check import Cancelled, snapshot_problem

log = logging.getLogger("drr.table")
YIELD_EVERY = 64  # rounds the fold reads between two pauses for the table's thread (`_stopped`)


@dataclass(frozen=True)
class DerivedVerdict:
    """What the check found: `problem` (None: the rows agree with the journal), or `error` when it
    could not check at all (the store unreachable: nothing is said about the rows); its seconds."""

    problem: str | None
    error: str | None
    seconds: float


class DerivedWatch:
    """One check of one table's derived tables on a read snapshot, in a daemon thread."""

    def __init__(
        self,
        store: Store,
        table: str,
        loop: asyncio.AbstractEventLoop,
        on_verdict: Callable[[DerivedVerdict], None],
    ) -> None:
        self.store, self.table = store, table
        self._loop, self._on_verdict = loop, on_verdict
        self._stop = threading.Event()
        self.verdict: DerivedVerdict | None = None
        self._asked = 0
        # A daemon: a station stopping within its budget never waits for a fold of years.
        self._thread = threading.Thread(target=self._run, name=f"derived-check-{table}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        """Stop the fold (at the next round it touches) and drop any verdict not yet handed over."""
        self._stop.set()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread (tests, a close that may wait); True when it has ended."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        began = time.monotonic()
        try:
            problem, error = snapshot_problem(self.store, self.table, self._stopped), None
        except Cancelled:
            return
        except Exception as exc:
            problem, error = None, f"{type(exc).__name__}: {exc}"
        verdict = DerivedVerdict(problem, error, time.monotonic() - began)
        self.verdict = verdict
        if self._stop.is_set():
            return
        try:
            self._loop.call_soon_threadsafe(self._hand_over, verdict)
        except RuntimeError:  # the loop is closed: the station has stopped, nothing more is done
            log.debug("table %s: the derived check ended after the loop closed", self.table)

    def _stopped(self) -> bool:
        """Asked by the fold at every round it reads: the stop, and now and then a moment for the
        table's thread. The fold is pure Python: without the pause a command waiting for the
        interpreter lock after each of its database calls waited up to the switch interval (5 ms)
        every time; a pause at every call gave the CPU away to other processes on a loaded machine."""
        self._asked += 1
        if self._asked % YIELD_EVERY == 0:
            time.sleep(0)
        return self._stop.is_set()

    def _hand_over(self, verdict: DerivedVerdict) -> None:
        if not self._stop.is_set():  # on the loop: a stop between the thread's end and here drops it
            self._on_verdict(verdict)
