"""Live updates from the store: the stations learn within a second that, and where, something was journaled.

SQLite: `engine.store.forward.Watcher` every `POLL_MS` (`PRAGMA data_version` first, so an idle poll
costs almost nothing; then the chain heads say which tables moved). PostgreSQL: `engine.store.forward.listen`
on the journal's NOTIFY channel ("table:seq", sent at the commit of every append and forwarded batch)
is the live feed: each notification names its table; the listener's thread gathers the names and
wakes the Qt thread once, which hands on everything gathered by then as one `changed` set. So a
notification reaches an idle station at once, and however many tables commit while the Qt thread is
busy (drawing, or not given a core), it takes them all in one hand-on. (It used to gather on the Qt
thread for a fixed 20 ms, by a timer: two waits for a busy Qt thread and the timer's 20 ms on every
commit, the largest hop of a floor commit to the screen, issue 28.) A poll of the chain heads every
`BACKSTOP_MS` (and at once after the listener reconnects) catches what a lost connection may have
missed; the notified heads are noted, so it
reports only those.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from engine.errors import DrrError
from engine.store.db import Store

POLL_MS = 250
BACKSTOP_MS = 10_000  # PostgreSQL: the poll behind LISTEN/NOTIFY


class StoreWatch(QObject):
    """Emits `changed` with the tables whose journal grew (see the module docstring)."""

    changed = Signal(object)  # set[str]
    failed = Signal(str)
    _wake = Signal()  # from the listener's thread, once per gathering; queued into ours

    def __init__(
        self,
        store: Store,
        parent: QObject | None = None,
        interval_ms: int = POLL_MS,
        backstop_ms: int = BACKSTOP_MS,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.watcher: Any = None
        self.listener: Any = None
        self.interval_ms, self.backstop_ms = interval_ms, backstop_ms
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)
        # Gathered on the listener's thread, taken on ours (`_hand_on`): under the lock.
        self._lock = threading.Lock()
        self.pending: dict[str, int] = {}
        self._reconnected_since = False  # a (re)connection: the heads are polled once
        self._woken = False  # a wake is queued and not yet taken
        # Queued even when emitted on our own thread: the wake is taken when the Qt thread is next free.
        self._wake.connect(self._hand_on, Qt.ConnectionType.QueuedConnection)

    def start(self) -> None:
        from engine.store.forward import Watcher, listen

        try:
            self.watcher = Watcher(self.store)
        except DrrError as exc:
            self.failed.emit(exc.message)
            return
        if not self.store.is_sqlite:
            with contextlib.suppress(DrrError):
                self.listener = listen(self.store.url, self.note, on_connect=self._reconnected)
            if self.listener is not None:
                self.timer.setInterval(self.backstop_ms)
        self.timer.start()

    def _reconnected(self) -> None:
        """From the listener's thread, after every (re)connection: poll once in ours."""
        with self._lock:
            self._reconnected_since = True
            wake, self._woken = not self._woken, True
        if wake:
            self._wake.emit()

    def note(self, table: str, seq: int) -> None:
        """A notification (on the listener's thread): gathered, and the Qt thread woken unless a
        wake is already queued (which then takes this one too)."""
        with self._lock:
            if seq > self.pending.get(table, -1):
                self.pending[table] = seq
            wake, self._woken = not self._woken, True
        if wake:
            self._wake.emit()

    def stop(self) -> None:
        self.timer.stop()
        if self.listener is not None:
            self.listener.stop()
            self.listener = None
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None

    def _hand_on(self) -> None:
        """On the Qt thread: everything gathered since the last wake, as one `changed`."""
        with self._lock:
            moved, self.pending = self.pending, {}
            reconnected, self._reconnected_since = self._reconnected_since, False
            self._woken = False
        if reconnected:  # what was committed meanwhile is found by the heads
            self.poll()
        self._report(moved)

    def _report(self, moved: dict[str, int]) -> None:
        if self.watcher is not None:
            for table, seq in moved.items():  # the backstop poll need not report these again
                if seq > self.watcher.heads.get(table, -1):
                    self.watcher.heads[table] = seq
        if moved:
            self.changed.emit(set(moved))

    def poll(self) -> None:
        if self.watcher is None:
            return
        try:
            moved = self.watcher.poll()
        except DrrError as exc:
            self.failed.emit(exc.message)
            return
        if moved:
            self.changed.emit(set(moved))
