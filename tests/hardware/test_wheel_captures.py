r"""Both real SS2 captures decode to the game results a person reads off the capture.

The expected lists below were NOT produced by the decoder. They were written from the capture
with awk: take RX status lines `*X;state;game;win;...`, and for every run of consecutive status
lines with state 5 and the same game number whose win field is not blank, take the first line's
game, number and timestamp:

    awk -F'\t' '$2=="RX" && $3 ~ /^\*X;[1-7];[0-9][0-9][0-9];/ { split($3,a,";"); key=a[2]";"a[3];
        if (a[2]=="5" && key!=prev && a[4] ~ /[0-9]/) print a[3], a[4], $1; prev=key }' FILE

The counts (3 and 136) match the table in shared/data/wheel-captures/README.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.wheel_events import WheelGap, WheelRestart, WheelResult, parse_wheel_event
from hardware.decode import DecodeSummary, decode_capture
from hardware.events import MESSAGE_TYPES, UnreadableLine, event_json
from hardware.protocol import get_protocol

DATA = Path(__file__).parent.parent / "data"

# (game, number, time of the first state-5 line)
EXPECTED_A = [
    (1, 31, "2025-09-16T06:33:00.575"),
    (1, 32, "2025-09-23T05:48:30.830"),
    (1, 27, "2025-11-13T13:18:51.803"),
]

EXPECTED_B = [
    (2, 28, "2025-09-16T06:45:24.582"),
    (2, 14, "2025-09-23T07:26:06.884"),
    (4, 35, "2025-09-23T07:27:37.387"),
    (7, 15, "2025-09-23T07:46:57.001"),
    (8, 24, "2025-09-23T07:47:40.010"),
    (11, 4, "2025-09-23T09:09:56.467"),
    (12, 18, "2025-09-23T09:10:37.476"),
    (13, 3, "2025-09-23T09:11:20.980"),
    (14, 14, "2025-09-23T09:12:01.989"),
    (15, 21, "2025-09-23T09:12:46.486"),
    (16, 30, "2025-09-23T09:13:31.992"),
    (17, 24, "2025-09-23T09:14:14.488"),
    (18, 15, "2025-09-23T09:14:55.497"),
    (19, 30, "2025-09-23T09:15:37.002"),
    (20, 16, "2025-09-23T09:16:21.499"),
    (21, 35, "2025-09-23T09:17:06.509"),
    (22, 13, "2025-09-23T09:17:46.013"),
    (24, 34, "2025-09-23T09:30:24.594"),
    (25, 26, "2025-09-23T09:31:12.596"),
    (27, 30, "2025-09-23T09:41:56.652"),
    (28, 5, "2025-09-23T09:42:40.652"),
    (29, 16, "2025-09-23T09:43:25.661"),
    (30, 4, "2025-09-23T09:44:07.662"),
    (31, 1, "2025-09-23T09:44:54.672"),
    (32, 3, "2025-09-23T09:45:41.184"),
    (33, 29, "2025-09-23T09:46:22.177"),
    (34, 6, "2025-09-23T09:47:08.179"),
    (35, 21, "2025-09-23T09:47:54.196"),
    (36, 19, "2025-09-23T09:48:38.197"),
    (37, 0, "2025-09-23T09:49:38.203"),
    (38, 34, "2025-09-23T09:50:23.211"),
    (39, 35, "2025-09-23T09:51:04.700"),
    (40, 31, "2025-09-23T09:51:45.708"),
    (41, 30, "2025-09-23T09:52:35.213"),
    (42, 35, "2025-09-23T09:53:16.222"),
    (43, 29, "2025-09-23T09:54:28.223"),
    (44, 31, "2025-09-23T09:55:08.224"),
    (45, 27, "2025-09-23T09:55:53.728"),
    (46, 2, "2025-09-23T09:56:37.233"),
    (47, 34, "2025-09-23T09:57:23.234"),
    (48, 12, "2025-09-23T09:58:07.250"),
    (49, 9, "2025-09-23T09:58:49.747"),
    (50, 16, "2025-09-23T09:59:33.251"),
    (51, 2, "2025-09-23T10:00:15.252"),
    (52, 18, "2025-09-23T10:01:29.270"),
    (53, 17, "2025-09-23T10:02:08.775"),
    (54, 16, "2025-09-23T10:02:54.264"),
    (55, 19, "2025-09-23T10:03:40.777"),
    (56, 32, "2025-09-23T10:04:26.778"),
    (57, 1, "2025-09-23T10:05:10.283"),
    (58, 0, "2025-09-23T10:05:54.795"),
    (59, 16, "2025-09-23T10:06:37.788"),
    (60, 17, "2025-09-23T10:07:20.301"),
    (61, 1, "2025-09-23T10:08:05.806"),
    (62, 20, "2025-09-23T10:08:49.806"),
    (63, 36, "2025-09-23T10:09:36.304"),
    (64, 0, "2025-09-23T10:10:20.321"),
    (65, 11, "2025-09-23T10:11:04.818"),
    (66, 22, "2025-09-23T10:11:50.320"),
    (67, 26, "2025-09-23T10:12:32.833"),
    (68, 29, "2025-09-23T10:13:19.826"),
    (69, 29, "2025-09-23T10:14:03.330"),
    (70, 13, "2025-09-23T10:14:43.842"),
    (71, 4, "2025-09-23T10:15:26.340"),
    (72, 29, "2025-09-23T10:16:09.349"),
    (73, 28, "2025-09-23T10:16:52.854"),
    (74, 12, "2025-09-23T10:17:38.855"),
    (75, 9, "2025-09-23T10:18:21.351"),
    (76, 14, "2025-09-23T10:19:02.360"),
    (77, 3, "2025-09-23T10:19:46.361"),
    (78, 0, "2025-09-23T10:20:30.378"),
    (79, 3, "2025-09-23T10:21:14.875"),
    (80, 10, "2025-09-23T10:22:03.884"),
    (81, 34, "2025-09-23T10:22:50.381"),
    (82, 2, "2025-09-23T10:23:33.390"),
    (83, 34, "2025-09-23T10:24:16.399"),
    (84, 21, "2025-09-23T10:25:01.392"),
    (85, 25, "2025-09-23T10:25:46.400"),
    (86, 0, "2025-09-23T10:26:31.906"),
    (87, 26, "2025-09-23T10:27:14.915"),
    (88, 36, "2025-09-23T10:28:02.916"),
    (89, 32, "2025-09-23T10:28:49.413"),
    (90, 11, "2025-09-23T10:29:36.423"),
    (91, 10, "2025-09-23T10:30:22.935"),
    (92, 29, "2025-09-23T10:31:06.424"),
    (93, 31, "2025-09-23T10:31:50.937"),
    (94, 20, "2025-09-23T10:32:34.939"),
    (95, 13, "2025-09-23T10:33:20.443"),
    (96, 27, "2025-09-23T10:34:06.445"),
    (97, 17, "2025-09-23T10:34:49.454"),
    (98, 12, "2025-09-23T10:35:35.454"),
    (99, 17, "2025-09-23T10:36:18.959"),
    (100, 35, "2025-09-23T10:37:52.971"),
    (101, 16, "2025-09-23T10:38:34.973"),
    (102, 31, "2025-09-23T10:39:19.485"),
    (103, 8, "2025-09-23T10:40:06.990"),
    (104, 5, "2025-09-23T10:40:53.983"),
    (105, 10, "2025-09-23T10:41:40.496"),
    (106, 24, "2025-09-23T10:42:27.490"),
    (107, 13, "2025-09-23T10:43:16.002"),
    (108, 19, "2025-09-23T10:44:01.507"),
    (109, 15, "2025-09-23T10:44:45.508"),
    (110, 32, "2025-09-23T10:45:34.517"),
    (111, 29, "2025-09-23T10:46:20.022"),
    (112, 18, "2025-09-23T10:47:06.520"),
    (113, 33, "2025-09-23T10:47:51.528"),
    (114, 27, "2025-09-23T10:49:10.042"),
    (115, 15, "2025-09-23T10:49:57.547"),
    (116, 35, "2025-09-23T10:50:40.043"),
    (117, 28, "2025-09-23T10:51:25.052"),
    (118, 10, "2025-09-23T10:52:08.558"),
    (119, 25, "2025-09-23T10:52:54.063"),
    (120, 9, "2025-09-23T10:53:40.559"),
    (121, 20, "2025-09-23T10:54:25.568"),
    (122, 31, "2025-09-23T10:55:13.073"),
    (123, 7, "2025-09-23T10:55:57.571"),
    (124, 20, "2025-09-23T10:56:43.572"),
    (125, 27, "2025-09-23T10:57:30.580"),
    (126, 18, "2025-09-23T10:58:17.093"),
    (127, 4, "2025-09-23T10:59:03.094"),
    (128, 26, "2025-09-23T10:59:47.095"),
    (129, 23, "2025-09-23T11:00:34.104"),
    (130, 28, "2025-09-23T11:01:22.105"),
    (131, 30, "2025-09-23T11:02:08.602"),
    (132, 1, "2025-09-23T11:02:55.115"),
    (133, 29, "2025-09-23T11:03:41.116"),
    (134, 30, "2025-09-23T11:04:25.628"),
    (135, 31, "2025-09-23T11:05:08.126"),
    (136, 33, "2025-09-23T11:05:53.631"),
    (137, 7, "2025-09-23T11:06:39.135"),
    (138, 28, "2025-09-23T11:07:25.632"),
    (140, 28, "2025-09-23T12:56:39.764"),
    (141, 24, "2025-09-23T12:57:23.268"),
    (142, 12, "2025-09-23T12:58:08.773"),
    (149, 21, "2025-09-23T14:03:02.635"),
    (150, 4, "2025-09-23T14:03:47.643"),
]


def _results(name: str) -> list[tuple[int | None, int, str]]:
    return [
        (e.game, e.number, e.to_json()["time"])
        for e in decode_capture(DATA / name, "ss2")
        if isinstance(e, WheelResult)
    ]


def test_capture_a_results() -> None:
    assert _results("ss2-capture-a.log") == EXPECTED_A


def test_capture_b_results() -> None:
    assert _results("ss2-capture-b.log") == EXPECTED_B


def test_capture_b_torn_lines_are_unreadable_and_skipped() -> None:
    protocol = get_protocol("ss2")
    summary = DecodeSummary()
    events = list(decode_capture(DATA / "ss2-capture-b.log", protocol, summary))
    raws = [e.raw for e in events if isinstance(e, UnreadableLine)]
    # The torn lines of game 146, resynchronised at each '*' (README: "torn lines").
    assert "6; 9;0;158;0" in raws
    assert "4;146; 9;0;159;0" in raws
    assert "*X;4;14" in raws and "*X;" in raws
    # The operator program's own annotation that leaked into the RX stream.
    assert raws.count("*X;2 WARNING detected! Sending error signal...") == 187
    assert protocol.unreadable_count == len(raws) == 191
    assert summary.lines == 13268 and summary.malformed == []


def test_capture_a_reports_restarts_and_gaps_not_results() -> None:
    events = list(decode_capture(DATA / "ss2-capture-a.log", "ss2"))
    restarts = [e for e in events if isinstance(e, WheelRestart)]
    gaps = [e for e in events if isinstance(e, WheelGap)]
    # 002 -> 001 with the result field emptied on 2025-09-23 and on 2025-11-12: power cycles.
    assert [(e.previous, e.game) for e in restarts] == [(2, 1), (179, 1)]
    assert (2, 158) in [(e.previous, e.game) for e in gaps]
    assert len([e for e in events if isinstance(e, WheelResult)]) == 3


def test_decode_cli_results_contract(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gui.cli",
            "wheel",
            "decode",
            "--protocol",
            "ss2",
            "--results",
            str(DATA / "ss2-capture-b.log"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == len(EXPECTED_B)
    assert lines[0] == {"game": 2, "number": 28, "warnings": [], "time": "2025-09-16T06:45:24.582"}
    assert [(x["game"], x["number"], x["time"]) for x in lines] == EXPECTED_B
    assert "191 unreadable" in proc.stderr


def test_decode_cli_unreadable_file_fails(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gui.cli", "wheel", "decode", str(tmp_path / "missing.log")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    assert proc.stderr.startswith("drr: cannot read capture")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("name", "must_have"),
    [
        (
            "ss2-capture-a.log",
            {"result", "closed", "restart", "gap", "command_reply"},
        ),
        (
            "ss2-capture-b.log",
            {"result", "launched", "no_more_bets", "unreadable_line", "warning"},
        ),
    ],
)
def test_decode_cli_json_events_parse(name: str, must_have: set[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gui.cli", "wheel", "decode", "--json", str(DATA / name)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    types = {line["type"] for line in lines}
    assert must_have <= types
    # The wheel's events are printed in the table's own vocabulary: each line reads back as the
    # engine event the table journals; the link's own messages keep their names.
    for line in lines:
        if line["type"] in MESSAGE_TYPES:
            continue
        event = parse_wheel_event(line)
        assert event.kind == line["type"] and event_json(event) == line


def test_decode_cli_exits_zero_on_junk_and_counts_it(tmp_path: Path) -> None:
    junk = tmp_path / "junk.log"
    good = "2025-09-23T09:10:37.476\tRX\t*X;5;012;18;0;160;1\n"
    junk.write_bytes(b"\x00\xff\xfe garbage\n" + good.encode() + b"2025-09-23T09:10:38.000\tRX\t\xff*X;5\n")
    proc = subprocess.run(
        [sys.executable, "-m", "gui.cli", "wheel", "decode", "--results", str(junk)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [
        {"game": 12, "number": 18, "warnings": [], "time": "2025-09-23T09:10:37.476"}
    ]
    assert "2 lines, 2 unreadable (skipped), 1 not in capture format" in proc.stderr
