"""Decoding a capture file offline: its RX lines through a protocol, TX lines as sent commands."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hardware.capture import read_capture
from hardware.events import LinkEvent
from hardware.protocol import Protocol, get_protocol


@dataclass
class DecodeSummary:
    """What a decode saw: lines read, and the capture lines that were not in the capture format."""

    lines: int = 0
    malformed: list[tuple[int, str, str]] = field(default_factory=list)


def decode_capture(
    path: str | Path, protocol: str | Protocol = "ss2", summary: DecodeSummary | None = None
) -> Iterator[LinkEvent]:
    """Events of a capture, in order, with the capture's timestamps. DrrError if unreadable."""
    decoder = get_protocol(protocol) if isinstance(protocol, str) else protocol
    seen = summary if summary is not None else DecodeSummary()

    def bad(lineno: int, text: str, reason: str) -> None:
        seen.malformed.append((lineno, text, reason))

    for line in read_capture(path, on_bad=bad):
        seen.lines += 1
        if line.direction == "TX":
            decoder.note_command(line.raw, line.time)
        else:
            yield from decoder.feed_line(line.raw, line.time)
