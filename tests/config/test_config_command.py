"""`drr config show|check|init` contracts, and how every command meets a broken settings file."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import config
from gui.cli import main


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No real user/site settings file and no real log folder leak into these tests."""
    monkeypatch.setattr(config, "user_settings_path", lambda: tmp_path / "no-user" / "settings.toml")
    monkeypatch.setattr(config, "site_settings_path", lambda: tmp_path / "no-site" / "settings.toml")
    monkeypatch.delenv("DRR_CONFIG", raising=False)
    monkeypatch.delenv("DRR_LOG_LEVEL", raising=False)
    yield
    for handler in list(logging.getLogger().handlers):
        if getattr(handler, "_drr_handler", False):
            logging.getLogger().removeHandler(handler)
            handler.close()


def settings_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(f'[paths]\nlog_dir = "{tmp_path / "logs"}"\n' + body, encoding="utf-8")
    return path


def test_show_json_gives_each_value_and_where_it_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(tmp_path, '[table]\nid = "4"\nstation = "pitboss"\n[wheel]\nspec = "serial:COM3"\n')
    monkeypatch.setenv("DRR_CONFIG", str(path))
    assert main(["config", "show", "--json", "--station", "surveillance"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["file"] == str(path)
    s = doc["settings"]
    assert s["table.id"] == {"value": "4", "origin": "file"}
    assert s["table.station"] == {"value": "surveillance", "origin": "command line"}
    assert s["wheel.spec"] == {"value": "serial:COM3", "origin": "file"}
    assert s["wheel.serial.baudrate"] == {"value": 9600, "origin": "default"}
    assert s["database.url"] == {"value": None, "origin": "default"}
    assert set(s) == set(config.KEYS)
    assert doc["derived"]["capture_dir"] == str(tmp_path / "logs" / "captures")
    assert doc["derived"]["wheel_link"] == "serial:COM3@9600,8N1"


def test_show_as_text_names_the_file_and_the_origins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(tmp_path, '[table]\nid = "4"\n')
    assert main(["--config", str(path), "config", "show", "--table", "8"]) == 0
    out = capsys.readouterr().out
    assert f"settings file: {path}" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("table.id"))
    assert '"8"' in line and line.endswith("command line")


def test_check_a_good_file_prints_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = settings_file(tmp_path, '[table]\nid = "4"\n[wheel]\nspec = "serial:/dev/ttyS0"\n')
    assert main(["config", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"OK: {path}: 3 key(s) set; table 4, station croupier, wheel serial:/dev/ttyS0")


def test_check_with_no_file_says_the_defaults_apply(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check"]) == 0
    assert "no settings file" in capsys.readouterr().out


def test_check_a_bad_file_lists_every_problem_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(tmp_path, '[table]\nid = 4.5\n[wheel.serial]\nbaud = 9600\nparity = "Q"\n')
    monkeypatch.setenv("DRR_CONFIG", str(path))  # the broken file is the one in use: check must still run
    assert main(["config", "check"]) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert [line.split(": ")[1] for line in lines] == ["table.id", "wheel.serial.baud", "wheel.serial.parity"]
    assert all(line.startswith(f"{path}: ") for line in lines)
    assert "3 problem(s)" in captured.err and "Traceback" not in captured.err


def test_check_refuses_a_rules_path_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(tmp_path, '[rules]\npath = "missing.toml"\n')
    assert main(["config", "check", str(path)]) == 1
    assert "rules.path: no such file" in capsys.readouterr().out


def test_any_other_command_refuses_a_broken_settings_file_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(tmp_path, "[table]\ncolour = 1\n")
    monkeypatch.setenv("DRR_CONFIG", str(path))
    assert main(["config", "show"]) == 1
    err = capsys.readouterr().err
    assert err == f"drr: {path}: table.colour: unknown key (see drr config check)\n"


def test_init_writes_a_template_that_checks_clean_and_will_not_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "etc" / "settings.toml"
    assert main(["config", "init", str(target)]) == 0
    assert target.read_text() == config.template()
    assert main(["config", "check", str(target)]) == 0
    assert main(["config", "init", str(target)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["config", "init", "--force", str(target)]) == 0


def test_log_level_option_beats_environment_and_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(tmp_path, '[logging]\nlevel = "ERROR"\n')
    monkeypatch.setenv("DRR_CONFIG", str(path))
    monkeypatch.setenv("DRR_LOG_LEVEL", "WARNING")
    assert main(["--log-level", "debug", "config", "show", "--json"]) == 0
    level = json.loads(capsys.readouterr().out)["settings"]["logging.level"]
    assert level == {"value": "DEBUG", "origin": "command line"}
    assert logging.getLogger().level == logging.DEBUG
    # The dispatcher logged the start of the command into the file of the settings' log_dir.
    lines = (tmp_path / "logs" / "drr.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["command"] == "config"


def test_a_refused_command_is_logged_with_its_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = settings_file(tmp_path, "")
    monkeypatch.setenv("DRR_CONFIG", str(path))
    assert main(["settle", str(tmp_path / "missing.json")]) == 1
    entries = [json.loads(line) for line in (tmp_path / "logs" / "drr.jsonl").read_text().splitlines()]
    refused = [e for e in entries if e["message"] == "command refused"]
    assert refused and refused[-1]["command"] == "settle" and "missing.json" in refused[-1]["reason"]


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = "import sys; from gui.cli import main; sys.exit(main(['config', 'show', '--json']))"
    proc = subprocess.run(
        f"'{sys.executable}' -c \"{script}\" | head -c 1",
        shell=True, capture_output=True, text=True, timeout=60,
        env={"DRR_CONFIG": str(settings_file(tmp_path, "")), "PATH": "/usr/bin:/bin",
             "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert proc.stdout == "{"
    assert proc.stderr == ""


def test_plain_drr_takes_its_station_and_wheel_from_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gui.cli

    seen: dict[str, object] = {}

    def fake_station(args: object) -> int:
        seen.update(vars(args))
        return 0

    monkeypatch.setattr(gui.cli, "_default_command", lambda: fake_station)
    path = settings_file(tmp_path, '[table]\nid = "4"\nstation = "display"\n[wheel]\nspec = "serial:COM3"\n')
    monkeypatch.setenv("DRR_CONFIG", str(path))
    assert main([]) == 0
    assert (seen["station"], seen["table"], seen["wheel"]) == ("display", "4", "serial:COM3")
    assert seen["db"] is None and seen["rules"] is None  # the store's and the shipped defaults


def test_check_without_a_file_checks_the_one_named_by_the_config_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(tmp_path, '[table]\nid = "x y"\n')
    assert main(["--config", str(path), "config", "check"]) == 1
    assert capsys.readouterr().out.startswith(f"{path}: table.id: ")


def test_a_store_command_without_db_opens_this_tables_own_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_data_path", lambda *a, **k: tmp_path / "data")
    path = settings_file(tmp_path, '[table]\nid = "T9"\n')
    monkeypatch.setenv("DRR_CONFIG", str(path))
    assert main(["history", "list"]) == 1  # no journal yet for table T9: refused, nothing created
    assert "table-T9.sqlite" in capsys.readouterr().err
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())
