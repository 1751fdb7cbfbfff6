"""Live updates from the store: the stations learn within a second that something was journaled.

Both engines are polled at `POLL_MS` for the chain heads (one indexed read of a few rows); on
PostgreSQL a LISTEN on `CHANNEL` wakes the poll at once when a writer sends NOTIFY, so a table
service that notifies is seen immediately and one that does not is still seen within POLL_MS.
"""

from __future__ import annotations

import contextlib
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from engine.errors import DrrError
from engine.store.db import Store

POLL_MS = 250
CHANNEL = "drr_journal"


class StoreWatch(QObject):
    """Emits `changed` with the tables whose journal grew since the last poll."""

    changed = Signal(object)  # set[str]
    failed = Signal(str)

    def __init__(self, store: Store, parent: QObject | None = None, interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self.store = store
        self.heads: dict[str, int] = {}
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)
        self._listen: Any = None
        if not store.is_sqlite:
            self._start_listen()

    def start(self) -> None:
        self.poll()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        if self._listen is not None:
            with contextlib.suppress(Exception):
                self._listen.close()
            self._listen = None

    def _start_listen(self) -> None:
        """A psycopg connection in autocommit LISTENing; polled without blocking from `poll`."""
        try:
            raw = self.store.engine.raw_connection()
            conn: Any = raw.driver_connection
            conn.autocommit = True
            conn.execute(f"LISTEN {CHANNEL}")
            self._listen = raw
        except Exception:
            self._listen = None

    def _drain_notifies(self) -> None:
        if self._listen is None:
            return
        with contextlib.suppress(Exception):
            conn = self._listen.driver_connection
            for _ in conn.notifies(timeout=0, stop_after=100):
                pass

    def poll(self) -> None:
        from engine.floor.surveillance import change_token

        self._drain_notifies()
        try:
            token = dict(change_token(self.store))
        except DrrError as exc:
            self.failed.emit(exc.message)
            return
        grown = {t for t, seq in token.items() if self.heads.get(t) != seq}
        self.heads = token
        if grown:
            self.changed.emit(grown)
