"""`drr wheel …`: simulate a wheel, replay a capture, decode a capture, list serial ports.

Top-level imports stay light (argparse, stdlib); each handler imports what it needs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime

    from hardware.protocol.ss2_log import WheelLog
    from hardware.virtual_wheel import VirtualWheel


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    wheel = sub.add_parser("wheel", help="wheel sensor: simulate, replay, decode, log, ports")
    wsub = wheel.add_subparsers(dest="wheel_command", metavar="WHEEL_COMMAND", required=True)

    sim = wsub.add_parser("simulate", help="run a virtual SS2 wheel (on a pseudo-terminal or in-process)")
    sim.add_argument(
        "--pty", action="store_true", help="serve on a pseudo-terminal and print its device path"
    )
    sim.add_argument("--link", metavar="PATH", help="with --pty: also make PATH a symlink to the device")
    sim.add_argument("--speed", type=_speed, default=1.0, metavar="X", help="time factor (2 = twice as fast)")
    sim.add_argument(
        "--faults",
        default="",
        metavar="LIST",
        help="comma list: torn[=P], launch, miss, noball, fault, silence[=S], stuck, drift, clock[=S], "
        "slow[=S]; KIND@N: game N",
    )
    sim.add_argument("--seed", type=int, help="seed the results (tests only; default: OS CSPRNG)")
    sim.add_argument(
        "--mode", type=int, default=1157, help="operating mode *o (1157 arcade, 1159 host starts)"
    )
    sim.add_argument("--games", type=int, default=0, help="stop after this many results (0 = run forever)")
    sim.set_defaults(func=run_simulate)

    rep = wsub.add_parser("replay", help="play a capture file to a pseudo-terminal or decode it live")
    rep.add_argument("capture", metavar="CAPTURE")
    rep.add_argument(
        "--speed", type=_speed, default=1.0, metavar="X", help="time factor (0 = as fast as possible)"
    )
    rep.add_argument("--pty", action="store_true", help="write the RX lines into a pseudo-terminal")
    rep.add_argument("--link", metavar="PATH", help="with --pty: also make PATH a symlink to the device")
    rep.add_argument(
        "--delay",
        type=_speed,
        default=0.2,
        metavar="S",
        help="with --pty: playback waits for a client to open the device, then S seconds more (0.2)",
    )
    rep.set_defaults(func=run_replay)

    dec = wsub.add_parser("decode", help="decode a capture file into wheel events")
    dec.add_argument("file", metavar="FILE")
    dec.add_argument("--protocol", default="ss2", help="wheel protocol (ss2, plain)")
    dec.add_argument("--json", action="store_true", help="one JSON object per event")
    dec.add_argument("--results", action="store_true", help="only game results, one JSON line each")
    dec.set_defaults(func=run_decode)

    wlog = wsub.add_parser("log", help="the wheel's own record: log pages, wins and misfires per pocket")
    wlog.add_argument("capture", metavar="CAPTURE", nargs="?", help="a capture file holding the replies")
    wlog.add_argument("--wheel", metavar="serial:PORT", help="ask a wheel in state 6 itself instead")
    wlog.add_argument("--json", action="store_true", help="the log as one JSON object")
    wlog.set_defaults(func=run_log)

    rec = wsub.add_parser("reconcile", help="the wheel's own log held against the table's journal")
    from engine.cli.store_args import add_db, add_table

    add_db(rec)
    add_table(rec, required=True)
    src = rec.add_mutually_exclusive_group(required=True)
    src.add_argument("--log", metavar="CAPTURE", help="a capture file holding the wheel's log replies")
    src.add_argument("--wheel", metavar="serial:PORT", help="ask a wheel in state 6 itself")
    rec.add_argument("--since", metavar="TIME", type=_iso_time, help="only the journal's games from TIME on")
    rec.add_argument("--json", action="store_true")
    from engine.cli.store_args import add_signer

    add_signer(rec, who="who reconciles (journaled with the reconciliation)")
    rec.set_defaults(func=run_reconcile)

    ports = wsub.add_parser("ports", help="list serial ports")
    ports.add_argument("--json", action="store_true")
    ports.set_defaults(func=run_ports)


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"speed {text!r} is not a number") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"speed {text!r} must be a finite number >= 0")
    return value


def run_decode(args: argparse.Namespace) -> int:
    import logging

    from engine.wheel_events import WheelResult
    from hardware.decode import DecodeSummary, decode_capture
    from hardware.events import UnreadableLine, describe, event_json
    from hardware.protocol import get_protocol

    # Unreadable lines are data here: summarised below, not logged one by one.
    logging.getLogger("hardware.protocol").setLevel(logging.ERROR)
    protocol = get_protocol(args.protocol)
    summary = DecodeSummary()
    reasons: dict[str, int] = {}
    out = sys.stdout
    try:
        for event in decode_capture(args.file, protocol, summary):
            if isinstance(event, UnreadableLine):
                reasons[event.reason] = reasons.get(event.reason, 0) + 1
            if args.results:
                if isinstance(event, WheelResult):
                    out.write(json.dumps(event.result_line()) + "\n")
            elif args.json:
                out.write(json.dumps(event_json(event)) + "\n")
            else:
                out.write(describe(event) + "\n")
    except BrokenPipeError:  # `drr wheel decode … | head` is normal use
        _quiet_stdout()
        return 0
    bad = protocol.unreadable_count
    print(
        f"{args.file}: {summary.lines} lines, {bad} unreadable (skipped), "
        f"{len(summary.malformed)} not in capture format",
        file=sys.stderr,
    )
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        print(f"  {count:6d}  {reason}", file=sys.stderr)
    for lineno, text, reason in summary.malformed[:10]:
        print(f"  line {lineno}: {reason}: {text[:80]!r}", file=sys.stderr)
    return 0


def run_log(args: argparse.Namespace) -> int:
    """`drr wheel log CAPTURE [--json]` / `--wheel serial:PORT`: the wheel's record (issue 26)."""
    from engine.errors import DrrError
    from hardware.capture import read_capture
    from hardware.protocol.ss2_log import WheelLog

    if (args.capture is None) == (args.wheel is None):
        raise DrrError("give a capture file or --wheel serial:PORT (one of them)", 2)
    if args.capture is not None:
        record = WheelLog()
        for line in read_capture(args.capture):
            if line.direction == "RX":
                record.feed(line.raw)
    else:
        record = _ask_log(args.wheel)
    if args.json:
        print(json.dumps(record.to_json()))
    else:
        print(_describe_log(record))
    for text, why in record.unreadable:
        print(f"unreadable log page: {why}: {text[:40]!r}", file=sys.stderr)
    return 0


def _iso_time(text: str) -> datetime:
    from datetime import datetime

    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"time {text!r} is not ISO 8601") from None


def run_reconcile(args: argparse.Namespace) -> int:
    """`drr wheel reconcile`: journaled as `wheel.reconciled`; exit 1 when anything differs (issue 26)."""
    from engine.cli.store_args import open_from_args, sign_in_if_users
    from hardware.capture import read_capture
    from hardware.protocol.ss2_log import WheelLog
    from hardware.wheel_reconcile import reconcile_table

    if args.log is not None:
        record = WheelLog()
        for line in read_capture(args.log):
            if line.direction == "RX":
                record.feed(line.raw)
        source = f"capture {args.log}"
    else:
        record = _ask_log(args.wheel)
        source = args.wheel
    with open_from_args(args) as store:
        user = sign_in_if_users(store, args, "view_stats", doing="drr wheel reconcile")
        entry = reconcile_table(
            store, args.only_table, record, source=source, occasion="on demand", since=args.since, user=user
        )
    figures = entry.figures()
    if args.json:
        print(json.dumps(figures))
    else:
        print(entry.summary())
        for row in figures["differ"]:
            print(
                f"  game {row['game']:03d} (round {row['round_id']}): "
                f"journal {row['journal']}, wheel {row['wheel']}"
            )
        for row in figures["wheel_only"]:
            print(f"  game {row['game']:03d}: only in the wheel's log ({row['wheel']})")
        for row in figures["journal_only"]:
            print(
                f"  game {row['game']:03d} (round {row['round_id']}): only in the journal ({row['journal']})"
            )
    return 1 if entry.differs else 0


def _ask_log(spec: str) -> WheelLog:
    import asyncio

    from engine.errors import DrrError
    from hardware.wheel_log import ask_wheel_log
    from hardware.wheel_source import open_wheel

    if not spec.startswith(("serial:", "sim")):
        raise DrrError(f"--wheel {spec!r}: use serial:PORT", 2)

    async def go() -> WheelLog:
        link = open_wheel(spec)
        async with link:
            for _ in range(50):  # the wheel says nothing for its first moments (guide § 1)
                if link.connected:
                    break
                await asyncio.sleep(0.1)
            return await ask_wheel_log(link)

    return asyncio.run(go())


def _describe_log(record: WheelLog) -> str:
    lines = [f"pages used: {record.pages_used if record.pages_used is not None else 'not read'}"]
    for k in sorted(record.pages):
        page = record.pages[k]
        if not page.checksum_ok:
            lines.append(f"page {k}: NOT TRUSTED ({page.problem}); its entries are not used")
            continue
        results = [str(e.pocket) for e in page.entries if e.kind == "result"]
        misfires = [str(e.pocket) for e in page.entries if e.kind == "misfire"]
        lines.append(f"page {k}: {len(results)} results, {len(misfires)} misfires")
        lines.append("  results: " + " ".join(results))
        if misfires:
            lines.append("  misfires in pockets: " + " ".join(misfires))
    for name, counts in (("wins", record.wins), ("misfires", record.misfires)):
        if counts is None:
            lines.append(f"{name} per pocket: not read")
        else:
            lines.append(f"{name} per pocket (0 first), total {sum(counts)}: " + " ".join(map(str, counts)))
    return "\n".join(lines)


def run_ports(args: argparse.Namespace) -> int:
    from hardware.serial_link import list_ports

    ports = list_ports()
    if args.json:
        print(json.dumps(ports))
    elif not ports:
        print("no serial ports found", file=sys.stderr)
    for port in [] if args.json else ports:
        print(f"{port['device']:20s} {port['description']}  {port['hwid']}")
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    import asyncio

    from hardware.virtual_wheel import FaultPlan, VirtualWheel, serve_on_pty

    faults = FaultPlan.parse(args.faults)
    wheel = VirtualWheel(speed=args.speed, faults=faults, seed=args.seed, mode=args.mode)
    if args.pty:
        return asyncio.run(serve_on_pty(wheel, link=args.link, games=args.games))
    try:
        return asyncio.run(_print_sim(wheel, args.games))
    except BrokenPipeError:  # `drr wheel simulate | head` is normal use
        _quiet_stdout()
        return 0


def _quiet_stdout() -> None:
    """After the reader of stdout went away, keep Python from failing again at exit."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


async def _print_sim(wheel: VirtualWheel, games: int) -> int:
    async for line in wheel.lines():
        print(line, flush=True)
        if games and wheel.results_played >= games and line.startswith("*X;2"):
            return 0
    return 0


def run_replay(args: argparse.Namespace) -> int:
    import asyncio

    from hardware.replay import replay_print, replay_to_pty

    if args.pty:
        return asyncio.run(replay_to_pty(args.capture, speed=args.speed, link=args.link, delay=args.delay))
    try:
        return asyncio.run(replay_print(args.capture, speed=args.speed))
    except BrokenPipeError:
        _quiet_stdout()
        return 0
