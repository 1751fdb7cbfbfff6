"""The settings file: defaults, loading, validation messages, locating it, and the precedence rules."""

from __future__ import annotations

import argparse
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest

from engine import config
from engine.config import COMMAND_LINE, DEFAULT, FILE, ConfigError, Settings


def write(tmp_path: Path, text: str, name: str = "settings.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_are_a_demo_table_on_the_virtual_wheel() -> None:
    s = Settings()
    assert (s.table_id, s.station, s.wheel, s.wheel_protocol) == ("1", "croupier", "sim", "ss2")
    assert (s.serial.baudrate, s.serial.bytesize, s.serial.parity, s.serial.stopbits) == (9600, 8, "N", 1)
    assert not s.serial.rtscts and not s.serial.xonxoff
    assert s.database_url is None and s.rules_path is None
    assert s.large_payout_threshold == Decimal("10000.00")
    assert all(s.origin(k) == DEFAULT for k in config.KEYS)


def test_every_key_of_a_file_is_read_with_its_type_and_origin(tmp_path: Path) -> None:
    rules = write(tmp_path, "", "house.toml")
    path = write(
        tmp_path,
        """
        [table]
        id = "T04"
        station = "display"
        [wheel]
        spec = "serial:/dev/ttyUSB0"
        [wheel.serial]
        baudrate = 19200
        parity = "e"
        stopbits = 1.5
        rtscts = true
        [database]
        url = "postgresql+psycopg://drr@floor-db/casino"
        [rules]
        path = "house.toml"
        [thresholds]
        large_payout = "2500.50"
        silent_table_minutes = 30
        bias_alert_p_value = 0.0001
        [logging]
        level = "debug"
        """.replace("\n        ", "\n"),
    )
    s = config.load_settings(path, environ={})
    assert s.source == path
    assert (s.table_id, s.station, s.wheel) == ("T04", "display", "serial:/dev/ttyUSB0")
    assert (s.serial.baudrate, s.serial.parity, s.serial.stopbits, s.serial.rtscts) == (19200, "E", 1.5, True)
    assert s.serial.bytesize == 8 and s.wheel_silence_seconds == 3.0
    assert s.database_url == "postgresql+psycopg://drr@floor-db/casino"
    assert s.rules_path == rules  # relative to the settings file, not to the working directory
    assert s.large_payout_threshold == Decimal("2500.50")
    assert (s.silent_table_minutes, s.bias_alert_p_value, s.log_level) == (30, 0.0001, "DEBUG")
    assert s.origin("wheel.serial.baudrate") == FILE
    assert s.origin("wheel.serial.bytesize") == DEFAULT


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ('[table]\nidd = "4"\n', "table.idd", "unknown key (did you mean table.id?)"),
        ('[wheel.serial]\nbaudrate = "9600"\n', "wheel.serial.baudrate", "must be an integer"),
        ('[wheel.serial]\nparity = "X"\n', "wheel.serial.parity", "must be one of N, E, O, M, S"),
        ("[wheel.serial]\nstopbits = 3\n", "wheel.serial.stopbits", "must be 1, 1.5 or 2"),
        ("[wheel.serial]\nrtscts = 1\n", "wheel.serial.rtscts", "must be true or false"),
        ("[wheel.serial]\nbytesize = 9\n", "wheel.serial.bytesize", "between 5 and 8"),
        ('[wheel]\nspec = "usb"\n', "wheel.spec", "sim, serial:PORT or replay:FILE"),
        ("[wheel]\nsilence_seconds = 0\n", "wheel.silence_seconds", "between 0.5 and 600 seconds"),
        ('[table]\nstation = "bar"\n', "table.station", "croupier, display, bonus, surveillance, pitboss"),
        ('[table]\nid = "../x"\n', "table.id", "letters, digits"),
        ('[database]\nurl = "mysql://x/y"\n', "database.url", "scheme 'mysql'"),
        ("[thresholds]\nlarge_payout = 2500.5\n", "thresholds.large_payout", "written as a string"),
        ('[thresholds]\nlarge_payout = "-1"\n', "thresholds.large_payout", "positive amount"),
        # Issue 13: finite but unbounded, it would switch approvals off.
        ('[thresholds]\nlarge_payout = "1e400"\n', "thresholds.large_payout", "up to 1,000,000,000"),
        ("[thresholds]\nbias_alert_p_value = 1.5\n", "thresholds.bias_alert_p_value", "between 0 and 1"),
        ("[thresholds]\nsilent_table_minutes = 0\n", "thresholds.silent_table_minutes", "between 1 and 1440"),
        ('[logging]\nlevel = "LOUD"\n', "logging.level", "DEBUG, INFO"),
        ('wheel = "sim"\n', "wheel", "must be a table ([wheel])"),
        ('colour = "red"\n', "colour", "unknown key"),
    ],
)
def test_a_bad_key_is_refused_naming_the_file_and_the_key(
    tmp_path: Path, text: str, key: str, words: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        config.load_settings(path, environ={})
    assert caught.value.problems == [caught.value.problems[0]]
    problem = caught.value.problems[0]
    assert problem.startswith(f"{path}: {key}: "), problem
    assert words in problem


def test_every_problem_is_reported_not_only_the_first(tmp_path: Path) -> None:
    path = write(tmp_path, '[table]\nid = ""\nstation = 4\n[wheel.serial]\nbaudrate = -1\nflow = "rts"\n')
    _, problems = config.read_settings_file(path)
    keys = [p.split(": ")[1] for p in problems]
    assert keys == ["table.id", "table.station", "wheel.serial.baudrate", "wheel.serial.flow"]


def test_unreadable_files_get_one_clear_problem(tmp_path: Path) -> None:
    assert config.read_settings_file(tmp_path / "nope.toml")[1] == [
        f"{tmp_path / 'nope.toml'}: no such settings file"
    ]
    bad = write(tmp_path, "[table\nid = 1\n")
    (problem,) = config.read_settings_file(bad)[1]
    assert problem.startswith(f"{bad}: not valid TOML:")
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    assert config.read_settings_file(binary)[1] == [f"{binary}: not UTF-8 text"]


def test_the_environment_variable_names_the_file_and_a_missing_one_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, '[table]\nid = "9"\n')
    assert config.settings_path({"DRR_CONFIG": str(path)}) == path
    assert config.load_settings(environ={"DRR_CONFIG": str(path)}).table_id == "9"
    with pytest.raises(ConfigError, match="no such settings file"):
        config.load_settings(environ={"DRR_CONFIG": str(tmp_path / "missing.toml")})


def test_user_file_is_found_before_the_machine_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user, site = tmp_path / "user" / "settings.toml", tmp_path / "site" / "settings.toml"
    monkeypatch.setattr(config, "user_settings_path", lambda: user)
    monkeypatch.setattr(config, "site_settings_path", lambda: site)
    assert config.settings_path({}) is None
    site.parent.mkdir()
    site.write_text('[table]\nid = "site"\n')
    assert config.load_settings(environ={}).table_id == "site"
    user.parent.mkdir()
    user.write_text('[table]\nid = "user"\n')
    assert config.load_settings(environ={}).table_id == "user"


def test_log_level_from_the_environment_beats_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[logging]\nlevel = "ERROR"\n')
    s = config.load_settings(path, environ={"DRR_LOG_LEVEL": "debug"})
    assert (s.log_level, s.origin("logging.level")) == ("DEBUG", "environment")
    with pytest.raises(ConfigError, match="DRR_LOG_LEVEL"):
        config.load_settings(path, environ={"DRR_LOG_LEVEL": "chatty"})


def test_template_holds_every_key_at_its_default_and_loads_cleanly(tmp_path: Path) -> None:
    text = config.template()
    doc = tomllib.loads(text)
    assert {f"{table}.{key}" for table, key in _flatten(doc)} == set(config.KEYS)
    path = write(tmp_path, text)
    loaded = config.load_settings(path, environ={})
    assert config.describe(loaded) == {
        k: {"value": v["value"], "origin": FILE} for k, v in config.describe(Settings()).items()
    }


def _flatten(doc: dict[str, object], prefix: str = "") -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key, value in doc.items():
        if isinstance(value, dict):
            out += _flatten(value, f"{prefix}{key}.")
        else:
            out.append((prefix.rstrip("."), key))
    return out


# --- the command line's fill-in (precedence: command line > file > default) --------------------


def parse(argv: list[str], *, mark_table: bool = True) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    config.add_settings_options(p, "db", "wheel", "rules", "baudrate", "rtscts")
    p.add_argument("--table", default=None)
    if mark_table:
        config.mark_settings_options(p, "table")
    return p.parse_args(argv)


def test_unset_options_are_filled_from_the_file_else_the_default(tmp_path: Path) -> None:
    path = write(tmp_path, '[wheel]\nspec = "serial:COM3"\n[wheel.serial]\nrtscts = true\n')
    args = parse([])
    effective = config.fill_from_settings(args, config.load_settings(path, environ={}))
    assert (args.wheel, args.rtscts) == ("serial:COM3", True)  # from the file
    assert (args.table, args.baudrate) == ("1", 9600)  # embedded defaults
    assert args.db is None and args.rules is None  # None: the store's / shipped default
    assert effective.origin("wheel.spec") == FILE and effective.origin("table.id") == DEFAULT


def test_a_typed_option_beats_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[table]\nid = "7"\n[wheel]\nspec = "serial:COM3"\n[rules]\npath = "r.toml"\n')
    args = parse(
        ["--table", "12", "--wheel", "sim", "--baudrate", "4800", "--no-rtscts", "--rules", "x.toml"]
    )
    effective = config.fill_from_settings(args, config.load_settings(path, environ={}))
    assert (args.table, args.wheel, args.baudrate, args.rtscts) == ("12", "sim", 4800, False)
    assert args.rules == Path("x.toml")
    assert effective.table_id == "12" and effective.serial.baudrate == 4800 and not effective.serial.rtscts
    assert {effective.origin(k) for k in ("table.id", "wheel.spec", "rules.path")} == {COMMAND_LINE}


def test_an_unmarked_option_is_left_alone(tmp_path: Path) -> None:
    path = write(tmp_path, '[table]\nid = "7"\n')
    args = parse([], mark_table=False)  # e.g. a --table filter where None means "every table"
    effective = config.fill_from_settings(args, config.load_settings(path, environ={}))
    assert args.table is None and args.wheel == "sim"
    assert not hasattr(args, "station")  # an option a command did not declare is not invented
    args = parse(["--table", "9"], mark_table=False)
    effective = config.fill_from_settings(args, config.load_settings(path, environ={}))
    assert effective.table_id == "7"  # an unmarked option is not a settings override either


def test_marking_an_unknown_option_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="not settings-backed options: colour"):
        config.mark_settings_options(argparse.ArgumentParser(), "colour")


def test_a_bad_command_line_value_names_the_option() -> None:
    with pytest.raises(ConfigError, match=r"^--wheel: must be sim, serial:PORT or replay:FILE") as caught:
        config.fill_from_settings(parse(["--wheel", "usb0"]), Settings())
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    ("wheel", "serial", "expected"),
    [
        ("serial:/dev/ttyS0", {}, "serial:/dev/ttyS0@9600,8N1"),
        (
            "serial:COM3",
            {"baudrate": 19200, "parity": "E", "stopbits": 1.5, "rtscts": True},
            "serial:COM3@19200,8E1.5,rtscts",
        ),
        ("serial:COM3", {"bytesize": 7, "stopbits": 2, "xonxoff": True}, "serial:COM3@9600,7N2,xonxoff"),
        ("serial:/dev/ttyUSB0@4800,8N1", {"baudrate": 19200}, "serial:/dev/ttyUSB0@4800,8N1"),
        ("sim:miss@2,torn=0.05", {}, "sim:miss@2,torn=0.05"),
        ("replay:/var/log/a.log", {}, "replay:/var/log/a.log"),
    ],
)
def test_the_wheel_link_spec_carries_the_serial_settings(
    wheel: str, serial: dict[str, object], expected: str
) -> None:
    import dataclasses

    settings = Settings(wheel=wheel, serial=dataclasses.replace(config.SerialSettings(), **serial))  # type: ignore[arg-type]
    assert config.KEYS["wheel.spec"].convert(wheel) == wheel  # every one of these is a valid spec
    assert settings.wheel_link_spec == expected


def test_the_approved_digest_is_written_into_the_settings_file_keeping_the_rest(tmp_path: Path) -> None:
    from engine.config import ConfigError, load_settings, set_approved_digest

    path = tmp_path / "settings.toml"
    before = '[table]\nid = "T7"  # the pit\'s seventh\n\n[logging]\nlevel = "DEBUG"\n'
    path.write_text(before, encoding="utf-8")
    assert load_settings(path).approved_digest is None
    set_approved_digest("A" * 64, path)
    assert load_settings(path).approved_digest == "a" * 64
    set_approved_digest("b" * 64, path)  # replaced, not added twice
    text = path.read_text(encoding="utf-8")
    assert text.count("approved_digest") == 1 and "# the pit's seventh" in text
    settings = load_settings(path)
    assert (settings.approved_digest, settings.table_id, settings.log_level) == ("b" * 64, "T7", "DEBUG")
    with pytest.raises(ConfigError, match="sha256"):
        set_approved_digest("not-a-digest", path)
    path.write_text('[software]\napproved_digest = "xyz"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"software\.approved_digest"):
        load_settings(path)
