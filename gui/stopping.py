"""Stopping a station on SIGTERM, SIGINT (Ctrl+C) or SIGHUP in every state: the one mechanism every
station (gui.app's croupier, display and bonus screen, gui.floor.station's surveillance and pit boss)
starts under.

Why it is built this way: Python runs a signal handler only when the interpreter gets control, and a
station spends its life inside Qt's C++ event loop, or inside the nested loop of a modal dialog
(`QDialog.exec`, the sign-in). So the Python handler only has to exist (it replaces the default that
would kill the process with no clean-shutdown checkpoint, or raise KeyboardInterrupt somewhere in
the middle of a journal write). The C-level wakeup fd (`signal.set_wakeup_fd`) writes the signal's
number to a socket; a small thread reads it and hands it to the Qt thread as a queued Qt signal,
which any running event loop (main or nested) delivers. There, `StationStop` rejects every open
modal dialog (their nested loops return; dialogs opened later are rejected too, every 100 ms) and
runs the station's own orderly shutdown (`on_stop` callbacks: the croupier's table service close()
journals the clean-shutdown checkpoint). The station then exits 128 + the signal's number.

The same thread arms a watchdog: a station that has not finished stopping FORCE_AFTER_S seconds
after the signal (its main thread stuck) exits anyway with a one-line message. The journal is
durable at every step, so the next start recovers; a service manager's SIGKILL after its stop
timeout would do the same without saying why.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QApplication, QDialog

# SIGHUP: the terminal the station was started from is closed (not on Windows).
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
# Under the 5 s a table PC's shutdown allows (and systemd's default 90 s): see docs/installation.md.
FORCE_AFTER_S = 4.0
SWEEP_MS = 100

log = logging.getLogger("drr")


class StationStopped(Exception):
    """Raised where a station was waiting for a person (the sign-in) when a stop signal came."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal_name(signum)}")
        self.signum = signum


def signal_name(signum: int) -> str:
    with contextlib.suppress(ValueError):
        return signal.Signals(signum).name
    return f"signal {signum}"


class StationStop(QObject):
    """The stop signals of this process while a station runs (made by `stop_on_signals`)."""

    _received = Signal(int)  # emitted on the reader thread, delivered (queued) on the Qt thread

    def __init__(self) -> None:
        super().__init__()
        self.signum: int | None = None  # the first stop signal received
        self._callbacks: list[Callable[[], object]] = []
        self._previous: dict[int, object] = {}
        self._old_wakeup: int | None = None
        self._thread: threading.Thread | None = None
        self._watchdog: threading.Timer | None = None
        self._sweeper = QTimer(self)
        self._sweeper.setInterval(SWEEP_MS)
        self._sweeper.timeout.connect(self.close_modals)
        self._received.connect(self._on_signal)
        self._read_sock, self._write_sock = socket.socketpair()
        self._write_sock.setblocking(False)  # set_wakeup_fd demands it: a C signal handler must not block

    @property
    def stopping(self) -> bool:
        return self.signum is not None

    def exit_code(self, normal: int = 0) -> int:
        """128 + the signal's number once stopped by a signal (the shell's convention), else `normal`."""
        return normal if self.signum is None else 128 + self.signum

    def on_stop(self, callback: Callable[[], object]) -> None:
        """`callback()` on the Qt thread when the first stop signal arrives (at once if it already has)."""
        self._callbacks.append(callback)
        if self.signum is not None:
            callback()

    def raise_if_stopping(self) -> None:
        if self.signum is not None:
            raise StationStopped(self.signum)

    @staticmethod
    def close_modals() -> None:
        """Reject every open modal dialog, innermost first (each nested event loop then returns)."""
        for _ in range(64):  # bounded: a widget that refuses to close must not hang the stop
            widget = QApplication.activeModalWidget()
            if widget is None:
                return
            if isinstance(widget, QDialog):
                widget.reject()
            if widget.isVisible():
                widget.close()

    # -- installing --------------------------------------------------------------------------------

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signals reach the main thread only; a station started elsewhere (a test) keeps them
        self._old_wakeup = signal.set_wakeup_fd(self._write_sock.fileno(), warn_on_full_buffer=False)
        for sig in STOP_SIGNALS:
            previous = signal.getsignal(sig)
            if previous is signal.SIG_IGN:
                continue  # started under nohup, or in the background by a shell: keep ignoring it
            self._previous[sig] = previous
            signal.signal(sig, _noted)
        self._thread = threading.Thread(target=self._read, name="drr-stop-signals", daemon=True)
        self._thread.start()

    def uninstall(self) -> None:
        self._sweeper.stop()
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._old_wakeup is not None:
            signal.set_wakeup_fd(self._old_wakeup)
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)  # type: ignore[arg-type]
        self._previous.clear()
        self._write_sock.close()  # the reader sees end-of-file and ends
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        self._read_sock.close()

    # -- the reader thread ---------------------------------------------------------------------------

    def _read(self) -> None:
        while True:
            try:
                data = self._read_sock.recv(64)
            except OSError:
                return
            if not data:
                return
            for signum in data:
                if signum in self._previous:
                    self._arm_watchdog(signum)
                    self._received.emit(signum)

    def _arm_watchdog(self, signum: int) -> None:
        if self._watchdog is None:
            self._watchdog = threading.Timer(FORCE_AFTER_S, _force_exit, args=(signum,))
            self._watchdog.daemon = True
            self._watchdog.start()

    # -- on the Qt thread ------------------------------------------------------------------------------

    @Slot(int)
    def _on_signal(self, signum: int) -> None:
        first = self.signum is None
        if first:
            self.signum = signum
            log.info("stop requested", extra={"signal": signal_name(signum), "pid": os.getpid()})
        self.close_modals()
        if not first:
            return
        self._sweeper.start()
        for callback in self._callbacks:
            callback()


def _noted(signum: int, frame: object) -> None:
    """The Python-level handler: the work is done on the Qt thread (see the module's note)."""


def _force_exit(signum: int) -> None:
    # os.write, not print or logging: the main thread may hold their locks, and this must not wait.
    with contextlib.suppress(OSError):
        os.write(
            2,
            f"drr: the station did not stop within {FORCE_AFTER_S:g} s of {signal_name(signum)}; "
            "exiting now (the next start recovers from the journal); where it was stuck:\n".encode(),
        )
        # What held the stop up, for whoever reads the station's log (faulthandler writes without
        # locks or allocation, as this must).
        faulthandler.dump_traceback(file=2, all_threads=True)
    os._exit(128 + signum)


_active: list[StationStop] = []


@contextlib.contextmanager
def stop_on_signals() -> Iterator[StationStop]:
    """Run a station under the stop signals. StationStopped raised inside ends the block quietly;
    on the way out the station's windows still open are closed and the previous handlers return."""
    stop = StationStop()
    stop.install()
    _active.append(stop)
    try:
        yield stop
    except StationStopped:
        pass
    finally:
        _active.remove(stop)
        for widget in QApplication.topLevelWidgets():
            if widget.isVisible():
                widget.close()
        stop.uninstall()
        stop.deleteLater()
        if stop.signum is not None:
            log.info(
                "station stopped", extra={"signal": signal_name(stop.signum), "exit_code": stop.exit_code()}
            )


def current() -> StationStop | None:
    """The stop of the station running in this process, if any."""
    return _active[-1] if _active else None


def on_stop(callback: Callable[[], object]) -> None:
    """`callback()` when the running station is asked to stop (nothing when no station runs)."""
    stop = current()
    if stop is not None:
        stop.on_stop(callback)


def raise_if_stopping() -> None:
    """StationStopped when the running station is stopping: a cancelled dialog is the stop, not a refusal."""
    stop = current()
    if stop is not None:
        stop.raise_if_stopping()
