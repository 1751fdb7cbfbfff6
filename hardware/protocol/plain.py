"""The `plain` protocol: a sensor that sends only the winning number, one per line.

Every readable line is one result (the sensor sends each number once); it carries no game
counter, so `game` is None and the table numbers its own rounds. Accepts `7`, ` 7`, `07`, `00`
(a pocket a single-zero wheel lacks: a doubtful spin, see engine.wheel_events.wheel_number).
"""

from __future__ import annotations

from datetime import datetime

from engine.wheel_events import wheel_number
from hardware.events import LinkEvent
from hardware.protocol.base import Protocol, register_protocol
from hardware.protocol.ss2 import parse_number


@register_protocol
class PlainProtocol(Protocol):
    name = "plain"

    def _decode(self, raw: str, time: datetime) -> list[LinkEvent]:
        text = raw.strip(" \t\0")
        if not text:
            return []
        number = parse_number(text)
        if number is None:
            return [self.unreadable(text, "not a winning number", time)]
        return [wheel_number(number, game=None, time=time)]
