"""SS2 parser and event deriver: framing, torn lines, handling rules, exactly-once results, fuzz."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.entry_types import EntryType
from engine.wheel_events import (
    WheelBallNotDetected,
    WheelClosed,
    WheelGap,
    WheelLaunched,
    WheelLaunchFailed,
    WheelMissSpin,
    WheelNoMoreBets,
    WheelRestart,
    WheelResult,
    WheelRotor,
    WheelStarted,
    WheelWarning,
)
from hardware.events import (
    CommandReply,
    GameCounterWrapped,
    LinkEvent,
    SelfTest,
    UnreadableLine,
    event_json,
)
from hardware.protocol import LineFramer, get_protocol
from hardware.protocol.ss2 import SS2Protocol, parse_status

T0 = datetime(2025, 9, 23, 9, 0, 0)


def feed(protocol: SS2Protocol, lines: list[str], step: float = 0.5) -> list[LinkEvent]:
    events: list[LinkEvent] = []
    for i, line in enumerate(lines):
        events.extend(protocol.feed_line(line, T0 + timedelta(seconds=step * i)))
    return events


def of(events: list[LinkEvent], cls: type) -> list:
    return [e for e in events if isinstance(e, cls)]


def ss2() -> SS2Protocol:
    protocol = get_protocol("ss2")
    assert isinstance(protocol, SS2Protocol)
    return protocol


def test_framer_accepts_cr_lf_and_both_and_keeps_partial_lines() -> None:
    framer = LineFramer()
    assert framer.feed(b"*P OK\r\n*u OK\r*X;2;001;  ;0;174;0\n\n") == [
        "*P OK",
        "*u OK",
        "*X;2;001;  ;0;174;0",
    ]
    assert framer.feed(b"*X;5;0") == []
    assert framer.pending == "*X;5;0"
    assert framer.feed(b"02;28;0;172;0\r\n") == ["*X;5;002;28;0;172;0"]


def test_framer_cuts_endless_garbage() -> None:
    framer = LineFramer(max_line=10)
    lines = framer.feed(b"x" * 35)
    assert lines == ["x" * 10] * 3 and framer.pending == "x" * 5


def test_status_fields() -> None:
    status = parse_status("*X;2;094;33;A;163;0")
    assert not isinstance(status, str)
    assert (status.state, status.game, status.win, status.flags, status.rpm, status.clockwise) == (
        2, 94, 33, 10, Decimal("16.3"), True,
    )  # fmt: skip
    blank = parse_status("*X;2;001;  ;0;174;1")
    assert not isinstance(blank, str) and blank.win is None and not blank.clockwise
    padded = parse_status("*X;5;011; 4;0;175;0")
    assert not isinstance(padded, str) and padded.win == 4
    double_zero = parse_status("*X;5;011;00;0;175;0")
    assert not isinstance(double_zero, str) and double_zero.win == 37
    bad_lines = [
        "*X;8;001;  ;0;174;0",
        "*X;2;01;  ;0;174;0",
        "*X;2;001;37;0;174;0",
        "*X;2;001;  ;G;174;0",
        "*X;2;001;  ;0;17;0",
        "*X;2;001;  ;0;174;2",
        "*X;2;001;  ;0;174",
        "*X;5;012;1;0;160;1",  # "18" lost a byte: must not read as 1
        "*X;5;012; ;0;160;1",
    ]
    for bad in bad_lines:
        assert isinstance(parse_status(bad), str), bad


def test_one_game_gives_each_event_once_and_one_result() -> None:
    lines = (
        ["*X;2;007;24;0;162;1"] * 3
        + ["*X;3;007;24;0;170;0"] * 4
        + ["*X;4;007;24;0;171;0"] * 20
        + ["15"]
        + ["*X;5;007;15;0;181;0"] * 12
        + ["*X;2;008;15;0;180;0"]
    )
    protocol = ss2()
    events = feed(protocol, lines)
    kinds = [e.type for e in events if not isinstance(e, WheelRotor)]
    # The protocol emits the engine's wheel events directly: their type is the journal entry type.
    assert kinds == [
        EntryType.WHEEL_STARTED,
        EntryType.WHEEL_LAUNCHED,
        EntryType.WHEEL_NO_MORE_BETS,
        EntryType.WHEEL_RESULT,
        EntryType.WHEEL_STARTED,
    ]
    (result,) = of(events, WheelResult)
    assert (result.game, result.number, result.warnings, result.number_line) == (7, 15, (), 15)
    assert result.time == T0 + timedelta(seconds=0.5 * 28)  # the first state-5 line
    assert result.wire_json()["pocket"] == "15"
    assert protocol.unreadable_count == 0


def test_torn_and_noisy_state5_lines_do_not_repeat_the_result() -> None:
    lines = [
        "*X;4;009;24;0;171;0",
        "*X;5;009;12;0;181;0",
        "5;009;1",
        "*X;4;0*X;5;009;12;0;181;0",
        "  *X;5;009;12;0;180;0\0",
    ]
    protocol = ss2()
    events = feed(protocol, lines)
    assert [(e.game, e.number) for e in of(events, WheelResult)] == [(9, 12)]
    assert [e.raw for e in of(events, UnreadableLine)] == ["5;009;1", "*X;4;0"]
    assert protocol.unreadable_count == 2


def test_result_without_number_line_and_mismatch() -> None:
    events = feed(ss2(), ["*X;4;003;24;0;171;0", "*X;5;003;12;0;181;0"])
    assert [(r.number, r.number_line) for r in of(events, WheelResult)] == [(12, None)]
    events = feed(ss2(), ["*X;4;003;24;0;171;0", "13", "*X;5;003;12;0;181;0"])
    # The status line wins; the disagreement is a wheel.warning naming result_mismatch.
    mismatches = [(w.warnings, w.advice) for w in of(events, WheelWarning) if w.is_mismatch]
    assert mismatches == [(("result_mismatch",), "number line 13 vs status line 12")]
    assert [r.number for r in of(events, WheelResult)] == [12]
    # A stray number that is not followed by state 5 is not a result.
    events = feed(ss2(), ["1", "*X;2;002;31;0;146;1", "*X;2;002;31;0;146;1"])
    assert of(events, WheelResult) == []


def test_counter_wrap_restart_and_gap_are_reported_not_results() -> None:
    lines = [
        "*X;5;256;10;0;170;0",
        "*X;2;001;10;0;170;0",  # wrap
        "*X;5;001;11;0;170;0",  # a genuine result of the wrapped game 1
        "*X;2;002;11;0;170;0",
        "*X;2;040;11;0;170;0",  # gap
        "*X;2;001;  ;0;170;0",  # power cycle: low counter, result emptied
        "*X;5;001;22;0;170;0",
    ]
    events = feed(ss2(), lines)
    assert [(e.previous, e.game) for e in of(events, GameCounterWrapped)] == [(256, 1)]
    assert [(e.previous, e.expected, e.game) for e in of(events, WheelGap)] == [(2, 3, 40)]
    assert [(e.previous, e.game) for e in of(events, WheelRestart)] == [(40, 1)]
    assert [(r.game, r.number) for r in of(events, WheelResult)] == [(256, 10), (1, 11), (1, 22)]


def test_launch_flag_ignored_for_three_seconds_of_state_3() -> None:
    retry = ["*X;2;005;20;8;000;0"] * 4 + ["*X;3;005;20;8;170;1"] * 6 + ["*X;3;005;20;0;170;1"] * 3
    events = feed(ss2(), retry)  # flag 8 for 2.5 s of state 3, then clear: no failure
    assert of(events, WheelLaunchFailed) == []
    assert [w.added for w in of(events, WheelWarning)] == [("launch_failed",), ()]
    persisting = ["*X;3;005;20;8;170;1"] * 9
    events = feed(ss2(), persisting)
    (failed,) = of(events, WheelLaunchFailed)
    assert failed.time == T0 + timedelta(seconds=3.5) and failed.seconds == "3.5"


def test_miss_spin_is_state_3_with_flag_2_only() -> None:
    events = feed(ss2(), ["*X;2;007;24;2;162;1"] * 5)  # flag 2 in state 2 (capture b): a warning only
    assert of(events, WheelMissSpin) == []
    events = feed(
        ss2(), ["*X;3;007;24;0;162;1", "*X;3;007;24;2;162;1", "*X;3;007;24;2;162;1", "*X;2;007;24;0;10;1"]
    )
    assert [m.game for m in of(events, WheelMissSpin)] == [7]


def test_no_ball_flag_in_state_4_ignored_for_five_seconds() -> None:
    short = ["*X;4;007;24;1;170;0"] * 10 + ["*X;4;007;24;0;170;0"]  # 4.5 s
    assert of(feed(ss2(), short), WheelBallNotDetected) == []
    long = ["*X;4;007;24;1;170;0"] * 14
    (event,) = of(feed(ss2(), long), WheelBallNotDetected)
    assert event.reason == "no-ball-flag" and event.time == T0 + timedelta(seconds=5)


def test_states_6_and_7() -> None:
    events = feed(ss2(), ["*X;4;007;24;0;170;0", "*X;7;007;24;0;170;0", "*X;6;007;24;4;000;0"])
    assert [type(e) for e in events if not isinstance(e, (WheelRotor, WheelWarning))] == [
        WheelNoMoreBets, WheelBallNotDetected, WheelClosed,
    ]  # fmt: skip


def test_replies_self_test_and_status_poll() -> None:
    protocol = ss2()
    protocol.note_command("*X", T0)
    lines = ["*P NO", "*o BUSY", "*O 6 1 60 1158", "*T s 14.0 17.50000", "*) NO", "*  NO", "*F 5", "T OK"]
    events = feed(protocol, [*lines, "*X;6;001;  ;0;000;0"])
    replies = [(e.command, e.text, e.status) for e in of(events, CommandReply)]
    assert replies == [
        ("P", "NO", "no"),
        ("o", "BUSY", "busy"),
        ("O", "6 1 60 1158", "value"),
        ("T", "s 14.0 17.50000", "value"),
        (")", "NO", "no"),
        ("", "NO", "no"),
        ("T", "OK", "ok"),
        ("X", "*X;6;001;  ;0;000;0", "value"),
    ]
    (test,) = of(events, SelfTest)
    assert (test.code, test.meaning, test.reply_key()) == ("5", "motor fault", "F")
    assert protocol.reply_keys("*T S") == ("T", "Z") and protocol.reply_keys("*P 1") == ("P",)


def test_plain_protocol() -> None:
    protocol = get_protocol("plain")
    events = [e for line in ["7", " 7", "00", "", "x", "36"] for e in protocol.feed_line(line, T0)]
    numbers = [(e.number, e.game) for e in events if isinstance(e, WheelResult)]
    assert numbers == [(7, None), (7, None), (36, None)]
    # 00 is not on a single-zero wheel: a doubtful spin, not a result (the table always took it so).
    doubtful = [(e.reason, e.game) for e in events if isinstance(e, WheelBallNotDetected)]
    assert doubtful == [("pocket 00 is not on a single-zero wheel", None)]
    assert protocol.unreadable_count == 1


def test_event_dicts_are_plain() -> None:
    event = WheelStarted(game=3, time=T0, state=2)
    assert event.to_json() == {"game": 3, "time": "2025-09-23T09:00:00.000"}  # the journal payload
    assert event_json(event) == {  # a decode --json line: the wheel's detail too
        "type": "started",
        "game": 3,
        "time": "2025-09-23T09:00:00.000",
        "state": 2,
    }
    result = WheelResult(game=151, time=T0, number=24, warnings=("no_ball",))
    assert result.result_line() == {
        "game": 151,
        "number": 24,
        "warnings": ["no_ball"],
        "time": "2025-09-23T09:00:00.000",
    }
    assert WheelLaunched(game=None, time=T0).to_json()["game"] is None
    speed = WheelRotor(game=1, time=T0, rpm=Decimal("16.3"), direction="ccw").to_json()
    assert speed["rpm"] == "16.3" and speed["direction"] == "ccw"


VALID = [
    "*X;2;094;33;0;163;0",
    "*X;5;002;28;0;172;0",
    "*P OK",
    "24",
    " 7",
    "*O 6 1 60 1158",
    "*F 0",
    "*Y;1;123;30",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=20))
def test_fuzz_random_bytes_never_raise(chunks: list[bytes]) -> None:
    for protocol in (ss2(), get_protocol("plain")):
        framer = LineFramer()
        for chunk in chunks:
            for line in framer.feed(chunk):
                for event in protocol.feed_line(line, T0):
                    event.to_json()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(VALID), st.integers(0, 30), st.integers(0, 30), st.binary(max_size=4)),
        min_size=1,
        max_size=30,
    )
)
def test_fuzz_mutated_lines_never_raise_and_results_stay_unique(
    cuts: list[tuple[str, int, int, bytes]],
) -> None:
    protocol = ss2()
    results: list[tuple[int | None, int]] = []
    for line, start, length, insert in cuts:
        data = line.encode()
        mutated = data[:start] + insert + data[start + length :]
        for event in protocol.feed_line(mutated.decode("latin-1"), T0):
            if isinstance(event, WheelResult):
                results.append((event.game, event.number))
            elif not isinstance(event, UnreadableLine):
                assert event.game is None or 0 <= event.game <= 999
    # No restart/wrap/gap can happen with these lines except via mutated counters; a game's
    # result is never repeated without one.
    assert len(results) == len(set(results)) or protocol._epoch > 0


STREAM = (
    b"*X;2;007;24;0;162;1\r\n*X;3;007;24;0;170;0\r\n*X;4;007;24;0;171;0\r\n15\r\n"
    b"*X;5;007;15;0;181;0\r\n*X;5;007;15;0;181;0\r\n*X;2;008;15;0;180;0\n*X;4;008;15;0;171;0\r"
    b"*X;5;008; 3;0;181;0\r\n*X;2;009; 3;0;180;0\r\n"
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, len(STREAM)), max_size=12))
def test_chunk_boundaries_do_not_change_the_results(cuts: list[int]) -> None:
    protocol, framer = ss2(), LineFramer()
    bounds = [0, *sorted(cuts), len(STREAM)]
    results = []
    for start, end in itertools.pairwise(bounds):
        for line in framer.feed(STREAM[start:end]):
            results += [
                (e.game, e.number) for e in protocol.feed_line(line, T0) if isinstance(e, WheelResult)
            ]
    assert results == [(7, 15), (8, 3)]
    assert protocol.unreadable_count == 0


def test_bonus_sensor_and_log_page_lines() -> None:
    from hardware.events import BonusNumber, SensorEvent

    page = "*s r 3 " + "!*#~" * 4 + "7A"  # a log page may hold '*' (result 9 is stored as 0x2A)
    torn = ["*Y;1;12x", "*Y;1;12", "*Y;7;123", "*Y;1;256", "*Y;1;123;3", "*bs 7", "*bn 170"]
    events = feed(ss2(), ["*Y;1;123;30", "*Y;4;999", "*bs 2", "*bn 17", page, *torn])
    bonus = [(e.slot, e.value, e.licence_days) for e in events if isinstance(e, BonusNumber)]
    assert bonus == [(1, 123, 30), (4, 999, None)]
    assert [(e.kind, e.value) for e in events if isinstance(e, SensorEvent)] == [
        ("ball-at-sensor", 2),
        ("ball-in-pocket", 17),
    ]
    replies = [e for e in events if isinstance(e, CommandReply)]
    assert [(r.command, r.text) for r in replies] == [("s", page[3:])]
    assert [e.raw for e in events if isinstance(e, UnreadableLine)] == torn


def test_power_cycle_right_after_game_one_is_not_swallowed() -> None:
    lines = ["*X;5;001;17;0;170;0", "*X;6;001;17;0;000;0", "*X;2;001;  ;0;150;0", "*X;5;001;23;0;170;0"]
    events = feed(ss2(), lines)
    assert [e.previous for e in of(events, WheelRestart)] == [1]
    assert [(r.game, r.number) for r in of(events, WheelResult)] == [(1, 17), (1, 23)]


def test_torn_replies_do_not_answer_a_command() -> None:
    """A reply that lost bytes is unreadable when it cannot be the answer to the open command."""
    sent = [
        ("*P 1", "*P O"),
        ("*u 1", "*u K"),
        ("*o 1159", "*o BUS"),
        ("*O", "*O 6 1 60"),
        ("*T S", "*T s 14.0 17."),
        ("*T S", "*T 14.0 17.5"),
        ("*T h 60", "*T O"),
        ("*w", "*w 31.57"),
        ("*K", "*K CA"),
        ("*F", "*F BUS"),
        ("*F", "*F"),
        ("*d g", "*d 12:00"),
    ]
    for command, reply in sent:
        protocol = ss2()  # a torn reply leaves its command open: one wheel per case
        protocol.note_command(command, T0)
        events = protocol.feed_line(reply, T0 + timedelta(seconds=0.05))
        unreadable = of(events, UnreadableLine)
        assert len(events) == len(unreadable) == 1, (command, reply)
        assert unreadable[0].raw == reply and command in unreadable[0].reason
    # The command stays open: the whole reply, when it comes, still answers it.
    protocol = ss2()
    protocol.note_command("*P 1", T0)
    torn, whole = protocol.feed_line("*P O", T0), protocol.feed_line("*P OK", T0)
    assert isinstance(torn[0], UnreadableLine)
    assert [(e.command, e.status) for e in of(whole, CommandReply)] == [("P", "ok")]
    # After it was answered, a stray reply is passed on as it is (nothing to judge it against).
    assert [e.text for e in of(protocol.feed_line("*P O", T0), CommandReply)] == ["O"]


def test_whole_replies_answer_their_commands() -> None:
    protocol = ss2()
    cases = [
        ("*P 1", "*P NO", "no"),
        ("*P 0", "*P OK", "ok"),
        ("*u 3", "*u OK", "ok"),
        ("*o 1158", "*o BUSY", "busy"),
        ("*o 1159", "*o 1159", "value"),
        ("*O", "*O 6 1 60 1158", "value"),
        ("*T S", "*T s 14.0 17.50000", "value"),
        ("*Tr 23000 23000", "*T OK", "ok"),
        ("*T m 2", "*T m 2.0", "value"),
        ("*T z 37", "*Z OK", "ok"),
        ("*T t 4000", "T OK", "ok"),
        ("*w", "*w 31.57 54.2", "value"),
        ("*K", "*K CAM", "value"),
        ("*R", "*R OK", "ok"),
        ("*d g", "*d g 12:34:56 - 01/02/25", "value"),
        ("*d g", "*d g 12:34:56 \xe2\x80\x93 01/02/25", "value"),  # the guide's en dash, UTF-8 as Latin-1
        ("*d s 2 14", "*d OK", "ok"),
        ("*s t", "*s t 12", "value"),
        ("*V", "*V SS2 2.52", "value"),
        ("*C", "*C FAIL : Sensor(s) 2 Broken", "no"),
        ("* u1", "*  NO", "no"),
    ]
    for command, reply, status in cases:
        protocol.note_command(command, T0)
        events = protocol.feed_line(reply, T0 + timedelta(seconds=0.05))
        assert [(type(e), getattr(e, "status", None)) for e in events] == [(CommandReply, status)], command
    # An answer that comes after the reply window is not judged against the old command.
    protocol.note_command("*P 1", T0)
    late = protocol.feed_line("*P O", T0 + timedelta(seconds=11))
    assert [type(e) for e in late] == [CommandReply]


def test_rotor_speed_and_direction_events() -> None:
    lines = [
        "*X;2;007;24;0;162;1",
        "*X;2;007;24;0;163;1",  # 0.1 rpm jitter: no event
        "*X;2;007;24;0;089;1",  # slowing to the firing point
        "*X;2;007;24;0;000;1",  # stopped
        "*X;3;007;24;0;170;0",  # restarted the other way after the launch
        "*X;3;007;24;0;168;0",
    ]
    speeds = [(e.rpm, e.direction) for e in feed(ss2(), lines) if isinstance(e, WheelRotor)]
    assert speeds == [
        (Decimal("16.2"), "ccw"),
        (Decimal("8.9"), "ccw"),
        (Decimal("0"), "ccw"),
        (Decimal("17"), "cw"),
    ]


def test_a_corrupted_counter_neither_invents_nor_repeats_a_result() -> None:
    base = ["*X;4;012;24;0;171;0", "18", "*X;5;012;18;0;181;0", "*X;5;012;18;0;181;0"]
    for noise in ("*X;5;013;18;0;181;0", "*X;5;002;18;0;181;0", "*X;2;013;18;0;181;0", "*X;2;002;18;0;181;0"):
        protocol = ss2()
        events = feed(protocol, [*base, noise, "*X;5;012;18;0;181;0", "*X;5;012;18;0;180;0"])
        assert [(r.game, r.number) for r in of(events, WheelResult)] == [(12, 18)], noise
        # The next real game still gets its result.
        events = feed(protocol, ["*X;2;013;18;0;160;1", "*X;4;013;18;0;171;0", "*X;5;013; 7;0;181;0"])
        assert [(r.game, r.number) for r in of(events, WheelResult)] == [(13, 7)], noise


def test_a_result_whose_counter_moved_on_its_line_waits_for_the_next_line() -> None:
    # The link came back in state 5 of a game it never saw start: believed once the next line agrees.
    protocol = ss2()
    first = feed(protocol, ["*X;2;040;11;0;170;0", "*X;5;043;29;0;170;0"])
    assert of(first, WheelResult) == [] and [e.game for e in of(first, WheelGap)] == [43]
    (result,) = of(protocol.feed_line("*X;5;043;29;0;170;0", T0 + timedelta(seconds=5)), WheelResult)
    assert (result.game, result.number, result.time) == (43, 29, T0 + timedelta(seconds=0.5))
    # Not confirmed: the line is counted as unreadable, and no result comes of it.
    protocol = ss2()
    events = feed(protocol, ["*X;2;040;11;0;170;0", "*X;5;043;29;0;170;0", "*X;2;040;11;0;170;0"])
    assert of(events, WheelResult) == []
    assert [e.raw for e in of(events, UnreadableLine)] == ["*X;5;043;29;0;170;0"]


def test_a_lost_reply_does_not_make_the_next_commands_reply_look_torn() -> None:
    protocol = ss2()
    protocol.note_command("*T h 60", T0)  # its "*T OK" is lost on the line
    protocol.note_command("*T S", T0 + timedelta(seconds=1))
    events = protocol.feed_line("*T s 14.0 17.50000", T0 + timedelta(seconds=1.05))
    assert [(e.command, e.text) for e in of(events, CommandReply)] == [("T", "s 14.0 17.50000")]
    assert protocol.unreadable_count == 0
    assert protocol.answers("*T S", events[0]) and not protocol.answers("*T R", events[0])


def test_status_result_field_is_exactly_two_digits_or_space_digit() -> None:
    # Issue 13 item 7: "1 " (a digit then a space) was read as 1.
    assert isinstance(parse_status("*X;5;007;1 ;0;250;0"), str)
    assert "two digits" in str(parse_status("*X;5;007;1 ;0;250;0"))
    for bad in ("*X;5;007; 1a;0;250;0", "*X;5;007;x1;0;250;0", "*X;5;007;\u0661\u0662;0;250;0"):
        assert isinstance(parse_status(bad), str), bad
    for good, number in (("*X;5;007; 1;0;250;0", 1), ("*X;5;007;01;0;250;0", 1), ("*X;5;007;36;0;250;0", 36)):
        status = parse_status(good)
        assert not isinstance(status, str) and status.win == number
    events = feed(ss2(), ["*X;4;007;20;0;171;0", "*X;5;007;1 ;0;250;0"])
    assert of(events, WheelResult) == []


def test_a_log_page_holding_pocket_26_is_a_reply_not_a_torn_status_line() -> None:
    # Issue 26: pocket 26 is stored as ';' (0x21+26); the ';' check ran before the reply path.
    from hardware.protocol.ss2_log import LogEntry, decode_page, encode_page

    page = encode_page(4, [LogEntry("result", 26), LogEntry("result", 9), LogEntry("misfire", 4)])
    assert ";" in page and "*" in page[3:]
    protocol = ss2()
    protocol.note_command("*s r 4", T0)
    events = feed(protocol, [page])
    assert of(events, UnreadableLine) == []
    [reply] = of(events, CommandReply)
    assert reply.command == "s"
    decoded = decode_page(reply.text)
    assert not isinstance(decoded, str) and decoded.checksum_ok
    assert [e.to_json() for e in decoded.entries] == [{"result": 26}, {"result": 9}, {"misfire": 4}]


def test_a_second_different_result_under_a_reported_game_is_warned_of() -> None:
    from engine.wheel_events import RESULT_CONFLICT

    lines = ["*X;4;013;07;0;250;0", " 19", "*X;5;013;19;0;250;0", "*X;5;013;19;0;250;0"]
    events = feed(ss2(), [*lines, " 22", "*X;5;013;22;0;250;0", "*X;5;013;22;0;250;0"])
    assert [(e.game, e.number) for e in of(events, WheelResult)] == [(13, 19)]
    [conflict] = [e for e in of(events, WheelWarning) if RESULT_CONFLICT in (e.warnings or ())]
    assert conflict.game == 13 and conflict.advice == "game 013 reported 19, then 22"
    assert conflict.is_mismatch  # the table holds the round on it (the number is doubtful)


def test_calibration_without_a_ball_direction_is_a_failure() -> None:
    lines = [
        "*C OK : Calibrate Sensor Positions (Ball In Middle '0')",
        "*C BALL : No ball direction found",
        "*C BALL : OK Clockwise",
        "*C FAIL : Sensor(s) 2 Broken",
    ]
    protocol = ss2()
    protocol.note_command("*C", T0)
    statuses = [e.status for e in of(feed(protocol, lines), CommandReply)]
    assert statuses == ["ok", "no", "ok", "no"]
