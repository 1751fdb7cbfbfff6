"""The table's own journal payloads (beside the round's and the bonus game's events): one frozen class each.

Written by the table service (engine.table.service) and the pit-boss station (engine.floor.actions),
folded by engine.table.state, registered by engine.journal_types. Each class names its entry type
(`type`) and declares its fields once: engine.codec's `Record` writes its payload (`to_json`, exactly
the JSON journaled today: optional facts left out when None) and reads it back (`from_json`;
KeyError/TypeError/ValueError on a malformed payload, the registry turns that into a DrrError naming
the entry; an old journal's spellings are declared on the field that reads them).

- `table.started` TableStarted {station, pid, rng, recovered_to, round_in_play, phase} (+ key: the
  public key that signs this chain's head, engine.store.keys)
- `table.key_rotated` KeyRotated {old_key, new_key, signature}: the old key's signature over the new
- `table.quarantined` Quarantined {damaged_store, damaged_sha256, problem, last_good_seq,
  last_good_hash, last_good_sig, key, rounds_before}: first entry of a store started after `drr db quarantine`
- `table.rules_loaded` RulesLoaded {sha256, name, text} (+ the pit-boss station's source, reason, by,
  role, effective); an old journal's `rules.changed` {sha256, source, text, ...} reads as one too
- `table.settings_changed` SettingsChanged {changes, reason, by, role, effective}
- `table.manual_entry` ManualEntry {number, reason}; `table.manual_entry_rejected` ManualEntryRejected
  {entered, confirmed, reason}
- `table.irregularity_resolved` IrregularityResolved {kind, resolution, reason}
- `table.next_round` NextRound {after}
- `table.betting_time` BettingTime {seconds, deadline}: the betting time in force for the round (a
  commanded wheel): at `deadline` (the service's clock) the table orders the wheel to start the spin
- `table.wheel_start` WheelStartOrdered {why}: the table ordered the wheel to start the round's spin
  (hardware.table_bridge sends it to the wheel)
- `table.auto_confirm_due` AutoConfirmDue {number, game, seconds, deadline}: the wheel's clean result
  is confirmed at `deadline` unless the croupier disputes it
- `table.dealer_changed` DealerChanged {dealer, previous, station} (+ role): who deals from the next
  round opened on (dealer None: the dealer signed out and nobody is signed in at the station)
- `table.floor_action_taken` FloorActionTaken {floor_seq, floor_hash, action, outcome} (+ why): a
  pit boss's action journaled at the floor database (`floor.action`) and brought to the table by its
  forwarder (engine.floor.inbox): "taken" (the action's own entry follows in the same batch) or
  "refused" (why: the table had moved on)
- `rng.startup_test` StartupTested {rng, samples, n, passed, test, message}: NIST SP 800-90B § 4.3's
  start-up test, run before the first draw of every start (engine.rng.HealthTestedRng.startup_test)
- `table.tilted` Tilted {cause, reason} (+ running, approved: the digests of a "software" tilt): the
  gate (engine.table.gate) stopped play; `table.tilt_cleared` TiltCleared {cause, by, reason} (+ the
  health test's StartupResult for an "rng" tilt): a pit boss cleared it
- `table.software_approved` SoftwareApproved {digest, previous, by, reason}: the software digest a pit
  boss or admin approved for this table (also written to the settings file, engine.config)
- `table.new_software` NewSoftware {running, previous}: with no approved digest set, the first start
  of a digest this table has not started with before (a surveillance alert to acknowledge)
- `table.bias_alarm` BiasAlarm {test, key, pockets, at_spin, statistic, threshold, spins, hits, words}
  (+ direction): a sequential bias test (engine.sequential) tripped at the table's `at_spin`-th spin
  since its tests last started (engine.table.bias_watch journals it, once per fact)
- `table.wheel_serviced` WheelServiced {what, reason, by, role}: a pit boss changed the wheel or
  serviced it ("wheel change", "maintenance"): the table's bias tests start afresh from the next spin
- `round.irregularity` Irregularity {kind, reason, game, number?}
- `round.payout_approved` PayoutApproved {wager_ids, total, threshold, approved_by} (+ reason, role
  from the pit-boss station); an old journal's `payout.approved` {amount, reason, by, role} reads as
  one with `wager_ids` None: the round's payouts approved as a whole
- `bonus.preset_set` PresetSet {player, preset}; `bonus.timer_restarted` TimerRestarted {player,
  round, deadline}
- `bonus.*` of engine.bonus_game: PlayerBonusEvent {**event, player}: the game's event and whose game
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar, Final

from engine.bonus_game import PRESETS, BonusEvent, Preset
from engine.bonus_game import event_from_json as bonus_event_from_json
from engine.codec import SOFT_WHOLE, STRICT_WHOLE, Coder, Record, fact, maybe_whole
from engine.entry_types import EntryType
from engine.rng import StartupResult


def _preset(value: Any) -> Preset:
    if value not in PRESETS:
        raise ValueError(f"preset {value!r}")
    result: Preset = value
    return result


_ROUNDS_BEFORE: Final = Coder(load=lambda v: SOFT_WHOLE.load(v) or 0)  # an old store's null: none before
_BONUS_EVENT: Final = Coder(lambda e: e.to_json(), bonus_event_from_json)
_STARTUP: Final = Coder(lambda r: r.to_json(), StartupResult.from_json)


@dataclass(frozen=True)
class TableStarted(Record):
    """A table service started (or restarted) on this chain, and what recovery found."""

    type: ClassVar[EntryType] = EntryType.TABLE_STARTED
    station: str
    pid: int
    rng: str
    recovered_to: int
    round_in_play: str | None
    phase: str
    # The digest of the program that started (engine.software_id, `drr audit software`); absent
    # from journals written before it was recorded, so optional and left out of the JSON then.
    software: str | None = None
    key: str | None = None  # hex public key of the table's signing key (none before keys existed)
    # The large-payout threshold the station started with (its settings file): the value in force
    # until a pit boss sets large_payout; absent from journals written before it was recorded.
    large_payout: str | None = None
    # The station's round clock it started with (its settings file): seconds of betting before a
    # commanded spin and before a clean result confirms itself, "off" for none; the values in force
    # until a pit boss sets betting_seconds / auto_confirm_seconds. Absent from journals written before.
    betting_seconds: str | None = None
    auto_confirm_seconds: str | None = None
    # The byte rule of this chain's entries from this one on ("rfc8785": RFC 8785, engine.store.canonical;
    # a chain switches at its first start that names it); absent from journals written before.
    canonical: str | None = None


@dataclass(frozen=True)
class KeyRotated(Record):
    """The table's signing key replaced: heads and checkpoints from here on are signed by `new_key`;
    `signature` is the old key's over `engine.store.keys.rotation_message(table, old, new)`."""

    type: ClassVar[EntryType] = EntryType.TABLE_KEY_ROTATED
    old_key: str
    new_key: str
    signature: str


@dataclass(frozen=True)
class Quarantined(Record):
    """The first entry of a store started by `drr db quarantine`: the damaged store kept aside (its
    path and SHA-256), what was wrong, and the last good signed head of its chain this one continues."""

    type: ClassVar[EntryType] = EntryType.TABLE_QUARANTINED
    damaged_store: str
    damaged_sha256: str
    problem: str
    last_good_seq: int
    last_good_hash: str
    last_good_sig: str | None
    key: str
    # Round ids the damaged store used: the new store numbers on after them.
    rounds_before: int = field(default=0, metadata=fact(coder=_ROUNDS_BEFORE))


@dataclass(frozen=True)
class RulesLoaded(Record):
    """A Rules Submission (its text and sha256); the next round opens under it.

    The table service writes sha256, name, text; the pit-boss station adds where the file came from
    and who accepted it why (`effective`: "next round")."""

    type: ClassVar[EntryType] = EntryType.TABLE_RULES_LOADED
    sha256: str
    name: str | None = field(metadata=fact(omit=True))
    text: str
    source: str | None = None
    reason: str | None = None
    by: str | None = None
    role: str | None = None
    effective: str | None = None


@dataclass(frozen=True)
class SettingsChanged(Record):
    """The pit boss's table settings (min/max bet, large payout, dealer...), from the next round."""

    type: ClassVar[EntryType] = EntryType.TABLE_SETTINGS_CHANGED
    changes: Mapping[str, str]
    reason: str | None = None
    by: str | None = None
    role: str | None = None
    effective: str | None = None


@dataclass(frozen=True)
class ManualEntry(Record):
    """Step one of a manual result: the number entered, with the reason (the sensor is down...)."""

    type: ClassVar[EntryType] = EntryType.TABLE_MANUAL_ENTRY
    number: int
    reason: str


@dataclass(frozen=True)
class ManualEntryRejected(Record):
    """The second manual entry differed from the first: neither is recorded."""

    type: ClassVar[EntryType] = EntryType.TABLE_MANUAL_ENTRY_REJECTED
    entered: int
    confirmed: int
    reason: str = ""


@dataclass(frozen=True)
class IrregularityResolved(Record):
    """A pit boss acknowledged the irregularity on hold; the round goes on in its phase."""

    type: ClassVar[EntryType] = EntryType.TABLE_IRREGULARITY_RESOLVED
    kind: str = ""
    resolution: str = ""
    reason: str = ""


@dataclass(frozen=True)
class RngFault(Record):
    """The generator failed a continuous health test (NIST SP 800-90B § 4.4, engine.rng): the table
    refuses to draw until the generator is checked and the table service restarted."""

    type: ClassVar[EntryType] = EntryType.RNG_FAULT
    test: str  # "repetition count test" or "adaptive proportion test"
    rng: str  # the generator's name
    n: str  # the randbelow range whose values failed (a decimal string: it may be huge)
    count: int
    cutoff: int
    message: str


@dataclass(frozen=True)
class StartupTested(Record):
    """The start-up test of NIST SP 800-90B § 4.3 that ran before this start's first draw."""

    type: ClassVar[EntryType] = EntryType.RNG_STARTUP_TEST
    rng: str
    result: StartupResult = field(metadata=fact(flat=True, coder=_STARTUP))  # its keys beside "rng"


# Why a table is tilted (engine.table.gate): the generator, the program it runs, or derived tables
# (rounds, daily totals, …) that disagree with its verified journal (engine.table.derived_watch).
TILT_RNG: Final = "rng"
TILT_SOFTWARE: Final = "software"
TILT_DERIVED: Final = "derived"


@dataclass(frozen=True)
class Tilted(Record):
    """The gate stopped play for `cause`: no wagers, no new round, no draw until it is cleared."""

    type: ClassVar[EntryType] = EntryType.TABLE_TILTED
    cause: str  # TILT_RNG, TILT_SOFTWARE or TILT_DERIVED
    reason: str  # in words, as the screens show it
    running: str | None = None  # a software tilt: the digest this table runs ...
    approved: str | None = None  # ... and the one approved for it


@dataclass(frozen=True)
class TiltCleared(Record):
    """A pit boss cleared the tilt of `cause`; for the generator, after it passed its test again. A
    derived tilt is cleared by the table service itself (`by` "system") when a start's check finds
    the derived tables agreeing with the journal again (after `drr db rebuild`)."""

    type: ClassVar[EntryType] = EntryType.TABLE_TILT_CLEARED
    cause: str
    by: str
    reason: str = ""
    health_test: StartupResult | None = None


@dataclass(frozen=True)
class SoftwareApproved(Record):
    """The software digest a pit boss or admin approved for this table (`drr pitboss approve-software`)."""

    type: ClassVar[EntryType] = EntryType.TABLE_SOFTWARE_APPROVED
    digest: str
    previous: str | None  # written as null: no digest was approved before
    by: str
    reason: str


@dataclass(frozen=True)
class NewSoftware(Record):
    """No digest is approved for this table and it starts with one it never started with before."""

    type: ClassVar[EntryType] = EntryType.TABLE_NEW_SOFTWARE
    running: str
    previous: str | None  # the digest of its last start (null: its first start, or not journaled then)


BIAS_TESTS: Final = ("pocket", "sector", "direction", "runs")  # engine.sequential.KINDS
WHEEL_SERVICES: Final = ("wheel change", "maintenance")


@dataclass(frozen=True)
class BiasAlarm(Record):
    """A sequential bias test tripped: which (`test` kind, its `key`, the `pockets` it watches), at
    which spin of the table since its tests last started, its statistic and threshold (nats), the
    evidence (`hits` in the last `spins`) and the sentence a surveillance officer reads."""

    type: ClassVar[EntryType] = EntryType.TABLE_BIAS_ALARM
    test: str
    key: str
    pockets: tuple[int, ...]
    at_spin: int
    statistic: float
    threshold: float
    spins: int
    hits: int
    words: str
    direction: str | None = None

    def __post_init__(self) -> None:
        if self.test not in BIAS_TESTS:
            raise ValueError(f"test must be one of {', '.join(BIAS_TESTS)}, not {self.test!r}")
        if any(isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 36 for n in self.pockets):
            raise ValueError(f"pockets must be numbers 0..36, not {self.pockets!r}")


@dataclass(frozen=True)
class WheelServiced(Record):
    """A pit boss changed the table's wheel or serviced it: its bias tests start afresh."""

    type: ClassVar[EntryType] = EntryType.TABLE_WHEEL_SERVICED
    what: str
    reason: str
    by: str
    role: str | None = None

    def __post_init__(self) -> None:
        if self.what not in WHEEL_SERVICES:
            raise ValueError(f"what must be one of {', '.join(WHEEL_SERVICES)}, not {self.what!r}")


@dataclass(frozen=True)
class NextRound(Record):
    """The finished round `after` is cleared from the felt."""

    type: ClassVar[EntryType] = EntryType.TABLE_NEXT_ROUND
    after: str | None


@dataclass(frozen=True)
class Irregularity(Record):
    """Something wrong with the spin: the round is on hold until a no-spin, a resolution or a void."""

    type: ClassVar[EntryType] = EntryType.ROUND_IRREGULARITY
    kind: str = ""
    reason: str = ""
    game: int | None = maybe_whole(null=True)  # written even when unknown
    number: int | None = maybe_whole()  # the result it concerns, if any


@dataclass(frozen=True)
class PayoutApproved(Record):
    """A pit boss approved large payouts: the wagers `wager_ids` (all of the round's when None, an old
    journal's `payout.approved`), paying `total`, at the table's `threshold`."""

    type: ClassVar[EntryType] = EntryType.ROUND_PAYOUT_APPROVED
    wager_ids: tuple[str, ...] | None = field(metadata=fact(omit=True))
    total: Decimal = field(metadata=fact(legacy=("amount",)))  # `payout.approved`'s spelling
    threshold: Decimal | None = field(metadata=fact(omit=True))
    approved_by: str = field(metadata=fact(legacy=("by",)))
    reason: str | None = None  # the pit-boss station's reason and the approver's role
    role: str | None = None


@dataclass(frozen=True)
class PresetSet(Record):
    """What the timer does in rounds 3-6 of `player`'s next bonus game (§ 617b.12(i)(2))."""

    type: ClassVar[EntryType] = EntryType.BONUS_PRESET_SET
    player: str
    preset: Preset = field(metadata=fact(coder=Coder(load=_preset)))


@dataclass(frozen=True)
class TimerRestarted(Record):
    """A fresh countdown for `player`'s bonus game in `round` after a restart (the old one passed)."""

    type: ClassVar[EntryType] = EntryType.BONUS_TIMER_RESTARTED
    player: str
    round: int = field(metadata=fact(coder=STRICT_WHOLE))
    deadline: float


@dataclass(frozen=True)
class PlayerBonusEvent(Record):
    """A `bonus.*` entry: one of engine.bonus_game's events and the player whose game it is.

    Its payload is the event's JSON with "player" beside it. The entry type is the event's
    (`type` is read from the event, so one class serves the six bonus-game types)."""

    player: str
    event: BonusEvent = field(metadata=fact(flat=True, coder=_BONUS_EVENT))  # its keys beside "player"

    @property
    def type(self) -> EntryType:
        return self.event.type


@dataclass(frozen=True)
class BettingTime(Record):
    """The round's betting time with a commanded wheel: the spin is ordered at `deadline` (the
    service's clock, seconds since the epoch), `seconds` after bets opened (engine.table.wheel_drive)."""

    type: ClassVar[EntryType] = EntryType.TABLE_BETTING_TIME
    seconds: float
    deadline: float


@dataclass(frozen=True)
class WheelStartOrdered(Record):
    """The table ordered the wheel to start the round's spin; `why`: "betting time over", "bets closed
    by the croupier" or "re-spin after a no-spin". hardware.table_bridge sends the start command."""

    type: ClassVar[EntryType] = EntryType.TABLE_WHEEL_START
    why: str


@dataclass(frozen=True)
class AutoConfirmDue(Record):
    """The wheel's clean result `number` (game `game`) is confirmed at `deadline` (the service's clock),
    `seconds` after it arrived, unless the croupier disputes it first."""

    type: ClassVar[EntryType] = EntryType.TABLE_AUTO_CONFIRM_DUE
    number: int = field(metadata=fact(coder=STRICT_WHOLE))
    game: int | None = field(metadata=fact(coder=SOFT_WHOLE))
    seconds: float
    deadline: float


@dataclass(frozen=True)
class DealerChanged(Record):
    """Who deals at the table from now on: a croupier signed in at the croupier station, taking over
    from `previous` (None: nobody was signed in); `dealer` None: `previous` signed out. Rounds opened
    from here on carry this dealer (the per-dealer statistics read it from `round.opened`)."""

    type: ClassVar[EntryType] = EntryType.TABLE_DEALER_CHANGED
    dealer: str | None
    previous: str | None
    station: str
    role: str | None = None  # the signed-in dealer's role

    def __post_init__(self) -> None:
        if self.dealer is None and self.previous is None:
            raise ValueError("a dealer change names the dealer signing in or the one signing out")


FLOOR_ACTION_OUTCOMES = ("taken", "refused")


@dataclass(frozen=True)
class FloorActionTaken(Record):
    """A pit boss's action from the floor database (`floor.action` entry `floor_seq` of the floor's own
    chain, with its hash) brought to this table by its forwarder (engine.floor.inbox): `taken` — the
    action's own entry follows in the same batch, decided again on this journal — or `refused`, with
    `why` (the table had moved on since the floor's copy showed the round)."""

    type: ClassVar[EntryType] = EntryType.TABLE_FLOOR_ACTION_TAKEN
    floor_seq: int
    floor_hash: str
    action: str
    outcome: str
    why: str | None = None

    def __post_init__(self) -> None:
        if self.outcome not in FLOOR_ACTION_OUTCOMES:
            raise ValueError(
                f"outcome must be one of {', '.join(FLOOR_ACTION_OUTCOMES)}, not {self.outcome!r}"
            )
        if isinstance(self.floor_seq, bool) or not isinstance(self.floor_seq, int) or self.floor_seq < 1:
            raise ValueError(f"floor_seq must be a positive entry number, not {self.floor_seq!r}")
