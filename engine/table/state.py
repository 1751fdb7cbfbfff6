"""The table's state as a fold over its journal entries: the one place that turns facts into state.

The table service journals events first and then folds the durable entries in here; recovery folds
the same entries read back from the journal. Live state and rebuilt state therefore come from the
same code, and an entry is folded at most once (`apply_entry` refuses a seq it has already seen).

Each entry is read through the registry (engine.journal_types.read: a typed payload, old journals'
spellings mapped) and folded by its payload class:

- RulesLoaded (`table.rules_loaded`, from the service or the pit-boss station; an old journal's
  `rules.changed`): a Rules Submission; the next round opens under it.
- engine.round's events (`round.*`): the round state machine. Irregularity (`round.irregularity`)
  puts the round on hold until IrregularityResolved, a no-spin, a void or a manual result.
- engine.wheel_events' events (`wheel.*`): a WheelResult with accepted=true is the result waiting
  for the croupier's confirmation; started/launched/no-more-bets name the spin's game. A wheel entry
  without a round id while a round is in play is another spin's (journaled, not the round's).
- BettingTime, WheelStartOrdered, AutoConfirmDue: the round's clock (`drive`, a DriveState; what is due
  when is engine.table.wheel_drive's, above this fold).
- ManualEntry / ManualEntryRejected: step one of a manual result.
- PayoutApproved (`round.payout_approved`, from the service or the pit-boss station): the wagers
  approved; an old journal's `payout.approved` (no wager ids) approves the round's payouts as a whole.
- PlayerBonusEvent (`bonus.*`): a player's bonus game; PresetSet, TimerRestarted (a fresh countdown
  after a restart).
- SettingsChanged: the pit boss's table settings (the service applies them at open_bets).
- NextRound: the finished round is cleared from the felt.
- DealerChanged (`table.dealer_changed`), and a pit boss's `dealer` setting: `dealer`, who deals the
  rounds opened from now on (the latest of the two facts).
- Every player's wagers of the last round they played (`last_wagers`, kept when the round leaves the
  felt: the croupier's *Rebet*; a round of winning wagers only, which holds just the winning chips,
  leaves them as they were).
- RngFault (`rng.fault`): the generator failed a health test or raised; `rng_fault` keeps it (the
  screens show it) and the table is tilted (`tilts`, read by engine.table.gate) until a pit boss
  clears it (TiltCleared, `table.tilt_cleared`, after the generator passed its test again): a
  restart does not clear it. Tilted (`table.tilted`): the gate's other causes; a "software" tilt is
  re-decided at every start, so `table.started` drops it; a "derived" one (derived tables that
  disagree with the journal) stays until the service clears it, after a start's check found them
  agreeing (engine.table.derived_watch).
Round facts about another round than the one on the felt (e.g. the pit-boss station voiding or
correcting a settled round) are left to the store's projections. Logins, alerts, `table.started`
and types this build does not know are kept in the journal and not folded (NOT_FOLDED; their
payloads are not this fold's to check). This module imports no SQLAlchemy (an import-linter
contract): entries come in as engine.store.records.Entry.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from engine.bets import Wager
from engine.bonus_game import BonusGame, BoxSeal, GameStarted, Preset
from engine.entry_types import USER_TYPES, EntryType
from engine.errors import DrrError
from engine.journal_types import ROUND_EVENTS, Payload, Unknown, entry_type, read
from engine.rng import Rng
from engine.round import (
    NoSpin,
    Phase,
    ResultBeforeClose,
    ResultCorrected,
    ResultRecorded,
    RoundEvent,
    RoundOpened,
    RoundSettled,
    RoundState,
    RoundVoided,
    WagerPlaced,
    apply,
)
from engine.rules import RulesSubmission, parse_rules
from engine.store.records import Entry
from engine.table.settlements import SettlementCache
from engine.table_events import (
    TILT_RNG,
    TILT_SOFTWARE,
    AutoConfirmDue,
    BettingTime,
    DealerChanged,
    Irregularity,
    IrregularityResolved,
    ManualEntry,
    ManualEntryRejected,
    NextRound,
    PayoutApproved,
    PlayerBonusEvent,
    PresetSet,
    Quarantined,
    RngFault,
    RulesLoaded,
    SettingsChanged,
    TiltCleared,
    Tilted,
    TimerRestarted,
    WheelStartOrdered,
)
from engine.wheel_events import (
    WheelEvent,
    WheelGap,
    WheelLaunched,
    WheelNoMoreBets,
    WheelRestart,
    WheelResult,
    WheelStarted,
)

log = logging.getLogger("drr.table")


IN_PLAY = (Phase.OPEN, Phase.CLOSED, Phase.RESULT, Phase.BONUS)
# Entry types the table's state does not depend on (an unknown type neither).
NOT_FOLDED: Final = frozenset(
    {
        None,
        EntryType.TABLE_STARTED,
        *USER_TYPES,
        EntryType.CHAIN_KEYED,
        EntryType.CHAIN_WRITER_ENROLLED,
        EntryType.FLOOR_ACTION,
        EntryType.WHEEL_RECONCILED,  # the wheel's log held against the journal: a record, no state
        EntryType.CHAIN_FORWARDED,
        EntryType.ALERT_RAISED,
        EntryType.ALERT_ACKNOWLEDGED,
        EntryType.ALERT_UPDATED,
        EntryType.ACTION_REFUSED,
        EntryType.HISTORY_IMPORTED,
        EntryType.RNG_STARTUP_TEST,  # a failed one comes with its rng.fault, which tilts
        EntryType.TABLE_SOFTWARE_APPROVED,  # the gate reads the approved digest from the settings file
        EntryType.TABLE_NEW_SOFTWARE,  # surveillance's alert only
    }
)


@dataclass(frozen=True)
class Hold:
    """An unresolved irregularity: nothing is settled and no wheel result is accepted meanwhile."""

    kind: str
    reason: str
    number: int | None = None
    game: int | None = None
    seq: int = 0


@dataclass(frozen=True)
class PendingResult:
    """A result from the wheel, waiting for the croupier's confirmation."""

    number: int
    game: int | None
    direction: str | None
    seq: int


@dataclass
class DriveState:
    """What the fold keeps of the round's clock: its betting time, whether the spin is ordered (and
    the wheel launched since), the auto-confirmation waiting (engine.table.wheel_drive decides on it)."""

    betting: BettingTime | None = None  # None: the wheel is free-running (or absent), no countdown
    spin_ordered: bool = False
    launched: bool = False  # the wheel launched the ball since the last order
    confirm: AutoConfirmDue | None = None

    def clear(self) -> None:
        self.betting, self.spin_ordered, self.launched, self.confirm = None, False, False, None

    def fold(self, payload: object) -> None:
        """One payload of the round on the felt (the fold calls this for every one)."""
        if isinstance(payload, BettingTime):
            self.betting = payload
        elif isinstance(payload, WheelStartOrdered):
            self.spin_ordered, self.launched = True, False
        elif isinstance(payload, WheelLaunched | WheelNoMoreBets):
            self.launched = True
        elif isinstance(payload, AutoConfirmDue):
            self.confirm = payload
        elif isinstance(payload, NoSpin):
            self.spin_ordered, self.launched, self.confirm = False, False, None  # the ball is spun again
        elif isinstance(payload, ResultRecorded | RoundVoided | Irregularity):
            self.confirm = None  # recorded, voided, or doubtful: nothing confirms itself any more

    @property
    def order_outstanding(self) -> bool:
        """The spin is ordered but the wheel has not launched it yet (the bridge sends the start again
        when the wheel comes back to its waiting state)."""
        return self.spin_ordered and not self.launched


@dataclass
class TableState:
    """Everything the table service knows, rebuilt entry by entry (see the module docstring)."""

    table: str
    rng: Rng
    clock: Callable[[], float] = time.time
    last_seq: int = 0
    rules_by_sha: dict[str, RulesSubmission] = field(default_factory=dict)
    rules_text: dict[str, str] = field(default_factory=dict)
    latest_rules: str | None = None  # sha256 of the submission the next round opens under
    round: RoundState | None = None
    rounds_opened: int = 0
    rounds_settled: int = 0
    rounds_voided: int = 0
    wagers_placed: int = 0  # in the current round, removed ones included (wager ids stay unique)
    expected_game: int | None = None
    no_spin_games: frozenset[int] = frozenset()  # wheel games of this round called a no-spin
    pending_result: PendingResult | None = None
    manual_entry: tuple[int, str] | None = None
    hold: Hold | None = None
    rng_fault: RngFault | None = None  # the latest fault of the generator, until a pit boss clears it
    tilts: dict[str, Tilted] = field(default_factory=dict)  # by cause: why play stopped (engine.table.gate)
    approved: frozenset[str] = frozenset()
    approved_by: str | None = None
    presets: dict[str, Preset] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)  # the pit boss's table.settings_changed, latest
    round_settings: dict[str, str] = field(default_factory=dict)  # ... as they were when the round opened
    games: dict[str, BonusGame] = field(default_factory=dict)
    # The table's own key for its bonus boxes (engine.bonus_game.BoxSeal; engine.table.service_core):
    # with it, boxes are committed and sealed at placement and revealed after the pick; without it
    # (a follower, a reader), committed boxes are known only from their reveal.
    box_key: bytes | None = None
    box_keys_retired: tuple[bytes, ...] = ()  # ... of the keys rotated out, newest first: they only open
    drive: DriveState = field(default_factory=DriveState)  # the round's clock (engine.table.wheel_drive)
    dealer: str | None = None  # who deals the next round opened (table.dealer_changed, the dealer setting)
    last_wagers: dict[str, tuple[Wager, ...]] = field(default_factory=dict)  # by player: Rebet
    # The round's settlement, worked out once per round state: the commands, this fold (a
    # round.settled is checked against it), the screens and the journal all read this one.
    settlements: SettlementCache = field(default_factory=SettlementCache)

    # -- reading --------------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The round's phase, or IDLE when no round is on the felt."""
        return Phase.IDLE if self.round is None else self.round.phase

    @property
    def in_play(self) -> bool:
        return self.round is not None and self.round.phase in IN_PLAY

    @property
    def round_id(self) -> str | None:
        return None if self.round is None else self.round.round_id

    @property
    def rules(self) -> RulesSubmission | None:
        """The rules of the round on the felt, else those the next round opens under."""
        if self.round is not None:
            return self.round.rules
        return None if self.latest_rules is None else self.rules_by_sha[self.latest_rules]

    # -- the fold -------------------------------------------------------------------------------

    def apply_entry(self, entry: Entry) -> None:
        """Fold one durable journal entry; refuses entries out of chain order (none twice, none skipped)."""
        if entry.table != self.table:
            raise DrrError(f"journal entry {entry.seq} of table {entry.table} is not for table {self.table}")
        if entry.seq <= self.last_seq:
            raise DrrError(f"journal entry {entry.seq} of table {self.table} was already applied")
        if entry.seq != self.last_seq + 1:
            raise DrrError(
                f"journal of table {self.table}: entry {self.last_seq + 1} is missing before {entry.seq}"
            )
        if entry_type(entry.type) is EntryType.TABLE_STARTED:
            # A restart re-decides the software check (its tilt, if any, follows in the same batch); an
            # RNG tilt outlasts it: only a pit boss clears that, after the generator's test passes.
            self.tilts.pop(TILT_SOFTWARE, None)
            # A new process, a new wheel link: a spin ordered before the restart is taken as not yet
            # launched, so the driver sends the start again once the wheel waits in state 2 (a wheel
            # still spinning that spin reports its launch or result first, which ends the order).
            self.drive.launched = False
        if entry_type(entry.type) in NOT_FOLDED:
            self.last_seq = entry.seq  # kept in the journal only; its payload is not this fold's to check
            return
        payload = read(entry)  # DrrError naming the entry if malformed
        if self._other_round(entry, payload):
            # Another round's fact (a pit boss voiding or correcting a settled round from the floor
            # station): the store's projections keep it; the round on the felt is not touched.
            self.last_seq = entry.seq
            return
        try:
            self._fold(payload, entry)
        except (KeyError, TypeError, ValueError) as exc:
            raise DrrError(
                f"journal entry {entry.seq} ({entry.type}) of table {self.table} is malformed: {exc}"
            ) from None
        self.last_seq = entry.seq

    def _fold(self, p: Payload | Unknown, entry: Entry) -> None:
        if isinstance(p, ROUND_EVENTS):
            if isinstance(p, RoundOpened):  # the settings apply from here for the whole round
                self.round_settings = dict(self.settings)
            self._round_event(p)
        elif isinstance(p, PlayerBonusEvent):
            self._bonus_event(p)
        elif isinstance(p, WheelEvent):
            self._wheel_entry(p, entry)
        elif isinstance(p, RulesLoaded):
            self._rules_loaded(p)
        elif isinstance(p, Irregularity):
            self.hold = Hold(p.kind, p.reason, p.number, p.game)
        elif isinstance(p, PayoutApproved):
            if p.wager_ids is not None:
                self.approved = frozenset(p.wager_ids)
                self.approved_by = p.approved_by
            elif self.round is not None:
                # An old journal's pit-boss `payout.approved`: the round's payouts as a whole.
                self.approved = frozenset(w.id for w in self.round.wagers)
                self.approved_by = p.approved_by or entry.user or ""
        elif isinstance(p, PresetSet):
            self.presets[p.player] = p.preset
        elif isinstance(p, TimerRestarted):
            game = self.games[p.player]
            if game.round != p.round:
                raise ValueError(f"timer restart for round {p.round} but the game is in round {game.round}")
            game.deadline = p.deadline
        elif isinstance(p, SettingsChanged):  # from the pit-boss station; the service applies them
            self._settings_changed(p)  # at open_bets
        elif isinstance(p, DealerChanged):
            self.dealer = p.dealer
        elif isinstance(p, ManualEntry):
            self.manual_entry = (p.number, p.reason)
        elif isinstance(p, ManualEntryRejected):
            self.manual_entry = None
        elif isinstance(p, IrregularityResolved):
            self.hold = None
        elif isinstance(p, RngFault):
            self.rng_fault = p
            self.tilts[TILT_RNG] = Tilted(TILT_RNG, p.message)
        elif isinstance(p, Tilted):
            self.tilts[p.cause] = p
        elif isinstance(p, TiltCleared):
            self.tilts.pop(p.cause, None)
            if p.cause == TILT_RNG:
                self.rng_fault = None
        elif isinstance(p, NextRound):
            self._remember_wagers()
            self._clear_round()
            self.round = None
        elif isinstance(p, Quarantined):  # a store continuing a quarantined one: round ids number on
            self.rounds_opened += p.rounds_before
        if self.in_play and not isinstance(p, WheelEvent):
            self.drive.fold(p)  # betting time, spin ordered, auto-confirmation (wheel ones: below)

    def seed(
        self,
        *,
        last_seq: int,
        history: list[Entry],
        rounds_opened: int,
        rounds_settled: int,
        rounds_voided: int,
    ) -> None:
        """Start the fold at `last_seq` + 1 instead of 1 (recovery of a long journal): `history` holds
        the earlier entries that still matter (Rules Submissions, bonus presets, settings), the counts
        the earlier rounds. Only on a fresh state."""
        if self.last_seq != 0:
            raise DrrError("the table state can be seeded only before the first entry is folded")
        before = 0
        for entry in history:
            p = read(entry)
            if isinstance(p, Quarantined):
                before += p.rounds_before
            elif isinstance(p, RulesLoaded):
                self._rules_loaded(p)
            elif isinstance(p, PresetSet):
                self.presets[p.player] = p.preset
            elif isinstance(p, SettingsChanged):
                self._settings_changed(p)
            elif isinstance(p, DealerChanged):
                self.dealer = p.dealer
        self.rounds_opened, self.rounds_settled, self.rounds_voided = (
            rounds_opened + before,
            rounds_settled,
            rounds_voided,
        )
        self.last_seq = last_seq

    def _other_round(self, entry: Entry, p: Payload | Unknown) -> bool:
        """True for a round or bonus fact about a round other than the one on the felt."""
        if isinstance(p, RoundOpened) or entry.round_id is None:
            return False
        if not isinstance(p, (*ROUND_EVENTS, Irregularity, PayoutApproved, PlayerBonusEvent, TimerRestarted)):
            return False
        return entry.round_id != self.round_id

    def _settings_changed(self, p: SettingsChanged) -> None:
        self.settings.update(p.changes)
        if p.changes.get("dealer"):
            self.dealer = p.changes["dealer"]

    def _remember_wagers(self) -> None:
        """Each player's wagers of the round leaving the felt, for a *Rebet* in a later round. A round
        of winning wagers only holds just the chips that won, not what the players had on the felt:
        it leaves their last whole round's wagers as they were (issue 25 point 6)."""
        if self.round is None or not self.round.wagers or self.round.winning_only:
            return
        by_player: dict[str, list[Wager]] = {}
        for w in self.round.wagers:
            by_player.setdefault(w.player, []).append(w)
        self.last_wagers.update({player: tuple(ws) for player, ws in by_player.items()})

    def _clear_round(self) -> None:
        self.expected_game = None
        self.no_spin_games = frozenset()
        self.pending_result = None
        self.manual_entry = None
        self.hold = None
        self.approved = frozenset()
        self.approved_by = None
        self.games = {}
        self.wagers_placed = 0
        self.drive.clear()

    def _rules_loaded(self, p: RulesLoaded) -> None:
        rules = parse_rules(p.text.encode("utf-8"), source="the journaled Rules Submission")
        if rules.sha256 != p.sha256:
            raise ValueError("the Rules Submission's text does not match its sha256")
        self.rules_by_sha[rules.sha256] = rules
        self.rules_text[rules.sha256] = p.text
        self.latest_rules = rules.sha256

    def _round_event(self, event: RoundEvent) -> None:
        if isinstance(event, RoundOpened):
            sha = event.rules_sha256
            if sha not in self.rules_by_sha:
                raise ValueError(f"round opened under Rules Submission {sha[:12]} that was never loaded")
            self._remember_wagers()
            self._clear_round()
            self.round = apply(RoundState.initial(self.rules_by_sha[sha]), event)
            self.rounds_opened += 1
            self.expected_game = event.game_number
            return
        if self.round is None:
            raise ValueError("no round is open")
        if isinstance(event, ResultCorrected) or (isinstance(event, RoundVoided) and not self.in_play):
            # The pit-boss station may correct or void a round this service has meanwhile moved on
            # with (e.g. voiding it after settlement): the store's projections keep that fact.
            try:
                self.round = apply(self.round, event)
            except DrrError as exc:
                log.warning(
                    "%s not applied to round %s on the felt: %s", event.type, self.round.round_id, exc
                )
                return
        else:
            settled = self.settlements.final(self.round) if isinstance(event, RoundSettled) else None
            self.round = apply(self.round, event, settled=settled)
        if isinstance(event, WagerPlaced):
            self.wagers_placed += 1
        elif isinstance(event, ResultBeforeClose):
            self.hold = Hold("result_before_close", event.reason, event.number)
        elif isinstance(event, ResultRecorded):
            self.pending_result = None
            self.manual_entry = None
            self.hold = None  # a manual result entered by the pit boss resolves a hold
            self.approved = frozenset()
        elif isinstance(event, ResultCorrected):
            self.approved = frozenset()  # other winners, other payouts: approve again
        elif isinstance(event, NoSpin):
            if event.game is not None:
                self.no_spin_games |= {event.game}
            self.pending_result = None
            self.manual_entry = None
            self.hold = None
            self.expected_game = None
            self.approved = frozenset()
        elif isinstance(event, RoundSettled):
            self.rounds_settled += 1
        elif isinstance(event, RoundVoided):
            self.rounds_voided += 1
            self.hold = None
            self.pending_result = None

    def _wheel_entry(self, p: WheelEvent, entry: Entry) -> None:
        # Journaled without the round's id: another spin than the round's (engine.table.wheel_drive).
        if not self.in_play or entry.round_id is None:
            return
        assert self.round is not None
        seq = entry.seq
        self.drive.fold(p)
        if isinstance(p, WheelGap | WheelRestart):
            self.no_spin_games = frozenset()  # the wheel's counter starts over: old numbers recur
        game = p.game
        if isinstance(p, WheelStarted) and self.round.phase is Phase.OPEN and game is not None:
            self.expected_game = game  # a new wheel game while bets are open: this is our spin
        elif isinstance(p, WheelLaunched | WheelNoMoreBets) and self.expected_game is None:
            self.expected_game = game
        elif isinstance(p, WheelResult) and p.accepted:
            self.pending_result = PendingResult(p.number, game, p.direction, seq)

    def _bonus_event(self, p: PlayerBonusEvent) -> None:
        if self.round is None:
            raise ValueError("no round is open")
        if isinstance(p.event, GameStarted):
            if p.player in self.games:
                raise ValueError(f"player {p.player!r} already has a bonus game in this round")
            seal = self.box_seal(p.player)
            self.games[p.player] = BonusGame(
                rules=self.round.rules, rng=self.rng, clock=self.clock, seal=seal
            )
        self.games[p.player].apply(p.event)

    def box_seal(self, player: str) -> BoxSeal | None:
        """The seal of `player`'s bonus boxes in the round on the felt (None without the table's key)."""
        if self.box_key is None or self.round is None:
            return None
        return BoxSeal(
            self.box_key, f"{self.table}|{self.round.round_id}|{player}", older=self.box_keys_retired
        )
