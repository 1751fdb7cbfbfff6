"""Golden tests of the journal payloads' JSON: every entry type's payload written and read exactly as
before the declarative codec (engine.codec), old spellings included, and a whole played journal.

The golden files (tests/data/codec-golden/) were recorded on the hand-written to_json/from_json; a
codec change that alters one byte of a payload, or reads an old payload differently, fails here.
`DRR_REGEN_CODEC_GOLDEN=1` rewrites them (only ever on purpose, and the diff reviewed).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from engine import round as r
from engine import table_events as te
from engine.bets import BetKind, Wager, inside_bet, outside_bet
from engine.bonus_game import (
    BoxesPlaced,
    BoxesRevealed,
    BoxPicked,
    CashedOut,
    GameEnded,
    GameStarted,
    TimerExpired,
)
from engine.entry_types import EntryType
from engine.floor_events import (
    ActionRefused,
    AlertAcknowledged,
    AlertRaised,
    AlertUpdated,
    ChainForwarded,
    ChainKeyed,
    FloorAction,
    HistoryImported,
    PinCommitment,
    PinHash,
    UserAdded,
    UserDisabled,
    UserEnabled,
    UserLockedOut,
    UserLogin,
    UserLoginFailed,
    UserPinChanged,
    UserRoleChanged,
    UserUnlocked,
    WriterEnrolled,
)
from engine.journal_types import parse, payload_class
from engine.rng import Draw, StartupResult
from engine.store import Store, open_store
from engine.table_events import (
    AutoConfirmDue,
    BettingTime,
    DealerChanged,
    FloorActionTaken,
    Irregularity,
    IrregularityResolved,
    KeyRotated,
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
    TableStarted,
    TimerRestarted,
    WheelStartOrdered,
)
from engine.wheel_events import (
    ReconciledGame,
    WheelBallNotDetected,
    WheelClock,
    WheelClosed,
    WheelEvent,
    WheelGap,
    WheelIdentity,
    WheelLaunched,
    WheelLaunchFailed,
    WheelLinkState,
    WheelMissSpin,
    WheelNoMoreBets,
    WheelReconciled,
    WheelRestart,
    WheelResult,
    WheelRotor,
    WheelStarted,
    WheelWarning,
)

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "codec-golden"
REGEN = os.environ.get("DRR_REGEN_CODEC_GOLDEN") == "1"

H = "ab" * 32  # a hex digest
PIN = PinHash(2**14, 8, 1, "0f" * 16, "1e" * 32)
T = datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC)
T_NAIVE = datetime(2026, 3, 4, 5, 6, 7, 890000)
DRAW = Draw(
    lucky={17: Fraction(199, 2), 3: Fraction(50), 30: Fraction(100)},
    bonus_number=8,
    rules_sha256=H,
    rng_name="seeded",
    lucky_order=(30, 17, 3),
)
W_IN = Wager("w-1", "anna", inside_bet([17, 18]), Decimal("5"))
W_OUT = Wager("w-2", "bob", outside_bet(BetKind.DOZEN, 2), Decimal("10.50"))
W_RED = Wager("w-3", "bob", outside_bet(BetKind.RED), Decimal("20"))


def _bonus(player: str, event: Any) -> PlayerBonusEvent:
    return PlayerBonusEvent(player, event)


# label -> payload: every payload class, with every optional fact and without, whole floats and not.
SAMPLES: dict[str, Any] = {
    # round.*
    "round.opened/min": r.RoundOpened("T1-000001", H),
    "round.opened/full": r.RoundOpened("T1-000002", H, dealer="dana", game_number=12, entry="winning"),
    "round.wager_placed/inside": r.WagerPlaced(W_IN),
    "round.wager_placed/dozen-seat": r.WagerPlaced(W_OUT, seat=2),
    "round.wager_placed/red-seat0": r.WagerPlaced(W_RED, seat=0),
    "round.wager_removed": r.WagerRemoved("w-1"),
    "round.bets_closed/min": r.BetsClosed(Draw(lucky={5: Fraction(30)}, bonus_number=6)),
    "round.bets_closed/order": r.BetsClosed(DRAW, lucky_order=(30, 17, 3)),
    "round.result/min": r.ResultRecorded(17),
    "round.result/manual": r.ResultRecorded(
        0, "manual", "sensor down", game=3, direction="cw", wheel_seq=41, confirmed_by="pete"
    ),
    "round.result/auto-whole": r.ResultRecorded(9, game=4, auto_confirmed_after=5.0),
    "round.result/auto-frac": r.ResultRecorded(9, game=4, auto_confirmed_after=2.5),
    "round.result_corrected/min": r.ResultCorrected(17, 18, "misread"),
    "round.result_corrected/full": r.ResultCorrected(17, 18, "misread", by="pete", role="pitboss"),
    "round.no_spin/min": r.NoSpin("ball left the wheel"),
    "round.no_spin/game": r.NoSpin("too few turns", game=7),
    "round.result_before_close/min": r.ResultBeforeClose(4),
    "round.result_before_close/reason": r.ResultBeforeClose(4, "early ball"),
    "round.bonus_started": r.BonusStarted(("anna", "bob")),
    "round.bonus_outcome/whole": r.BonusOutcome("anna", Fraction(25)),
    "round.bonus_outcome/frac": r.BonusOutcome("anna", Fraction(199, 2)),
    "round.settled/min": r.RoundSettled(Decimal("35"), Decimal("0")),
    "round.settled/full": r.RoundSettled(
        Decimal("35.50"),
        Decimal("170"),
        Decimal("175.00"),
        (
            r.PaidWager("w-1", "split", "17", Decimal("85")),
            r.PaidWager("w-4", "straight", "199/2", Decimal("85")),
        ),
    ),
    "round.settled/no-payouts": r.RoundSettled(Decimal("5"), Decimal("0"), Decimal("0"), ()),
    "round.voided/min": r.RoundVoided("wheel malfunction"),
    "round.voided/full": r.RoundVoided(
        "wheel malfunction", by="pete", role="pitboss", previous_status="closed"
    ),
    "round.irregularity/min": Irregularity("no_spin", "ball left"),
    "round.irregularity/full": Irregularity("result_mismatch", "lines differ", game=5, number=12),
    "round.payout_approved/min": PayoutApproved(None, Decimal("5000"), None, "pete"),
    "round.payout_approved/full": PayoutApproved(
        ("w-1", "w-2"), Decimal("6000.50"), Decimal("5000"), "pete", reason="checked", role="pitboss"
    ),
    # bonus.*
    "bonus.started/min": _bonus("anna", GameStarted("anna", "cash_out", 20)),
    "bonus.started/full": _bonus("anna", GameStarted("anna", "random", 15, H, "seeded")),
    "bonus.boxes_placed/whole": _bonus(
        "anna", BoxesPlaced(1, (Fraction(5), "X", Fraction(3, 2), "X", "X"), 1000000.0, 1000020.0)
    ),
    "bonus.boxes_placed/frac": _bonus(
        "anna", BoxesPlaced(2, ("X", Fraction(7), "X", "X", Fraction(2)), 1000000.25, 1000020.75)
    ),
    # since issue 24: committed (and sealed) at placement, revealed after the pick
    "bonus.boxes_placed/committed": _bonus(
        "anna", BoxesPlaced(1, (), 1000000.0, 1000020.0, commitment=H, sealed="c0" * 40)
    ),
    "bonus.boxes_revealed": _bonus(
        "anna", BoxesRevealed(2, ("X", Fraction(7), "X", "X", Fraction(2)), "5a" * 32)
    ),
    "bonus.box_picked": _bonus("anna", BoxPicked(1, 3, "player", 1000005.0)),
    "bonus.box_picked/timeout": _bonus("anna", BoxPicked(2, 1, "timeout", 1000025.5)),
    "bonus.cashed_out": _bonus("anna", CashedOut(3, "player", 1000040.0)),
    "bonus.timer_expired": _bonus("anna", TimerExpired(4, 1000060.125)),
    "bonus.ended/whole": _bonus("anna", GameEnded(Fraction(12), "cash_out")),
    "bonus.ended/frac": _bonus("anna", GameEnded(Fraction(25, 2), "x")),
    "bonus.preset_set": PresetSet("anna", "random"),
    "bonus.timer_restarted/whole": TimerRestarted("anna", 3, 1000100.0),
    "bonus.timer_restarted/frac": TimerRestarted("anna", 3, 1000100.5),
    # table.*
    "table.started/min": TableStarted("croupier", 1234, "system", 0, None, "idle"),
    "table.started/full": TableStarted(
        "croupier", 1234, "system", 17, "T1-000003", "open", software=H, key="cd" * 32, large_payout="5000"
    ),
    "table.started/clock": TableStarted(
        "croupier", 1234, "system", 17, None, "idle", betting_seconds="25", auto_confirm_seconds="off"
    ),
    "table.started/canonical": TableStarted(
        "croupier", 1234, "system", 17, None, "idle", software=H, key="cd" * 32, canonical="rfc8785"
    ),
    "table.key_rotated": KeyRotated("aa" * 32, "bb" * 32, "cc" * 64),
    "table.quarantined/min": Quarantined("/x/t.sqlite", H, "hash mismatch", 10, H, None, "dd" * 32),
    "table.quarantined/full": Quarantined("/x/t.sqlite", H, "hash mismatch", 10, H, "ee" * 64, "dd" * 32, 7),
    "table.rules_loaded/min": RulesLoaded(H, None, "name = 'x'\n"),
    "table.rules_loaded/name": RulesLoaded(H, "house rules", "name = 'x'\n"),
    "table.rules_loaded/full": RulesLoaded(
        H, "house rules", "name = 'x'\n", "rules.toml", "new season", "pete", "pitboss", "next round"
    ),
    "table.settings_changed/min": SettingsChanged({"min_bet": "5"}),
    "table.settings_changed/full": SettingsChanged(
        {"min_bet": "5", "large_payout": "1000"}, "busy night", "pete", "pitboss", "next round"
    ),
    "table.manual_entry": ManualEntry(12, "sensor down"),
    "table.manual_entry_rejected": ManualEntryRejected(12, 21, "sensor down"),
    "table.irregularity_resolved": IrregularityResolved("no_spin", "resumed", "checked the wheel"),
    "table.next_round/none": NextRound(None),
    "table.next_round": NextRound("T1-000004"),
    "table.betting_time/whole": BettingTime(30.0, 1000030.0),
    "table.betting_time/int": BettingTime(30, 1000030),
    "table.betting_time/frac": BettingTime(12.5, 1000012.5),
    "table.wheel_start": WheelStartOrdered("betting time over"),
    "table.auto_confirm_due/whole": AutoConfirmDue(17, 9, 5.0, 1000005.0),
    "table.auto_confirm_due/nogame": AutoConfirmDue(17, None, 2.5, 1000002.5),
    "table.dealer_changed/in": DealerChanged("dana", None, "croupier"),
    "table.dealer_changed/full": DealerChanged("dana", "carl", "croupier", role="croupier"),
    "table.dealer_changed/out": DealerChanged(None, "carl", "croupier"),
    "table.floor_action_taken/taken": FloorActionTaken(12, H, "round.voided", "taken"),
    "table.floor_action_taken/refused": FloorActionTaken(
        13, H, "round.voided", "refused", why="round moved on"
    ),
    "rng.fault": RngFault("repetition count test", "system", str(2**70), 41, 40, "the generator repeated"),
    # the gate's (engine.table.gate): recorded on the hand-written codecs the gate branch wrote, then moved
    "rng.startup_test/passed": te.StartupTested("os-csprng", StartupResult(1024, 37, True)),
    "rng.startup_test/failed": te.StartupTested(
        "os-csprng", StartupResult(12, 37, False, "repetition count test", "the value 0 came back 12 times")
    ),
    "table.tilted/rng": te.Tilted(te.TILT_RNG, "RNG fault: the generator repeated"),
    "table.tilted/software": te.Tilted(te.TILT_SOFTWARE, "another program", running=H, approved="cd" * 32),
    "table.tilt_cleared/min": te.TiltCleared(te.TILT_SOFTWARE, "pete"),
    "table.tilt_cleared/test": te.TiltCleared(te.TILT_RNG, "pete", "checked", StartupResult(1024, 37, True)),
    "table.software_approved/first": te.SoftwareApproved(H, None, "pete", "lab approval 26-114"),
    "table.software_approved/next": te.SoftwareApproved(H, "cd" * 32, "ada", "update"),
    "table.new_software/first": te.NewSoftware(H, None),
    "table.new_software/next": te.NewSoftware(H, "cd" * 32),
    "table.bias_alarm/pocket": te.BiasAlarm(
        "pocket",
        "pocket:17",
        (17,),
        5321,
        16.0123,
        16.0,
        2011,
        81,
        "pocket 17: 81 hits in the last 2,011 spins",
    ),
    "table.bias_alarm/direction": te.BiasAlarm(
        "direction", "direction:cw:5-24-16-33-1", (5, 24, 16, 33, 1), 9001, 16.5, 16.5, 3000, 480, "w", "cw"
    ),
    "table.wheel_serviced/min": te.WheelServiced("wheel change", "new wheel fitted", "pat"),
    "table.wheel_serviced/full": te.WheelServiced("maintenance", "rotor bearings", "pat", "pitboss"),
    # wheel.*
    "wheel.started/min": WheelStarted(),
    "wheel.started/full": WheelStarted(game=12, time=T, state=2),
    "wheel.launched": WheelLaunched(game=12, time=T_NAIVE),
    "wheel.no_more_bets": WheelNoMoreBets(game=12),
    "wheel.result/min": WheelResult(game=12, number=17),
    "wheel.result/warnings": WheelResult(game=12, time=T, number=17, warnings=("no_ball",), number_line=17),
    "wheel.result/accepted": WheelResult(
        game=12, number=0, warnings=(), note="ok", accepted=True, direction="ccw"
    ),
    "wheel.result/accepted-unknown-dir": WheelResult(game=12, number=0, accepted=True, direction=None),
    "wheel.result/refused": WheelResult(game=12, number=5, note="late", accepted=False),
    "wheel.closed": WheelClosed(game=None),
    "wheel.ball_not_detected": WheelBallNotDetected(game=3, reason="state-7", warnings=("no_ball",)),
    "wheel.warning": WheelWarning(
        game=3, warnings=("door_open", "result_mismatch"), advice="check", flags=5, added=("door_open",)
    ),
    "wheel.miss_spin": WheelMissSpin(game=4, time=T),
    "wheel.launch_failed": WheelLaunchFailed(game=4, seconds="5.0"),
    "wheel.gap": WheelGap(game=10, previous=7, expected=8),
    "wheel.restart": WheelRestart(game=1, previous=99),
    "wheel.rotor/whole": WheelRotor(game=2, rpm=Decimal("30"), direction="cw"),
    "wheel.rotor/frac": WheelRotor(game=2, time=T, rpm=Decimal("27.50"), direction="ccw"),
    "wheel.link/min": WheelLinkState(state="connected"),
    "wheel.link/full": WheelLinkState(game=3, time=T, state="silent", detail="no message for 5 s"),
    "wheel.identity/min": WheelIdentity(version="SS2 2.52"),
    "wheel.identity/full": WheelIdentity(
        game=None,
        time=T,
        maker="CAM",
        firmware="252",
        version="SS2 virtual wheel 2.52",
        fpga="FPGA 1.07 COPRO 2.03",
        clock="2026-03-04T05:06:10",
        offset=Decimal("3"),
    ),
    "wheel.clock/min": WheelClock(occasion="periodic"),
    "wheel.clock/full": WheelClock(
        game=12, time=T, clock="2026-03-04T06:06:12", offset=Decimal("-75"), occasion="reconcile"
    ),
    "wheel.result/rpm": WheelResult(game=12, number=17, accepted=True, direction="ccw", rpm=Decimal("19.9")),
    "wheel.reconciled/min": WheelReconciled(matched=12, misfires=0),
    "wheel.reconciled/full": WheelReconciled(
        matched=10,
        misfires=2,
        journal_only=(ReconciledGame(game=40, round_id="T1-000041", journal=3),),
        wheel_only=(ReconciledGame(game=38, wheel=26),),
        differ=(ReconciledGame(game=12, round_id="T1-000012", journal=17, wheel=5),),
        source="serial:/dev/ttyUSB0",
        occasion="close",
        since="2026-03-04T05:00:00+00:00",
        pages_used=1,
        pages_untrusted=(3,),
        wins_total=120,
        misfires_total=4,
        by="pete",
    ),
    # users, chains, alerts, floor
    "user.added/pin": UserAdded("dana", "croupier", PIN),
    "user.added/no-pin": UserAdded("dana", "croupier"),
    "user.role_changed": UserRoleChanged("dana", "pitboss", "croupier"),
    "user.pin_changed": UserPinChanged("dana", PIN),
    "user.added/commitment": UserAdded("dana", "pitboss", pin_commitment=PinCommitment(H, 6)),
    "user.pin_changed/commitment": UserPinChanged("dana", pin_commitment=PinCommitment(H, 4)),
    "user.pin_changed/rehash": UserPinChanged("dana", pin_commitment=PinCommitment(H, 6), rehash=True),
    "user.disabled": UserDisabled("dana"),
    "user.enabled": UserEnabled("dana"),
    "user.login/min": UserLogin("dana", "croupier"),
    "user.login/full": UserLogin("dana", "croupier", "croupier", "host-1", "T1"),
    "user.login_failed/min": UserLoginFailed("dana", "unknown user"),
    "user.login_failed/full": UserLoginFailed("dana", "wrong PIN", 2, "croupier", "host-1", "T1"),
    "user.locked_out": UserLockedOut("dana", "2026-03-04T05:06:07.000000Z"),
    "user.unlocked": UserUnlocked("dana"),
    "chain.keyed": ChainKeyed("ff" * 32),
    "chain.writer_enrolled/min": WriterEnrolled("ff" * 32, "host-1"),
    "chain.writer_enrolled/by": WriterEnrolled("ff" * 32, "host-1", "admin"),
    "alert.raised/min": AlertRaised("a-1", "T1", "high", "large_payout", "a large payout"),
    "alert.raised/full": AlertRaised(
        "a-1", "T1", "high", "large_payout", "a large payout", "T1-000001", "2026-03-04T05:06:07Z", "T1:12"
    ),
    "alert.updated/min": AlertUpdated("a-1", "T1", "high", "hold", "held again"),
    "alert.updated/full": AlertUpdated(
        "a-1", "T1", "high", "hold", "held again", "2026-03-04T05:06:07Z", "T1:13"
    ),
    "alert.acknowledged/min": AlertAcknowledged("a-1"),
    "alert.acknowledged/full": AlertAcknowledged("a-1", "T1", "sam", "surveillance", "seen"),
    "action.refused": ActionRefused("dana", "croupier", "void_round", "pitboss"),
    "floor.action": FloorAction("T1", "round.voided", {"reason": "x", "nested": {"a": [1, 2.0]}}),
    "chain.forwarded": ChainForwarded("T1"),
    "history.imported/min": HistoryImported(17),
    "history.imported/full": HistoryImported(17, "2026-03-04T05:06:07Z", "old.csv", "cw"),
}

# label -> (stored type name, payload an old journal or another writer holds, the payload it reads as).
LEGACY: dict[str, tuple[str, dict[str, Any], Any]] = {
    "payout.approved": (
        "payout.approved",
        {"amount": "5000", "reason": "checked", "by": "pete", "role": "pitboss"},
        PayoutApproved(None, Decimal("5000"), None, "pete", reason="checked", role="pitboss"),
    ),
    "payout.approved/in-today-type": (
        "round.payout_approved",
        {"amount": 750, "by": "pete"},
        PayoutApproved(None, Decimal("750"), None, "pete"),
    ),
    "rules.changed": (
        "rules.changed",
        {"sha256": H, "source": "rules.toml", "text": "name = 'x'\n", "by": "pete", "role": "pitboss"},
        RulesLoaded(H, None, "name = 'x'\n", source="rules.toml", by="pete", role="pitboss"),
    ),
    "wheel.rotor_speed": (
        "wheel.rotor_speed",
        {"game": 4, "rpm": 31.5, "direction": "cw"},
        WheelRotor(game=4, rpm=Decimal("31.5"), direction="cw"),
    ),
    "round.closed": (
        "round.closed",
        {"lucky": [[17, "199/2"], [3, 50]], "bonus_number": 8},
        r.BetsClosed(Draw(lucky={17: Fraction(199, 2), 3: Fraction(50)}, bonus_number=8)),
    ),
    "user.added/no-pin": ("user.added", {"name": "dana", "role": "croupier"}, UserAdded("dana", "croupier")),
    "table.started/before-software": (
        "table.started",
        {
            "station": "croupier",
            "pid": 9,
            "rng": "system",
            "recovered_to": 0,
            "round_in_play": None,
            "phase": "idle",
        },
        TableStarted("croupier", 9, "system", 0, None, "idle"),
    ),
    "table.quarantined/no-rounds-before": (
        "table.quarantined",
        {
            "damaged_store": "/x",
            "damaged_sha256": H,
            "problem": "p",
            "last_good_seq": 3,
            "last_good_hash": H,
            "key": "dd" * 32,
        },
        Quarantined("/x", H, "p", 3, H, None, "dd" * 32, 0),
    ),
    "round.result/bare": ("round.result", {"number": 17}, r.ResultRecorded(17)),
    "round.result/number-text": (
        "round.result",
        {"type": "round.result", "number": "17"},
        r.ResultRecorded(17),
    ),
    "round.result_before_close/no-reason": (
        "round.result_before_close",
        {"number": 4},
        r.ResultBeforeClose(4),
    ),
    "round.irregularity/bare": ("round.irregularity", {}, Irregularity("", "")),
    "round.irregularity/game-text": (
        "round.irregularity",
        {"kind": "k", "reason": "r", "game": "12"},
        Irregularity("k", "r"),
    ),
    "table.irregularity_resolved/bare": ("table.irregularity_resolved", {}, IrregularityResolved("", "", "")),
    "table.manual_entry_rejected/no-reason": (
        "table.manual_entry_rejected",
        {"entered": 1, "confirmed": 2},
        ManualEntryRejected(1, 2, ""),
    ),
    "round.wager_placed/metadata": (
        "round.wager_placed",
        {"id": "w-9", "player": "anna", "bet": "straight", "numbers": [5], "amount": 2, "by": "carol"},
        r.WagerPlaced(Wager("w-9", "anna", inside_bet([5]), Decimal("2"))),
    ),
    "round.settled/numbers": (
        "round.settled",
        {"total_wagered": 35, "total_paid": 0.5},
        r.RoundSettled(Decimal("35"), Decimal("0.5")),
    ),
    "bonus.started/no-type": (
        "bonus.started",
        {"player": "anna", "preset": "cash_out", "timer_seconds": 20},
        _bonus("anna", GameStarted("anna", "cash_out", 20)),
    ),
    "bonus.timer_restarted/int-deadline": (
        "bonus.timer_restarted",
        {"player": "anna", "round": 3, "deadline": 1000100},
        TimerRestarted("anna", 3, 1000100.0),
    ),
    "wheel.result/naive-time": (
        "wheel.result",
        {"game": 1, "number": 3, "time": "2026-03-04T05:06:07.890", "extra": 1},
        WheelResult(game=1, number=3, time=T_NAIVE),
    ),
}


def _text(payload: Any) -> str:
    """The journal's legacy byte rule (engine.store.canonical.canonical_json without its default:
    a payload's to_json must already be plain JSON)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _golden(name: str, produced: dict[str, Any]) -> dict[str, Any]:
    path = GOLDEN / name
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps(produced, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8"
        )
    recorded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return recorded


def test_every_entry_type_has_a_sample() -> None:
    covered = {payload_type(p) for p in SAMPLES.values()}
    assert covered == set(EntryType)


def payload_type(p: Any) -> EntryType:
    t: EntryType = p.type
    assert isinstance(p, payload_class(t))
    return t


def test_payloads_write_the_recorded_bytes() -> None:
    produced = {label: _text(p.to_json()) for label, p in SAMPLES.items()}
    assert produced == _golden("payloads.json", produced)


def test_payloads_read_back_to_the_same_object() -> None:
    recorded = _golden_file("payloads.json")
    produced = {}
    for label, payload in SAMPLES.items():
        again = parse(payload.type.value, json.loads(recorded[label]))
        assert again == _journal_form(payload), label
        produced[label] = _text(again.to_json())  # the same bytes, but an int given for a float reads as one
    assert produced == _golden("read-back.json", produced)


def _journal_form(payload: Any) -> Any:
    """`payload` without the wheel's detail the journal does not keep (its wire-only fields)."""
    if not isinstance(payload, WheelEvent):
        return payload
    wire_only = set(payload.wire_json()) - set(payload.to_json()) - {"pocket"}
    return dataclasses.replace(payload, **dict.fromkeys(wire_only))


def _golden_file(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    return loaded


def test_old_spellings_read_as_todays_payloads() -> None:
    produced = {}
    for label, (name, payload, expected) in LEGACY.items():
        got = parse(name, payload)
        assert got == expected, label
        produced[label] = _text(got.to_json())
    assert produced == _golden("legacy.json", produced)


# --- a whole played journal -------------------------------------------------------------------

# Facts of a run that are not the codec's: the process, the program's digest, the chain's key.
_VOLATILE = ("pid", "software", "key", "running")  # "running": table.new_software's digest
_RANDOM = ("commitment", "sealed", "nonce")


class _Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 0.25  # a quarter second per look: deadlines are whole and fractional floats
        return self.now


async def _play(store: Store) -> None:
    from tests.table.helpers import (
        CROUPIER,
        PITBOSS,
        cover_everything,
        make_service,
        some_wagers,
        spin,
        wheel,
    )

    svc = make_service(store, seed=11, clock=_Clock(), approval_threshold=Decimal("100"))
    await svc.start()
    await svc.sign_in_dealer(CROUPIER)
    # 1: a bonus game played to its end, the large payout approved, settled
    await wheel(svc, {"type": "started", "game": 7})
    await svc.open_bets(CROUPIER)
    await cover_everything(svc)
    await wheel(svc, {"type": "launched", "game": 7}, {"type": "no_more_bets", "game": 7})
    assert svc.round is not None and svc.round.draw is not None
    await wheel(svc, {"type": "result", "game": 7, "number": svc.round.draw.bonus_number})
    await svc.confirm_result(CROUPIER)
    await svc.set_bonus_preset(CROUPIER, "dora", "random")
    await svc.bonus_start(CROUPIER, "dora")
    game = svc.state.games["dora"]
    while not game.finished:
        if game.can_cash_out:
            await svc.bonus_cash_out(CROUPIER, "dora")
        else:
            await svc.bonus_pick(CROUPIER, "dora", 3)
    if svc.approval_needed() is not None:
        await svc.approve_payout(PITBOSS)
    await svc.settle(CROUPIER)
    await svc.next_round(CROUPIER)
    # 2: a no-spin hold resolved, then a manual result, corrected, settled
    await wheel(svc, *spin(8))
    await svc.open_bets(CROUPIER)
    await some_wagers(svc)
    await svc.place_wager(CROUPIER, "anna", inside_bet([18]), Decimal(10))  # 350 to pay: a large payout
    await svc.no_more_bets(CROUPIER)
    await svc.no_spin(CROUPIER, "ball left the wheel")
    await wheel(svc, {"type": "rotor", "game": 8, "rpm": "30.5", "direction": "cw"})
    await wheel(svc, {"type": "miss_spin", "game": 8})
    await svc.resolve_irregularity(PITBOSS, "checked the wheel")
    await svc.manual_result(CROUPIER, 17, "sensor down")
    await svc.manual_result(CROUPIER, 17, "sensor down")
    await svc.correct_result(PITBOSS, 18, "misread")
    if svc.approval_needed() is not None:
        await svc.approve_payout(PITBOSS)
    await svc.settle(CROUPIER)
    await svc.next_round(CROUPIER)
    # 3: voided
    await wheel(svc, *spin(9))
    await svc.open_bets(CROUPIER)
    await some_wagers(svc)
    await svc.void(PITBOSS, "wheel malfunction")
    await svc.next_round(CROUPIER)
    await svc.close()


MASKED_TYPES = ("table.started", "table.new_software")  # the program's own digest and pid change
# a bonus round's commitment, seal and nonce are fresh randomness (issue 24): masked wherever they are


def _masked(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: ("*" if k in _VOLATILE or k in _RANDOM else v) for k, v in payload.items()}


def test_a_played_journal_writes_and_reads_as_recorded(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "t.sqlite"), table="T1") as store:
        asyncio.run(_play(store))
        entries = list(store.journal.entries("T1"))
    types = {e.type for e in entries}
    for t in ("round.bonus_outcome", "round.voided", "round.irregularity", "round.payout_approved"):
        assert t in types, t
    produced: dict[str, Any] = {}
    for e in entries:
        typed = parse(e.type, e.payload)
        assert typed == parse(e.type, json.loads(_text(typed.to_json()))), e.seq
        assert _text(typed.to_json()) == _text(e.payload), (e.seq, e.type)
        key = f"{e.seq:04d} {e.type}"
        masked = e.type in MASKED_TYPES or any(k in e.payload for k in _RANDOM)
        produced[key] = _text(_masked(e.payload)) if masked else _text(e.payload)
    assert produced == _golden("journal.json", produced)
