"""Installation settings: one TOML file per table PC or workstation, validated key by key.

Where the file is (first found wins, files are never merged):

1. the file named by the environment variable ``DRR_CONFIG`` (it must exist);
2. ``settings.toml`` in the user's config directory (platformdirs, app "diamond-rush-roulette"),
   e.g. ``~/.config/diamond-rush-roulette/settings.toml`` or
   ``%LOCALAPPDATA%\\diamond-rush-roulette\\settings.toml``;
3. ``settings.toml`` in the machine-wide config directory (e.g. ``/etc/xdg/diamond-rush-roulette/``),
   where a casino's IT puts one file for every user of the PC.

With no file the embedded defaults below apply, so a fresh install starts as a demo table on the
virtual wheel. Every key is optional; an unknown key or a value of the wrong type is refused with a
message naming the key and the file (`drr config check` lists every problem at once).

Precedence: command line > settings file > embedded default. The command-line half lives in
``gui/cli.py``: a command declares the common options (``--db``, ``--table``, ``--wheel``,
``--rules``, ``--station``, ``--protocol`` and the serial options ``--baudrate`` … ``--xonxoff``)
with ``default=None`` through `add_settings_options` (or declares them itself and calls
`mark_settings_options`); after parsing, the dispatcher fills every marked option still None from
these settings (`fill_from_settings`), so a handler reads ``args.db`` etc. and gets the effective
value, with no fallback code of its own. ``None`` that survives the fill means "the layer's own
embedded default" (for ``--db``: the store's SQLite journal in the user data directory; for
``--rules``: the shipped Rules Submission). An option where None means "every table" (a filter)
is simply not marked.

This module is engine-layer: stdlib and platformdirs only (no Qt, no serial).
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from engine.errors import DrrError
from engine.stations import DEFAULT as DEFAULT_STATION
from engine.stations import STATIONS  # the station registry (engine.stations): the one list
from engine.table_ids import TABLE_ID

APP_NAME = "diamond-rush-roulette"
SETTINGS_FILE_NAME = "settings.toml"
CONFIG_ENV = "DRR_CONFIG"
LOG_LEVEL_ENV = "DRR_LOG_LEVEL"

PARITIES = ("N", "E", "O", "M", "S")  # pyserial's PARITY_* letters
BYTESIZES = (5, 6, 7, 8)
STOPBITS = (1, 1.5, 2)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DB_SCHEMES = ("sqlite", "sqlite+pysqlite", "postgresql", "postgres", "postgresql+psycopg")
_WHEEL_SPEC = re.compile(r"^(sim(:.+)?|serial:[^@]+(@.+)?|replay:.+)$")

# Origins of an effective value, as `drr config show` prints them.
DEFAULT, FILE, ENVIRONMENT, COMMAND_LINE = "default", "file", "environment", "command line"


class ConfigError(DrrError):
    """A settings file that cannot be read or holds bad keys; carries every problem."""

    def __init__(self, message: str, problems: list[str] | None = None, exit_code: int | None = None) -> None:
        super().__init__(message, exit_code)
        self.problems = problems or [message]


@dataclass(frozen=True)
class SerialSettings:
    """How the wheel's serial port is opened (pyserial's names). The SS2 guide says 9600 8N1."""

    baudrate: int = 9600
    bytesize: int = 8
    parity: str = "N"
    stopbits: float = 1
    rtscts: bool = False  # the real capture's operator ran RTS/CTS; the guide says no flow control
    xonxoff: bool = False


@dataclass(frozen=True)
class Settings:
    """The effective settings of this installation; `origins` says where each key's value came from."""

    table_id: str = "1"
    station: str = DEFAULT_STATION
    wheel: str = "sim"
    wheel_protocol: str = "ss2"
    wheel_silence_seconds: float = 3.0  # the SS2 sends status every 0.5 s: 3 s is six missed lines
    wheel_drive: str = (
        "commanded"  # the table starts each spin (SS2 user start); "free": the wheel's own cycle
    )
    wheel_reconcile_at_close: bool = True  # the wheel's own log held against the journal at close
    wheel_clock_check_minutes: int = 60  # the wheel's clock read again this often (0: at connect only)
    # The wheel's physics alarms (engine.floor.wheel_alarms; the real captures set the rpm band).
    alarm_alternate: bool = True
    alarm_rpm_low: Decimal = Decimal("12.5")
    alarm_rpm_high: Decimal = Decimal("20.5")
    alarm_misfire_percent: int = 10
    alarm_misfire_window: int = 20
    alarm_games_per_hour: int = 30
    alarm_clock_seconds: int = 60
    alarm_ball_not_detected: int = 1
    betting_seconds: float = 25.0  # as engine.table.wheel_drive.DEFAULT_BETTING_S
    auto_confirm_seconds: float = 5.0  # as engine.table.wheel_drive.DEFAULT_AUTO_CONFIRM_S; 0: by hand only
    serial: SerialSettings = field(default_factory=SerialSettings)
    database_url: str | None = None  # None: the store's SQLite journal in the user data directory
    rules_path: Path | None = None  # None: the shipped resources/rules/default.toml
    large_payout_threshold: Decimal = Decimal("10000.00")  # as engine.table.service's default
    payout_alert_threshold: Decimal = Decimal("5000.00")  # as engine.floor.alerts' default
    silent_table_minutes: int = 10  # as engine.floor.alerts' default
    bias_alert_p_value: float = 0.001
    # The sequential bias tests' thresholds in nats (engine.sequential.Thresholds' calibrated defaults).
    sequential_pocket: float = 16.0
    sequential_sector: float = 17.9
    sequential_direction: float = 16.5
    sequential_runs: float = 14.4
    log_dir: Path | None = None  # None: platformdirs' user log directory
    capture_dir: Path | None = None  # None: a `captures` folder inside the log directory
    log_level: str = "INFO"
    log_max_bytes: int = 5 * 1024 * 1024
    log_backups: int = 10
    # The croupier's chip values; those below the table minimum (or above every maximum) are not offered.
    chip_values: tuple[Decimal, ...] = tuple(Decimal(v) for v in ("1", "5", "25", "100", "500", "1000"))
    # The software digest (engine.software_id, `drr audit software`) a pit boss or admin approved for
    # this table (`drr pitboss approve-software`); a table running another may not play (engine.table.gate).
    approved_digest: str | None = None
    # the fewest digits of a pit boss's or admin's PIN (at least 6; engine.store.users.check_pin)
    supervisor_pin_digits: int = 6
    source: Path | None = None  # the settings file read, None when only defaults apply
    origins: Mapping[str, str] = field(default_factory=dict)

    @property
    def wheel_alarms(self) -> Any:
        """The physics alarms' thresholds (an engine.floor.wheel_alarms.WatchSettings)."""
        from fractions import Fraction

        from engine.floor.wheel_alarms import WatchSettings

        return WatchSettings(
            rpm_low=self.alarm_rpm_low,
            rpm_high=self.alarm_rpm_high,
            alternate=self.alarm_alternate,
            misfire_rate=Fraction(self.alarm_misfire_percent, 100),
            window=self.alarm_misfire_window,
            games_per_hour=self.alarm_games_per_hour,
            clock_drift_seconds=self.alarm_clock_seconds,
            ball_not_detected=self.alarm_ball_not_detected,
        )

    @property
    def bias_thresholds(self) -> Any:
        """The sequential bias tests' thresholds (an engine.sequential.Thresholds): the one reading of
        `thresholds.sequential_*` that every path uses (the table service of the croupier station and
        of `drr table run`, `drr history import`, `drr stats`, the surveillance chart), through
        `bias_thresholds` below."""
        from engine.sequential import Thresholds

        return Thresholds(
            self.sequential_pocket, self.sequential_sector, self.sequential_direction, self.sequential_runs
        )

    @property
    def wheel_link_spec(self) -> str:
        """The wheel spec for `hardware.wheel_source.open_wheel`, with the serial settings appended.

        ``serial:/dev/ttyS0`` becomes ``serial:/dev/ttyS0@9600,8N1`` (plus ``,rtscts``/``,xonxoff``);
        a spec that already carries its own ``@…`` line settings, and sim/replay, are kept as written.
        """
        if not self.wheel.startswith("serial:") or "@" in self.wheel:
            return self.wheel
        s = self.serial
        stop = "1.5" if s.stopbits == 1.5 else str(int(s.stopbits))
        words = [str(s.baudrate), f"{s.bytesize}{s.parity}{stop}"]
        words += [flag for flag, on in (("rtscts", s.rtscts), ("xonxoff", s.xonxoff)) if on]
        return f"{self.wheel}@{','.join(words)}"

    @property
    def effective_log_dir(self) -> Path:
        if self.log_dir is not None:
            return self.log_dir
        from platformdirs import user_log_dir

        return Path(user_log_dir(APP_NAME))

    @property
    def effective_capture_dir(self) -> Path:
        """Where the wheel link writes its raw serial capture files: beside the logs by default."""
        return self.capture_dir if self.capture_dir is not None else self.effective_log_dir / "captures"

    def origin(self, key: str) -> str:
        return self.origins.get(key, DEFAULT)

    def value(self, key: str) -> Any:
        """The effective value of a dotted key such as ``wheel.serial.baudrate``."""
        return _get(self, KEYS[key].attr)


# --- the keys -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """One settings key: its dotted TOML name, where it lands in `Settings`, and how it is checked."""

    name: str  # dotted TOML key, e.g. "wheel.serial.baudrate"
    attr: str  # dotted attribute path in Settings, e.g. "serial.baudrate"
    convert: Callable[[Any], Any]  # TOML value -> typed value; raises ValueError with a reason
    help: str
    cli: tuple[str, ...] = ()  # argparse dests that override this key
    option_help: str = ""  # the command-line option's help, when it differs from the file's


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"must be a string, not {_show(value)}")
    return value


def _nonempty(value: Any) -> str:
    text = _text(value).strip()
    if not text:
        raise ValueError("must not be empty")
    return text


def _table_id(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    text = _nonempty(value)
    # The store's own rule (engine.table_ids): the id names the table's SQLite file.
    if not TABLE_ID.fullmatch(text):
        raise ValueError(
            f"must be 1-64 letters, digits, '.', '_' or '-' (starting with a letter or digit), not {text!r}"
        )
    return text


def _choice(choices: Iterable[str]) -> Callable[[Any], str]:
    allowed = tuple(choices)

    def convert(value: Any) -> str:
        text = _text(value)
        if text not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)}, not {text!r}")
        return text

    return convert


def _wheel(value: Any) -> str:
    text = _nonempty(value)
    if not _WHEEL_SPEC.match(text):
        raise ValueError(f"must be sim, serial:PORT or replay:FILE, not {text!r}")
    return text


def _integer(low: int, high: int | None = None) -> Callable[[Any], int]:
    def convert(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be an integer, not {_show(value)}")
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise ValueError(f"must be {bound}, not {value}")
        return value

    return convert


def _seconds(low: float) -> Callable[[Any], float]:
    def convert(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"must be a number of seconds, not {_show(value)}")
        if not low <= value <= 600:
            raise ValueError(f"must be between {low:g} and 600 seconds, not {value}")
        return float(value)

    return convert


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, not {_show(value)}")
    return value


def _upper_choice(choices: Iterable[str]) -> Callable[[Any], str]:
    """`_choice` of upper-case names, written in either case ("n" for "N", "debug" for "DEBUG")."""
    choose = _choice(choices)
    return lambda value: choose(value.upper() if isinstance(value, str) else value)


_parity = _upper_choice(PARITIES)


def _stopbits(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value not in STOPBITS:
        raise ValueError(f"must be 1, 1.5 or 2, not {_show(value)}")
    return float(value) if value == 1.5 else int(value)


_MAX_MONEY = Decimal(1_000_000_000)


def _money(value: Any) -> Decimal:
    # Amounts are written as strings ("10000.00") so they stay exact; a TOML integer is exact too.
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f'must be an amount written as a string like "10000.00", not {_show(value)}')
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"must be an amount, not {value!r}") from None
    if not amount.is_finite() or amount <= 0:
        raise ValueError(f"must be a positive amount, not {value!r}")
    if amount > _MAX_MONEY:
        # "1e400" is finite, yet as the approval threshold it would switch approvals off.
        raise ValueError(f"must be a positive amount up to {_MAX_MONEY:,}, not {value!r}")
    return amount


def _chips(value: Any) -> tuple[Decimal, ...]:
    # One string of amounts ("2.5 10 50 100"), or a TOML array of amounts: exact, rising, 1 to 12 of them.
    items = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not items:
        raise ValueError(f'must be chip amounts such as "2.5 10 50 100 500", not {_show(value)}')
    chips = tuple(_money(v) for v in items)
    if len(chips) > 12:
        raise ValueError(f"at most 12 chip values (F1-F12), not {len(chips)}")
    if list(chips) != sorted(set(chips)):
        raise ValueError("chip values go from the smallest to the largest, each once")
    return chips


def _rpm(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f'must be a rotor speed in rpm like "12.5", not {_show(value)}')
    try:
        rpm = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"must be a rotor speed in rpm, not {value!r}") from None
    if not rpm.is_finite() or not 0 <= rpm <= 99:
        raise ValueError(f"must be a rotor speed between 0 and 99 rpm, not {value!r}")
    return rpm


def _p_value(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"must be a probability between 0 and 1, not {_show(value)}")
    try:
        p = float(value)
    except ValueError:
        raise ValueError(f"must be a probability between 0 and 1, not {value!r}") from None
    if not 0 < p < 1:
        raise ValueError(f"must be strictly between 0 and 1, not {value!r}")
    return p


def _nats(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number of nats, not {_show(value)}")
    if not 2 <= value <= 100:
        raise ValueError(f"must be between 2 and 100 nats, not {value}")
    return float(value)


def _database_url(value: Any) -> str | None:
    text = _text(value).strip()
    if not text:
        return None  # "" in the file: the store's embedded default
    if "://" not in text:
        return text  # a plain file path: the store opens it as SQLite
    scheme = text.split("://", 1)[0].lower()
    if scheme not in DB_SCHEMES:
        raise ValueError(f"must be sqlite:///PATH, a file path or postgresql://…, not scheme {scheme!r}")
    return text


def _optional_path(value: Any) -> Path | None:
    text = _text(value).strip()
    if not text:
        return None
    return Path(os.path.expandvars(text)).expanduser()


def _digest(value: Any) -> str | None:
    text = _text(value).strip().lower()
    if not text:
        return None  # "": no digest approved (the first start of a new one raises an alert)
    if not re.fullmatch(r"[0-9a-f]{64}", text):
        raise ValueError(
            f"must be a sha256 digest (64 hex digits, as drr audit software prints), not {value!r}"
        )
    return text


_log_level = _upper_choice(LOG_LEVELS)

KEY_LIST: tuple[Key, ...] = (
    Key("table.id", "table_id", _table_id, 'this table\'s id in the journal, e.g. "4" or "T04"', ("table",)),
    Key(
        "table.chips",
        "chip_values",
        _chips,
        "the croupier's chip values (F1-F12), smallest first; none below the table minimum is offered",
    ),
    Key(
        "table.station",
        "station",
        _choice(STATIONS),
        "station started by plain `drr`: " + ", ".join(STATIONS),
        ("station",),
    ),
    Key(
        "table.betting_seconds",
        "betting_seconds",
        _seconds(5),
        "with a commanded wheel, seconds of betting from open bets until the table starts the spin",
    ),
    Key(
        "table.auto_confirm_seconds",
        "auto_confirm_seconds",
        _seconds(0),
        "a clean sensor result is confirmed this many seconds after it came unless the croupier "
        "disputes it; 0: only the croupier confirms",
    ),
    Key(
        "wheel.spec",
        "wheel",
        _wheel,
        "sim (virtual wheel), serial:PORT (e.g. serial:/dev/ttyS0, serial:COM3) or replay:FILE (a capture)",
        ("wheel",),
    ),
    Key("wheel.protocol", "wheel_protocol", _nonempty, "wheel protocol name (ss2, plain)", ("protocol",)),
    Key(
        "wheel.silence_seconds",
        "wheel_silence_seconds",
        _seconds(0.5),
        "seconds without a line from the wheel before the link counts as silent (sensor alert)",
    ),
    Key(
        "wheel.drive",
        "wheel_drive",
        _choice(("commanded", "free")),
        "commanded: the table starts each spin (SS2 user start, the virtual wheel's default); "
        "free: the wheel runs its own cycle and the table follows it",
    ),
    Key(
        "wheel.reconcile_at_close",
        "wheel_reconcile_at_close",
        _boolean,
        "at the table's close, power the wheel down, read its own result log and hold it against the "
        "journal (journaled as wheel.reconciled; a difference is a surveillance alert)",
    ),
    Key(
        "wheel.clock_check_minutes",
        "wheel_clock_check_minutes",
        _integer(0, 1440),
        "read the wheel's clock again this often (journaled as wheel.clock; the clock alarm sees a drift "
        "as it grows); 0: at connect and at each reconciliation only",
    ),
    Key(
        "wheel.serial.baudrate",
        "serial.baudrate",
        _integer(50, 4_000_000),
        "baud rate (SS2: 9600)",
        ("baudrate", "baud"),
    ),
    Key("wheel.serial.bytesize", "serial.bytesize", _integer(5, 8), "data bits: 5, 6, 7 or 8", ("bytesize",)),
    Key("wheel.serial.parity", "serial.parity", _parity, "N, E, O, M or S", ("parity",)),
    Key("wheel.serial.stopbits", "serial.stopbits", _stopbits, "1, 1.5 or 2", ("stopbits",)),
    Key("wheel.serial.rtscts", "serial.rtscts", _boolean, "hardware flow control RTS/CTS", ("rtscts",)),
    Key("wheel.serial.xonxoff", "serial.xonxoff", _boolean, "software flow control XON/XOFF", ("xonxoff",)),
    Key(
        "database.url",
        "database_url",
        _database_url,
        "SQLAlchemy URL; empty: the SQLite journal in the user data directory",
        ("db",),
        "store URL: sqlite:///PATH, a file path or postgresql://user@host/db "
        "(default: settings database.url, else the table's SQLite file in the user data directory)",
    ),
    Key(
        "rules.path",
        "rules_path",
        _optional_path,
        "Rules Submission TOML; empty: the shipped default",
        ("rules",),
        "Rules Submission TOML (default: settings rules.path, else the shipped one)",
    ),
    Key(
        "thresholds.large_payout",
        "large_payout_threshold",
        _money,
        "a wager paying this much or more needs a pit boss's approval before the round settles",
    ),
    Key(
        "thresholds.payout_alert",
        "payout_alert_threshold",
        _money,
        "surveillance alert for a round that pays this much or more in total",
    ),
    Key(
        "thresholds.silent_table_minutes",
        "silent_table_minutes",
        _integer(1, 24 * 60),
        "surveillance alert when a table with an unfinished round records nothing for this long",
    ),
    Key(
        "thresholds.bias_alert_p_value",
        "bias_alert_p_value",
        _p_value,
        "no longer raises an alert (the sequential tests do, issue 27); kept for older settings files",
    ),
    *(
        Key(
            f"thresholds.sequential_{kind}",
            f"sequential_{kind}",
            _nats,
            f"evidence (nats) at which a sequential {kind} bias test raises a bias alarm "
            "(docs/surveillance-guide.md, calibrated by bench/bias_figures.py)",
        )
        for kind in ("pocket", "sector", "direction", "runs")
    ),
    Key(
        "wheel_alarms.alternate_direction",
        "alarm_alternate",
        _boolean,
        "surveillance alert when the rotor turns the same way two games running (the wheel is set to "
        "reverse every game); false for a wheel set to turn one way",
    ),
    Key(
        "wheel_alarms.rpm_low",
        "alarm_rpm_low",
        _rpm,
        "surveillance alert when the rotor speed at a result is below this (rpm)",
    ),
    Key(
        "wheel_alarms.rpm_high",
        "alarm_rpm_high",
        _rpm,
        "surveillance alert when the rotor speed at a result is above this (rpm)",
    ),
    Key(
        "wheel_alarms.misfire_percent",
        "alarm_misfire_percent",
        _integer(0, 100),
        "surveillance alert when misfires and failed launches exceed this percentage of the last games",
    ),
    Key(
        "wheel_alarms.misfire_window",
        "alarm_misfire_window",
        _integer(1, 1000),
        "how many of the last games the misfire rate is taken over",
    ),
    Key(
        "wheel_alarms.games_per_hour",
        "alarm_games_per_hour",
        _integer(0, 100_000),
        "surveillance alert when the table, or a dealer, plays fewer games per hour than this; 0: off",
    ),
    Key(
        "wheel_alarms.clock_drift_seconds",
        "alarm_clock_seconds",
        _integer(1, 86400),
        "surveillance alert when the wheel's clock, read at connect, is further than this from the PC's",
    ),
    Key(
        "wheel_alarms.ball_not_detected",
        "alarm_ball_not_detected",
        _integer(0, 1000),
        "surveillance alert when the wheel finds no ball in this many of the last misfire_window games; "
        "0: off (the round itself is held and alerted whatever this says)",
    ),
    Key(
        "software.approved_digest",
        "approved_digest",
        _digest,
        "the software digest approved for this table (drr pitboss approve-software); a table running "
        "another refuses to play; empty: none approved",
    ),
    Key(
        "users.supervisor_pin_digits",
        "supervisor_pin_digits",
        _integer(6, 12),
        "the fewest digits of a pit boss's or admin's PIN, 6 to 12 (any PIN: 4 to 12); checked when a PIN "
        "is set and when a user is promoted",
    ),
    Key("paths.log_dir", "log_dir", _optional_path, "log folder; empty: the platform's user log directory"),
    Key(
        "paths.capture_dir",
        "capture_dir",
        _optional_path,
        "wheel serial capture folder; empty: `captures` inside the log folder",
    ),
    Key("logging.level", "log_level", _log_level, "DEBUG, INFO, WARNING, ERROR or CRITICAL", ("log_level",)),
    Key("logging.max_bytes", "log_max_bytes", _integer(64 * 1024), "size at which a log file rotates"),
    Key("logging.backups", "log_backups", _integer(1, 1000), "how many rotated log files are kept"),
)
KEYS: dict[str, Key] = {key.name: key for key in KEY_LIST}
TABLES: frozenset[str] = frozenset(
    ".".join(k.name.split(".")[:i]) for k in KEY_LIST for i in range(1, k.name.count(".") + 1)
)
# argparse dest -> settings key, for the dispatcher's fill-in.
CLI_KEYS: dict[str, str] = {dest: key.name for key in KEY_LIST for dest in key.cli}


# --- locating and loading -----------------------------------------------------------------------


def bias_thresholds(settings: Settings | None) -> Any:
    """The sequential bias thresholds of the installation's settings (`Settings.bias_thresholds`); a
    caller with none (a test, a tool) gets the embedded defaults, the same figures."""
    return (settings if settings is not None else Settings()).bias_thresholds


def user_settings_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME)) / SETTINGS_FILE_NAME


def site_settings_path() -> Path:
    from platformdirs import site_config_dir

    return Path(site_config_dir(APP_NAME)) / SETTINGS_FILE_NAME


def settings_path(environ: Mapping[str, str] | None = None) -> Path | None:
    """The settings file in use: $DRR_CONFIG, else the user's file, else the machine's, else None."""
    env = os.environ if environ is None else environ
    named = env.get(CONFIG_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    for candidate in (user_settings_path(), site_settings_path()):
        if candidate.is_file():
            return candidate
    return None


def load_settings(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """The effective settings from `path` (or the file `settings_path` finds) over the defaults.

    Raises ConfigError naming the file and every bad key. `DRR_LOG_LEVEL` in the environment
    overrides `logging.level`.
    """
    env = os.environ if environ is None else environ
    source = Path(path) if path is not None else settings_path(env)
    settings = Settings()
    if source is not None:
        values, problems = read_settings_file(source)
        if problems:
            raise ConfigError(f"{problems[0]} (see drr config check)", problems)
        settings = _apply(settings, values, FILE)
        settings = dataclasses.replace(settings, source=source)
    level = env.get(LOG_LEVEL_ENV, "").strip()
    if level:
        try:
            settings = _apply(settings, {"logging.level": _log_level(level)}, ENVIRONMENT)
        except ValueError as exc:
            raise ConfigError(f"{LOG_LEVEL_ENV}: {exc}") from None
    return settings


def read_settings_file(path: Path) -> tuple[dict[str, Any], list[str]]:
    """({dotted key: typed value}, problems): every problem names the file and the key; never raises."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, [f"{path}: no such settings file"]
    except OSError as exc:
        return {}, [f"{path}: cannot read: {exc.strerror or exc}"]
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return {}, [f"{path}: not UTF-8 text"]
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"{path}: not valid TOML: {exc}"]
    except RecursionError:
        return {}, [f"{path}: not valid TOML: tables or arrays nested too deeply"]
    values: dict[str, Any] = {}
    problems: list[str] = []
    _walk(doc, "", path, values, problems)
    for name, value in values.items():
        # A relative path in the file means relative to the file, not to wherever drr was started.
        if isinstance(value, Path) and not value.is_absolute():
            values[name] = path.parent / value
    return values, problems


def _walk(
    doc: Mapping[str, Any], prefix: str, path: Path, values: dict[str, Any], problems: list[str]
) -> None:
    for name, value in doc.items():
        dotted = f"{prefix}{name}"
        if dotted in KEYS:
            try:
                values[dotted] = KEYS[dotted].convert(value)
            except ValueError as exc:
                problems.append(f"{path}: {dotted}: {exc}")
        elif dotted in TABLES:
            if isinstance(value, Mapping):
                _walk(value, dotted + ".", path, values, problems)
            else:
                problems.append(f"{path}: {dotted}: must be a table ([{dotted}]), not {_show(value)}")
        else:
            problems.append(f"{path}: {dotted}: unknown key{_suggest(dotted)}")


def _suggest(dotted: str) -> str:
    import difflib

    close = difflib.get_close_matches(dotted, [*KEYS, *TABLES], n=1, cutoff=0.75)
    return f" (did you mean {close[0]}?)" if close else ""


def with_overrides(
    settings: Settings,
    values: Mapping[str, Any],
    origin: str = COMMAND_LINE,
    labels: Mapping[str, str] | None = None,
) -> Settings:
    """Settings with the given dotted keys replaced (values checked like the file's); for the CLI.

    `labels` names each key as the user wrote it (e.g. "--wheel") for the error message.
    """
    checked: dict[str, Any] = {}
    for name, value in values.items():
        key = KEYS[name]
        if isinstance(value, Path):
            value = str(value)
        try:
            checked[name] = key.convert(value)
        except ValueError as exc:
            label = (labels or {}).get(name, name)
            raise ConfigError(f"{label}: {exc}", exit_code=2) from None
    return _apply(settings, checked, origin)


def _apply(settings: Settings, values: Mapping[str, Any], origin: str) -> Settings:
    top: dict[str, Any] = {}
    serial: dict[str, Any] = {}
    for name, value in values.items():
        attr = KEYS[name].attr
        if attr.startswith("serial."):
            serial[attr.removeprefix("serial.")] = value
        else:
            top[attr] = value
    if serial:
        top["serial"] = dataclasses.replace(settings.serial, **serial)
    origins = dict(settings.origins)
    origins.update(dict.fromkeys(values, origin))
    return dataclasses.replace(settings, **top, origins=origins)


# --- the command line's fill-in -----------------------------------------------------------------


SETTINGS_OPTIONS_ATTR = "settings_options"

# argparse flags and types of the common options, as `add_settings_options` declares them.
_OPTION_SPECS: dict[str, dict[str, Any]] = {
    "db": {"metavar": "URL"},
    "table": {"metavar": "ID"},
    "station": {"choices": STATIONS},
    "wheel": {"metavar": "SPEC"},
    "protocol": {"metavar": "NAME"},
    "rules": {"metavar": "FILE", "type": Path},
    "baudrate": {"type": int, "metavar": "N"},
    "bytesize": {"type": int, "choices": BYTESIZES},
    "parity": {"type": str.upper, "choices": PARITIES},
    "stopbits": {"type": float, "choices": STOPBITS},
    "rtscts": {"action": "boolean"},
    "xonxoff": {"action": "boolean"},
}
SERIAL_OPTIONS = (
    "baudrate", "bytesize", "parity", "stopbits", "rtscts", "xonxoff",
)  # fmt: skip


def add_settings_options(parser: Any, *dests: str, help: Mapping[str, str] | None = None) -> None:
    """Declare common options backed by the settings file on an argparse parser (default=None).

    ``add_settings_options(p, "db", "table", "wheel")`` adds ``--db``, ``--table`` and ``--wheel``
    and marks them, so the dispatcher fills whichever the user leaves out from the settings file,
    else from the embedded default. `help` replaces the generic help text of an option.
    """
    import argparse

    for dest in dests:
        key = KEYS[CLI_KEYS[dest]]
        spec = dict(_OPTION_SPECS[dest])
        if dest in (help or {}):
            spec["help"] = (help or {})[dest]
        elif key.option_help:
            spec["help"] = key.option_help
        else:
            spec["help"] = f"{key.help} (default: settings {key.name})"
        flag = "--" + dest.replace("_", "-")
        if spec.pop("action", None) == "boolean":
            parser.add_argument(flag, dest=dest, action=argparse.BooleanOptionalAction, default=None, **spec)
        else:
            parser.add_argument(flag, dest=dest, default=None, **spec)
    mark_settings_options(parser, *dests)


def mark_settings_options(parser: Any, *dests: str) -> None:
    """Mark options a command already declared (with default=None) as filled from the settings."""
    unknown = [d for d in dests if d not in CLI_KEYS]
    if unknown:
        raise ValueError(f"not settings-backed options: {', '.join(unknown)}")
    already = tuple(parser.get_default(SETTINGS_OPTIONS_ATTR) or ())
    parser.set_defaults(**{SETTINGS_OPTIONS_ATTR: already + tuple(d for d in dests if d not in already)})


def fill_from_settings(args: Any, settings: Settings) -> Settings:
    """Apply the convention to a parsed argparse namespace; return the settings with CLI overrides.

    Only options the command marked (`add_settings_options` / `mark_settings_options`, plus the
    top-level ``--log-level``) take part; an unmarked ``--table`` that filters ("None = every
    table") is left alone. For each marked option a value the user typed overrides the settings
    (origin "command line"); a value left None is filled from the settings file, else from the
    embedded default; None that survives means the layer's own default (store file, shipped rules).
    """
    marked = [*(getattr(args, SETTINGS_OPTIONS_ATTR, None) or ()), "log_level"]
    dests = [d for d in dict.fromkeys(marked) if d in CLI_KEYS and hasattr(args, d)]
    given_dests = [d for d in dests if getattr(args, d) is not None and _overridable(getattr(args, d))]
    given = {CLI_KEYS[dest]: getattr(args, dest) for dest in given_dests}
    labels = {CLI_KEYS[dest]: "--" + dest.replace("_", "-") for dest in given_dests}
    effective = with_overrides(settings, given, labels=labels) if given else settings
    for dest in dests:
        if getattr(args, dest) is None:
            value = effective.value(CLI_KEYS[dest])
            if value is not None:
                setattr(args, dest, value)
    return effective


def _overridable(value: Any) -> bool:
    # A command may use one of these dest names for something else (e.g. a list); leave it alone.
    return isinstance(value, str | int | float | bool | Path)


# --- helpers ------------------------------------------------------------------------------------


def _get(obj: Any, attr: str) -> Any:
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _show(value: Any) -> str:
    kind = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array"}.get(
        type(value), "a table" if isinstance(value, Mapping) else type(value).__name__
    )
    return f"{kind} ({value!r})" if not isinstance(value, Mapping | list) else kind


def describe(settings: Settings) -> dict[str, dict[str, Any]]:
    """{dotted key: {"value": JSON-able value, "origin": ...}} for every key, for `drr config show`."""
    out: dict[str, dict[str, Any]] = {}
    for key in KEY_LIST:
        value = settings.value(key.name)
        if isinstance(value, Decimal | Path):
            value = str(value)
        elif isinstance(value, tuple):
            value = " ".join(str(v) for v in value)
        out[key.name] = {"value": value, "origin": settings.origin(key.name)}
    return out


def derived_paths(settings: Settings) -> dict[str, str]:
    """What the settings imply: the wheel link with its line settings, and the folders left empty."""
    paths = {
        "wheel_link": settings.wheel_link_spec,
        "log_dir": str(settings.effective_log_dir),
        "capture_dir": str(settings.effective_capture_dir),
    }
    try:
        from engine.store.keys import key_dir

        # The table's signing keys and witnesses: not in the store's folder, backed up with it (drr backup).
        paths["key_dir"] = str(key_dir())
    except ImportError:
        pass
    try:
        from engine.store.db import redact, resolve_url

        paths["database"] = redact(resolve_url(settings.database_url, settings.table_id))
    except (ImportError, DrrError):
        pass  # the store is optional here: show what can be shown
    return paths


def template() -> str:
    """A commented settings file holding every key at its default (`drr config init` writes it)."""
    defaults = Settings()
    lines = [
        "# Diamond Rush Roulette — installation settings (see docs/configuration.md).",
        "# Every key is optional: delete a line to use the embedded default shown here.",
        "# A command-line option (--db, --table, --wheel, --rules, ...) overrides the value here.",
    ]
    current = ""
    for key in KEY_LIST:
        table, _, leaf = key.name.rpartition(".")
        if table != current:
            lines += ["", f"[{table}]"]
            current = table
        lines.append(f"{leaf} = {toml_value(defaults.value(key.name))}".ljust(36) + f"# {key.help}")
    return "\n".join(lines) + "\n"


def set_approved_digest(digest: str | None, path: Path | None = None) -> Path:
    """Write `software.approved_digest` into the settings file (`path`, else the one in use, else the
    user's), keeping every other line as it is; the file is checked again afterwards. Returns it."""
    try:
        checked = _digest(digest or "")
    except ValueError as exc:
        raise ConfigError(f"software.approved_digest: {exc}", exit_code=2) from None
    target = path or settings_path() or user_settings_path()
    try:
        text = target.read_text(encoding="utf-8") if target.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{target}: cannot read: {exc}") from None
    line = f"approved_digest = {toml_value(checked)}"
    lines = text.splitlines()
    section = None
    done = False
    for i, raw in enumerate(lines):
        stripped = raw.strip()
        if stripped.startswith("["):
            if section == "software" and not done:
                lines.insert(i, line)
                done = True
                break
            section = stripped.strip("[]").strip()
        elif section == "software" and re.match(r"approved_digest\s*=", stripped):
            lines[i] = line
            done = True
            break
    if not done:
        if section == "software":
            lines.append(line)
        else:
            lines += ["", "[software]", line]
    new = "\n".join(lines).lstrip("\n") + "\n"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(new, encoding="utf-8")
        os.replace(tmp, target)  # a reader sees the old file or the new one, never half
    except OSError as exc:
        raise ConfigError(f"{target}: cannot write: {exc.strerror or exc}") from None
    values, problems = read_settings_file(target)
    if problems:
        raise ConfigError(f"{problems[0]} (see drr config check)", problems)
    if values.get("software.approved_digest") != checked:
        raise ConfigError(f"{target}: software.approved_digest was not written as {checked}")
    return target


def toml_value(value: Any) -> str:
    if value is None:
        return '""'
    if isinstance(value, tuple):  # chip values: one string of amounts
        return toml_value(" ".join(str(v) for v in value))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'
