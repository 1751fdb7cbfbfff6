"""Live updates from the store: the stations learn within a second that something was journaled.

SQLite: `engine.store.forward.Watcher` every `POLL_MS` (`PRAGMA data_version` first, so an idle poll
costs almost nothing; then the chain heads say which tables moved). PostgreSQL: the same poll as a
backstop, plus `engine.store.forward.listen` on the forwarder's NOTIFY channel, which wakes the
station at once (the notification is carried into the Qt thread by a queued signal).
"""

from __future__ import annotations

import contextlib
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from engine.errors import DrrError
from engine.store.db import Store

POLL_MS = 250


class StoreWatch(QObject):
    """Emits `changed` with the tables whose journal grew since the last poll."""

    changed = Signal(object)  # set[str]
    failed = Signal(str)
    _notified = Signal(str, int)  # from the listener's thread; queued into ours

    def __init__(self, store: Store, parent: QObject | None = None, interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self.store = store
        self.watcher: Any = None
        self.listener: Any = None
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)
        self._notified.connect(lambda _table, _seq: self.poll())

    def start(self) -> None:
        from engine.store.forward import Watcher, listen

        try:
            self.watcher = Watcher(self.store)
        except DrrError as exc:
            self.failed.emit(exc.message)
            return
        if not self.store.is_sqlite:
            with contextlib.suppress(DrrError):
                self.listener = listen(self.store.url, self._notified.emit)
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        if self.listener is not None:
            self.listener.stop()
            self.listener = None
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None

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
