"""One vocabulary for the journal: entry-type names spelled in one place, every type registered with a
payload class that reads and writes today's payloads unchanged (engine.entry_types, engine.journal_types)."""

from __future__ import annotations

import ast
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.entry_types import LEGACY, EntryType
from engine.errors import DrrError
from engine.journal_types import PAYLOAD_CLASSES, Unknown, parse, read, spellings, write
from engine.round import BetsClosed, RoundOpened
from engine.store.canonical import canonical_json
from engine.store.records import Entry
from engine.table_events import PayoutApproved, RulesLoaded
from engine.wheel_events import WheelRotor

ROOT = Path(__file__).resolve().parents[2]
SHA = "a" * 64

# What the writers journal today, one payload per entry type (the canonical JSON the chain hashes).
_PIN = {"scheme": "scrypt", "n": 16384, "r": 8, "p": 1, "salt": "00" * 16, "hash": "11" * 32}
SAMPLES: dict[EntryType, dict[str, Any]] = {
    EntryType.ROUND_OPENED: {
        "type": "round.opened",
        "round_id": "T1-000001",
        "rules_sha256": SHA,
        "dealer": "carol",
        "game_number": 12,
    },
    EntryType.ROUND_WAGER_PLACED: {
        "type": "round.wager_placed",
        "id": "w1",
        "player": "anna",
        "bet": "straight",
        "numbers": [17],
        "amount": "5",
    },
    EntryType.ROUND_WAGER_REMOVED: {"type": "round.wager_removed", "wager_id": "w1"},
    EntryType.ROUND_BETS_CLOSED: {
        "type": "round.bets_closed",
        "draw": {
            "type": "draw",
            "lucky": {"20": "199/2", "3": "99"},
            "bonus_number": 4,
            "lucky_count": 2,
            "lucky_order": [20, 3],
            "rng": "seeded",
            "rules_sha256": SHA,
        },
    },
    EntryType.ROUND_RESULT: {
        "type": "round.result",
        "number": 17,
        "source": "sensor",
        "reason": "",
        "game": 12,
        "direction": "cw",
        "wheel_seq": 40,
    },
    EntryType.ROUND_RESULT_CORRECTED: {
        "type": "round.result_corrected",
        "old": 17,
        "new": 18,
        "reason": "misread",
        "by": "pat",
        "role": "pitboss",
    },
    EntryType.ROUND_NO_SPIN: {"type": "round.no_spin", "reason": "ball left the wheel", "game": 12},
    EntryType.ROUND_RESULT_BEFORE_CLOSE: {
        "type": "round.result_before_close",
        "number": 5,
        "reason": "early",
    },
    EntryType.ROUND_BONUS_STARTED: {"type": "round.bonus_started", "players": ["anna"]},
    EntryType.ROUND_BONUS_OUTCOME: {"type": "round.bonus_outcome", "player": "anna", "odds": "101/2"},
    EntryType.ROUND_SETTLED: {
        "type": "round.settled",
        "total_wagered": "35",
        "total_paid": "175.00",
        "total_returned": "180.00",
        "payouts": [{"id": "w1", "kind": "straight", "odds": "35", "payout": "175.00"}],
    },
    EntryType.ROUND_VOIDED: {
        "type": "round.voided",
        "reason": "dealer error",
        "by": "pat",
        "role": "pitboss",
        "previous_status": "settled",
    },
    EntryType.ROUND_IRREGULARITY: {
        "kind": "unexpected_game",
        "reason": "result 17 for game 13",
        "game": 13,
        "number": 17,
    },
    EntryType.ROUND_PAYOUT_APPROVED: {
        "wager_ids": ["w1"],
        "total": "175.00",
        "threshold": "100",
        "approved_by": "pete",
    },
    EntryType.BONUS_STARTED: {
        "type": "bonus.started",
        "player": "anna",
        "preset": "cash_out",
        "timer_seconds": 10,
        "rules_sha256": SHA,
        "rng": "seeded",
    },
    EntryType.BONUS_BOXES_PLACED: {
        "type": "bonus.boxes_placed",
        "player": "anna",
        "round": 1,
        "boxes": ["2", "X", "3", "X", "X"],
        "placed_at": 1.5,
        "deadline": 11.5,
    },
    EntryType.BONUS_BOXES_REVEALED: {
        "type": "bonus.boxes_revealed",
        "player": "anna",
        "round": 1,
        "boxes": ["2", "X", "3", "X", "X"],
        "nonce": "5a" * 32,
    },
    EntryType.BONUS_BOX_PICKED: {
        "type": "bonus.box_picked",
        "player": "anna",
        "round": 1,
        "box": 3,
        "by": "player",
        "at": 2.5,
    },
    EntryType.BONUS_CASHED_OUT: {
        "type": "bonus.cashed_out",
        "player": "anna",
        "round": 3,
        "by": "timeout",
        "at": 9.5,
    },
    EntryType.BONUS_TIMER_EXPIRED: {"type": "bonus.timer_expired", "player": "anna", "round": 2, "at": 8.5},
    EntryType.BONUS_ENDED: {"type": "bonus.ended", "player": "anna", "outcome": "5", "reason": "cash_out"},
    EntryType.BONUS_PRESET_SET: {"player": "anna", "preset": "random"},
    EntryType.BONUS_TIMER_RESTARTED: {"player": "anna", "round": 2, "deadline": 1234.5},
    EntryType.TABLE_STARTED: {
        "station": "table-service",
        "pid": 4242,
        "rng": "system",
        "recovered_to": 17,
        "round_in_play": None,
        "phase": "idle",
    },
    EntryType.TABLE_RULES_LOADED: {
        "sha256": SHA,
        "name": "Diamond Rush Roulette default",
        "text": "name = 'x'",
    },
    EntryType.TABLE_SETTINGS_CHANGED: {
        "changes": {"max_bet": "500"},
        "reason": "new limits",
        "by": "pat",
        "role": "pitboss",
        "effective": "next round",
    },
    EntryType.TABLE_MANUAL_ENTRY: {"number": 17, "reason": "sensor down"},
    EntryType.TABLE_MANUAL_ENTRY_REJECTED: {
        "entered": 17,
        "confirmed": 18,
        "reason": "the two entries differ",
    },
    EntryType.TABLE_IRREGULARITY_RESOLVED: {"kind": "gap", "resolution": "acknowledged", "reason": "checked"},
    EntryType.TABLE_NEXT_ROUND: {"after": "T1-000001"},
    EntryType.TABLE_BETTING_TIME: {"seconds": 25.0, "deadline": 1796114531.25},
    EntryType.TABLE_WHEEL_START: {"why": "betting time over"},
    EntryType.TABLE_AUTO_CONFIRM_DUE: {"number": 33, "game": 15, "seconds": 5.0, "deadline": 1796114571.5},
    EntryType.TABLE_DEALER_CHANGED: {
        "dealer": "erin",
        "previous": "dana",
        "station": "croupier",
        "role": "croupier",
    },
    EntryType.TABLE_FLOOR_ACTION_TAKEN: {
        "floor_seq": 812,
        "floor_hash": "9a" * 32,
        "action": "round.voided",
        "outcome": "refused",
        "why": "round T1-000007 is settled at the table, open when it was voided at the floor",
    },
    EntryType.TABLE_KEY_ROTATED: {"old_key": "ab" * 32, "new_key": "cd" * 32, "signature": "ef" * 64},
    EntryType.TABLE_QUARANTINED: {
        "damaged_store": "/var/drr/table-1.sqlite.quarantined-20261201T114000Z",
        "damaged_sha256": "9f" * 32,
        "problem": "table 1 entry 24: not covered by the table's signature",
        "last_good_seq": 23,
        "last_good_hash": "12" * 32,
        "last_good_sig": "34" * 64,
        "key": "ab" * 32,
        "rounds_before": 3,
    },
    EntryType.RNG_FAULT: {
        "test": "repetition count test",
        "rng": "os-csprng",
        "n": "37",
        "count": 9,
        "cutoff": 9,
        "message": "RNG health test failed",
    },
    EntryType.RNG_STARTUP_TEST: {
        "rng": "os-csprng",
        "samples": 1024,
        "n": 37,
        "passed": True,
        "test": "",
        "message": "",
    },
    EntryType.TABLE_TILTED: {
        "cause": "software",
        "reason": "not approved",
        "running": "ab",
        "approved": "cd",
    },
    EntryType.TABLE_TILT_CLEARED: {
        "cause": "rng",
        "by": "pete",
        "reason": "source replaced",
        "health_test": {"samples": 1024, "n": 37, "passed": True, "test": "", "message": ""},
    },
    EntryType.TABLE_SOFTWARE_APPROVED: {
        "digest": "ab",
        "previous": None,
        "by": "pete",
        "reason": "lab letter",
    },
    EntryType.TABLE_NEW_SOFTWARE: {"running": "ab", "previous": "cd"},
    EntryType.TABLE_BIAS_ALARM: {
        "test": "sector",
        "key": "sector:5-24-16",
        "pockets": [5, 24, 16],
        "at_spin": 4200,
        "statistic": 17.95,
        "threshold": 17.9,
        "spins": 1500,
        "hits": 160,
        "words": "3-pocket sector 5-24-16: 160 hits in the last 1,500 spins",
    },
    EntryType.TABLE_WHEEL_SERVICED: {
        "what": "wheel change",
        "reason": "new wheel",
        "by": "pat",
        "role": "pitboss",
    },
    EntryType.WHEEL_STARTED: {"game": 12},
    EntryType.WHEEL_LAUNCHED: {"game": 12},
    EntryType.WHEEL_NO_MORE_BETS: {"game": 12},
    EntryType.WHEEL_RESULT: {"game": 12, "number": 17, "accepted": True, "direction": "cw"},
    EntryType.WHEEL_CLOSED: {"game": 12},
    EntryType.WHEEL_BALL_NOT_DETECTED: {"game": 12},
    EntryType.WHEEL_WARNING: {"game": 12, "warnings": ["ball_wobble"]},
    EntryType.WHEEL_MISS_SPIN: {"game": 12},
    EntryType.WHEEL_LAUNCH_FAILED: {"game": 12},
    EntryType.WHEEL_GAP: {"game": 14, "previous": 12},
    EntryType.WHEEL_RESTART: {"game": 1, "previous": 500},
    EntryType.WHEEL_ROTOR: {"game": None, "rpm": "25.3", "direction": "cw"},
    EntryType.WHEEL_LINK: {"game": None, "state": "connected", "detail": "/dev/ttyUSB0"},
    EntryType.WHEEL_IDENTITY: {
        "game": None,
        "maker": "CAM",
        "firmware": "252",
        "version": "SS2 2.52",
        "fpga": "FPGA 1.07 COPRO 2.03",
        "clock": "2026-12-03T12:00:03",
        "offset": "3",
    },
    EntryType.WHEEL_CLOCK: {
        "game": 9,
        "clock": "2026-12-03T13:00:40",
        "offset": "40",
        "occasion": "periodic",
    },
    EntryType.WHEEL_RECONCILED: {
        "matched": 40,
        "misfires": 1,
        "journal_only": [],
        "wheel_only": [{"game": 38, "wheel": 26}],
        "differ": [{"game": 12, "round_id": "T1-000012", "journal": 17, "wheel": 5}],
        "source": "sim",
        "occasion": "close",
        "pages_used": 1,
        "pages_untrusted": [],
        "wins_total": 41,
        "misfires_total": 1,
    },
    EntryType.USER_ADDED: {"name": "pat", "role": "pitboss", "pin": _PIN},
    EntryType.USER_ROLE_CHANGED: {"name": "pat", "role": "admin", "old_role": "pitboss"},
    EntryType.USER_PIN_CHANGED: {"name": "pat", "pin": _PIN},
    EntryType.USER_DISABLED: {"name": "pat"},
    EntryType.USER_ENABLED: {"name": "pat"},
    EntryType.USER_UNLOCKED: {"name": "pat"},
    EntryType.CHAIN_KEYED: {"key": "ab" * 32},
    EntryType.CHAIN_WRITER_ENROLLED: {"key": "cd" * 32, "host": "pit-2", "by": "ada"},
    EntryType.FLOOR_ACTION: {"table": "T1", "action": "table.settings_changed", "payload": {"changes": {}}},
    EntryType.CHAIN_FORWARDED: {"table": "T1"},
    EntryType.USER_LOGIN: {"name": "pat", "role": "pitboss", "station": "pitboss", "host": "floor-1"},
    EntryType.USER_LOGIN_FAILED: {
        "name": "pat",
        "why": "wrong PIN",
        "failures": 2,
        "station": "pitboss",
        "host": "floor-1",
    },
    EntryType.USER_LOCKED_OUT: {"name": "pat", "until": "2026-01-01T00:15:00.000000Z"},
    EntryType.ALERT_RAISED: {
        "alert_id": "T1:40",
        "table": "T1",
        "severity": "warning",
        "kind": "void",
        "message": "round T1-000001 voided: dealer error",
        "round_id": "T1-000001",
        "at": "2026-01-01T00:00:00.000000Z",
    },
    EntryType.ALERT_UPDATED: {
        "alert_id": "T1:T1-000001:held",
        "table": "T1",
        "severity": "warning",
        "kind": "irregularity",
        "message": "irregularity on round T1-000001: doubtful result",
        "at": "2026-01-01T00:01:00.000000Z",
        "entry": "T1:52",
    },
    EntryType.ALERT_ACKNOWLEDGED: {
        "alert_id": "T1:40",
        "table": "T1",
        "by": "sam",
        "role": "surveillance",
        "note": "seen",
    },
    EntryType.ACTION_REFUSED: {
        "name": "carol",
        "role": "croupier",
        "permission": "void_round",
        "station": "pitboss",
    },
    EntryType.HISTORY_IMPORTED: {"number": 17, "time": "2025-12-31T23:00:00.000000Z", "source": "csv"},
}


def _stored(payload: dict[str, Any]) -> dict[str, Any]:
    """A payload as a reader gets it back: through the journal's canonical JSON."""
    value: dict[str, Any] = json.loads(canonical_json(payload))
    return value


def _entry(type_name: str, payload: dict[str, Any], seq: int = 7) -> Entry:
    return Entry(
        "T1",
        seq,
        "2026-01-01T00:00:00.000000Z",
        "pat",
        "T1-000001",
        type_name,
        canonical_json(payload),
        "0" * 64,
        "1" * 64,
    )


def test_every_entry_type_has_a_sample_and_a_registered_payload_class() -> None:
    assert set(SAMPLES) == set(EntryType)
    assert set(PAYLOAD_CLASSES) == set(EntryType)


@pytest.mark.parametrize("t", list(EntryType), ids=lambda t: t.value)
def test_each_payload_reads_and_writes_todays_json_unchanged(t: EntryType) -> None:
    stored = _stored(SAMPLES[t])
    payload = read(_entry(t.value, stored))
    assert isinstance(payload, PAYLOAD_CLASSES[t]) and payload.type is t
    assert _stored(payload.to_json()) == stored  # byte-for-byte the canonical text journaled today
    assert parse(t.value, payload.to_json()) == payload  # from_json(to_json()) is the same payload
    event = write(payload, table="T1", round_id="T1-000001", user="pat")
    assert (event.type, canonical_json(dict(event.payload))) == (t.value, canonical_json(stored))


def test_a_malformed_payload_is_a_one_line_error_naming_the_entry() -> None:
    with pytest.raises(
        DrrError, match=r"^journal entry 9 \(round.opened\) of table T1 is malformed: no 'round_id'$"
    ):
        read(_entry("round.opened", {"rules_sha256": SHA}, seq=9))
    with pytest.raises(DrrError, match=r"journal entry 3 \(bonus.box_picked\) of table T1 is malformed"):
        read(_entry("bonus.box_picked", {"player": "anna", "round": "one"}, seq=3))


def test_an_unknown_type_reads_as_unknown_and_is_not_written() -> None:
    payload = read(_entry("camera.moved", {"angle": 3}))
    assert payload == Unknown("camera.moved", {"angle": 3})
    with pytest.raises(DrrError, match=r"unknown type .camera\.moved."):
        write(payload, table="T1")  # type: ignore[arg-type]


def test_old_journals_spellings_read_as_todays_types() -> None:
    approved = read(
        _entry("payout.approved", {"amount": "290", "by": "root", "reason": "ok", "role": "admin"})
    )
    assert approved == PayoutApproved(None, Decimal("290"), None, "root", "ok", "admin")
    rules = read(
        _entry(
            "rules.changed",
            {
                "sha256": SHA,
                "source": "casino.toml",
                "text": "t",
                "by": "pat",
                "reason": "new",
                "role": "pitboss",
                "effective": "next round",
            },
        )
    )
    assert (
        isinstance(rules, RulesLoaded) and rules.type is EntryType.TABLE_RULES_LOADED and rules.name is None
    )
    rotor = read(_entry("wheel.rotor_speed", {"rpm": "24.5", "direction": "ccw"}))
    assert isinstance(rotor, WheelRotor) and (rotor.rpm, rotor.direction) == (Decimal("24.5"), "ccw")
    closed = read(_entry("round.closed", {"lucky": [[3, "99"]], "bonus_number": 4}))
    assert (
        isinstance(closed, BetsClosed)
        and dict(closed.draw.lucky) == {3: 99}
        and closed.draw.bonus_number == 4
    )
    assert set(spellings(EntryType.TABLE_RULES_LOADED)) == {"table.rules_loaded", "rules.changed"}
    assert all(v in EntryType for v in LEGACY.values())


def test_an_event_written_reads_back_equal() -> None:
    event = RoundOpened("T1-000002", SHA, dealer="eli")
    new = write(event, table="T1", round_id="T1-000002", user="carol")
    assert read(_entry(new.type, dict(new.payload))) == event


def _literal_spellings() -> dict[str, set[str]]:
    names = {t.value for t in EntryType} | set(LEGACY)
    found: dict[str, set[str]] = {}
    for package in ("engine", "gui", "hardware"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                    found.setdefault(node.value, set()).add(str(path.relative_to(ROOT)))
    return found


def test_entry_type_names_are_spelled_in_entry_types_and_at_most_one_other_file() -> None:
    found = _literal_spellings()
    too_many = {
        name: sorted(files) for name, files in found.items() if len(files - {"engine/entry_types.py"}) > 1
    }
    assert not too_many, f"entry-type names spelled as string literals in several files: {too_many}"
    assert all("engine/entry_types.py" in files for files in found.values())
