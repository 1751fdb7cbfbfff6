"""A virtual Cammegh SS2 wheel: the protocol, the state cycle and its faults, without hardware.

It plays like the real captures: power-up state 1, then 2 (bets, rotor slows to the firing
point, launch, rotor reverses when mode bit 1 is set), 3 (ball in rim), 4 (no more bets), the
bare winning-number line and 5 (result), then the next game in state 2 with the counter up by
one (wrapping 256 -> 1). A status line goes out every 500 ms (mode bit 128) and on every state
change. Host commands are answered as the guide and the captures show (`*P OK`, `*P NO`,
`*o BUSY`, `*u OK`, `*T s 14.0 17.5`, `*F BUSY`, …). `speed` divides every duration.

Two ways to play (`mode`, the SS2's `*o` sum):
- commanded (`MODE_COMMANDED` 1159, user start: what `open_wheel("sim")` and `make run` use): each
  game waits in state 2 until the host sends `*u 1` / `*u 3` (or `*K`), so the table decides when
  the ball is launched (hardware.table_bridge.WheelDriver);
- free-running (`MODE_FREE` 1157, arcade: `sim:free`): the wheel plays game after game on its own
  39 s cycle (12 s of state 2), whatever the table does.

Results come from the OS CSPRNG (`secrets`) unless a seed is given (tests only).

Faults (`FaultPlan.parse("miss@2,launch,noball,fault,silence=4,torn=0.05")`):
- `torn[=P]`: every line loses a random slice of bytes with probability P (default 0.1);
- `launch`: flag 8 while retrying the launch and for 6 s into state 3 (a failed launch);
- `miss`: state 3 with flag 2 (miss-spin) until the host sends `*R`, then a new launch;
- `noball`: flag 1 for 8 s of state 4;
- `fault`: flag 4 in state 4, `*F 5` lines if mode bit 256, then power-down to state 6 (flag 4
  kept) until the host sends `*P 1`;
- `silence[=S]`: nothing at all on the line for S real seconds (default 5; not scaled by speed);
- `stuck`: the rotor does not reverse in that game (mode bit 1 set, or the host's `*u` asked it to);
- `drift`: the rotor runs 8 rpm above its `*T s` range in that game;
- `clock[=S]`: the wheel's clock (`*d g`) is S seconds ahead of the PC's (default 300), throughout;
- `gain[=S]`: the wheel's clock gains S seconds (default 30) with every game it starts: a clock that
  drifts from the PC's during the session (seen by the table's re-reads, `wheel.clock`), throughout;
- `slow[=S]`: every game waits S seconds more before its launch (default 60, scaled by speed): a slow
  game rate, throughout.
Without `@N` the faults go to games 2, 3, 4, … in the order given; `torn`, `clock`, `gain` and `slow`
apply throughout.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time as _time
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from engine.errors import DrrError
from hardware.events import pocket_label
from hardware.protocol import LineFramer
from hardware.protocol.ss2_log import PAGE_BYTES, POCKETS, LogEntry, decode_byte, encode_byte, encode_page

# stuck: the rotor does not reverse in that game (mode bit 1 set); drift: the rotor runs 8 rpm above
# its `*T s` range in that game (issue 26's physics watch).
FAULT_KINDS = (
    "torn", "launch", "miss", "noball", "fault", "silence", "stuck", "drift", "clock", "gain", "slow",
)  # fmt: skip
THROUGHOUT = ("torn", "clock", "gain", "slow")  # not one game's: the whole session's
DRIFT_TENTHS = 80  # above the alarm band (12.5-20.5 rpm) whatever speed of `*T s` the game drew
STATUS_PERIOD = 0.5  # s, mode bit 128
MODE_REVERSE, MODE_USER_START, MODE_NO_NUMBER_LINE, MODE_AUTO_STATUS, MODE_F_LINES = 1, 2, 16, 128, 256
MODE_FREE = 1157  # arcade: plays continuously (guide: the factory default)
MODE_COMMANDED = 1159  # non-arcade, user start: each game waits for the host's *u

# Phase lengths in seconds at speed 1, close to the real captures (~45 s a game).
T_POWER_UP, T_BETS, T_SLOW, T_RETRY, T_SPIN_UP = 4.0, 12.0, 3.0, 2.0, 2.0
T_RIM, T_NO_MORE_BETS, T_RESULT, T_SELF_TEST = 4.0, 12.0, 6.0, 3.0
# Fault phases outlast the guide's grace periods (3 s, 5 s) by a wide margin, so a loaded
# machine running the wheel 25x faster still shows them as faults, not as noise.
T_LAUNCH_FLAG, T_NO_BALL, T_FAULT, T_MISS_WAIT = 6.0, 8.0, 2.0, 15.0
# The wheel's log is finite, as a real wheel's memory is: a ring of LOG_PAGES pages of PAGE_BYTES
# entries; when the last page is full the oldest page is dropped whole and the pages count from 0
# again (inferred: the guide gives neither the capacity nor what a full log does). 64 pages hold
# 16,384 games, about 11 days of a wheel at 60 games an hour, so a shift's close (and a 10,000-round
# soak's) still finds every game of the session in it.
LOG_PAGES = 64
# The last games played, (game counter, number), for tests that hold the link's events against what
# the wheel played: one counter cycle, so a run until stopped does not grow by one pair a game.
HISTORY_KEPT = 256


@dataclass
class FaultPlan:
    """Which faults happen in which game (counted from 1 by this virtual wheel)."""

    torn: float = 0.0
    silence_seconds: float = 5.0
    clock_ahead: float = 0.0  # s the wheel's clock is ahead of the PC's
    clock_gain: float = 0.0  # s the wheel's clock gains with every game started
    slow_seconds: float = 0.0  # s more before every launch
    games: dict[int, set[str]] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> FaultPlan:
        plan = cls()
        next_game = 2
        for item in filter(None, (part.strip() for part in text.split(","))):
            kind, _, where = item.partition("@")
            kind, _, value = kind.partition("=")
            if kind not in FAULT_KINDS:
                raise DrrError(f"unknown fault {kind!r}; known: {', '.join(FAULT_KINDS)}", 2)
            try:
                number = float(value) if value else None
                game = int(where) if where else None
            except ValueError:
                raise DrrError(f"fault {item!r}: expected KIND[=NUMBER][@GAME]", 2) from None
            if kind == "torn":
                plan.torn = 0.1 if number is None else number
                if not 0 <= plan.torn <= 1:
                    raise DrrError(f"fault {item!r}: the tear probability must be 0..1", 2)
                continue
            if kind == "clock":
                plan.clock_ahead = 300.0 if number is None else number
                continue
            if kind == "gain":
                plan.clock_gain = 30.0 if number is None else number
                continue
            if kind == "slow":
                plan.slow_seconds = 60.0 if number is None else number
                if not plan.slow_seconds >= 0:
                    raise DrrError(f"fault {item!r}: the extra seconds must be 0 or more", 2)
                continue
            if kind == "silence" and number is not None:
                plan.silence_seconds = number
            if game is None:
                game, next_game = next_game, next_game + 1
            plan.games.setdefault(game, set()).add(kind)
        return plan

    def for_game(self, index: int) -> set[str]:
        return self.games.get(index, set())


@dataclass
class _Settings:
    values: dict[str, str] = field(
        default_factory=lambda: {
            "d": "15", "c": "20000", "p": "50", "q": "800", "k": "1900", "i": "10", "r": "28000 32000",
            "s": "14.0 17.5", "t": "4000", "n": "2920", "m": "1.5", "h": "60", "z": "37", "g": "0",
        }
    )  # fmt: skip


class VirtualWheel:
    """An in-process SS2 wheel. Read `output()`; feed host bytes to `receive()`."""

    def __init__(
        self,
        *,
        speed: float = 1.0,
        faults: FaultPlan | None = None,
        seed: int | None = None,
        mode: int = MODE_FREE,
        start_game: int = 1,
        clock: Callable[[], float] = _time.time,
        log_pages: int = LOG_PAGES,
    ) -> None:
        if not speed > 0:
            raise DrrError("the virtual wheel's speed must be > 0", 2)
        if log_pages < 1:
            raise DrrError("the virtual wheel's log needs at least one page", 2)
        self.speed = speed
        self.clock = clock  # the wheel's own clock (`*d g`), seconds since the epoch
        self.faults = faults or FaultPlan()
        self.mode = mode
        self._seeded = seed is not None
        self._rng = random.Random(seed)  # timing, rotor speeds, tears; results only when seeded
        self._settings = _Settings()
        self.state = 6
        self.game = start_game
        self.win: int | None = None
        self.flags = 0
        self.speed_tenths = 0
        self.clockwise = True
        self.status_on = True
        self.results_played = 0
        self.games_started = 0
        self.history: deque[tuple[int, int]] = deque(maxlen=HISTORY_KEPT)
        # The wheel's own record (guide § 6): every result and misfire in order, as the page bytes it
        # gives (one byte an entry), at most log_pages pages; counted per pocket in wins/misfires.
        self.log_pages = log_pages
        self._log = bytearray()
        self.wins = [0] * POCKETS
        self.misfires = [0] * POCKETS
        self._out: asyncio.Queue[str] = asyncio.Queue()  # replies queue up even before output() runs
        self._framer = LineFramer()
        self._play_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # each one leaves the set when it ends
        self._start = asyncio.Event()
        self._void_ack = asyncio.Event()
        self._waiting_for_start = False
        self._void_pending = False
        self._faulted = False
        self._silent_until = 0.0
        self._start_direction: bool | None = None

    # -- wiring --------------------------------------------------------------------------------

    async def output(self) -> AsyncIterator[str]:
        """The bytes the wheel sends, as text chunks with their CR LF (possibly torn)."""
        self._spawn(self._ticker(), "virtual-wheel-status")
        self._power_on()
        try:
            while True:
                yield await self._out.get()
        finally:
            self.stop()

    async def lines(self) -> AsyncIterator[str]:
        """The wheel's lines without terminators (for printing); torn lines stay torn."""
        framer = LineFramer()
        async for chunk in self.output():
            for line in framer.feed(chunk.encode("latin-1")):
                yield line

    def _spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def log(self) -> list[LogEntry]:
        """The log's entries in order, oldest first (what its pages hold)."""
        return [
            entry for entry in map(decode_byte, self._log.decode("latin-1")) if isinstance(entry, LogEntry)
        ]

    def _record(self, entry: LogEntry) -> None:
        if len(self._log) >= self.log_pages * PAGE_BYTES:
            del self._log[:PAGE_BYTES]  # full: the oldest page goes
        self._log += encode_byte(entry).encode("latin-1")

    def stop(self) -> None:
        for task in [*self._tasks, self._play_task]:
            if task is not None:
                task.cancel()
        self._tasks.clear()
        self._play_task = None

    def receive(self, data: bytes) -> None:
        """Bytes from the host; each complete command line is answered."""
        for line in self._framer.feed(data):
            self.handle_command(line)

    # -- output --------------------------------------------------------------------------------

    def _silent(self) -> bool:
        return _time.monotonic() < self._silent_until

    def _emit(self, line: str) -> None:
        if self._silent():
            return
        wire = line + "\r\n"
        if self.faults.torn and self._rng.random() < self.faults.torn and len(wire) > 2:
            start = self._rng.randrange(0, len(wire) - 1)
            end = self._rng.randrange(start + 1, min(len(wire), start + 6) + 1)
            wire = wire[:start] + wire[end:]
        self._out.put_nowait(wire)

    def status_line(self) -> str:
        win = "  " if self.win is None else f"{pocket_label(self.win):>2}"
        direction = "0" if self.clockwise else "1"
        return f"*X;{self.state};{self.game:03d};{win};{self.flags:X};{self.speed_tenths:03d};{direction}"

    def _send_status(self) -> None:
        if self.status_on and self.mode & MODE_AUTO_STATUS:
            self._emit(self.status_line())

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(STATUS_PERIOD / self.speed)
            self._send_status()

    def _set_state(self, state: int) -> None:
        self.state = state
        self._send_status()

    # -- timing helpers ------------------------------------------------------------------------

    async def _sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds / self.speed)

    async def _ramp(self, target: int, seconds: float) -> None:
        steps = max(1, int(seconds / 0.25))
        start = self.speed_tenths
        for step in range(1, steps + 1):
            await self._sleep(seconds / steps)
            self.speed_tenths = start + (target - start) * step // steps

    def _target_speed(self) -> int:
        low, high = (float(x) for x in self._settings.values["s"].split()[:2])
        return self._rng.randint(int(low * 10), int(high * 10))

    def _draw(self) -> int:
        pockets = 37
        return self._rng.randrange(pockets) if self._seeded else secrets.randbelow(pockets)

    # -- the game cycle ------------------------------------------------------------------------

    def _power_on(self) -> None:
        if self._play_task is not None and not self._play_task.done():
            return
        self._faulted = False
        self.flags = 0
        self._play_task = asyncio.create_task(self._play(), name="virtual-wheel-play")

    def _power_off(self) -> None:
        if self._play_task is not None:
            self._play_task.cancel()
            self._play_task = None
        self._waiting_for_start = False
        self._spawn(self._wind_down(), "virtual-wheel-power-down")

    async def _wind_down(self) -> None:
        await self._ramp(0, T_SLOW)
        self._set_state(6)
        self.clockwise = True

    async def _play(self) -> None:
        self._set_state(1)
        await self._ramp(self._target_speed(), T_POWER_UP)
        while True:
            # The counter moves at every game start, also after a game that was cut short (the
            # real capture shows 178 in state 3, power off, then 179 in state 2).
            if self.games_started:
                self.game = self.game % 256 + 1
            self.flags = 0
            if not await self._game():
                return

    async def _game(self) -> bool:
        """One game from state 2 to the end of state 5; False if it ended in a power-down."""
        self.games_started += 1
        faults = self.faults.for_game(self.games_started)
        if "silence" in faults:
            self._silent_until = _time.monotonic() + self.faults.silence_seconds
        self._set_state(2)
        if self.mode & MODE_USER_START:
            self._start.clear()
            self._waiting_for_start = True
            await self._start.wait()
            self._waiting_for_start = False
        else:
            await self._sleep(T_BETS)
        if self.faults.slow_seconds:
            await self._sleep(self.faults.slow_seconds)
        await self._launch(faults)
        if "miss" in faults:
            await self._sleep(1.0)
            self.flags |= 2
            misfire = self._rng.randrange(POCKETS)  # where the misfired ball came to rest
            self._record(LogEntry("misfire", misfire))
            self.misfires[misfire] += 1
            self._void_pending = True
            self._void_ack.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._void_ack.wait(), T_MISS_WAIT / self.speed)
            self._void_pending = False
            self.flags &= ~2
            self._set_state(2)
            await self._launch(set(), relaunch=True)
        await self._sleep(T_RIM)
        self._set_state(4)
        if "noball" in faults:
            self.flags |= 1
            self._send_status()
            await self._sleep(T_NO_BALL)
            self.flags &= ~1
        if "fault" in faults:
            self.flags |= 4
            self._send_status()
            await self._sleep(T_FAULT)
            if self.mode & MODE_F_LINES:
                self._emit("*F 5")
            self._faulted = True
            await self._ramp(0, T_SLOW)
            self._set_state(6)
            return False
        await self._sleep(max(0.0, T_NO_MORE_BETS - (T_NO_BALL if "noball" in faults else 0.0)))
        number = self._draw()
        if not self.mode & MODE_NO_NUMBER_LINE:
            self._emit(f"{pocket_label(number):>2}")
        self.win = number
        self.results_played += 1
        self.history.append((self.game, number))
        self._record(LogEntry("result", number))
        if number < POCKETS:
            self.wins[number] += 1
        self._set_state(5)
        await self._sleep(T_RESULT)
        return True

    async def _launch(self, faults: set[str], *, relaunch: bool = False) -> None:
        await self._ramp(0, T_SLOW)
        if "launch" in faults:
            self.flags |= 8
            self._send_status()
            await self._sleep(T_RETRY)
        # A relaunch after a misfire is the same game, launched the way it was (guide § 5: the wheel
        # stays in state 2 until it launches); a stuck reversal turns the rotor as before, whatever
        # the host asked.
        if relaunch or "stuck" in faults:
            self._start_direction = None
        elif self._start_direction is not None:
            self.clockwise = self._start_direction
            self._start_direction = None
        elif self.mode & MODE_REVERSE:
            self.clockwise = not self.clockwise
        await self._ramp(self._target_speed() + (DRIFT_TENTHS if "drift" in faults else 0), T_SPIN_UP)
        self._set_state(3)
        if "launch" in faults:
            await self._sleep(T_LAUNCH_FLAG)
            self.flags &= ~8
            self._send_status()

    # -- host commands -------------------------------------------------------------------------

    def handle_command(self, line: str) -> None:
        text = line.strip()
        if len(text) < 2 or not text.startswith("*"):
            return
        key, args = text[1], text[2:].split()
        reply = self._answer(key, args)
        if reply is not None:
            self._emit(reply)

    def _answer(self, key: str, args: list[str]) -> str | None:
        if key == "X":
            return self.status_line()
        if key == "P":
            return self._power_command(args)
        if key == "u":
            if self._waiting_for_start and args in (["1"], ["3"]):
                self._start_direction = args == ["1"]
                self._start.set()
                return "*u OK"
            return "*u NO"
        if key == "o":
            if not args:
                return f"*o {self.mode}"
            if self.state != 6:
                return "*o BUSY"
            if len(args) != 1 or not args[0].isdigit():
                return "*o NO"
            self.mode = int(args[0])
            return f"*o {self.mode}"
        if key == "O":
            return f"*O {self.state} 1 {self._settings.values['h']} {self.mode}"
        if key == "R":
            if self._void_pending:
                self._void_ack.set()
            return "*R OK"
        if key == "F":
            if self.state != 6:
                return "*F BUSY"
            self._spawn(self._self_test(), "virtual-wheel-self-test")
            return None
        if key == "T":
            return self._settings_command(args)
        if key == "w":
            return "*w 31.57 54.2" if self.state in (5, 6) else "*w BUSY"
        if key == "K":  # guide: the maker code when idle, otherwise it starts a game
            if self.state == 6:
                return "*K CAM"
            if self._waiting_for_start:
                self._start.set()
            return "*K OK"
        if key == "s":
            return self._log_command(args)
        if key in ("W", "M"):
            if self.state not in (5, 6):
                return f"*{key} BUSY"
            counts = self.wins if key == "W" else self.misfires
            self._emit(f"*{key} {sum(counts)}")  # the total, then the list (pocket 0 first)
            return f"*{key} " + " ".join(str(c) for c in counts)
        if key == "d" and args == ["g"]:  # the wheel's clock keeps local time (set by hand at the wheel)
            ahead = self.faults.clock_ahead + self.faults.clock_gain * self.games_started
            now = _time.localtime(self.clock() + ahead)
            return _time.strftime("*d g %H:%M:%S - %d/%m/%y", now)
        if key == "S":
            return "*S 252"
        if key == "V":
            return "*V SS2 virtual wheel 2.52"
        if key == "v":
            return "*v FPGA 1.07 COPRO 2.03"
        if key == "q" and args in (["0"], ["1"]):
            self.status_on = args == ["1"]
            return "*q OK"
        return f"*{key} NO"

    def _log_command(self, args: list[str]) -> str:
        """`*s t`, `*s r <page>` (state 6 only) and `*s e`, as guide § 6 gives them. Pages count
        from 0 (inferred: the guide does not say)."""
        pages = (len(self._log) + PAGE_BYTES - 1) // PAGE_BYTES
        if args == ["t"]:
            return f"*s t {pages}"
        if args == ["e"]:
            self._log.clear()
            return "*s e ERASED WINNING NUMBER LOG"
        if len(args) == 2 and args[0] == "r" and args[1].isdigit():
            page = int(args[1])
            if self.state != 6 or page >= max(pages, 1):
                return "*s NO"
            data = self._log[page * PAGE_BYTES : (page + 1) * PAGE_BYTES].decode("latin-1")
            return encode_page(page, [e for e in map(decode_byte, data) if isinstance(e, LogEntry)])
        return "*s NO"

    def _power_command(self, args: list[str]) -> str:
        if args == ["0"]:
            if self.state != 6:
                self._power_off()
            return "*P OK"
        if args == ["1"]:
            if self.state != 6:
                return "*P NO"
            self._power_on()
            return "*P OK"
        return "*P NO"

    async def _self_test(self) -> None:
        await self._sleep(T_SELF_TEST)
        self._emit("*F 5" if self._faulted else "*F 0")

    def _settings_command(self, args: list[str]) -> str:
        if not args or len(args[0]) != 1 or not args[0].isalpha():
            return "*T NO"
        letter = args[0]
        if letter == "f":
            return "*T OK"
        if letter.isupper():
            value = self._settings.values.get(letter.lower())
            return f"*T {letter.lower()} {value}" if value is not None else "*T NO"
        if letter not in self._settings.values or len(args) < 2:
            return "*T NO"
        self._settings.values[letter] = " ".join(args[1:])
        return f"*T m {args[1]}" if letter == "m" else "*T OK"


async def serve_on_pty(wheel: VirtualWheel, *, link: str | None = None, games: int = 0) -> int:
    """`drr wheel simulate --pty`: the wheel on a pseudo-terminal until interrupted (or N games)."""
    from hardware.pty_server import PtyServer

    server = PtyServer(on_input=wheel.receive, link=link)
    server.start()
    print(f"virtual SS2 wheel on {server.path}" + (f" (also {link})" if link else ""), flush=True)
    try:
        async for chunk in wheel.output():
            server.write(chunk.encode("latin-1"))
            if games and wheel.results_played >= games and wheel.state != 5:
                return 0
    finally:
        server.close()
    return 0
