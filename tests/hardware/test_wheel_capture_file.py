"""The capture format: lines round-trip through the rotating writer and the reader."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.errors import DrrError
from hardware.capture import CaptureWriter, parse_capture_line, read_capture


def test_writer_rotates_and_reader_reads_back_every_byte(tmp_path: Path) -> None:
    writer = CaptureWriter(tmp_path, max_bytes=2000, backups=50)
    start = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    raws = [f"*X;2;{n % 256 + 1:03d};  ;0;170;0" for n in range(100)] + ["\x00\xff torn\t*X;"]
    for n, raw in enumerate(raws):
        writer.write("RX" if n % 3 else "TX", raw, start + timedelta(milliseconds=n))
    writer.close()
    files = sorted(tmp_path.iterdir(), key=lambda p: -int(p.suffix[1:]) if p.suffix[1:].isdigit() else 0)
    assert len(files) > 2  # rotated
    lines = [line for f in files for line in read_capture(f)]
    assert [line.raw for line in lines] == raws
    assert lines[0].format() == "2026-01-02T03:04:05.678\tTX\t*X;2;001;  ;0;170;0"
    assert lines[1].direction == "RX" and lines[1].time == datetime(2026, 1, 2, 3, 4, 5, 679000)


def test_malformed_capture_lines_are_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "c.log"
    path.write_text("2025-09-16T06:44:46.581\tRX\t*P OK\nnot a capture line\n2025-13-01T00:00:00\tRX\tx\n\n")
    bad: list[tuple[int, str, str]] = []
    lines = list(read_capture(path, on_bad=lambda n, text, why: bad.append((n, text, why))))
    assert [line.raw for line in lines] == ["*P OK"]
    assert [n for n, _, _ in bad] == [2, 3]
    assert parse_capture_line("2025-09-16T06:44:46.581\tXX\tz") == "direction 'XX' is neither RX nor TX"
    with pytest.raises(DrrError, match="cannot read capture"):
        list(read_capture(tmp_path / "missing.log"))
