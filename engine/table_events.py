"""The table's own journal payloads (beside the round's and the bonus game's events): one frozen class each.

Written by the table service (engine.table.service) and the pit-boss station (engine.floor.actions),
folded by engine.table.state, registered by engine.journal_types. Each class names its entry type
(`type`), writes its payload (`to_json`, exactly the JSON journaled today: optional facts left out
when None) and reads it back (`from_json`; KeyError/TypeError/ValueError on a malformed payload, the
registry turns that into a DrrError naming the entry).

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
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Final

from engine.bonus_game import BonusEvent, Preset
from engine.bonus_game import event_from_json as bonus_event_from_json
from engine.entry_types import EntryType
from engine.rng import StartupResult


def _put(out: dict[str, Any], **facts: Any) -> dict[str, Any]:
    out.update({k: v for k, v in facts.items() if v is not None})
    return out


def _opt_str(v: Any) -> str | None:
    return None if v is None else str(v)


def _opt_int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _whole(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{what} {v!r} is not a whole number")
    return v


@dataclass(frozen=True)
class TableStarted:
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
    # The byte rule of this chain's entries from this one on ("rfc8785": RFC 8785, engine.store.canonical;
    # a chain switches at its first start that names it); absent from journals written before.
    canonical: str | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "station": self.station,
            "pid": self.pid,
            "rng": self.rng,
            "recovered_to": self.recovered_to,
            "round_in_play": self.round_in_play,
            "phase": self.phase,
        }
        return _put(
            d, software=self.software, key=self.key, large_payout=self.large_payout, canonical=self.canonical
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TableStarted:
        return cls(
            str(d["station"]),
            int(d["pid"]),
            str(d["rng"]),
            int(d["recovered_to"]),
            _opt_str(d.get("round_in_play")),
            str(d["phase"]),
            software=_opt_str(d.get("software")),
            key=_opt_str(d.get("key")),
            large_payout=_opt_str(d.get("large_payout")),
            canonical=_opt_str(d.get("canonical")),
        )


@dataclass(frozen=True)
class KeyRotated:
    """The table's signing key replaced: heads and checkpoints from here on are signed by `new_key`;
    `signature` is the old key's over `engine.store.keys.rotation_message(table, old, new)`."""

    type: ClassVar[EntryType] = EntryType.TABLE_KEY_ROTATED
    old_key: str
    new_key: str
    signature: str

    def to_json(self) -> dict[str, Any]:
        return {"old_key": self.old_key, "new_key": self.new_key, "signature": self.signature}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> KeyRotated:
        return cls(str(d["old_key"]), str(d["new_key"]), str(d["signature"]))


@dataclass(frozen=True)
class Quarantined:
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
    rounds_before: int = 0  # round ids the damaged store used: the new store numbers on after them

    def to_json(self) -> dict[str, Any]:
        return {
            "damaged_store": self.damaged_store,
            "damaged_sha256": self.damaged_sha256,
            "problem": self.problem,
            "last_good_seq": self.last_good_seq,
            "last_good_hash": self.last_good_hash,
            "last_good_sig": self.last_good_sig,
            "key": self.key,
            "rounds_before": self.rounds_before,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Quarantined:
        return cls(
            str(d["damaged_store"]),
            str(d["damaged_sha256"]),
            str(d["problem"]),
            int(d["last_good_seq"]),
            str(d["last_good_hash"]),
            _opt_str(d.get("last_good_sig")),
            str(d["key"]),
            _opt_int(d.get("rounds_before")) or 0,
        )


@dataclass(frozen=True)
class RulesLoaded:
    """A Rules Submission (its text and sha256); the next round opens under it.

    The table service writes sha256, name, text; the pit-boss station adds where the file came from
    and who accepted it why (`effective`: "next round")."""

    type: ClassVar[EntryType] = EntryType.TABLE_RULES_LOADED
    sha256: str
    name: str | None
    text: str
    source: str | None = None
    reason: str | None = None
    by: str | None = None
    role: str | None = None
    effective: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"sha256": self.sha256, "text": self.text}
        return _put(
            out,
            name=self.name,
            source=self.source,
            reason=self.reason,
            by=self.by,
            role=self.role,
            effective=self.effective,
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RulesLoaded:
        return cls(
            str(d["sha256"]),
            _opt_str(d.get("name")),
            str(d["text"]),
            _opt_str(d.get("source")),
            _opt_str(d.get("reason")),
            _opt_str(d.get("by")),
            _opt_str(d.get("role")),
            _opt_str(d.get("effective")),
        )


@dataclass(frozen=True)
class SettingsChanged:
    """The pit boss's table settings (min/max bet, large payout, dealer...), from the next round."""

    type: ClassVar[EntryType] = EntryType.TABLE_SETTINGS_CHANGED
    changes: Mapping[str, str]
    reason: str | None = None
    by: str | None = None
    role: str | None = None
    effective: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"changes": dict(self.changes)}
        return _put(out, reason=self.reason, by=self.by, role=self.role, effective=self.effective)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SettingsChanged:
        changes = d["changes"]
        if not isinstance(changes, Mapping):
            raise ValueError(f"changes {changes!r} is not an object")
        return cls(
            {str(k): str(v) for k, v in changes.items()},
            _opt_str(d.get("reason")),
            _opt_str(d.get("by")),
            _opt_str(d.get("role")),
            _opt_str(d.get("effective")),
        )


@dataclass(frozen=True)
class ManualEntry:
    """Step one of a manual result: the number entered, with the reason (the sensor is down...)."""

    type: ClassVar[EntryType] = EntryType.TABLE_MANUAL_ENTRY
    number: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "reason": self.reason}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ManualEntry:
        return cls(int(d["number"]), str(d["reason"]))


@dataclass(frozen=True)
class ManualEntryRejected:
    """The second manual entry differed from the first: neither is recorded."""

    type: ClassVar[EntryType] = EntryType.TABLE_MANUAL_ENTRY_REJECTED
    entered: int
    confirmed: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"entered": self.entered, "confirmed": self.confirmed, "reason": self.reason}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ManualEntryRejected:
        return cls(int(d["entered"]), int(d["confirmed"]), str(d.get("reason", "")))


@dataclass(frozen=True)
class IrregularityResolved:
    """A pit boss acknowledged the irregularity on hold; the round goes on in its phase."""

    type: ClassVar[EntryType] = EntryType.TABLE_IRREGULARITY_RESOLVED
    kind: str
    resolution: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "resolution": self.resolution, "reason": self.reason}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> IrregularityResolved:
        return cls(str(d.get("kind", "")), str(d.get("resolution", "")), str(d.get("reason", "")))


@dataclass(frozen=True)
class RngFault:
    """The generator failed a continuous health test (NIST SP 800-90B § 4.4, engine.rng): the table
    refuses to draw until the generator is checked and the table service restarted."""

    type: ClassVar[EntryType] = EntryType.RNG_FAULT
    test: str  # "repetition count test" or "adaptive proportion test"
    rng: str  # the generator's name
    n: str  # the randbelow range whose values failed (a decimal string: it may be huge)
    count: int
    cutoff: int
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "rng": self.rng,
            "n": self.n,
            "count": self.count,
            "cutoff": self.cutoff,
            "message": self.message,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RngFault:
        return cls(
            str(d["test"]), str(d["rng"]), str(d["n"]), int(d["count"]), int(d["cutoff"]), str(d["message"])
        )


@dataclass(frozen=True)
class StartupTested:
    """The start-up test of NIST SP 800-90B § 4.3 that ran before this start's first draw."""

    type: ClassVar[EntryType] = EntryType.RNG_STARTUP_TEST
    rng: str
    result: StartupResult

    def to_json(self) -> dict[str, Any]:
        return {"rng": self.rng, **self.result.to_json()}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> StartupTested:
        return cls(str(d["rng"]), StartupResult.from_json(d))


# Why a table is tilted (engine.table.gate): the generator, or the program it runs.
TILT_RNG: Final = "rng"
TILT_SOFTWARE: Final = "software"


@dataclass(frozen=True)
class Tilted:
    """The gate stopped play for `cause`: no wagers, no new round, no draw until it is cleared."""

    type: ClassVar[EntryType] = EntryType.TABLE_TILTED
    cause: str  # TILT_RNG or TILT_SOFTWARE
    reason: str  # in words, as the screens show it
    running: str | None = None  # a software tilt: the digest this table runs ...
    approved: str | None = None  # ... and the one approved for it

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cause": self.cause, "reason": self.reason}
        if self.running is not None:
            out["running"] = self.running
        if self.approved is not None:
            out["approved"] = self.approved
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Tilted:
        running, approved = d.get("running"), d.get("approved")
        return cls(
            str(d["cause"]),
            str(d["reason"]),
            None if running is None else str(running),
            None if approved is None else str(approved),
        )


@dataclass(frozen=True)
class TiltCleared:
    """A pit boss cleared the tilt of `cause`; for the generator, after it passed its test again."""

    type: ClassVar[EntryType] = EntryType.TABLE_TILT_CLEARED
    cause: str
    by: str
    reason: str
    health_test: StartupResult | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cause": self.cause, "by": self.by, "reason": self.reason}
        if self.health_test is not None:
            out["health_test"] = self.health_test.to_json()
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TiltCleared:
        test = d.get("health_test")
        return cls(
            str(d["cause"]),
            str(d["by"]),
            str(d.get("reason", "")),
            None if test is None else StartupResult.from_json(test),
        )


@dataclass(frozen=True)
class SoftwareApproved:
    """The software digest a pit boss or admin approved for this table (`drr pitboss approve-software`)."""

    type: ClassVar[EntryType] = EntryType.TABLE_SOFTWARE_APPROVED
    digest: str
    previous: str | None
    by: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"digest": self.digest, "previous": self.previous, "by": self.by, "reason": self.reason}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SoftwareApproved:
        previous = d.get("previous")
        before = None if previous is None else str(previous)
        return cls(str(d["digest"]), before, str(d["by"]), str(d["reason"]))


@dataclass(frozen=True)
class NewSoftware:
    """No digest is approved for this table and it starts with one it never started with before."""

    type: ClassVar[EntryType] = EntryType.TABLE_NEW_SOFTWARE
    running: str
    previous: str | None  # the digest of its last start (None: its first start, or not journaled then)

    def to_json(self) -> dict[str, Any]:
        return {"running": self.running, "previous": self.previous}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> NewSoftware:
        previous = d.get("previous")
        return cls(str(d["running"]), None if previous is None else str(previous))


@dataclass(frozen=True)
class NextRound:
    """The finished round `after` is cleared from the felt."""

    type: ClassVar[EntryType] = EntryType.TABLE_NEXT_ROUND
    after: str | None

    def to_json(self) -> dict[str, Any]:
        return {"after": self.after}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> NextRound:
        return cls(_opt_str(d.get("after")))


@dataclass(frozen=True)
class Irregularity:
    """Something wrong with the spin: the round is on hold until a no-spin, a resolution or a void."""

    type: ClassVar[EntryType] = EntryType.ROUND_IRREGULARITY
    kind: str
    reason: str
    game: int | None = None  # the wheel's game number (written even when unknown, as null)
    number: int | None = None  # the result it concerns, if any

    def to_json(self) -> dict[str, Any]:
        return _put({"kind": self.kind, "reason": self.reason, "game": self.game}, number=self.number)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Irregularity:
        return cls(
            str(d.get("kind", "")),
            str(d.get("reason", "")),
            _opt_int(d.get("game")),
            _opt_int(d.get("number")),
        )


@dataclass(frozen=True)
class PayoutApproved:
    """A pit boss approved large payouts: the wagers `wager_ids` (all of the round's when None, an old
    journal's `payout.approved`), paying `total`, at the table's `threshold`."""

    type: ClassVar[EntryType] = EntryType.ROUND_PAYOUT_APPROVED
    wager_ids: tuple[str, ...] | None
    total: Decimal
    threshold: Decimal | None
    approved_by: str
    reason: str | None = None  # the pit-boss station's reason and the approver's role
    role: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"total": str(self.total), "approved_by": self.approved_by}
        if self.wager_ids is not None:
            out["wager_ids"] = list(self.wager_ids)
        if self.threshold is not None:
            out["threshold"] = str(self.threshold)
        return _put(out, reason=self.reason, role=self.role)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PayoutApproved:
        if "approved_by" not in d and "amount" in d:
            return cls.from_legacy(d)
        ids = d.get("wager_ids")
        threshold = d.get("threshold")
        return cls(
            None if ids is None else tuple(str(w) for w in ids),
            Decimal(str(d["total"])),
            None if threshold is None else Decimal(str(threshold)),
            str(d["approved_by"]),
            _opt_str(d.get("reason")),
            _opt_str(d.get("role")),
        )

    @classmethod
    def from_legacy(cls, d: Mapping[str, Any]) -> PayoutApproved:
        """An old journal's `payout.approved` {amount, reason, by, role}: the round as a whole."""
        return cls(
            None,
            Decimal(str(d["amount"])),
            None,
            str(d.get("by", "")),
            _opt_str(d.get("reason")),
            _opt_str(d.get("role")),
        )


@dataclass(frozen=True)
class PresetSet:
    """What the timer does in rounds 3-6 of `player`'s next bonus game (§ 617b.12(i)(2))."""

    type: ClassVar[EntryType] = EntryType.BONUS_PRESET_SET
    player: str
    preset: Preset

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "preset": self.preset}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PresetSet:
        preset = d["preset"]
        if preset not in ("cash_out", "random"):
            raise ValueError(f"preset {preset!r}")
        return cls(str(d["player"]), preset)


@dataclass(frozen=True)
class TimerRestarted:
    """A fresh countdown for `player`'s bonus game in `round` after a restart (the old one passed)."""

    type: ClassVar[EntryType] = EntryType.BONUS_TIMER_RESTARTED
    player: str
    round: int
    deadline: float

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "round": self.round, "deadline": self.deadline}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TimerRestarted:
        return cls(str(d["player"]), _whole(d["round"], "round"), float(d["deadline"]))


@dataclass(frozen=True)
class PlayerBonusEvent:
    """A `bonus.*` entry: one of engine.bonus_game's events and the player whose game it is.

    Its payload is the event's JSON with "player" beside it. The entry type is the event's
    (`type` is read from the event, so one class serves the six bonus-game types)."""

    player: str
    event: BonusEvent

    @property
    def type(self) -> EntryType:
        return self.event.type

    def to_json(self) -> dict[str, Any]:
        return {**self.event.to_json(), "player": self.player}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PlayerBonusEvent:
        return cls(str(d["player"]), bonus_event_from_json(d))  # "player": an extra key the events ignore


@dataclass(frozen=True)
class BettingTime:
    """The round's betting time with a commanded wheel: the spin is ordered at `deadline` (the
    service's clock, seconds since the epoch), `seconds` after bets opened (engine.table.wheel_drive)."""

    type: ClassVar[EntryType] = EntryType.TABLE_BETTING_TIME
    seconds: float
    deadline: float

    def to_json(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "deadline": self.deadline}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> BettingTime:
        return cls(float(d["seconds"]), float(d["deadline"]))


@dataclass(frozen=True)
class WheelStartOrdered:
    """The table ordered the wheel to start the round's spin; `why`: "betting time over", "bets closed
    by the croupier" or "re-spin after a no-spin". hardware.table_bridge sends the start command."""

    type: ClassVar[EntryType] = EntryType.TABLE_WHEEL_START
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"why": self.why}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> WheelStartOrdered:
        return cls(str(d["why"]))


@dataclass(frozen=True)
class AutoConfirmDue:
    """The wheel's clean result `number` (game `game`) is confirmed at `deadline` (the service's clock),
    `seconds` after it arrived, unless the croupier disputes it first."""

    type: ClassVar[EntryType] = EntryType.TABLE_AUTO_CONFIRM_DUE
    number: int
    game: int | None
    seconds: float
    deadline: float

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "game": self.game, "seconds": self.seconds, "deadline": self.deadline}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AutoConfirmDue:
        return cls(
            _whole(d["number"], "number"), _opt_int(d.get("game")), float(d["seconds"]), float(d["deadline"])
        )


@dataclass(frozen=True)
class DealerChanged:
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

    def to_json(self) -> dict[str, Any]:
        out = {"dealer": self.dealer, "previous": self.previous, "station": self.station}
        return _put(out, role=self.role)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> DealerChanged:
        return cls(_opt_str(d["dealer"]), _opt_str(d["previous"]), str(d["station"]), _opt_str(d.get("role")))


FLOOR_ACTION_OUTCOMES = ("taken", "refused")


@dataclass(frozen=True)
class FloorActionTaken:
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

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "floor_seq": self.floor_seq,
            "floor_hash": self.floor_hash,
            "action": self.action,
            "outcome": self.outcome,
        }
        return _put(out, why=self.why)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> FloorActionTaken:
        return cls(
            int(d["floor_seq"]),
            str(d["floor_hash"]),
            str(d["action"]),
            str(d["outcome"]),
            _opt_str(d.get("why")),
        )
