"""The table service: croupier commands and wheel events in, journaled facts out (headless, asyncio).

Every command follows the same order, so nothing is shown or acted on that is not durable:
check the user's permission (engine.auth), fold in what other writers appended to the chain, work
out the events with the pure engine (engine.round, engine.bonus_game; an illegal step raises and
writes nothing), append them to the hash-chained journal in one transaction (durable when it
returns), fold the entries into the state (engine.table.state) and only then hand each entry to
the subscribers.

    service = TableService(store, "T1", rng=SystemRng())
    await service.start()                      # recovery: folds the journal, fresh bonus timers
    service.subscribe(callback)                # callback(entry) after each durable append
    await service.open_bets(croupier)
    await service.place_wager(croupier, "anna", inside_bet([17]), Decimal("5"))
    await service.wheel_event({"type": "no_more_bets", "game": 12})   # or no_more_bets(croupier)
    await service.wheel_event({"type": "result", "game": 12, "number": 17})
    await service.confirm_result(croupier)
    await service.settle(croupier)             # after bonus games / a pit boss's approval if needed
    await service.next_round(croupier)
    await service.close()

Commands (all async; `user` is an engine.auth.User; each returns the journal entries it appended
and raises DrrError — IllegalWager, IllegalTransition, PermissionDenied — with a one-line reason):
open_bets, place_wager(player, bet, amount, wager_id=None), place_wagers(player, [(bet, amount), ...]),
rebet(player) (the player's wagers of their last round again), remove_wager(wager_id), no_more_bets,
sign_in_dealer / sign_out_dealer (who deals: engine.table.dealer),
wheel_event(event), confirm_result, manual_result(number, reason) (twice with the same number),
correct_result(number, reason) (pit boss), no_spin(reason), void(reason) (pit boss),
resolve_irregularity(reason) (pit boss), accept_sensor_result(reason) (pit boss: the sensor's number
of a hold, engine.table.holds), approve_payout (pit boss), settle, next_round,
load_rules(text) (pit boss; from the next round), set_bonus_preset(player, preset),
bonus_start(player), bonus_pick(player, box), bonus_cash_out(player), tick_bonus_games().
Reading: phase (engine.round.Phase; IDLE between rounds), view (engine.table.view.TableView), round
(engine.round.RoundState), rules, state (engine.table.state.TableState: pending result, hold, bonus
games, approvals), settlement(), approval_needed(), recovery (what start() rebuilt).

Subscribers: `subscribe_batches(callback)` hands over each durable batch at once, as
`callback(entries, changes, view)`: the batch's change notice (engine.table.changes) and the table's
view after it (engine.table.view, built once per batch by engine.table.read_model; `view` reads the
current one); `subscribe(callback) -> unsubscribe`;
`callback(entry: engine.store.journal.Entry)`, plain or async, is called once per entry, in chain
order, after the entry is committed and folded
(the service's state already shows it). It runs under the service's command lock: schedule further
commands as tasks, never await them inline. Entry types: `table.*` (started, rules_loaded,
manual_entry, manual_entry_rejected, irregularity_resolved, next_round), `round.*` (engine.round's
events plus round.irregularity and round.payout_approved), `bonus.*` (engine.bonus_game's events
with "player", bonus.preset_set, bonus.timer_restarted), `wheel.*` (the wheel's messages, see
engine.wheel_events; rotor speeds throttled to ROTOR_JOURNAL_S), and whatever other writers append to the
table's chain (user.login, the pit-boss station's round.payout_approved, table.rules_loaded, ...).
Every entry is written as a typed payload through engine.journal_types.write (`_run` takes
(payload, round_id) steps) and read back through engine.journal_types.read by the fold.

Irregularities: a wheel result before no-more-bets, a result for another game number than the
spin's, a result carrying warnings, a miss-spin or failed launch, and (after bets closed) a ball not
detected, the wheel stopping, a gap in or a restart of its game counter are journaled
(`round.irregularity`, or `round.result_before_close`) and put the round on hold: no wheel result
is accepted, nothing is confirmed or settled, until the croupier calls a no-spin, the pit boss
resolves it (acknowledge, accept the sensor's number, or a manual result) or voids the round;
engine.table.holds says which of these each hold allows.

Payouts at or above `approval_threshold` need a pit boss's approval before the round settles. The
journal is written on the event loop's thread (one short fsynced transaction per command).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

import sqlalchemy as sa

from engine.auth import User, require
from engine.bets import Bet, Wager, check_amount
from engine.bonus_game import PRESETS, BonusEvent, BonusGame, GameEnded, Preset
from engine.errors import DrrError, IllegalTransition, IllegalWager
from engine.journal_types import Payload, write
from engine.rng import HealthFailure, HealthTestedRng, Rng, SystemRng, require_production
from engine.round import (
    WINNING_ONLY,
    BonusOutcome,
    BonusStarted,
    NoSpin,
    PaidWager,
    Phase,
    ResultBeforeClose,
    ResultCorrected,
    ResultRecorded,
    RoundOpened,
    RoundState,
    RoundVoided,
    WagerPlaced,
    WagerRemoved,
    apply,
    bonus_needed,
    close_bets,
    settle,
)
from engine.rules import RulesSubmission, default_rules_path
from engine.rules_play import rules_for_play, seeded_play_problem
from engine.settlement import RoundSettlement
from engine.software_id import running_digest
from engine.store import schema
from engine.store.canonical import RFC8785
from engine.store.db import Store, check_table_id
from engine.store.evidence import check_for_start
from engine.store.evidence import started as evidence_started
from engine.store.journal import Journal
from engine.store.records import Entry, row_to_entry
from engine.table import dealer as dealers
from engine.table import limits as table_limits
from engine.table import wheel_drive
from engine.table.changes import Changes
from engine.table.holds import ACCEPT_SENSOR, WHAT, hold_remedies
from engine.table.read_model import ReadModel
from engine.table.recovery import RecoveryReport, recover
from engine.table.round_clock import RoundTimer
from engine.table.state import TableState
from engine.table.thresholds import approval_threshold
from engine.table.view import TableView
from engine.table.wheel import DOUBTFUL, check_wheel_event
from engine.table_events import (
    AutoConfirmDue,
    BettingTime,
    Irregularity,
    IrregularityResolved,
    ManualEntry,
    ManualEntryRejected,
    NextRound,
    PayoutApproved,
    PlayerBonusEvent,
    PresetSet,
    RngFault,
    RulesLoaded,
    TableStarted,
    TimerRestarted,
    WheelStartOrdered,
)
from engine.wheel_events import (
    RESULT_MISMATCH,
    Direction,
    WheelBallNotDetected,
    WheelClosed,
    WheelEvent,
    WheelLaunched,
    WheelLaunchFailed,
    WheelMissSpin,
    WheelNoMoreBets,
    WheelResult,
    WheelRotor,
    WheelStarted,
    WheelWarning,
    with_verdict,
)

log = logging.getLogger("drr.table")

DEFAULT_APPROVAL_THRESHOLD: Final = Decimal("10000")
# The hold a number line / status line disagreement puts on the round: only a manual result, a
# no-spin or a void ends it (a pit boss's plain acknowledgement does not).
MISMATCH_HOLD: Final = RESULT_MISMATCH
WHEEL_USER: Final = "wheel"
ROTOR_JOURNAL_S: Final = 10.0  # a rotor reading is journaled at most this often (and on a direction change)
TIMER_USER: Final = "timer"
SYSTEM_USER: Final = "system"
# How often the service looks for entries another writer appended to its chain (a pit boss's action
# taken in from the floor by the forwarder, `drr pitboss resolve` against this store): one head read.
OTHER_WRITERS_EVERY_S: Final = 1.0
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


class TableService:
    """One table's live game (see the module docstring)."""

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
    ) -> None:
        self.store = store
        self.table = check_table_id(table)
        self.journal = Journal(store)
        # Every draw goes through the continuous health tests (NIST SP 800-90B § 4.4): a failure
        # journals rng.fault and the table refuses to draw until it is restarted.
        self.rng: HealthTestedRng = HealthTestedRng(rng if rng is not None else SystemRng())
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
        self._wheel_game_at_open: int | None = None  # the wheel's game while its last state is "started"
        self._round_settings: dict[str, str] | None = None  # the pit boss's settings as the round opened
        self._rotor_logged: tuple[float, str | None] | None = None  # (clock, direction) of the last journaled
        self._writes = 0
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
        self._in_flight = wheel_drive.InFlight()  # the game the wheel had launched, as last heard
        self._before_open: int | None = None  # ... when bets opened: its messages are not the round's
        self._round_timer = RoundTimer(self._clock_due, self.tick_clock, clock)
        self._others_handle: asyncio.TimerHandle | None = None  # the next look for other writers
        # The take-in under way: held here, as the loop keeps only a weak reference to a task (one
        # unreferenced could be collected mid-step), and awaited by close().
        self._taking_in: asyncio.Task[None] | None = None

    # -- lifecycle --------------------------------------------------------------------------------

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
            report = self.recovery = recover(self.state, self.journal)
            self._check_head(report.last_seq)
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
            events: list[Payload] = [
                TableStarted(
                    station=self.station,
                    pid=os.getpid(),
                    rng=self.rng.name,
                    recovered_to=report.last_seq,
                    round_in_play=report.round_id,
                    phase=report.phase,
                    software=running_digest(),
                    key=key.public,
                    large_payout=str(self.approval_threshold),  # the pit boss's settings tab shows it
                    canonical=RFC8785,  # this chain's entries are RFC 8785 text from here on
                )
            ]
            if rules is not None and text is not None and self.state.latest_rules != rules.sha256:
                events.append(_rules_loaded(rules, text))
            for player, game in self.state.games.items():
                if game.time_left() is not None:
                    deadline = self.clock() + game.timer_seconds
                    events.append(TimerRestarted(player, game.round, deadline))
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
        return entries

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

    # -- subscribers ------------------------------------------------------------------------------

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

    # -- the write path ---------------------------------------------------------------------------

    def _commit(self, user: str | None, events: list[Step]) -> list[Entry]:
        """Journal (one transaction, durable on return), then fold. Nothing is folded if the write fails."""
        if not events:
            return []
        when = datetime.fromtimestamp(self.clock(), UTC) if self._stamp_with_clock else None
        new = [write(p, table=self.table, round_id=round_id, user=user, time=when) for p, round_id in events]
        with self.store.begin() as conn:
            entries = self.journal.append_in(conn, new)
            # Another writer on this chain (a login, the pit-boss station) since our last look: its
            # entries come first, in chain order.
            foreign = _entries_between(conn, self.table, self.state.last_seq, entries[0].seq)
            self._writes += 1
            if self._pause is not None and self._writes == self._pause[0]:
                print(f"drr-test: paused in transaction {self._writes}", file=sys.stderr, flush=True)
                time.sleep(self._pause[1])
        # Committed: the key's witness follows the signed head (at most every keys.WITNESS_EVERY s), so
        # a journal later cut or rolled back behind it fails verification even after a crash.
        self.journal.witness(entries)
        try:
            for entry in (*foreign, *entries):
                self.state.apply_entry(entry)
        except DrrError as exc:
            # Durable but not foldable: a bug, never a game decision. Stop taking commands; a restart
            # folds the journal again and names the entry.
            self._failed = f"the table service stopped: {exc.message}; restart it"
            log.critical(self._failed)
            raise DrrError(self._failed) from exc
        return [*foreign, *entries]

    def _catch_up(self) -> list[Entry]:
        """Fold what other writers appended to this table's chain since our last entry."""
        fresh = list(self.journal.entries(self.table, self.state.last_seq + 1))
        for entry in fresh:
            self.state.apply_entry(entry)
        return fresh

    async def _run(self, user: str | None, events: list[Step]) -> list[Entry]:
        entries = self._commit(user, events)
        await self._publish(entries)
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

    def _no_hold(self, doing: str) -> None:
        hold = self.state.hold
        if hold is not None:
            what = WHAT.get(hold.kind, hold.kind.replace("_", " "))
            raise IllegalTransition(
                f"cannot {doing}: the round is on hold ({what}: {hold.reason}); "
                "call a no-spin, or a pit boss resolves it or voids the round"
            )

    # -- reading ----------------------------------------------------------------------------------

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

    # -- round commands ---------------------------------------------------------------------------

    async def open_bets(self, user: User) -> list[Entry]:
        require(user, "open_bets")
        async with self._lock:
            self._need_started()
            if self.state.in_play:
                raise IllegalTransition(
                    f"cannot open bets: round {self.state.round_id} is still {self.phase.upper()}"
                )
            rules = self.state.rules_by_sha[self.state.latest_rules] if self.state.latest_rules else None
            if rules is None:
                raise IllegalTransition("cannot open bets: no Rules Submission is loaded")
            # The pit boss's table settings (table.settings_changed) take effect here, from the next round.
            settings = dict(self.state.settings)
            if settings.get("status") == "closed":
                raise IllegalTransition("cannot open bets: the pit boss has closed this table")
            self._round_settings = settings
            self.approval_threshold, _ = approval_threshold(
                settings, self._station_threshold, table=self.table
            )
            round_id = f"{self.table[:50]}-{self.state.rounds_opened + 1:06d}"
            # The dealer signed in at the station or named by the pit boss (the later), else the opener.
            dealer = self.state.dealer or user.name
            entry = WINNING_ONLY if settings.get("entry_mode") == WINNING_ONLY else None
            event = RoundOpened(round_id, rules.sha256, dealer, self._wheel_game_at_open, entry)
            apply(RoundState.initial(rules), event)
            self._before_open = self._in_flight.game
            steps: list[Step] = [(event, round_id)]
            betting = _seconds(settings.get("betting_seconds"), self.betting_seconds)
            if betting is not None:
                steps.append((BettingTime(betting, self.clock() + betting), round_id))
            return await self._run(user.name, steps)

    async def place_wager(
        self,
        user: User,
        player: str,
        bet: Bet,
        amount: Decimal | str | int,
        *,
        wager_id: str | None = None,
        seat: int | None = None,  # the croupier station's seat, journaled for recall's chips
    ) -> list[Entry]:
        return await self.place_wagers(user, player, [(bet, amount)], wager_id=wager_id, seat=seat)

    async def place_wagers(
        self,
        user: User,
        player: str,
        wagers: Sequence[tuple[Bet, Decimal | str | int]],
        *,
        wager_id: str | None = None,
        seat: int | None = None,
    ) -> list[Entry]:
        """Several wagers of `player` at once (a line typed on the keyboard, a Rebet): each checked
        against the rules and every limit in force after the ones before it, all journaled in one
        transaction or none (the refusal names the wager)."""
        require(user, "place_wager")
        async with self._lock:
            return await self._run(user.name, self._wager_steps(player, wagers, wager_id, seat))

    async def rebet(self, user: User, player: str, *, seat: int | None = None) -> list[Entry]:
        """`player`'s wagers of the last round they played, placed again (as place_wagers)."""
        require(user, "place_wager")
        async with self._lock:
            self._round(Phase.OPEN, doing="place a wager")
            last = self.state.last_wagers.get(player, ())
            if not last:
                raise IllegalWager(f"{player} has no wagers of an earlier round to place again")
            again = [(w.bet, w.amount) for w in last]
            return await self._run(user.name, self._wager_steps(player, again, seat=seat))

    def _wager_steps(
        self,
        player: str,
        wagers: Sequence[tuple[Bet, Decimal | str | int]],
        wager_id: str | None = None,
        seat: int | None = None,
    ) -> list[Step]:
        # OPEN, or RESULT in a round of winning wagers only: apply() says which is allowed.
        s = self._round(Phase.OPEN, Phase.RESULT, doing="place a wager")
        # The limits of the Rules Submission (engine.round.check_wager), of the pit boss's settings as
        # the round opened and the player's own (engine.table.limits).
        settings = self.state.settings if self._round_settings is None else self._round_settings
        limits = table_limits.limits_in_force(s.rules.limits, settings)
        try:
            self._no_hold("place a wager")  # e.g. the wheel's result came while bets were open
        except IllegalTransition as exc:
            raise IllegalWager(exc.message) from None
        steps: list[Step] = []
        for i, (bet, amount) in enumerate(wagers):
            try:
                value = check_amount(amount, s.rules.unit)
            except ValueError as exc:
                raise IllegalWager(f"wager of {player}: {exc}") from None
            refused = table_limits.refusal(settings, player, value)  # the settings' min_bet / max_bet
            if refused is not None:
                raise IllegalWager(refused)
            limits.check_player(player, value, s.player_total(player))
            wid = wager_id or f"{s.round_id}-w{self.state.wagers_placed + 1 + i}"
            event = WagerPlaced(Wager(wid, player, bet, value), seat)
            s = apply(s, event)  # the next wager is checked with this one on the felt
            steps.append((event, s.round_id))
        if not steps:
            raise IllegalWager(f"no wager of {player} to place")
        return steps

    async def sign_in_dealer(self, user: User) -> list[Entry]:
        """`user` deals at this table from the next round opened (engine.table.dealer)."""
        async with self._lock:
            self._need_started()
            change = dealers.signed_in(self.state, user, self.station)
            return [] if change is None else await self._run(user.name, [(change, None)])

    async def sign_out_dealer(self, user: User) -> list[Entry]:
        """`user` stops dealing; nobody is signed in until the next sign_in_dealer."""
        async with self._lock:
            self._need_started()
            return await self._run(user.name, [(dealers.signed_out(self.state, user, self.station), None)])

    async def remove_wager(self, user: User, wager_id: str) -> list[Entry]:
        require(user, "remove_wager")
        async with self._lock:
            s = self._round(Phase.OPEN, Phase.RESULT, doing="remove a wager")
            event = WagerRemoved(wager_id)
            apply(s, event)
            return await self._run(user.name, [(event, s.round_id)])

    async def no_more_bets(self, user: User) -> list[Entry]:
        require(user, "no_more_bets")
        async with self._lock:
            s = self._round(Phase.OPEN, doing="call no more bets")
            try:
                step = self._close_event(s)
            except HealthFailure as failure:
                await self._journal_rng_fault(user.name, failure, s.round_id)
                raise
            return await self._run(user.name, [step])

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

    async def confirm_result(self, user: User) -> list[Entry]:
        """The croupier confirms the wheel's result; bonus games start being due if someone won one."""
        require(user, "confirm_result")
        async with self._lock:
            s = self._round(Phase.CLOSED, doing="confirm a result")
            self._no_hold("confirm the result")
            pending = self.state.pending_result
            if pending is None:
                raise IllegalTransition(
                    "no result from the wheel to confirm yet (wait, or enter it manually)"
                )
            event = ResultRecorded(
                pending.number,
                "sensor",
                game=pending.game,
                direction=pending.direction,
                wheel_seq=pending.seq,
            )
            return await self._run(user.name, self._result_events(s, event))

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

    async def manual_result(self, user: User, number: int, reason: str) -> list[Entry]:
        """Two steps: the first call records the entry, a second call with the same number records the
        result (source "manual"); a different number cancels the entry. A pit boss may enter a result
        while an irregularity is on hold, which resolves it."""
        require(user, "enter_result")
        async with self._lock:
            s = self._round(Phase.CLOSED, doing="enter a result")
            if self.state.hold is not None and not user.may("resolve_irregularity"):
                self._no_hold("enter a result")
            if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number <= 36:
                raise IllegalTransition(f"{number!r} is not a number 0-36")
            if not reason.strip():
                raise IllegalTransition("a manual result needs a reason (e.g. the sensor is down)")
            entry = self.state.manual_entry
            if entry is None:
                return await self._run(user.name, [(ManualEntry(number, reason.strip()), s.round_id)])
            if entry[0] != number:
                rejected = ManualEntryRejected(entry[0], number, "the two entries differ")
                await self._run(user.name, [(rejected, s.round_id)])
                raise IllegalTransition(
                    f"not recorded: {number} differs from the first entry {entry[0]}; enter again"
                )
            event = ResultRecorded(
                number,
                "manual",
                entry[1],
                game=self.state.expected_game,  # this round's spin, never a later one's
                confirmed_by=user.name,
                direction=self._direction,
            )
            return await self._run(user.name, self._result_events(s, event))

    async def correct_result(self, user: User, number: int, reason: str) -> list[Entry]:
        """A pit boss corrects a misread result before any bonus game or settlement.

        A bonus game starts with the confirmation that makes it due (`round.bonus_started` in the same
        transaction): once a player has seen the boxes, a result under it can no longer change, so the
        remedy for a wrong result then is a void (every wager returned), never a correction."""
        require(user, "correct_result")
        async with self._lock:
            if self.state.round is not None and self.state.round.phase is Phase.BONUS:
                raise IllegalTransition(
                    "cannot correct the result: a bonus game was started on it; "
                    "if the result was wrong, void the round (every wager is returned)"
                )
            s = self._round(Phase.RESULT, doing="correct the result")
            assert s.result is not None
            event = ResultCorrected(s.result, number, reason.strip(), by=user.name)
            return await self._run(user.name, self._result_events(s, event))

    async def no_spin(self, user: User, reason: str) -> list[Entry]:
        """The spin does not count: same wagers, same draw, the ball is spun again; resolves a hold."""
        require(user, "no_spin")
        async with self._lock:
            s = self._round(Phase.CLOSED, Phase.RESULT, doing="call a no-spin")
            st = self.state
            # The wheel game this no-spin cancels: its late result must not count for the re-spin.
            game = st.pending_result.game if st.pending_result is not None else None
            if game is None and st.hold is not None and st.hold.kind not in ("gap", "restart"):
                game = st.hold.game  # (after a gap or restart the hold names the new counter, not the spin)
            if game is None:
                game = st.expected_game
            event = NoSpin(reason.strip(), game)
            apply(s, event)
            return await self._run(user.name, [(event, s.round_id)])

    async def void(self, user: User, reason: str) -> list[Entry]:
        """A pit boss cancels the round; every wager is returned."""
        require(user, "void_round")
        async with self._lock:
            s = self._round(Phase.OPEN, Phase.CLOSED, Phase.RESULT, Phase.BONUS, doing="void the round")
            event = RoundVoided(reason.strip())
            apply(s, event)
            self._stop_timers()
            return await self._run(user.name, [(event, s.round_id)])

    async def resolve_irregularity(self, user: User, reason: str) -> list[Entry]:
        """A pit boss acknowledges the irregularity on hold; the round goes on in its phase (a fresh
        wheel result, or a manual result, is then needed)."""
        require(user, "resolve_irregularity")
        async with self._lock:
            hold = self.state.hold
            if hold is None:
                raise IllegalTransition("there is no irregularity to resolve")
            if not reason.strip():
                raise IllegalTransition("resolving an irregularity needs a reason")
            if hold.kind == MISMATCH_HOLD:
                raise IllegalTransition(
                    f"the result is doubtful ({hold.reason}): enter the result manually, "
                    "call a no-spin or void the round"
                )
            resolved = IrregularityResolved(hold.kind, "acknowledged", reason.strip())
            return await self._run(user.name, [(resolved, self.state.round_id)])

    async def accept_sensor_result(self, user: User, reason: str) -> list[Entry]:
        """A pit boss, having looked at the wheel, records the number the sensor reported for this
        round's spin that put it on hold (engine.table.holds says which holds carry one); the hold is
        resolved and the result recorded in one transaction."""
        require(user, "resolve_irregularity")
        async with self._lock:
            s = self._round(Phase.CLOSED, doing="accept the sensor's number")
            hold = self.state.hold
            if hold is None:
                raise IllegalTransition("the round is not on hold: the croupier confirms the wheel's result")
            if not reason.strip():
                raise IllegalTransition("accepting the sensor's number needs a reason")
            remedies = hold_remedies(hold, s.phase, self.state.expected_game)
            if remedies.sensor_number is None:
                raise IllegalTransition(
                    f"cannot accept the sensor's number: {remedies.refused[ACCEPT_SENSOR]}"
                )
            resolved = IrregularityResolved(hold.kind, "sensor_number_accepted", reason.strip())
            event = ResultRecorded(
                remedies.sensor_number,
                "sensor",
                reason.strip(),
                game=hold.game if hold.game is not None else self.state.expected_game,
                direction=self._direction,
                confirmed_by=user.name,
            )
            return await self._run(user.name, [(resolved, s.round_id), *self._result_events(s, event)])

    async def approve_payout(self, user: User) -> list[Entry]:
        require(user, "approve_payout")
        async with self._lock:
            s = self._round(Phase.RESULT, Phase.BONUS, doing="approve payouts")
            need = self.approval_needed()
            if need is None:
                raise IllegalTransition("no payout needs approval")
            approval = PayoutApproved(need.wager_ids, need.total, self.approval_threshold, user.name)
            return await self._run(user.name, [(approval, s.round_id)])

    async def start_bonus_games(self, user: User) -> list[Entry]:
        """With winning wagers only, the croupier has entered the chips covering the result: the
        bonus games of those who won on the Bonus Number with an inside wager start now (in a round
        entered during betting they start with the result)."""
        require(user, "settle_round")
        async with self._lock:
            s = self._round(Phase.RESULT, doing="start the bonus games")
            self._no_hold("start the bonus games")
            players = bonus_needed(s)
            if not players:
                raise IllegalTransition("no bonus game to start: nobody won on the Bonus Number")
            started = BonusStarted(players)
            apply(s, started)
            return await self._run(user.name, [(started, s.round_id)])

    async def settle(self, user: User) -> list[Entry]:
        require(user, "settle_round")
        async with self._lock:
            s = self._round(Phase.RESULT, Phase.BONUS, doing="settle")
            self._no_hold("settle")
            missing = [p for p in s.bonus_players if p not in s.bonus_odds]
            if missing:
                raise IllegalTransition(f"cannot settle: bonus games not finished for {', '.join(missing)}")
            due = bonus_needed(s) if s.phase is Phase.RESULT else ()
            if due:  # winning wagers only: entered after the result, their games have not started
                raise IllegalTransition(
                    f"cannot settle: {', '.join(due)} won on the Bonus Number; start the bonus games first"
                )
            need = self.approval_needed()
            if need is not None:
                raise IllegalTransition(
                    f"payouts of {need.total} on {len(need.wager_ids)} wager(s) need a pit boss's approval"
                )
            # The settlement the approval check, the screens and the fold read (worked out once).
            settled = self.settlement()
            event = settle(s, settled)  # refuses while a bonus game is unfinished
            after = apply(s, event, settled=settled)
            assert after.settlement is not None
            paid = tuple(PaidWager.from_json(x.to_wire()) for x in after.settlement.settlements if x.won)
            event = replace(event, total_returned=after.settlement.total_returned, payouts=paid)
            return await self._run(user.name, [(event, s.round_id)])

    async def next_round(self, user: User) -> list[Entry]:
        """Clear the settled or void round from the felt (the next action is open bets)."""
        require(user, "open_bets")
        async with self._lock:
            s = self._round(Phase.SETTLED, Phase.VOID, doing="go to the next round")
            return await self._run(user.name, [(NextRound(s.round_id), s.round_id)])

    async def load_rules(self, user: User, text: bytes, source: str = "the Rules Submission") -> list[Entry]:
        """A new Rules Submission; it takes effect when the next round opens."""
        require(user, "load_rules")
        rules = rules_for_play(text, source=source)
        async with self._lock:
            return await self._run(user.name, [(_rules_loaded(rules, text), None)])

    # -- the wheel --------------------------------------------------------------------------------

    async def wheel_event(self, ev: WheelEvent | Mapping[str, Any]) -> list[Entry]:
        """A message from the wheel (an engine.wheel_events event, or its mapping form): journaled
        as it is (`ev.type`, `ev.to_json()`), then acted on."""
        event = check_wheel_event(ev)
        async with self._lock:
            self._need_started()
            if isinstance(event, WheelRotor):
                self._direction = event.direction
                # Throttled into the journal for surveillance's rotor speed and direction trend.
                now = self.clock()
                last = self._rotor_logged
                if last is not None and now - last[0] < ROTOR_JOURNAL_S and last[1] == self._direction:
                    return []
                self._rotor_logged = (now, self._direction)
                round_id = self.state.round_id if self.state.in_play else None
                return await self._run(WHEEL_USER, [(event, round_id)])
            if isinstance(event, WheelStarted):
                self._wheel_game_at_open = event.game
            elif isinstance(event, WheelLaunched | WheelNoMoreBets | WheelResult):
                self._wheel_game_at_open = None
            steps = self._other_spin(event) or self._wheel_events(event)
            self._in_flight.seen(event)
            return await self._run(WHEEL_USER, steps)

    def _other_spin(self, ev: WheelEvent) -> list[Step]:
        """Another spin's message (a later one while the round waits, or the one under way as bets
        opened): journaled as it is, without the round's id, and not acted on (engine.table.wheel_drive)."""
        note = wheel_drive.other_spin(self.state, ev, self._before_open)
        if note is None:
            return []
        if isinstance(ev, WheelResult):
            ev = with_verdict(ev, accepted=False, note=note, direction=self._direction)
        log.info("wheel %s ignored for round %s: %s", ev.kind, self.state.round_id, note)
        return [(ev, None)]

    def _wheel_events(self, ev: WheelEvent) -> list[Step]:
        st = self.state
        s = st.round if st.in_play else None
        rid = s.round_id if s is not None else None
        game = ev.game
        out: list[Step] = []

        def irregular(what: str, reason: str, number: int | None = None) -> None:
            out.append((Irregularity(what, reason, game, number), rid))

        if isinstance(ev, WheelResult):
            number = ev.number
            accepted = False
            note: str | None = None
            if s is None:
                note = "no round in play"
            elif s.phase is Phase.OPEN:
                event = ResultBeforeClose(number, f"wheel result {number} (game {game}) before no more bets")
                out.append((event, rid))
            elif s.phase is not Phase.CLOSED:
                note = f"round already {s.phase.value}"
            elif game is not None and game in st.no_spin_games:
                note = f"game {game} was called a no-spin"
            elif st.hold is not None:
                irregular(
                    "doubtful_result",
                    f"result {number} while the round is on hold ({WHAT.get(st.hold.kind, st.hold.kind)})",
                    number,
                )
            elif st.expected_game is not None and game is not None and game != st.expected_game:
                irregular(
                    "unexpected_game",
                    f"result {number} for game {game}, the spin is game {st.expected_game}",
                    number,
                )
            elif ev.number_line is not None and ev.number_line != number:
                # The bare number line and the status line disagree: which one is the ball's pocket
                # is unknown, so the round is held before anything can be confirmed or settled.
                irregular(MISMATCH_HOLD, f"number line {ev.number_line} vs status line {number}", number)
            elif ev.warnings:
                irregular("result_with_warnings", f"result {number} with {', '.join(ev.warnings)}", number)
            elif st.pending_result is not None:
                irregular("second_result", f"result {number} after {st.pending_result.number}", number)
            else:
                accepted = True
            journaled = with_verdict(ev, accepted=accepted, note=note, direction=self._direction)
            confirm = _seconds(self._settings().get("auto_confirm_seconds"), self.auto_confirm_seconds)
            if accepted and confirm:  # a clean result confirms itself unless disputed (0/None: off)
                out.append((AutoConfirmDue(number, game, confirm, self.clock() + confirm), rid))
            return [(journaled, rid), *out]
        out.insert(0, (ev, rid))
        if s is None:
            return out
        if (
            isinstance(ev, WheelWarning)
            and ev.is_mismatch
            and s.phase in (Phase.CLOSED, Phase.RESULT)
            and (st.hold is None or st.hold.kind != MISMATCH_HOLD)
        ):
            # A mismatch reported on its own (the result came without its number line, or before
            # this warning): the result is doubtful whatever was accepted; hold before settling.
            irregular(MISMATCH_HOLD, ev.advice or "number line vs status line")
        elif isinstance(ev, WheelNoMoreBets) and s.phase is Phase.OPEN:
            try:
                out.append(self._close_event(s))  # the wheel's state 4 closes bets when the croupier has not
            except HealthFailure as failure:  # the wheel's message is kept; bets stay open, no draw
                out += self._rng_fault_steps(failure, rid)
        elif ev.type in DOUBTFUL and (
            s.phase is Phase.CLOSED
            or (s.phase is Phase.OPEN and isinstance(ev, WheelMissSpin | WheelLaunchFailed))
        ):
            # In state 3 (bets still open) only a miss-spin or failed launch touches this spin.
            why = (
                "the wheel stopped (state 6) during the spin"
                if isinstance(ev, WheelClosed)
                else ev.kind.replace("_", " ")
            )
            reason = ev.reason if isinstance(ev, WheelBallNotDetected) else None
            irregular(ev.kind, reason or why)
        return out

    # -- bonus games ------------------------------------------------------------------------------

    async def set_bonus_preset(self, user: User, player: str, preset: Preset) -> list[Entry]:
        """What the timer does in rounds 3-6 of `player`'s next bonus game: "cash_out" or "random"."""
        require(user, "bonus_pick")
        if preset not in PRESETS:
            raise IllegalTransition(f"timer preset must be 'cash_out' or 'random', not {preset!r}")
        async with self._lock:
            if player in self.state.games:
                raise IllegalTransition(f"the bonus game of {player} has started; its preset is fixed")
            return await self._run(user.name, [(PresetSet(player, preset), self.state.round_id)])

    async def bonus_start(self, user: User, player: str) -> list[Entry]:
        require(user, "bonus_pick")
        async with self._lock:
            s = self._round(Phase.BONUS, doing="start a bonus game")
            if player not in s.bonus_players:
                raise IllegalTransition(f"{player} has no bonus game in this round")
            if player in self.state.games:
                raise IllegalTransition(f"the bonus game of {player} has already started")
            preset = self.state.presets.get(player, "cash_out")
            try:
                game = BonusGame.start(s.rules, self.rng, player=player, preset=preset, clock=self.clock)
            except HealthFailure as failure:
                await self._journal_rng_fault(user.name, failure, s.round_id)
                raise
            return await self._run(user.name, self._bonus_events(s, player, list(game.events)))

    async def bonus_pick(self, user: User, player: str, box: int) -> list[Entry]:
        require(user, "bonus_pick")
        async with self._lock:
            s, game = self._scratch(player)
            try:
                picked = game.pick(box)  # the next round's boxes are drawn here
            except HealthFailure as failure:
                await self._journal_rng_fault(user.name, failure, s.round_id)
                raise
            return await self._run(user.name, self._bonus_events(s, player, picked))

    async def bonus_cash_out(self, user: User, player: str) -> list[Entry]:
        require(user, "cash_out")
        async with self._lock:
            s, game = self._scratch(player)
            return await self._run(user.name, self._bonus_events(s, player, game.cash_out()))

    async def tick_bonus_games(self) -> list[Entry]:
        """Apply the timeout rule to every game whose countdown ran out (the timers call this)."""
        async with self._lock:
            if self.state.round is None or self.state.round.phase is not Phase.BONUS:
                return []
            events: list[Step] = []
            s = self.state.round
            for player in list(self.state.games):
                scratch = self._scratch(player)[1]
                try:
                    events += self._bonus_events(s, player, scratch.tick())
                except HealthFailure as failure:  # a timer cannot be refused: journal it, go on
                    events += self._rng_fault_steps(failure, s.round_id)
            return await self._run(TIMER_USER, events)

    def _scratch(self, player: str) -> tuple[RoundState, BonusGame]:
        """A copy of `player`'s game to decide the next step on (the real one only folds journaled facts)."""
        s = self._round(Phase.BONUS, doing="play a bonus game")
        game = self.state.games.get(player)
        if game is None:
            raise IllegalTransition(f"{player} has no bonus game running (start it first)")
        copy = BonusGame.replay(game.events, rules=s.rules, rng=self.rng, clock=self.clock)
        copy.deadline = game.deadline  # a restart's fresh countdown is not among the game's events
        return s, copy

    def _bonus_events(self, s: RoundState, player: str, events: list[BonusEvent]) -> list[Step]:
        out: list[Step] = [(PlayerBonusEvent(player, e), s.round_id) for e in events]
        for e in events:
            if isinstance(e, GameEnded):
                outcome = BonusOutcome(player, Fraction(e.outcome))
                apply(s, outcome)
                out.append((outcome, s.round_id))
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
        loop = asyncio.get_running_loop()
        for player, key in due.items():
            if player not in self._timers:
                self._timers[player] = (
                    key,
                    loop.create_task(self._timer(player), name=f"bonus-timer-{player}"),
                )

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

    # -- the round's clock (engine.table.wheel_drive) ----------------------------------------------

    def _settings(self) -> Mapping[str, str]:
        return self.state.settings if self._round_settings is None else self._round_settings

    def _clock_due(self) -> float | None:
        """When the round timer should tick: now if the spin should be ordered, else the next deadline."""
        if not self._started:
            return None
        now = self.clock()
        return now if wheel_drive.start_due(self.state, now) else wheel_drive.next_deadline(self.state)

    async def tick_clock(self) -> list[Entry]:
        """What the round's clock makes due (the timer calls this): a clean result nobody disputed is
        recorded (`auto_confirmed_after`), or the wheel is ordered to start the spin."""
        async with self._lock:
            if not self._started:
                return []
            st, now = self.state, self.clock()
            due = wheel_drive.confirm_due(st, now)
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

    async def dispute_result(self, user: User, reason: str) -> list[Entry]:
        """The croupier disputes the wheel's result before it is confirmed: it is not confirmed
        automatically, the round is on hold (a no-spin, or a pit boss's manual result or void ends it)."""
        require(user, "confirm_result")
        async with self._lock:
            s = self._round(Phase.CLOSED, doing="dispute a result")
            pending = self.state.pending_result
            if pending is None:
                raise IllegalTransition("there is no wheel result to dispute")
            self._no_hold("dispute the result")
            if not reason.strip():
                raise IllegalTransition("a dispute needs a reason (what the croupier saw)")
            why = f"the croupier disputes the wheel's {pending.number}: {reason.strip()}"
            hold = Irregularity(wheel_drive.DISPUTED, why, pending.game, pending.number)
            return await self._run(user.name, [(hold, s.round_id)])


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

    def __init__(self, service: TableService) -> None:
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


def _rules_loaded(rules: RulesSubmission, text: bytes) -> RulesLoaded:
    return RulesLoaded(rules.sha256, rules.name, text.decode("utf-8"))
