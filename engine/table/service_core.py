"""The table service's core: its state, lifecycle, subscribers, the write path, the guards, the steps
several commands share, the timers and the round's clock (engine.table.service puts it together with
the command mixins: round_commands, hold_commands, bonus_commands, wheel_commands)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Final

import sqlalchemy as sa

from engine.bonus_game import box_key
from engine.entry_types import EntryType
from engine.errors import DrrError, IllegalTransition
from engine.journal_types import Payload, write
from engine.rng import HealthFailure, HealthTestedRng, Rng, SystemRng, require_production
from engine.round import (
    BonusStarted,
    Phase,
    ResultCorrected,
    ResultRecorded,
    RoundState,
    apply,
    bonus_needed,
    close_bets,
)
from engine.rules import RulesSubmission, default_rules_path
from engine.rules_play import rules_for_play, seeded_play_problem
from engine.sequential import DEFAULT_THRESHOLDS, Thresholds
from engine.settlement import RoundSettlement
from engine.software_id import running_digest
from engine.store import schema
from engine.store.canonical import RFC8785
from engine.store.database import WalLost
from engine.store.db import Store, check_table_id
from engine.store.evidence import check_for_start, derived_alert, derived_at_start
from engine.store.evidence import started as evidence_started
from engine.store.floor_witness import check_against_floor
from engine.store.journal import Journal
from engine.store.records import Entry, row_to_entry
from engine.table import gate_actions, wheel_drive
from engine.table.bias_watch import BiasWatch
from engine.table.changes import Changes
from engine.table.derived_watch import DerivedVerdict, DerivedWatch
from engine.table.gate import Gate, Play
from engine.table.holds import WHAT
from engine.table.read_model import ReadModel
from engine.table.recovery import RecoveryReport, recover
from engine.table.round_clock import RoundTimer
from engine.table.state import TableState
from engine.table.thresholds import approval_threshold
from engine.table.view import TableView
from engine.table_events import (
    TILT_DERIVED,
    TILT_RNG,
    RngFault,
    RulesLoaded,
    TableStarted,
    TiltCleared,
    Tilted,
    TimerRestarted,
    WheelStartOrdered,
)
from engine.wheel_events import (
    RESULT_MISMATCH,
    Direction,
)

log = logging.getLogger("drr.table")

DEFAULT_APPROVAL_THRESHOLD: Final = Decimal("10000")
# The hold a number line / status line disagreement puts on the round: only a manual result, a
# no-spin or a void ends it (a pit boss's plain acknowledgement does not).
MISMATCH_HOLD: Final = RESULT_MISMATCH
WHEEL_USER: Final = "wheel"
ROTOR_JOURNAL_S: Final = 10.0  # a rotor reading is journaled at most this often (and on a direction change)
TIMER_USER: Final = "timer"
_SETTLED: Final = EntryType.ROUND_SETTLED.value
SYSTEM_USER: Final = "system"
# How often the service looks for entries another writer appended to its chain (a pit boss's action
# taken in from the floor by the forwarder, `drr pitboss resolve` against this store): one head read.
OTHER_WRITERS_EVERY_S: Final = 1.0
# How long a close waits for the derived check's thread to give up its fold (engine.table.derived_watch):
# well inside a station's stop budget (gui.stopping: forced exit after 4 s).
CHECK_STOP_WAIT_S: Final = 1.0
# Test hook for the crash tests: "N:SECONDS" pauses inside the N-th journal transaction of this process
# (after the rows are written, before the commit) and says so on stderr, so a test can SIGKILL there.
# A stray variable on a table PC must not stall the game: the hook is ignored unless TEST_HOOKS_ENV is
# "1" as well (only the test suite sets both), and a malformed value is ignored with a warning.
PAUSE_ENV: Final = "DRR_TABLE_PAUSE_IN_TXN"
TEST_HOOKS_ENV: Final = "DRR_TEST_HOOKS"

Subscriber = Callable[[Entry], Awaitable[None] | None]
BatchSubscriber = Callable[[list[Entry], Changes, TableView], Awaitable[None] | None]
Step = tuple[Payload, str | None]  # an entry to journal: its payload (engine.journal_types) and round id


@dataclass(frozen=True)
class Approval:
    """What a settlement needs before it may be paid: the wagers paying at or above the threshold."""

    wager_ids: tuple[str, ...]
    total: Decimal


def _pause_plan() -> tuple[int, float] | None:
    raw = os.environ.get(PAUSE_ENV)
    if not raw or os.environ.get(TEST_HOOKS_ENV) != "1":
        return None
    n, _, seconds = raw.partition(":")
    try:
        plan = int(n), float(seconds or "30")
    except ValueError:
        plan = (0, 0.0)
    if plan[0] < 1 or not 0 <= plan[1] <= 600:
        log.warning("%s=%r ignored: expected N:SECONDS (N >= 1, SECONDS <= 600)", PAUSE_ENV, raw)
        return None
    return plan


class ServiceCore:
    """One table's live game without its commands (engine.table.service.TableService adds them)."""

    def __init__(
        self,
        store: Store,
        table: str,
        *,
        rules_text: bytes | None = None,
        rng: Rng | None = None,
        allow_seeded_rng: bool = False,
        clock: Callable[[], float] = time.time,
        approval_threshold: Decimal = DEFAULT_APPROVAL_THRESHOLD,
        station: str = "table-service",
        claim: bool = True,
        stamp_with_clock: bool = False,
        betting_seconds: float | None = None,
        auto_confirm_seconds: float | None = None,
        approved_digest: str | None = None,
        bias_thresholds: Thresholds | None = None,
    ) -> None:
        self.store = store
        self.table = check_table_id(table)
        # The sequential bias tests of this table's spins (engine.sequential), fed at every settlement.
        self.bias_watch = BiasWatch(self.table, bias_thresholds or DEFAULT_THRESHOLDS)
        self.journal = Journal(store)
        # Every draw goes through the continuous health tests (NIST SP 800-90B § 4.4): a failure
        # journals rng.fault and the table refuses to draw until it is restarted.
        self.rng: HealthTestedRng = HealthTestedRng(rng if rng is not None else SystemRng())
        # The one gate for what may be played (engine.table.gate): tilts (an RNG fault, software not
        # approved) and the rules-play hook; the digest the settings file approves for this table.
        self.gate = Gate()
        self.approved_digest = approved_digest
        if not allow_seeded_rng:
            require_production(self.rng)
        self._rng_fault_journaled = False
        self.clock = clock
        # Entries are stamped by the journal at writing; a demo floor replaying a past shift on its own
        # clock stamps them with `clock` (with a seeded generator only: never at a real table).
        if stamp_with_clock and not allow_seeded_rng:
            raise DrrError("entries stamped with the service's clock are for demos (a seeded generator) only")
        self._stamp_with_clock = stamp_with_clock
        # The one-writer claim is what keeps a second station off the same chain; skipping it is for
        # demos and tests on their own scratch store (a seeded generator), never at a real table.
        if not claim and not allow_seeded_rng:
            raise DrrError(
                f"table {table}: a table service without the one-writer claim is for demos and tests "
                "(a seeded generator on a scratch store) only"
            )
        self.approval_threshold = approval_threshold
        self._station_threshold = approval_threshold  # when the stored large_payout is refused
        self.warnings: list[str] = []  # one-line notices found at start (engine.table.thresholds)
        self.station = station
        self._claim_wanted = claim
        self._claim: Any = None
        self._rules_text = rules_text
        self.state = TableState(table, self.rng, clock)
        self._lock = _CatchUpLock(self)
        self._subscribers: list[Subscriber] = []
        self._batch_subscribers: list[BatchSubscriber] = []
        self._read = ReadModel(self)  # the screens' view, built once per batch with a subscriber
        self._timers: dict[str, tuple[tuple[int, float | None], asyncio.Task[None]]] = {}
        self._direction: Direction | None = None  # the rotor's last direction, journaled with the result
        self._rpm: Decimal | None = None  # the rotor's last speed while turning, journaled with the result
        self._wheel_game_at_open: int | None = None  # the wheel's game while its last state is "started"
        self._round_settings: dict[str, str] | None = None  # the pit boss's settings as the round opened
        self._rotor_logged: tuple[float, str | None] | None = None  # (clock, direction) of the last journaled
        self._writes = 0
        # the store's change mark when the state last held the whole chain (Database.change_mark)
        self._seen_mark: tuple[int, int, int] | None = None
        self._pause = _pause_plan()
        self._started = False
        self._failed: str | None = None
        self.recovery: RecoveryReport | None = None  # what start() found in the journal
        # The round's clock (engine.table.wheel_drive): betting time with a commanded wheel (None: the
        # wheel runs on its own, no countdown, no start orders), auto-confirmation of a clean result
        # (None: only a person confirms). A pit boss's table settings of the same names win at open_bets.
        for what, value in (("betting", betting_seconds), ("auto-confirm", auto_confirm_seconds)):
            if value is not None and not 0 <= value <= 600:
                raise DrrError(f"the {what} time must be 0..600 seconds, not {value}")
        self.betting_seconds = betting_seconds
        self.auto_confirm_seconds = auto_confirm_seconds
        # The pending result the croupier is looking at in a dialog (a dispute, a manual result): its
        # journal seq, or None. Service memory, not a journal fact: while it stands the result does
        # not confirm itself; HoldCommands.resume_confirmation journals a fresh countdown.
        self._review: int | None = None
        self._in_flight = wheel_drive.InFlight()  # the game the wheel had launched, as last heard
        self._before_open: int | None = None  # ... when bets opened: its messages are not the round's
        self._round_timer = RoundTimer(self._clock_due, self.tick_clock, clock)
        self._others_handle: asyncio.TimerHandle | None = None  # the next look for other writers
        # The take-in under way: held here, as the loop keeps only a weak reference to a task (one
        # unreferenced could be collected mid-step), and awaited by close().
        self._taking_in: asyncio.Task[None] | None = None
        self._bias_warm: asyncio.Task[None] | None = None  # the bias watch's replay of a long history
        # The start's check of a long journal's derived tables, on a read snapshot while the table
        # deals (engine.table.derived_watch), and the journaling of its verdict on the loop.
        self.derived_watch: DerivedWatch | None = None
        self._derived_follow: asyncio.Task[list[Entry]] | None = None

    def _check_head(self, last_seq: int) -> None:
        """The chain's head row must name the journal's last entry: a missing or stale row (the
        store edited outside the table) would make the next entry reuse a number."""
        head = self.journal.head(self.table)
        head_seq = head[0] if head is not None else 0
        if head_seq != last_seq:
            said = (
                f"its chain head says entry {head_seq}"
                if head is not None
                else "its chain head row is missing"
            )
            raise DrrError(
                f"the journal of table {self.table} ends at entry {last_seq} but {said}: the store was "
                "changed outside the table; not started (check it with drr audit verify)"
            )

    async def start(self, *, user: str = SYSTEM_USER) -> list[Entry]:
        """Claim the table, rebuild the state from the journal, note the start and the rules, restart
        the countdown of any bonus game left waiting (see engine.table.recovery)."""
        if self._started:
            raise IllegalTransition("the table service is already started")
        if self._claim_wanted:
            self._claim = self.store.claim(self.table, self.station)
        try:
            # The whole chain is verified against the table's key before anything is folded or written:
            # a table does not play on (or extend) a journal that fails (engine.store.evidence).
            key = check_for_start(self.store, self.table)
            # ... and against the floor's signed heads of it: a rollback of store and witness together
            floor_note = check_against_floor(self.store, self.table, key)
            if floor_note is not None:
                log.warning("%s", floor_note)
                self.warnings.append(floor_note)
            # the bonus boxes' seal (engine.bonus_game.BoxSeal): a key of the table's own
            self.state.box_key = box_key(key.mac_key)
            self.state.box_keys_retired = tuple(box_key(bytes.fromhex(m)) for _, m in reversed(key.retired))
            report = self.recovery = recover(self.state, self.journal)
            self._check_head(report.last_seq)
            # A short journal's derived tables were folded again by check_for_start (a disagreement
            # refused the start); a long one's are checked on a snapshot once the table deals.
            derived_checked = derived_at_start(report.last_seq)
            _, refused = approval_threshold(self.state.settings, self._station_threshold, table=self.table)
            if refused is not None:
                log.warning("%s", refused)
                self.warnings.append(refused)
            # Without a Rules Submission given, the journal's latest one stays (a pit boss may have
            # loaded it); only a table with none yet gets the shipped one.
            text = self._rules_text
            if text is None and self.state.latest_rules is None:
                text = default_rules_path().read_bytes()
            # Only what `drr rules check` accepts is played (engine.rules_play): its lines, exit 2.
            rules = rules_for_play(text, source="the Rules Submission") if text is not None else None
            if not self.rng.production_safe:  # a seeded generator: a demo's or a test's store only
                seeded = seeded_play_problem(self.store, self.table)
                if seeded is not None:
                    raise DrrError(seeded, 2)
            software = running_digest()
            # Before the first draw of this start: the generator's start-up test (NIST SP 800-90B
            # § 4.3) and the running software against the approved digest (engine.table.gate_actions).
            checks = gate_actions.start_steps(
                self.rng, software, self.approved_digest, gate_actions.last_software(self.store, self.table)
            )
            self._rng_fault_journaled = not checks.startup.passed
            events: list[Payload] = [
                TableStarted(
                    station=self.station,
                    pid=os.getpid(),
                    rng=self.rng.name,
                    recovered_to=report.last_seq,
                    round_in_play=report.round_id,
                    phase=report.phase,
                    software=software,
                    key=key.public,
                    large_payout=str(self.approval_threshold),  # the pit boss's settings tab shows it
                    betting_seconds=_clock_text(self.betting_seconds),  # ... and these two
                    auto_confirm_seconds=_clock_text(self.auto_confirm_seconds),
                    canonical=RFC8785,  # this chain's entries are RFC 8785 text from here on
                ),
                *checks.steps,
            ]
            if rules is not None and text is not None and self.state.latest_rules != rules.sha256:
                events.append(_rules_loaded(rules, text))
            for player, game in self.state.games.items():
                if game.time_left() is not None:
                    deadline = self.clock() + game.timer_seconds
                    events.append(TimerRestarted(player, game.round, deadline))
            if derived_checked and TILT_DERIVED in self.state.tilts:
                events.append(_derived_agree(report.last_seq))
            confirm = self.state.drive.confirm
            if confirm is not None and self.state.pending_result is not None and self.state.hold is None:
                # The croupier gets the whole countdown again to dispute it (like a bonus game's).
                events.append(replace(confirm, deadline=self.clock() + confirm.seconds))
            entries = self._commit(user, [(p, self.state.round_id) for p in events])
            evidence_started(self.store, self.table)
        except BaseException:
            self._release()
            raise
        self._started = True
        await self._publish(entries)
        self._schedule_timers()
        self._look_later(asyncio.get_running_loop())
        # The bias watch's replay of the history, before a settlement needs it (engine.table.bias_watch).
        self._bias_warm = self.bias_watch.warm_up(self.store, self._bias_caught_up)
        if not derived_checked:
            loop = asyncio.get_running_loop()
            self.derived_watch = DerivedWatch(self.store, self.table, loop, self._derived_verdict)
            self.derived_watch.start()
        return entries

    async def derived_checked(self) -> DerivedVerdict | None:
        """Wait until the start's check of a long journal's derived tables has ended and what it found
        is journaled; its verdict (None: no such check at this start, or it was stopped)."""
        watch = self.derived_watch
        if watch is None:
            return None
        while watch.running:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0)  # the thread's hand-over, queued on the loop before it ended
        follow = self._derived_follow
        if follow is not None:
            await follow
        return watch.verdict

    def _derived_verdict(self, verdict: DerivedVerdict) -> None:
        """On the loop: the derived check of a long journal ended (engine.table.derived_watch)."""
        if not self._started:
            return
        if verdict.error is not None:  # not checked (the store unreachable): nothing said of the rows
            note = f"table {self.table}: the derived tables could not be checked: {verdict.error}"
            log.warning("%s", note)
            self.warnings.append(note)
            return
        log.info("table %s: derived tables checked on a snapshot in %.1f s", self.table, verdict.seconds)
        loop = asyncio.get_running_loop()
        self._derived_follow = loop.create_task(self._follow_derived(verdict), name=f"derived-{self.table}")

    async def _follow_derived(self, verdict: DerivedVerdict) -> list[Entry]:
        """Journal what the check found: a disagreement tilts the table (the gate refuses play, the
        reason in words) with a critical alert on the store's floor chain; an agreement clears a derived
        tilt an earlier start journaled. Nothing when the table stopped meanwhile."""
        async with self._lock:
            if not self._started or self._failed is not None:
                return []
            tilt = self.state.tilts.get(TILT_DERIVED)
            if verdict.problem is not None:
                reason = (
                    f"{verdict.problem}: the derived tables (history, reports) disagree with the verified "
                    f"journal. Keep a copy of {self.store.where} as evidence, then "
                    f"`drr db rebuild --db PATH --table {self.table}` recomputes them from the journal"
                )
                log.critical("table %s tilted: %s", self.table, reason)
                derived_alert(self.store, self.table, verdict.problem)
                if tilt is not None and tilt.reason == reason:
                    return []  # still tilted for the same difference (an earlier start's)
                step: Payload = Tilted(TILT_DERIVED, reason)
            elif tilt is not None:
                step = _derived_agree(self.state.last_seq)
            else:
                return []
            return await self._run(SYSTEM_USER, [(step, self.state.round_id)])

    async def _bias_caught_up(self) -> None:
        """The start's replay of the bias watch ended in its worker thread: what settled meanwhile fed."""
        async with self._lock:
            await self._publish(self._watch_bias(None))

    def _look_later(self, loop: asyncio.AbstractEventLoop) -> None:
        self._others_handle = loop.call_later(OTHER_WRITERS_EVERY_S, self._look_for_other_writers, loop)

    def _look_for_other_writers(self, loop: asyncio.AbstractEventLoop) -> None:
        """Fold and publish, within a second, what another writer appended to this chain, so a pit
        boss's approval or void from the floor reaches the croupier's screen without waiting for the
        croupier's next command (the command lock catches up on entry: _CatchUpLock). A timer
        callback, not a task that sleeps: nothing waits on the loop between looks."""
        if not self._started:
            return
        self._look_later(loop)
        if self._failed is not None or self._lock.busy:
            return  # a command under way catches up itself
        try:
            head = self.journal.head(self.table)
        except DrrError as exc:  # the store unreachable a moment: the next command says so
            log.debug("looking for other writers on table %s: %s", self.table, exc.message)
            return
        idle = self._taking_in is None or self._taking_in.done()
        if head is not None and head[0] > self.state.last_seq and idle:
            self._taking_in = loop.create_task(self._take_in(), name=f"other-writers-{self.table}")

    async def _take_in(self) -> None:
        with contextlib.suppress(DrrError):  # a failed table says so at its next command
            async with self._lock:
                pass

    async def close(self) -> None:
        """Stop the bonus timers, checkpoint the chain (count + head) and give the table up."""
        if self._others_handle is not None:
            self._others_handle.cancel()
            self._others_handle = None
        tasks = [task for _, task in self._timers.values()]
        if self._bias_warm is not None:  # its replay is redone at the next start
            self._bias_warm.cancel()
            tasks.append(self._bias_warm)
            self._bias_warm = None
        watch = self.derived_watch
        if watch is not None:  # its fold stops at the next round it reads; its verdict is dropped
            watch.cancel()
            # Its read connection given back before the station closes the store (a second at most:
            # a chunk of the journal being read; a daemon thread, so never a stop's hang).
            until = time.monotonic() + CHECK_STOP_WAIT_S
            while watch.running and time.monotonic() < until:
                await asyncio.sleep(0.01)
        follow, self._derived_follow = self._derived_follow, None
        if follow is not None and not follow.done():
            follow.cancel()
            with contextlib.suppress(asyncio.CancelledError, DrrError):
                await follow
        taking_in, self._taking_in = self._taking_in, None
        if taking_in is not None:  # what another writer appended is folded before the table is given up
            with contextlib.suppress(asyncio.CancelledError):
                await taking_in
        await self._round_timer.stop()
        self._stop_timers()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._started:
            with contextlib.suppress(DrrError):
                self.journal.checkpoint(self.table, "shutdown")
        self._started = False
        self._release()

    def _release(self) -> None:
        if self._claim is not None:
            self._claim.release()
            self._claim = None

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """`callback(entry)` (plain or async) for every entry once it is durable; returns unsubscribe."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(callback)

        return unsubscribe

    def subscribe_batches(self, callback: BatchSubscriber) -> Callable[[], None]:
        """`callback(entries, changes, view)` once per durable batch (a command's entries, with what
        other writers appended before them), after the per-entry subscribers; returns unsubscribe.
        `changes` names what the batch changed (engine.table.changes), `view` is the table after it
        (engine.table.view): built once for every subscriber, so a screen redraws once from it."""
        self._batch_subscribers.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._batch_subscribers.remove(callback)

        return unsubscribe

    async def _publish(self, entries: Iterable[Entry]) -> None:
        batch = list(entries)
        await self._publish_entries(batch)
        if not batch:
            return
        if not self._batch_subscribers:
            self._read.track(batch)  # nobody shown: the view is built when next read
            return
        changes, view = self._read.batch(batch)
        for callback in list(self._batch_subscribers):
            try:
                result = callback(batch, changes, view)
                if inspect.isawaitable(result):
                    await result
            except Exception:  # a broken screen must not stop the table
                log.exception("table subscriber failed on entries %s-%s", batch[0].seq, batch[-1].seq)

    async def _publish_entries(self, entries: list[Entry]) -> None:
        for entry in entries:
            for callback in list(self._subscribers):
                try:
                    result = callback(entry)
                    if inspect.isawaitable(result):
                        await result
                except Exception:  # a broken screen must not stop the table
                    log.exception("table subscriber failed on %s #%s", entry.type, entry.seq)

    def _commit(self, user: str | None, events: list[Step]) -> list[Entry]:
        """Journal (one transaction, durable on return), then fold. Nothing is folded if the write fails."""
        if not events:
            return []
        when = datetime.fromtimestamp(self.clock(), UTC) if self._stamp_with_clock else None
        new = [write(p, table=self.table, round_id=round_id, user=user, time=when) for p, round_id in events]
        try:
            with self.store.begin() as conn:
                entries, signers = self.journal.append_in_keyed(conn, new)
                # Another writer on this chain (a login, the pit-boss station) since our last look: its
                # entries come first, in chain order.
                foreign = _entries_between(conn, self.table, self.state.last_seq, entries[0].seq)
                # Every entry of the chain up to ours is in hand now (the head is locked): the mark
                # that lets the next catch-up skip its read when nothing is written meanwhile.
                mark = self.store.change_mark()
                self._writes += 1
                if self._pause is not None and self._writes == self._pause[0]:
                    print(f"drr-test: paused in transaction {self._writes}", file=sys.stderr, flush=True)
                    time.sleep(self._pause[1])
        except WalLost as lost:  # the store's -wal file deleted under it (before this write): play stops
            self._failed = f"the table service stopped: {lost.message}"
            log.critical(self._failed)
            raise DrrError(self._failed) from lost
        # Committed: the key's witness follows the signed head (at most every keys.WITNESS_EVERY s), so
        # a journal later cut or rolled back behind it fails verification even after a crash.
        self.journal.witness(entries, signers)
        try:
            for entry in (*foreign, *entries):
                self.state.apply_entry(entry)
            self._seen_mark = mark
        except DrrError as exc:
            # Durable but not foldable: a bug, never a game decision. Stop taking commands; a restart
            # folds the journal again and names the entry.
            self._failed = f"the table service stopped: {exc.message}; restart it"
            log.critical(self._failed)
            raise DrrError(self._failed) from exc
        return [*foreign, *entries]

    def _watch_bias(self, entries: list[Entry] | None) -> list[Entry]:
        """After a round settled (or the start's replay ended: None): the table's sequential bias
        tests fed its spin, and what trips journaled here, on the table's own chain
        (engine.table.bias_watch); the entries written. Never a replay of the history here."""
        if entries is not None and not any(entry.type == _SETTLED for entry in entries):
            return []
        written: list[Entry] = []

        def append(items: list[Step]) -> list[Entry]:
            written.extend(self._commit(SYSTEM_USER, items))
            return written

        try:
            self.bias_watch.catch_up(self.store, append, replay=False)
        except Exception:  # the watch must never stop the table; the next settlement tries again
            log.exception("table %s: the bias watch failed", self.table)
        return written

    def _catch_up(self) -> list[Entry]:
        """Fold what other writers appended to this table's chain since our last entry. On SQLite the
        store's change mark says first whether anything was written at all since we last looked
        (Database.change_mark): usually nothing, and then no read is made."""
        mark = self.store.change_mark()
        if mark is not None and mark == self._seen_mark:
            return []
        fresh = list(self.journal.entries(self.table, self.state.last_seq + 1))
        for entry in fresh:
            self.state.apply_entry(entry)
        self._seen_mark = mark
        return fresh

    async def _run(self, user: str | None, events: list[Step]) -> list[Entry]:
        entries = self._commit(user, events)
        await self._publish([*entries, *self._watch_bias(entries)])
        self._schedule_timers()
        return entries

    def _need_started(self) -> None:
        if self._failed is not None:
            raise DrrError(self._failed)
        if not self._started:
            raise IllegalTransition("the table service is not started (call start() first)")

    def _round(self, *phases: Phase, doing: str) -> RoundState:
        s = self.state.round
        if s is None or s.phase not in phases:
            now = self.state.phase.upper()
            raise IllegalTransition(f"cannot {doing} now: the round is {now}")
        return s

    def _play(self, play: Play) -> None:
        """The gate (engine.table.gate): TableTilted unless the table may `play` now."""
        if self.rng.failure is not None and TILT_RNG not in self.state.tilts:
            # A pit boss cleared the tilt from another process after the generator passed its test
            # there (drr pitboss clear-tilt): this process's latch follows the journal.
            self.rng.reset()
            self._rng_fault_journaled = False
        self.gate.check(self.state, play)

    def _may(self, play: Play) -> bool:
        """The gate's answer where nothing can be refused (a wheel message, a timer): play or not."""
        return self.gate.verdict(self.state, play).ok

    def _no_hold(self, doing: str) -> None:
        hold = self.state.hold
        if hold is not None:
            what = WHAT.get(hold.kind, hold.kind.replace("_", " "))
            raise IllegalTransition(
                f"cannot {doing}: the round is on hold ({what}: {hold.reason}); "
                "call a no-spin, or a pit boss resolves it or voids the round"
            )

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def view(self) -> TableView:
        """What the screens show now (engine.table.view): the last batch's view, rebuilt only if the
        state moved since."""
        return self._read.view

    @property
    def round(self) -> RoundState | None:
        return self.state.round

    @property
    def rules(self) -> RulesSubmission | None:
        return self.state.rules

    def settlement(self) -> RoundSettlement | None:
        """The round's settlement once its result and every bonus outcome are in (else None); worked
        out once per round state (engine.table.settlements), however many screens and checks ask."""
        return self.state.settlements.final(self.state.round)

    def provisional_settlement(self) -> RoundSettlement | None:
        """Every wager settled once the result is in, running bonus games stood in (the paying list)."""
        return self.state.settlements.provisional(self.state.round)

    def approval_needed(self) -> Approval | None:
        """The large payouts still waiting for a pit boss's approval, or None."""
        settled = self.settlement()
        if settled is None or self.state.round is None or self.state.round.phase is Phase.SETTLED:
            return None
        big = [s for s in settled.settlements if s.payout >= self.approval_threshold]
        ids = tuple(s.wager.id for s in big)
        if not ids or set(ids) <= self.state.approved:
            return None
        return Approval(ids, sum((s.payout for s in big), Decimal(0)))

    def _rng_fault_steps(self, failure: HealthFailure, round_id: str | None) -> list[Step]:
        """The rng.fault entry, once per failure (a refused draw after it adds nothing new)."""
        if self._rng_fault_journaled:
            return []
        self._rng_fault_journaled = True
        fault = RngFault(
            failure.test, self.rng.name, str(failure.n), failure.count, failure.cutoff, failure.message
        )
        return [(fault, round_id)]

    async def _journal_rng_fault(
        self, user: str | None, failure: HealthFailure, round_id: str | None
    ) -> None:
        steps = self._rng_fault_steps(failure, round_id)
        if steps:
            await self._run(user, steps)

    def _close_event(self, s: RoundState) -> Step:
        event = close_bets(s, self.rng)  # § 617b.12(e): the draw follows every wager
        apply(s, event)
        # The journal's canonical JSON sorts object keys, so the Lucky mapping is stored by number; the
        # order the RNG drew them in is kept as a list beside it for the audit trail (no payout or
        # screen depends on it: the croupier lists them by number, the player display by odds).
        return (replace(event, lucky_order=event.draw.lucky_order), s.round_id)

    def _result_events(self, s: RoundState, event: ResultRecorded | ResultCorrected) -> list[Step]:
        """The result's entry and, when it makes a bonus game due, `round.bonus_started` in the same
        transaction."""
        after = apply(s, event)
        out: list[Step] = [(event, s.round_id)]
        players = bonus_needed(after)
        if players:
            started = BonusStarted(players)
            apply(after, started)
            out.append((started, s.round_id))
        return out

    def _schedule_timers(self) -> None:
        """One asyncio timer per game waiting for a choice, due at its deadline."""
        s = self.state.round
        games = self.state.games if s is not None and s.phase is Phase.BONUS else {}
        due = {p: (g.round, g.deadline) for p, g in games.items() if g.time_left() is not None}
        for player, (key, task) in list(self._timers.items()):
            if due.get(player) != key or task.done():
                task.cancel()
                del self._timers[player]
        self._round_timer.schedule()
        missing = [player for player in due if player not in self._timers]
        if not missing:
            return  # (no loop asked for: a catch-up stepped outside the running loop has none to give)
        loop = asyncio.get_running_loop()
        for player in missing:
            task = loop.create_task(self._timer(player), name=f"bonus-timer-{player}")
            self._timers[player] = (due[player], task)

    async def _timer(self, player: str) -> None:
        while True:
            game = self.state.games.get(player)
            left = None if game is None else game.time_left()
            if left is None:
                return
            await asyncio.sleep(left + 0.01)
            try:
                await self.tick_bonus_games()
            except DrrError:
                log.exception("bonus timer of %s", player)
                return

    def _stop_timers(self) -> None:
        for _, task in self._timers.values():
            task.cancel()
        self._timers.clear()
        self._round_timer.cancel()

    def _settings(self) -> Mapping[str, str]:
        return self.state.settings if self._round_settings is None else self._round_settings

    def _clock_due(self) -> float | None:
        """When the round timer should tick: now if the spin should be ordered, else the next deadline."""
        if not self._started:
            return None
        now = self.clock()
        if wheel_drive.start_due(self.state, now):
            return now
        return wheel_drive.next_deadline(self.state, paused=self._under_review())

    def _under_review(self) -> bool:
        """The croupier has the pending result open in a dialog (hold_confirmation), and it is still
        the result pending: a later result or a recorded one ends the review by itself."""
        pending = self.state.pending_result
        if self._review is not None and (pending is None or pending.seq != self._review):
            self._review = None
        return self._review is not None

    async def tick_clock(self) -> list[Entry]:
        """What the round's clock makes due (the timer calls this): a clean result nobody disputed is
        recorded (`auto_confirmed_after`), or the wheel is ordered to start the spin."""
        async with self._lock:
            if not self._started:
                return []
            st, now = self.state, self.clock()
            due = wheel_drive.confirm_due(st, now, paused=self._under_review())
            pending = st.pending_result
            if due is not None and pending is not None and st.round is not None:
                event = ResultRecorded(
                    pending.number,
                    "sensor",
                    game=pending.game,
                    direction=pending.direction,
                    wheel_seq=pending.seq,
                    auto_confirmed_after=due.seconds,
                )
                return await self._run(TIMER_USER, self._result_events(st.round, event))
            why = wheel_drive.start_due(st, now)
            if why is not None:
                return await self._run(TIMER_USER, [(WheelStartOrdered(why), st.round_id)])
            return []

    async def tick_bonus_games(self) -> list[Entry]:
        """The bonus timers' tick (engine.table.bonus_commands.BonusCommands defines it)."""
        raise NotImplementedError


def _entries_between(conn: Any, table: str, after: int, before: int) -> list[Entry]:
    if before <= after + 1:
        return []
    j = schema.journal
    rows = conn.execute(
        sa.select(j).where(j.c.table_id == table, j.c.seq > after, j.c.seq < before).order_by(j.c.seq)
    ).all()
    return [row_to_entry(r) for r in rows]


class _CatchUpLock:
    """The service's command lock; on entry it first folds (and publishes) what other writers appended,
    so every command decides on the journal as it stands."""

    def __init__(self, service: ServiceCore) -> None:
        self._service = service
        self._lock = asyncio.Lock()

    @property
    def busy(self) -> bool:
        return self._lock.locked()

    async def __aenter__(self) -> None:
        await self._lock.acquire()
        svc = self._service
        try:
            if svc._failed is not None:
                raise DrrError(svc._failed)
            if svc._started:
                fresh = svc._catch_up()
                if fresh:
                    await svc._publish(fresh)
                    svc._schedule_timers()  # e.g. the round was voided from the pit-boss station
        except BaseException:
            self._lock.release()
            raise

    async def __aexit__(self, *_: object) -> None:
        self._lock.release()


def _seconds(setting: str | None, default: float | None) -> float | None:
    """A pit boss's time setting ("off" switches it off) over the service's figure."""
    if setting is None:
        return default
    return None if setting == "off" else float(setting)


def _derived_agree(seq: int) -> TiltCleared:
    """The clear of a derived tilt: what the start's check found (a fact, not a person's reason)."""
    return TiltCleared(
        TILT_DERIVED,
        SYSTEM_USER,
        f"the derived tables were folded again from the journal (to entry {seq}) and agree with it",
    )


def _rules_loaded(rules: RulesSubmission, text: bytes) -> RulesLoaded:
    return RulesLoaded(rules.sha256, rules.name, text.decode("utf-8"))


def _clock_text(seconds: float | None) -> str:
    """A station's round-clock setting as TableStarted records it: whole or decimal seconds, or off."""
    return "off" if seconds is None else f"{seconds:g}"
