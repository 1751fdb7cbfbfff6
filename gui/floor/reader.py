"""A station's live reads off the Qt thread: one read at a time, what moves meanwhile gathered into the next.

`LiveReader.request(tables)` says which tables moved (a `StoreWatch.changed`). If no read is in flight
one starts at once on the reader's own thread: `plan` (on the Qt thread) turns what moved into a job
from what the screen shows now, `read` (on the reader thread, its own store connections) reads it,
and `show` (back on the Qt thread) redraws from the result. Requests that come while a read is in
flight are merged into one pending request, so however many commits arrive during a slow read, the
next read is one, and covers them all: a backlog never queues behind the screen. A station may run
several readers, one per kind of work, so a slow one (writing alerts) never holds up a quick one
(the tiles).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Signal

from engine.errors import DrrError


@dataclass
class Moved:
    """What a read is to cover: the tables that moved, and whether every table is to be scanned."""

    tables: set[str] = field(default_factory=set)
    everything: bool = False  # the once-a-minute silence scan of every table

    def __bool__(self) -> bool:
        return bool(self.tables) or self.everything


class LiveReader(QObject):
    """Runs a station's reads of what moved on one worker thread (see the module docstring)."""

    failed = Signal(str)  # a read's DrrError, in words
    _finished = Signal(object, object)  # (result, exception) from the worker thread; queued into ours

    def __init__(
        self,
        name: str,
        plan: Callable[[Moved], Any],
        read: Callable[[Any], Any],
        show: Callable[[Any], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.name = name
        self.plan, self.read, self.show = plan, read, show
        self.pending = Moved()
        self.in_flight = False
        self.reads = 0  # reads done (a figure for tests and the benchmark's notes)
        self._jobs: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stopped = False
        self._finished.connect(self._on_finished)

    def request(self, tables: Iterable[str] = (), *, everything: bool = False) -> None:
        """Read what moved: now if nothing is in flight, else in the next read (merged)."""
        if self._stopped:
            return
        self.pending.tables.update(tables)
        self.pending.everything |= everything
        if not self.in_flight:
            self._start()

    def _start(self) -> None:
        if not self.pending:
            return
        moved, self.pending = self.pending, Moved()
        job = self.plan(moved)
        if job is None:  # nothing on screen needs it
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"reader-{self.name}", daemon=True)
            self._thread.start()
        self.in_flight = True
        self._jobs.put(job)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                result = self.read(job)
            except BaseException as exc:  # handed to the Qt thread: a failure is shown, never lost
                self._finished.emit(None, exc)
            else:
                self._finished.emit(result, None)

    def _on_finished(self, result: Any, error: BaseException | None) -> None:
        self.in_flight = False
        if self._stopped:
            return
        self.reads += 1
        self._start()  # the next read (what moved meanwhile) runs while this one is drawn
        if isinstance(error, DrrError):
            self.failed.emit(error.message)
        elif error is not None:
            raise error
        else:
            self.show(result)

    def stop(self, timeout: float = 5.0) -> None:
        """No more reads; waits up to `timeout` s for the one in flight."""
        self._stopped = True
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join(timeout)
            self._thread = None
