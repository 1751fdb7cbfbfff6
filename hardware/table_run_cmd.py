"""`drr table run --headless`: the table service driven by a wheel, rounds played unattended.

Lives in hardware/ because it opens the wheel (engine/ may not); the game itself is the engine's
TableService and HeadlessTable, fed through hardware.table_bridge. Top-level imports stay light.

    drr table run --headless --wheel sim --speed 20 --rounds 10 --db table.sqlite --table T1

Prints one line per finished round and a final summary; exits 0. Restarted on the same store it
first rebuilds the table from the journal (an interrupted round is finished, not lost).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from hardware.link import WheelLink
    from hardware.replay import ReplayLink


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from engine.cli.store_args import add_signer
    from engine.config import add_settings_options

    table = sub.add_parser("table", help="the live table service")
    tsub = table.add_subparsers(dest="table_command", metavar="ACTION", required=True)
    run = tsub.add_parser("run", help="run the table service (headless: unattended rounds)")
    run.add_argument(
        "--headless", action="store_true", help="no screens: a synthetic croupier, pit boss and players"
    )
    add_settings_options(
        run,
        "db",
        "table",
        "wheel",
        "rules",
        help={
            "rules": "Rules Submission TOML, from the next round; without one the table keeps its journal's"
        },
    )
    run.add_argument(
        "--speed", type=_positive, default=1.0, metavar="X", help="virtual/replay wheel time factor"
    )
    run.add_argument(
        "--rounds",
        type=_count,
        default=10,
        metavar="N",
        help="rounds to complete (default 10; 0 = until stopped)",
    )
    run.add_argument(
        "--bonus",
        choices=("random", "preset"),
        default="random",
        help="bonus games: random picks and cash-outs, or let each round's timer apply the preset",
    )
    run.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="TESTS AND DEMOS ONLY: seed the game RNG, players and virtual wheel (journaled as seeded)",
    )
    add_signer(run, who="the pit boss (or admin) playing and approving the unattended rounds")
    run.set_defaults(func=run_table)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (until stopped) or more")
    return value


def run_table(args: argparse.Namespace) -> int:
    import asyncio

    from engine.errors import DrrError

    if not args.headless:
        raise DrrError("drr table run needs --headless (the croupier station is `drr gui`)", 2)
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace, *, clock: Callable[[], float] | None = None) -> int:
    """The run. `clock` (tests that step time themselves, seeded only): the table's and the virtual
    wheel's time, seconds since the epoch, which the journal's entries are stamped with too."""
    import asyncio
    import contextlib
    import sys
    from collections.abc import AsyncIterator
    from datetime import datetime

    from engine.config import bias_thresholds
    from engine.errors import DrrError
    from engine.rng import Rng, SeededRng, SystemRng
    from engine.rules_play import read_rules_text, rules_for_play, seeded_play_problem
    from engine.store.db import DEFAULT_TABLE, open_store
    from engine.table.headless import PITBOSS, HeadlessTable
    from engine.table.service import DEFAULT_APPROVAL_THRESHOLD, TableService
    from engine.wheel_events import WheelClosed, WheelEvent, WheelMissSpin
    from hardware.replay import ReplayLink
    from hardware.table_bridge import WheelDriver, table_events
    from hardware.wheel_session import WheelSession
    from hardware.wheel_source import commanded, open_wheel

    table = args.table or DEFAULT_TABLE
    rules_text = None
    if args.rules is not None:
        # Refused before the store is opened: only what `drr rules check` accepts is played (exit 2).
        rules_text = read_rules_text(args.rules)
        rules_for_play(rules_text, source=args.rules)
    settings = getattr(args, "settings", None)
    spec = settings.wheel_link_spec if settings is not None else (args.wheel or "sim")
    spec = spec or "sim"
    threshold = getattr(settings, "large_payout_threshold", DEFAULT_APPROVAL_THRESHOLD)
    # A commanded wheel spins when the table says: after the betting time, on the wheel's time scale.
    drives = commanded(spec, getattr(settings, "wheel_drive", "commanded"))
    betting = getattr(settings, "betting_seconds", 25.0) / args.speed if drives else None
    seeded = args.seed is not None
    rng: Rng = SeededRng(args.seed) if seeded else SystemRng()
    choices: Rng = SeededRng(f"players:{args.seed}") if seeded else SystemRng()

    store = open_store(args.db, table=table)
    try:
        problem = seeded_play_problem(store, table) if seeded else None
        if problem is not None:
            raise DrrError(problem, 2)
        croupier, pitboss = _sign_in(store, args, seeded)
    except BaseException:
        store.close()
        raise
    # A test's own clock stamps the entries too (the service allows it with a seeded generator only).
    stepped: dict[str, Any] = {} if clock is None else {"clock": clock, "stamp_with_clock": True}
    service = TableService(
        store,
        table,
        rules_text=rules_text,
        rng=rng,
        allow_seeded_rng=seeded,
        approval_threshold=threshold,
        station="headless",
        betting_seconds=betting,
        approved_digest=getattr(settings, "approved_digest", None),  # the gate refuses another program
        bias_thresholds=bias_thresholds(settings),  # the settings file's sequential bias thresholds
        **stepped,
    )
    background: set[asyncio.Task[Any]] = set()
    stopped = False

    async def send(link: WheelLink, command: str) -> None:
        with contextlib.suppress(DrrError):  # a replayed capture cannot answer
            await link.command(command, timeout=2)

    async def events(link: WheelLink) -> AsyncIterator[WheelEvent]:
        async for ev in table_events(link):
            command = None
            if isinstance(ev, WheelMissSpin):  # the wheel waits for the host's *R before relaunching
                command = "*R"
            elif isinstance(ev, WheelClosed) and spec.startswith("sim"):
                command = "*P 1"  # unattended: power the virtual wheel up again after a fault
            if command is not None:
                task = asyncio.create_task(send(link, command))
                background.add(task)
                task.add_done_callback(background.discard)
            yield ev

    import signal

    main_task = asyncio.current_task()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows' event loop
        if main_task is not None:
            # SIGTERM (a service manager stopping the soak run): the same orderly end as Ctrl-C.
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    try:
        await service.start(**({"user": pitboss.name} if pitboss is not PITBOSS else {}))
        if service.recovery is not None and service.recovery.entries:
            print(service.recovery.describe(), flush=True)
        for warning in service.warnings:
            print(f"drr: {warning}", file=sys.stderr, flush=True)
        headless = HeadlessTable(
            service,
            rounds=args.rounds,
            choices=choices,
            bonus_policy=args.bonus,
            croupier=croupier,
            pitboss=pitboss,
            on_round=lambda summary: print(summary.line(), flush=True),
        )
        # From the settings: the wheel's protocol, and a real wheel's every line to the capture folder.
        capture = (
            settings.effective_capture_dir if settings is not None and spec.startswith("serial:") else None
        )
        protocol = settings.wheel_protocol if settings is not None else "ss2"
        timing: dict[str, Any] = {} if clock is None else {"clock": clock}
        wheel = open_wheel(
            spec, speed=args.speed, seed=args.seed, capture_dir=capture, protocol=protocol, **timing
        )
        async with wheel as link:
            # Beside the play, as the croupier station does (hardware.wheel_session): the wheel's
            # identity once the link is up (a port may be late), its clock again every
            # wheel.clock_check_minutes, its own log at the close; the close's outcome printed.
            session = WheelSession(
                link,
                service.wheel_event,
                spec=spec,
                protocol=protocol,
                clock_every_s=_clock_every(settings),
                say=lambda text: print(text, flush=True),
                warn=lambda text: print(f"drr: {text}", file=sys.stderr, flush=True),
                note=lambda _text: None,  # stdout: one line per round, the close, the summary
            )
            if clock is not None:
                session.now = lambda: datetime.fromtimestamp(clock())  # the PC's local time, on `clock`
            session.start()
            alternate = getattr(settings, "alarm_alternate", True)  # the rotor reverses every game
            driver = WheelDriver(service, link, alternate=alternate) if drives else None
            if driver is not None:
                driver.attach()
            if isinstance(link, ReplayLink):  # a capture ends: so does the run
                task = asyncio.create_task(_close_when_finished(link))
                background.add(task)
            if spec.startswith("serial:"):  # a cable can be missing or pulled: say so, not only in the log
                background.add(asyncio.create_task(_report_link(link, spec)))
            try:
                totals = await headless.run(events(link))
            except asyncio.CancelledError:  # SIGTERM: stop after the last durable step
                if main_task is not None:
                    main_task.uncancel()
                stopped, totals = True, headless.totals
            finally:
                if driver is not None:
                    await driver.close()
            try:
                if getattr(settings, "wheel_reconcile_at_close", True):
                    who = pitboss if getattr(pitboss, "name", None) else None
                    in_play = service.state.round_id if service.state.in_play else None
                    await session.close(store, table, who, in_play=in_play)
            finally:
                await session.stop()
    finally:
        for task in background:
            task.cancel()
        await service.close()
        store.close()
    done = totals.settled + totals.voided
    if stopped:
        print(f"stopped after {done} rounds", flush=True)
    elif done < args.rounds:
        print(f"the wheel's events ended after {done} of {args.rounds} rounds", flush=True)
    print(totals.line(), flush=True)
    return 0


def _sign_in(store: Any, args: argparse.Namespace, seeded: bool) -> tuple[Any, Any]:
    """Who plays the unattended rounds: on a store that has users a signed-in pit boss or admin
    (croupier and pit boss both; a seeded generator refused); else the synthetic headless users."""
    from engine.cli.store_args import sign_in_if_users
    from engine.errors import DrrError
    from engine.store.users import list_users
    from engine.table.headless import CROUPIER, PITBOSS

    if not list_users(store):
        return CROUPIER, PITBOSS
    if seeded:
        raise DrrError(
            "--seed is refused on a store that has users: a seeded generator is for tests and demos only"
        )
    # The sign-in goes to the floor journal; the table's own journal names the user from table.started.
    user = sign_in_if_users(store, args, "approve_payout", doing="drr table run --headless")
    return user, user


def _clock_every(settings: Any) -> float | None:
    """Seconds between the wheel's clock re-reads (settings' wheel.clock_check_minutes; 0: none)."""
    minutes = getattr(settings, "wheel_clock_check_minutes", 60)
    return minutes * 60.0 if minutes else None


async def _close_when_finished(link: ReplayLink) -> None:
    import asyncio

    await link.finished.wait()
    await asyncio.sleep(0.2)  # let the last events reach the table first
    await link.close()


async def _report_link(link: WheelLink, spec: str, *, grace: float = 3.0) -> None:
    """Tell the person at the terminal when the wheel is not connected (the link keeps retrying on
    its own) and when it is back; a port that never opens otherwise shows nothing at all."""
    import asyncio
    import sys

    await asyncio.sleep(grace)
    shown = True
    while True:
        if link.connected != shown:
            shown = link.connected
            # The link's reason (permission denied, busy, absent, lost) says what to do; the cable is
            # only the guess when it has none.
            why = link.health.detail or "check the cable and the port"
            state = "connected" if shown else f"not connected (retrying; {why})"
            print(f"drr: the wheel on {spec} is {state}", file=sys.stderr, flush=True)
        await asyncio.sleep(1.0)
