"""Live updates from the store: the stations learn within a second that, and where, something was journaled.

SQLite: `engine.store.forward.Watcher` every `POLL_MS` (`PRAGMA data_version` first, so an idle poll
costs almost nothing; then the chain heads say which tables moved). PostgreSQL: `engine.store.forward.listen`
on the journal's NOTIFY channel ("table:seq", sent at the commit of every append and forwarded batch)
is the live feed: each notification names its table, the names are gathered for `COALESCE_MS` and
handed on as one `changed` set, so a station refreshes only the tables that moved, however many
commit at once. A poll of the chain heads every `BACKSTOP_MS` (and at once after the listener
reconnects) catches what a lost connection may have missed; the notified heads are noted, so it
reports only those.
"""

from __future__ import annotations

import contextlib
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from engine.errors import DrrError
from engine.store.db import Store

POLL_MS = 250
COALESCE_MS = 20  # notifications gathered into one refresh (100 tables committing together: one pass)
BACKSTOP_MS = 10_000  # PostgreSQL: the poll behind LISTEN/NOTIFY


class StoreWatch(QObject):
    """Emits `changed` with the tables whose journal grew (see the module docstring)."""

    changed = Signal(object)  # set[str]
    failed = Signal(str)
    _notified = Signal(str, int)  # from the listener's thread; queued into ours

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
        self.pending: dict[str, int] = {}
        self.gather = QTimer(self)
        self.gather.setSingleShot(True)
        self.gather.setInterval(COALESCE_MS)
        self.gather.timeout.connect(self._hand_on)
        self._notified.connect(self._on_notify)

    def start(self) -> None:
        from engine.store.forward import Watcher, listen

        try:
            self.watcher = Watcher(self.store)
        except DrrError as exc:
            self.failed.emit(exc.message)
            return
        if not self.store.is_sqlite:
            with contextlib.suppress(DrrError):
                self.listener = listen(self.store.url, self._notified.emit, on_connect=self._reconnected)
            if self.listener is not None:
                self.timer.setInterval(self.backstop_ms)
        self.timer.start()

    def _reconnected(self) -> None:
        """From the listener's thread, after every (re)connection: poll once in ours."""
        self._notified.emit("", 0)

    def stop(self) -> None:
        self.timer.stop()
        self.gather.stop()
        if self.listener is not None:
            self.listener.stop()
            self.listener = None
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None

    def _on_notify(self, table: str, seq: int) -> None:
        if not table:  # (re)connected: what was committed meanwhile is found by the heads
            self.poll()
            return
        if seq > self.pending.get(table, -1):
            self.pending[table] = seq
        if not self.gather.isActive():
            self.gather.start()

    def _hand_on(self) -> None:
        moved, self.pending = self.pending, {}
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
