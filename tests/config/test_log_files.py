"""The structured log: JSON lines with extras, rotation, idempotent set-up, a fallback when unwritable."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import logs
from engine.config import Settings


@pytest.fixture(autouse=True)
def _restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def ours() -> list[logging.Handler]:
    return [h for h in logging.getLogger().handlers if getattr(h, "_drr_handler", False)]


def test_each_record_is_one_json_object_with_its_extras(tmp_path: Path) -> None:
    path = logs.setup_logging(Settings(log_dir=tmp_path))
    assert path == tmp_path / "drr.jsonl"
    assert (tmp_path / "captures").is_dir()  # the wheel's capture folder sits beside the logs
    log = logging.getLogger("hardware.serial_link")
    log.info("wheel connected", extra=logs.context(port="/dev/ttyS0", table="4", name="clash"))
    log.debug("below the level: not written")
    try:
        raise ValueError("bad byte")
    except ValueError:
        log.exception("line dropped")
    for handler in ours():
        handler.flush()
    first, second = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    assert first["level"] == "INFO" and first["logger"] == "hardware.serial_link"
    assert first["message"] == "wheel connected"
    assert (first["port"], first["table"], first["name_"]) == ("/dev/ttyS0", "4", "clash")
    assert first["time"].endswith("+00:00") and isinstance(first["pid"], int)
    assert second["level"] == "ERROR" and "ValueError: bad byte" in second["exception"]


def test_the_file_rotates_and_keeps_the_configured_backups(tmp_path: Path) -> None:
    settings = dataclasses.replace(Settings(log_dir=tmp_path), log_max_bytes=2_000, log_backups=2)
    logs.setup_logging(settings)
    log = logging.getLogger("rotation")
    for i in range(200):
        log.warning("entry %d %s", i, "x" * 50)
    names = sorted(p.name for p in tmp_path.glob("drr.jsonl*"))
    assert names == ["drr.jsonl", "drr.jsonl.1", "drr.jsonl.2"]
    assert all(p.stat().st_size <= 2_000 for p in tmp_path.glob("drr.jsonl*"))
    newest = json.loads((tmp_path / "drr.jsonl").read_text().splitlines()[-1])
    assert newest["message"].startswith("entry 199 ")


def test_setting_up_twice_leaves_one_handler_writing_to_the_new_place(tmp_path: Path) -> None:
    logs.setup_logging(Settings(log_dir=tmp_path / "a"))
    logs.setup_logging(Settings(log_dir=tmp_path / "b"), level="warning")
    assert len(ours()) == 1 and logging.getLogger().level == logging.WARNING
    logging.getLogger("x").warning("here")
    assert not (tmp_path / "a" / "drr.jsonl").exists()
    assert "here" in (tmp_path / "b" / "drr.jsonl").read_text()


def test_an_unwritable_log_folder_falls_back_to_warnings_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert logs.setup_logging(Settings(log_dir=blocker / "logs")) is None
    logging.getLogger("x").info("dropped")
    logging.getLogger("x").warning("sensor fault 4")
    err = capsys.readouterr().err
    assert "cannot write logs to" in err and "sensor fault 4" in err and "dropped" not in err


def _journal_stream(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """stderr on a file systemd would have named in JOURNAL_STREAM (as a unit's stderr is the journal)."""
    import os
    import sys

    stream_path = tmp_path / "journal-stream"
    stream = stream_path.open("w", encoding="utf-8")
    monkeypatch.setattr(sys, "stderr", stream)
    st = os.fstat(stream.fileno())
    monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino}")
    return stream_path


def test_under_systemd_every_record_also_goes_to_the_journal_with_its_priority(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = _journal_stream(monkeypatch, tmp_path)
    path = logs.setup_logging(Settings(log_dir=tmp_path / "log"))
    log = logging.getLogger("hardware.serial_link")
    log.info("wheel connected", extra=logs.context(port="/dev/ttyS0"))
    log.warning("no message\nfor 3 s")
    try:
        raise OSError("permission denied")
    except OSError:
        log.exception("port refused")
    for handler in ours():
        handler.flush()
    lines = stream.read_text(encoding="utf-8").splitlines()
    assert lines == [
        "<6>wheel connected (hardware.serial_link) port=/dev/ttyS0",
        "<4>no message for 3 s (hardware.serial_link)",
        "<3>port refused (hardware.serial_link) [OSError: permission denied; the traceback is in drr.jsonl]",
    ]
    assert path is not None and len(path.read_text(encoding="utf-8").splitlines()) == 3  # the file too
    logs.setup_logging(Settings(log_dir=tmp_path / "log"))  # idempotent: still one journal handler
    assert len(ours()) == 2


def test_no_journal_line_when_stderr_is_not_the_stream_systemd_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = _journal_stream(monkeypatch, tmp_path)
    monkeypatch.setenv("JOURNAL_STREAM", "1:2")  # inherited from a unit by a program run in a terminal
    logs.setup_logging(Settings(log_dir=tmp_path / "log"))
    logging.getLogger("x").warning("only in the file")
    assert stream.read_text(encoding="utf-8") == ""
    assert len(ours()) == 1


def test_an_unwritable_log_folder_under_systemd_warns_once_in_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = _journal_stream(monkeypatch, tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert logs.setup_logging(Settings(log_dir=blocker / "log")) is None
    logging.getLogger("x").warning("still told")
    for handler in ours():
        handler.flush()
    text = stream.read_text(encoding="utf-8")
    assert text.count("still told") == 1 and "<4>still told (x)" in text


@pytest.mark.parametrize("under_systemd", [False, True])
def test_the_forwarder_writes_its_notices_to_the_terminal_only_when_stderr_is_not_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, under_systemd: bool
) -> None:
    """Under systemd the journal handler has every record: the terminal notices would say each twice."""
    import argparse
    import signal
    import types

    import engine.store.forward
    from engine.cli import db_cmd
    from engine.store.db import open_store

    stream = _journal_stream(monkeypatch, tmp_path)
    if not under_systemd:
        monkeypatch.setenv("JOURNAL_STREAM", "1:2")
    logs.setup_logging(Settings(log_dir=tmp_path / "log"))
    forward_log = logging.getLogger("drr.store.forward")
    monkeypatch.setattr(forward_log, "handlers", [])

    class StandIn:  # the forwarder's loop, reduced to one notice
        def __init__(self, *_: object) -> None:
            self.status = types.SimpleNamespace(last_error=None)

        def run(self, stop: object, interval: float, after: object) -> None:
            forward_log.info("floor database unreachable; retrying")

        def close(self) -> None:
            pass

    monkeypatch.setattr(engine.store.forward, "Forwarder", StandIn)
    monkeypatch.setattr(signal, "signal", lambda *_: None)  # the test process keeps its SIGTERM
    db = f"sqlite:///{tmp_path / 'table.sqlite'}"
    open_store(db, table="1", migrate=True).close()
    args = argparse.Namespace(db=db, to="postgresql://floor/casino", only_table="1", once=False, interval=0.1)
    assert db_cmd.run_forward(args) == 0
    for handler in [*ours(), *forward_log.handlers]:
        handler.flush()
    lines = [line for line in stream.read_text(encoding="utf-8").splitlines() if "unreachable" in line]
    if under_systemd:
        assert lines == ["<6>floor database unreachable; retrying (drr.store.forward)"]
    else:
        assert lines == ["drr db forward: floor database unreachable; retrying"]
