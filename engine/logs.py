"""Structured, rotating log files: one JSON object per line, set up once by the `drr` dispatcher.

Where: ``drr.jsonl`` in the platform's user log directory (platformdirs, app
"diamond-rush-roulette"; e.g. ``~/.local/state/diamond-rush-roulette/log`` on Linux,
``%LOCALAPPDATA%\\diamond-rush-roulette\\Logs`` on Windows) or ``paths.log_dir`` from the settings
file. The file rotates at ``logging.max_bytes`` and keeps ``logging.backups`` old files
(``drr.jsonl.1`` is the newest of them). The wheel link's raw serial captures go to
``Settings.effective_capture_dir`` (``captures/`` beside the logs), which this module creates too.

A line looks like::

    {"time": "2026-11-29T15:02:11.123+00:00", "level": "INFO", "logger": "hardware.serial_link",
     "message": "wheel connected", "pid": 4121, "table": "4", "port": "/dev/ttyS0"}

Anything passed as ``extra={...}`` to a logging call becomes a field of its own, so a log
shipper or `jq` can filter on it. Nothing goes to the terminal: the CLI talks to people through
its own output; when the log folder cannot be written, warnings fall back to stderr.

Under systemd (a unit of the Debian package, packaging/deb/) stderr is the journal: systemd says so in
``JOURNAL_STREAM`` (the device and inode of that stream). Then every record also goes to stderr as
one line with its syslog priority prefix (``<6>`` for INFO, sd-daemon(3)), so ``journalctl -u
drr-station`` shows the same records as the JSON file, at the right priority, with no library.
Engine-layer: stdlib only.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import logging.handlers
import os
import sys
from pathlib import Path
from typing import Any

from engine.config import Settings

LOG_FILE_NAME = "drr.jsonl"
_HANDLER_TAG = "_drr_handler"

# Attributes every LogRecord has; anything else on a record came from `extra=` and is kept.
_STANDARD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, message, pid, extras."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        for name, value in vars(record).items():
            if name not in _STANDARD_ATTRS and not name.startswith("_"):
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False, default=str)


# sd-daemon(3) priority prefixes journald reads at the start of a stderr line.
_PRIORITIES = {"DEBUG": 7, "INFO": 6, "WARNING": 4, "ERROR": 3, "CRITICAL": 2}


class JournalFormatter(logging.Formatter):
    """One line per record for journald: ``<priority>message (logger) key=value…``."""

    def format(self, record: logging.LogRecord) -> str:
        extras = [
            f"{name}={value}"
            for name, value in vars(record).items()
            if name not in _STANDARD_ATTRS and not name.startswith("_")
        ]
        line = " ".join([record.getMessage(), f"({record.name})", *extras])
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            line += f" [{type(exc).__name__}: {exc}; the traceback is in {LOG_FILE_NAME}]"
        # One journal entry per record: a newline would start a new entry without the priority.
        return f"<{_PRIORITIES.get(record.levelname, 6)}>" + line.replace("\n", " ")


def stderr_is_journal() -> bool:
    """True when systemd connected stderr to the journal (``JOURNAL_STREAM`` names this very stream)."""
    given = os.environ.get("JOURNAL_STREAM", "")
    device, sep, inode = given.partition(":")
    if not sep or sys.stderr is None:
        return False
    try:
        st = os.fstat(sys.stderr.fileno())
    except (OSError, ValueError, AttributeError):  # no real file behind stderr (a test's capture)
        return False
    return f"{st.st_dev}:{st.st_ino}" == f"{device}:{inode}"


def log_file(settings: Settings) -> Path:
    return settings.effective_log_dir / LOG_FILE_NAME


def setup_logging(settings: Settings, level: str | None = None) -> Path | None:
    """Route the root logger to the rotating JSON-lines file; return its path (None if unwritable).

    Idempotent: a second call replaces the handler the first one installed (tests and the GUI's
    restart path call it more than once in one process). `level` overrides `settings.log_level`.
    """
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, _HANDLER_TAG, False):
            root.removeHandler(old)
            old.close()
    root.setLevel((level or settings.log_level).upper())
    path = log_file(settings)
    handler: logging.Handler
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        settings.effective_capture_dir.mkdir(parents=True, exist_ok=True)
        # delay=True: a command that logs nothing (drr settle, drr --version) creates no file.
        handler = logging.handlers.RotatingFileHandler(
            path,
            maxBytes=settings.log_max_bytes,
            backupCount=settings.log_backups,
            encoding="utf-8",
            delay=True,
        )
        handler.setFormatter(JsonLinesFormatter())
        result: Path | None = path
    except OSError as exc:
        handler = logging.StreamHandler(sys.stderr)
        handler.setLevel(logging.WARNING)
        handler.setFormatter(logging.Formatter("drr: %(levelname)s: %(message)s"))
        result = None
        print(f"drr: cannot write logs to {path.parent}: {exc.strerror or exc}", file=sys.stderr)
    handlers: list[logging.Handler] = []
    journal = stderr_is_journal()
    if result is not None or not journal:  # on the journal, the fallback's warnings would come twice
        handlers.append(handler)
    if journal:
        to_journal = logging.StreamHandler(sys.stderr)
        to_journal.setFormatter(JournalFormatter())
        handlers.append(to_journal)
    for each in handlers:
        setattr(each, _HANDLER_TAG, True)
        root.addHandler(each)
    logging.captureWarnings(True)
    return result


def context(**fields: Any) -> dict[str, Any]:
    """`extra=` for a logging call, with keys that would clash with LogRecord's own renamed."""
    return {(f"{k}_" if k in _STANDARD_ATTRS else k): v for k, v in fields.items()}


def process_fields() -> dict[str, Any]:
    """Who is logging: pid, executable, frozen bundle or not (logged once at start)."""
    return {"executable": sys.executable, "frozen": bool(getattr(sys, "frozen", False)), "cwd": os.getcwd()}
