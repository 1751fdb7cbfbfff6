"""Cammegh Slingshot 2 (SS2) protocol: a lenient line parser and the stateful event deriver.

Parsing is strict about what a field may hold and lenient about everything around it (CR/LF,
padding, NULs): a status line whose fields do not fit is unreadable, never guessed at. A line
torn by lost bytes is cut at every `*` so the parser resynchronises on the next packet start
(`*X;4;14*X;*X;4;146; 9;0;158;0` yields two unreadable fragments and one good status line).
A reply to a command the host sent must have that command's shape (`reply_fits`): `*P O` is a
torn line, not the answer to `*P 1`.

The deriver turns the 2 Hz status stream into events following the vendor guide's handling
rules (see `../../shared/docs/wheel-protocol-ss2.md` § 7): flag 8 is ignored for the first 3 s of
state 3, then reported as a failed launch; state 3 with flag 2 is a miss-spin (void); flag 1 in
state 4 is ignored for 5 s, then reported as ball not detected. A result is emitted once per
game although the wheel repeats its state-5 line for many seconds; counter gaps, wraps after 256
and power-cycle restarts are reported as such. The counter moves at game start, so a state-5
line on which it moved is believed only when the next status line agrees, and a counter jump
that comes back to the game just reported (one corrupted line) does not repeat its result.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Literal

from engine.wheel_events import (
    RESULT_CONFLICT,
    WheelBallNotDetected,
    WheelClosed,
    WheelGap,
    WheelLaunched,
    WheelLaunchFailed,
    WheelMissSpin,
    WheelNoMoreBets,
    WheelRestart,
    WheelRotor,
    WheelStarted,
    WheelWarning,
    wheel_number,
)
from hardware.events import (
    WARNING_ADVICE,
    BonusNumber,
    CommandReply,
    GameCounterWrapped,
    LinkEvent,
    SelfTest,
    SensorEvent,
    UnreadableLine,
    decode_warnings,
    result_mismatch,
)
from hardware.protocol.base import Protocol, log, register_protocol
from hardware.protocol.ss2_log import calibration_step

LAUNCH_GRACE = timedelta(seconds=3)  # guide § 7: flag 8 clears once state 3 begins; ignore 3 s
NO_BALL_GRACE = timedelta(seconds=5)  # guide § 7: flag 1 in state 4, ignore >= 5 s (10 lines)
SPEED_STEP = Decimal("0.5")  # rpm change worth an event; the reading jitters by 0.1-0.2
GAME_COUNTER_MAX = 256
# A reply belongs to a command sent at most this long before it (the wheel answers in ~50 ms; the
# captures show a status line or two in between). `*F` results are SelfTest events, not replies.
REPLY_WINDOW = timedelta(seconds=10)
# Commands answered by several lines (`*C` calibration steps, `*W`/`*M` total then list): every
# line fits, and the command stays open until the window closes.
MULTI_LINE_REPLIES = frozenset("CWM")

SELF_TEST_CODES: dict[int, str] = {
    0: "ok",
    1: "hardware fault",
    2: "no ball",
    3: "no ball position",
    4: "wrong ball direction",
    5: "motor fault",
    6: "encoder failed or not calibrated",
    7: "cannot play clockwise",
    8: "cannot play anticlockwise",
    11: "sensor 1 stuck on",
    12: "sensor 2 stuck on",
    13: "sensor 3 stuck on",
    21: "sensor 1 stuck off",
    22: "sensor 2 stuck off",
    23: "sensor 3 stuck off",
    100: "test timed out",
}

_ZEROS = {"00": 37, "000": 38, "0000": 39}
_PADDING = " \t\0\x0b\x0c"


_DIGITS = "0123456789"


def parse_number(text: str) -> int | None:
    """A winning number as the wheel prints it (`" 7"`, `"24"`, `"00"`); None if it is not one."""
    value = text.strip(" ")
    if value in _ZEROS:
        return _ZEROS[value]
    if 1 <= len(value) <= 2 and value.isascii() and value.isdigit():
        number = int(value)
        if number <= 36:
            return number
    return None


@dataclass(frozen=True, slots=True)
class Status:
    """One `*X;state;spin;win;flags;speed;dir` line."""

    state: int
    game: int
    win: int | None
    flags: int
    speed_tenths: int
    clockwise: bool

    @property
    def rpm(self) -> Decimal:
        return Decimal(self.speed_tenths) / 10


@dataclass(frozen=True, slots=True)
class _Unconfirmed:
    """A state-5 line whose game number changed on it, waiting for the next line to agree."""

    status: Status
    raw: str
    time: datetime
    number_line: int | None

    @property
    def key(self) -> tuple[int, int | None]:
        return self.status.game, self.status.win


def parse_status(text: str) -> Status | str:
    """A status line, or the reason it cannot be read."""
    fields = text.split(";")
    if len(fields) != 7 or fields[0] != "*X":
        return f"status line with {len(fields)} fields, expected 7"
    state, game, win, flags, speed, direction = fields[1:]
    if not (len(state) == 1 and state in "1234567"):
        return f"status state {state!r} is not 1-7"
    if not (len(game) == 3 and game.isascii() and game.isdigit()):
        return f"status game {game!r} is not 3 digits"
    if not 1 <= int(game) <= GAME_COUNTER_MAX:
        return f"status game {game!r} is outside the counter's range 001-256"
    # The field is always 2 characters wide (3-4 only for 000/0000): a shorter one is a line
    # that lost a byte, and reading "18" as "1" would be a wrong result, so it is unreadable.
    win_number: int | None = None
    if win == "  ":
        win_number = None
    elif len(win) == 2 and not (win[1] in _DIGITS and win[0] in _DIGITS + " "):
        # Exactly two digits, or a space then one digit (" 7"): "1 " lost or moved a byte.
        return f"status result {win!r} is not two digits (or a space and a digit)"
    elif len(win) == 2 or (len(win) in (3, 4) and win.strip("0") == ""):
        win_number = parse_number(win)
        if win_number is None:
            return f"status result {win!r} is not a number"
    else:
        return f"status result {win!r} is not 2 characters wide"
    if not (len(flags) == 1 and flags in "0123456789ABCDEFabcdef"):
        return f"status flags {flags!r} are not one hex digit"
    if not (len(speed) == 3 and speed.isascii() and speed.isdigit()):
        return f"status speed {speed!r} is not 3 digits"
    if direction not in ("0", "1"):
        return f"status direction {direction!r} is not 0 or 1"
    return Status(int(state), int(game), win_number, int(flags, 16), int(speed), direction == "0")


def _printable(text: str) -> bool:
    """No control characters. Bytes above 0x7F pass: free-text replies may hold the vendor's
    punctuation (the guide prints `*d g HH:MM:SS – DD/MM/YY`); every field that matters is
    checked to be ASCII where it is parsed."""
    return all((ch >= " " and ch != "\x7f") or ch == "\t" for ch in text)


_BONUS = re.compile(r"\*Y;[1-6];[0-9]{3}(;[0-9]{2})?")
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
# How many values a `*T` read returns (guide § 6): two for the ranges, four for sensor positions.
SETTING_VALUES = {"r": 2, "s": 2, "j": 4}


def _is_number(word: str) -> bool:
    """An ASCII decimal as the wheel prints settings and statistics (`17.50000`, `-1.5`, `60`)."""
    return _NUMBER.fullmatch(word) is not None


def reply_fits(command: str, key: str, rest: str) -> bool:
    """Whether `*<key> <rest>` has the shape the guide (and the captures) give for `command`.

    A torn reply (`*P O`, `*T s 14.0 17.5` cut to `*T s 1`, `*o 11`) must not answer a command with
    damaged text: it is unreadable, and the host's command times out and may be sent again.
    `OK`, `NO` and `BUSY` (whole words) fit every command.
    """
    words = rest.split()
    if words in (["OK"], ["NO"], ["BUSY"]):
        return True
    text = command.strip(_PADDING + "\r\n")
    ckey = text[1:2]
    args = text[2:].split()
    if key == "Z":  # `*T z <pockets>` is answered `*Z OK`
        return ckey == "T" and words == ["OK"]
    if ckey in ("P", "u", "R", "q", "j", "F", " "):
        return False  # answered only by OK / NO / BUSY
    if ckey == "K":
        return words == ["CAM"]
    if ckey == "o":
        return len(words) == 1 and words[0].isascii() and words[0].isdigit()
    if ckey == "O":
        return len(words) == 4 and all(w.isascii() and w.isdigit() for w in words)
    if ckey == "T":
        letter = args[0] if args else ""
        if len(letter) != 1:
            return False
        if letter.isupper():  # a read: `*T s 14.0 17.50000`, the letter in lower case, then values
            count = SETTING_VALUES.get(letter.lower(), 1)
            values = words[1:]
            return words[:1] == [letter.lower()] and len(values) == count and all(map(_is_number, values))
        # A set is answered `*T OK`; the guide gives `*T m <rpm>` for m (real wheels say OK).
        return letter == "m" and len(words) == 2 and words[0] == "m" and _is_number(words[1])
    if ckey == "w":
        return len(words) == 2 and all(map(_is_number, words))
    if ckey == "A":
        return len(words) == 1 and words[0].isascii() and words[0].isdigit()
    if ckey == "I":
        return words == args
    if ckey == "d":
        return bool(args) and args[0] == "g" and len(words) >= 3 and words[0] == "g"
    if ckey == "s":
        return bool(args) and len(words) >= 2 and words[0] == args[0]
    return bool(words)  # other commands' replies are free text, but never empty


def _reply_status(text: str) -> str:
    words = text.split()
    if not words:
        return "value"
    # `*C FAIL : Sensor(s) 2 Broken` (calibration) is a refusal too, and so is `*C BALL : No ball
    # direction found` (no FAIL word, but the calibration failed).
    if words[0] == "BALL":
        return "ok" if calibration_step(text)[0] == "ok" else "no"
    for word, status in (("OK", "ok"), ("NO", "no"), ("BUSY", "busy"), ("FAIL", "no")):
        if words[0] == word or words[-1] == word or words[-1].startswith(word + "("):
            return status
    return "value"


@register_protocol
class SS2Protocol(Protocol):
    """Decoder for the Cammegh SS2 / SS2 TT serial protocol (wheel -> host lines)."""

    name = "ss2"
    accepts_commands = True

    def __init__(self) -> None:
        super().__init__()
        self._last: Status | None = None
        self._state_since: datetime | None = None
        self._epoch = 0  # bumped on restart / wrap / backward jump: game numbers repeat after it
        self._reported: dict[tuple[int, int], int] = {}  # (epoch, game) -> the number reported
        self._conflicts: set[tuple[int, int]] = set()  # (game, other number) warned of
        self._pending_number: int | None = None
        self._miss_spin_done = False
        self._launch_failed_done = False
        self._no_ball_since: datetime | None = None
        self._no_ball_done = False
        self._speed: tuple[Decimal, bool] | None = None
        self._status_polls = 0
        self._unconfirmed: _Unconfirmed | None = None
        self._last_result: tuple[int, int] | None = None  # (game, number) last reported
        self._result_game_moved_on = False  # a non-state-5 line of that game came since
        # Commands sent and not yet answered: (text, time sent), oldest first.
        self._sent: deque[tuple[str, datetime]] = deque(maxlen=32)

    # -- host side ---------------------------------------------------------------------------

    def note_command(self, raw: str, time: datetime) -> None:
        keys = self.reply_keys(raw)
        if "X" in keys:
            self._status_polls = min(self._status_polls + 1, 8)
        elif keys:
            self._sent.append((raw.strip(_PADDING + "\r\n"), time))

    def reply_keys(self, command: str) -> tuple[str, ...]:
        text = command.strip(_PADDING + "\r\n")
        if not text.startswith("*") or len(text) < 2:
            return ()
        key = text[1]
        if key == "T":
            # `*T z` is answered `*Z OK`; the guide also prints a bare `T OK`.
            return ("T", "Z")
        if key == " ":
            return ("",)
        return (key,)

    def start_command(self, direction: Literal["cw", "ccw"]) -> str:
        """`*u 1` (clockwise) or `*u 3` (anticlockwise, firmware 2.52) in user-start mode."""
        return "*u 1" if direction == "cw" else "*u 3"

    # -- wheel side ---------------------------------------------------------------------------

    def _decode(self, raw: str, time: datetime) -> list[LinkEvent]:
        line = raw.strip(_PADDING)
        if not line:
            return []
        if "*" not in line:
            return self._decode_bare(line, time)
        events: list[LinkEvent] = []
        head, _, tail = line.partition("*")
        if head.strip(_PADDING):
            events.append(self.unreadable(head, "torn line: text before the packet start '*'", time))
        # A `*s r` log page carries binary-ish bytes that may include '*': never cut it.
        fragments = ["*" + tail] if tail.startswith("s r ") else ["*" + part for part in tail.split("*")]
        for fragment in fragments:
            events.extend(self._decode_packet(fragment.rstrip(_PADDING), time))
        return events

    def _decode_bare(self, line: str, time: datetime) -> list[LinkEvent]:
        number = parse_number(line)
        if number is not None:
            # The winning-number line precedes the first state-5 status line; the result is
            # emitted from the status line (it carries the game), this one cross-checks it.
            self._pending_number = number
            return []
        words = line.split()
        if (
            len(words) == 2
            and len(words[0]) == 1
            and words[0].isascii()
            and words[0].isalpha()
            and _printable(line)
        ):
            # The guide prints some replies without their '*' (`T OK`): accept them as replies.
            return [self._reply(words[0], words[1], time, line)]
        return [self.unreadable(line, "not a packet and not a winning number", time, self._game)]

    def _decode_packet(self, text: str, time: datetime) -> list[LinkEvent]:
        game = self._game
        if not _printable(text):
            return [self.unreadable(text, "non-printable bytes in packet", time, game)]
        if text.startswith("*X"):
            status = parse_status(text)
            if isinstance(status, str):
                return [self.unreadable(text, status, time, game)]
            return self._on_status(status, text, time)
        if text.startswith("*Y;"):
            return self._decode_bonus(text, time)
        if text.startswith("*s r "):
            # A log page's data bytes may be ';' (pocket 26 is stored as 0x21+26): it is a reply,
            # never a torn status line; its checksum is checked where the page is decoded (ss2_log).
            return [self._reply("s", text[2:].strip(" \t"), time, text)]
        if ";" in text:
            return [self.unreadable(text, "unknown packet with ';' (torn status line?)", time, game)]
        if len(text) == 1:
            return [self.unreadable(text, "empty packet", time, game)]
        if text.startswith(("*bs ", "*bn ")):
            value = text[4:].strip()
            limit = 3 if text[2] == "s" else 39  # sensors 1-3; pockets up to the quadruple zero
            if value.isascii() and value.isdigit() and len(value) <= 2 and int(value) <= limit:
                kind = "ball-at-sensor" if text[2] == "s" else "ball-in-pocket"
                return [SensorEvent(game=game, time=time, kind=kind, value=int(value))]
            return [self.unreadable(text, "sensor event without a number", time, game)]
        key = text[1] if text[1] != " " else ""
        rest = text[2:].strip(" \t")
        if key == "F" and rest and rest.isascii() and rest.isdigit():
            code = int(rest)
            meaning = SELF_TEST_CODES.get(code, "unknown code")
            return [SelfTest(game=game, time=time, code=rest, meaning=meaning)]
        return [self._reply(key, rest, time, text)]

    def _reply(self, key: str, rest: str, time: datetime, raw: str) -> CommandReply | UnreadableLine:
        """A reply; checked against the oldest open command it answers, if the host sent one.

        A reply nobody asked for (a capture without TX lines, a second program on the port) is
        passed on as it is: only the shape of an answer to a known command can be judged.
        """
        while self._sent and time - self._sent[0][1] > REPLY_WINDOW:
            self._sent.popleft()
        open_commands = [
            (i, command) for i, (command, _) in enumerate(self._sent) if key in self.reply_keys(command)
        ]
        # The oldest open command it fits: an earlier command whose reply was lost must not make
        # the whole reply to a later one (`*T h 60` unanswered, then `*T S`) look torn.
        fitting = [(i, command) for i, command in open_commands if reply_fits(command, key, rest)]
        if open_commands and not fitting:
            return self.unreadable(raw, f"torn reply to {open_commands[0][1]!r}", time, self._game)
        if fitting and fitting[0][1][1:2] not in MULTI_LINE_REPLIES:
            del self._sent[fitting[0][0]]
        return CommandReply(game=self._game, time=time, command=key, text=rest, status=_reply_status(rest))

    def answers(self, command: str, event: LinkEvent) -> bool:
        if isinstance(event, CommandReply) and event.command != "X":
            return reply_fits(command, event.command, event.text)
        return True

    def _decode_bonus(self, text: str, time: datetime) -> list[LinkEvent]:
        # Widths as the guide prints them (`*Y;1;123;30`, expired `*Y;1;999;00`): a value that lost a
        # digit is unreadable, not a different bonus number.
        if _BONUS.fullmatch(text) and (int(text.split(";")[2]) <= 255 or text.split(";")[2] == "999"):
            parts = text.split(";")
            days = int(parts[3]) if len(parts) == 4 else None
            return [
                BonusNumber(
                    game=self._game, time=time, slot=int(parts[1]), value=int(parts[2]), licence_days=days
                )
            ]
        return [self.unreadable(text, "bonus line is not *Y;k;nnn[;dd]", time, self._game)]

    @property
    def _game(self) -> int | None:
        return self._last.game if self._last is not None else None

    # -- deriving events from the status stream ------------------------------------------------

    def _on_status(self, s: Status, raw: str, time: datetime) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        if self._status_polls:
            self._status_polls -= 1
            events.append(CommandReply(game=s.game, time=time, command="X", text=raw, status="value"))
        unconfirmed, self._unconfirmed = self._unconfirmed, None
        if unconfirmed is not None and not (s.state == 5 and (s.game, s.win) == unconfirmed.key):
            events.append(
                self.unreadable(
                    unconfirmed.raw,
                    "result line with a new game number, not confirmed by the next status line",
                    unconfirmed.time,
                    unconfirmed.status.game,
                )
            )
            unconfirmed = None
        if self._last_result is not None and s.game == self._last_result[0] and s.state != 5:
            self._result_game_moved_on = True
        prev = self._last
        self._last = s
        self.wheel_state = s.state
        game_changed = prev is not None and prev.game != s.game
        if prev is not None and game_changed:
            events.extend(self._on_counter(prev, s, time))
        elif prev is not None and s.win is None and prev.win is not None:
            # Same counter but the result field emptied: a power cycle right after game 1.
            self._new_epoch()
            events.append(WheelRestart(game=s.game, time=time, previous=prev.game))
            game_changed = True
        prev_flags = prev.flags if prev is not None else 0
        if s.flags != prev_flags:
            events.append(self._warning_change(prev_flags, s, time))
        state_changed = prev is None or prev.state != s.state or game_changed
        if state_changed:
            self._state_since = time
            self._miss_spin_done = False
            self._launch_failed_done = False
            self._no_ball_since = None
            self._no_ball_done = False
            starting = s.state in (1, 2)
            if not starting or prev is None or prev.state not in (1, 2) or game_changed:
                events.extend(self._state_event(s, time))
        events.extend(self._handling_rules(s, time))
        if s.state == 5 and s.win is not None:
            if unconfirmed is not None:  # this line confirms the one before: its result, its time
                events.extend(
                    self._result(unconfirmed.status, s.win, unconfirmed.time, unconfirmed.number_line)
                )
            elif game_changed and (self._epoch, s.game) not in self._reported:
                # The counter moves at game start (state 1/2), not in state 5: a state-5 line
                # with a new number may be a corrupted one. Believe it once the next line agrees.
                self._unconfirmed = _Unconfirmed(s, raw, time, self._pending_number)
            else:
                events.extend(self._result(s, s.win, time, self._pending_number))
        if s.state != 5 or s.win is not None:
            # The number line belongs to the state-5 line right after it, and to nothing later.
            self._pending_number = None
        speed = (s.rpm, s.clockwise)
        if self._speed is None or self._speed_moved(self._speed, speed):
            self._speed = speed
            events.append(
                WheelRotor(game=s.game, time=time, rpm=s.rpm, direction="cw" if s.clockwise else "ccw")
            )
        return events

    def _result(self, s: Status, number: int, time: datetime, number_line: int | None) -> list[LinkEvent]:
        """The result of the game on state-5 line `s`, unless it was reported already."""
        key = (self._epoch, s.game)
        if key in self._reported:
            first = self._reported[key]
            if number != first and (s.game, number) not in self._conflicts:
                # The wheel repeats its state-5 line for seconds; another number under the same
                # counter is not a repeat: the result already passed on is doubtful (issue 26).
                self._conflicts.add((s.game, number))
                advice = f"game {s.game:03d} reported {first}, then {number}"
                log.warning("second result for a game already reported: %s", advice)
                return [WheelWarning(game=s.game, time=time, warnings=(RESULT_CONFLICT,), advice=advice)]
            return []
        self._reported[key] = number
        if self._last_result == (s.game, number) and not self._result_game_moved_on:
            # The same game and number again, and the wheel never left that game's state 5: a
            # counter jump in between (a corrupted line) opened a new epoch, not a new game.
            log.warning(
                "result %s of game %03d seen again after a counter jump: not repeated", number, s.game
            )
            return []
        self._last_result = (s.game, number)
        self._result_game_moved_on = False
        events: list[LinkEvent] = [
            wheel_number(
                number, game=s.game, time=time, warnings=decode_warnings(s.flags), number_line=number_line
            )
        ]
        if number_line is not None and number_line != number:
            events.append(result_mismatch(s.game, time, number_line, number))
        return events

    @staticmethod
    def _speed_moved(old: tuple[Decimal, bool], new: tuple[Decimal, bool]) -> bool:
        (old_rpm, old_cw), (new_rpm, new_cw) = old, new
        return old_cw != new_cw or abs(new_rpm - old_rpm) >= SPEED_STEP or (old_rpm == 0) != (new_rpm == 0)

    def _on_counter(self, prev: Status, s: Status, time: datetime) -> list[LinkEvent]:
        expected = prev.game % GAME_COUNTER_MAX + 1
        if s.game == expected:
            if prev.game == GAME_COUNTER_MAX:
                self._new_epoch()
                return [GameCounterWrapped(game=s.game, time=time, previous=prev.game)]
            return []
        # After a power cycle the counter restarts low and the result field is empty.
        if (s.win is None and prev.win is not None) or (s.game == 1 and prev.game != GAME_COUNTER_MAX):
            self._new_epoch()
            return [WheelRestart(game=s.game, time=time, previous=prev.game)]
        if s.game < prev.game:
            self._new_epoch()
        return [WheelGap(game=s.game, time=time, previous=prev.game, expected=expected)]

    def _new_epoch(self) -> None:
        self._epoch += 1
        self._reported.clear()
        self._conflicts.clear()

    def _warning_change(self, prev_flags: int, s: Status, time: datetime) -> WheelWarning:
        before, after = set(decode_warnings(prev_flags)), decode_warnings(s.flags)
        added = tuple(name for name in after if name not in before)
        removed = tuple(name for name in decode_warnings(prev_flags) if name not in after)
        advice = "; ".join(WARNING_ADVICE.get(name, name) for name in added) or "warning cleared"
        return WheelWarning(
            game=s.game, time=time, warnings=after, advice=advice, flags=s.flags, added=added, removed=removed
        )

    @staticmethod
    def _state_event(s: Status, time: datetime) -> list[LinkEvent]:
        if s.state in (1, 2):
            return [WheelStarted(game=s.game, time=time, state=s.state)]
        if s.state == 3:
            return [WheelLaunched(game=s.game, time=time)]
        if s.state == 4:
            return [WheelNoMoreBets(game=s.game, time=time)]
        if s.state == 6:
            return [WheelClosed(game=s.game, time=time)]
        if s.state == 7:
            return [WheelBallNotDetected(game=s.game, time=time, reason="state-7")]
        return []

    def _handling_rules(self, s: Status, time: datetime) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        since = self._state_since or time
        scale = self.time_scale
        if s.state == 3 and s.flags & 2 and not self._miss_spin_done:
            self._miss_spin_done = True
            events.append(WheelMissSpin(game=s.game, time=time))
        if (
            s.state == 3
            and s.flags & 8
            and not self._launch_failed_done
            and time - since > LAUNCH_GRACE / scale
        ):
            self._launch_failed_done = True
            seconds = Decimal((time - since).total_seconds() * scale).quantize(Decimal("0.1"))
            events.append(WheelLaunchFailed(game=s.game, time=time, seconds=str(seconds)))
        if s.state == 4 and s.flags & 1:
            if self._no_ball_since is None:
                self._no_ball_since = time
            elif not self._no_ball_done and time - self._no_ball_since >= NO_BALL_GRACE / scale:
                self._no_ball_done = True
                events.append(WheelBallNotDetected(game=s.game, time=time, reason="no-ball-flag"))
        else:
            self._no_ball_since = None
        return events
