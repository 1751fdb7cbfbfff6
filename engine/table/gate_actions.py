"""The gate's people-actions outside a running table: a pit boss clearing an RNG tilt, a pit boss or
admin approving the software digest (`drr pitboss clear-tilt`, `drr pitboss approve-software`).

Both journal who did it on the table's own chain, like `drr pitboss resolve` (engine.floor.actions):
the table service folds the entry at its next command. The start's decisions (start-up test, software
check) and the service's own clear are `start_steps` and `clear_steps`, shared with the service.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.auth import User, require
from engine.entry_types import EntryType
from engine.errors import DrrError, IllegalTransition
from engine.journal_types import Payload, read, write
from engine.rng import HealthTestedRng, StartupResult, SystemRng
from engine.store.latest import latest_entry
from engine.table.gate import software_tilt
from engine.table_events import (
    TILT_RNG,
    NewSoftware,
    RngFault,
    SoftwareApproved,
    StartupTested,
    TableStarted,
    TiltCleared,
)

if TYPE_CHECKING:
    from engine.store.db import Store
    from engine.table.state import TableState


def fault_of(rng: HealthTestedRng) -> RngFault:
    """The rng.fault entry for the generator's latched failure."""
    failure = rng.failure
    assert failure is not None
    return RngFault(failure.test, rng.name, str(failure.n), failure.count, failure.cutoff, failure.message)


def last_software(store: Store, table: str) -> str | None:
    """The software digest of the table's latest `table.started` (None: never started, or not journaled)."""
    entry = latest_entry(store, table, EntryType.TABLE_STARTED)
    payload = None if entry is None else read(entry)
    return payload.software if isinstance(payload, TableStarted) else None


@dataclass(frozen=True)
class StartChecks:
    """What the gate journals with a start: the start-up test, a fault, a software tilt or notice."""

    steps: tuple[Payload, ...]
    startup: StartupResult


def start_steps(
    rng: HealthTestedRng, running: str, approved: str | None, previous: str | None
) -> StartChecks:
    """The start's checks, before the first draw: NIST SP 800-90B § 4.3's start-up test through the
    production generator (a failure is an rng.fault: the table tilts), the running digest against the
    approved one (a difference tilts), and, with none approved, the first start of a new digest."""
    result = rng.startup_test()
    steps: list[Payload] = [StartupTested(rng.name, result)]
    if not result.passed:
        steps.append(fault_of(rng))
    tilt = software_tilt(running, approved)
    if tilt is not None:
        steps.append(tilt)
    elif approved is None and running != previous:
        steps.append(NewSoftware(running, previous))
    return StartChecks(tuple(steps), result)


def clear_steps(
    state: TableState, rng: HealthTestedRng, user: User, reason: str
) -> tuple[list[Payload], bool]:
    """A pit boss clears the RNG tilt: the generator's start-up test runs again first. Returns the
    entries to journal and whether the tilt is cleared (a failed test journals its fault again)."""
    require(user, "resolve_irregularity")
    if not reason.strip():
        raise IllegalTransition("clearing a tilt needs a reason (what was checked)")
    if TILT_RNG not in state.tilts:
        why = "; ".join(t.reason for t in state.tilts.values())
        raise IllegalTransition(
            "the table is not tilted by an RNG fault" + (f" (it is tilted: {why})" if why else "")
        )
    result = rng.startup_test()
    if not result.passed:
        return [StartupTested(rng.name, result), fault_of(rng)], False
    return [TiltCleared(TILT_RNG, user.name, reason.strip(), result)], True


def clear_tilt(store: Store, table: str, reason: str, user: User) -> StartupResult:
    """`drr pitboss clear-tilt`: on the table's own store, the production generator of this PC tested
    again; cleared (journaled with who and the test's result) only if it passes. DrrError otherwise."""
    from engine.table.recovery import recover
    from engine.table.state import TableState

    rng = HealthTestedRng(SystemRng())
    state = TableState(table, rng)
    recover(state, store.journal)
    steps, cleared = clear_steps(state, rng, user, reason)
    _append(store, table, state, steps, user)
    if not cleared:
        assert rng.failure is not None
        raise DrrError(
            f"table {table} stays tilted: the generator failed its test again: {rng.failure.message}"
        )
    assert isinstance(steps[0], TiltCleared) and steps[0].health_test is not None
    return steps[0].health_test


def approve_software(
    store: Store, table: str, digest: str, reason: str, user: User, *, settings_file: Path | None = None
) -> Path:
    """`drr pitboss approve-software`: the digest into the settings file (`software.approved_digest`)
    and a `table.software_approved` entry with who; the table checks it at its next start."""
    from engine.config import load_settings, set_approved_digest

    require(user, "change_settings")
    if not reason.strip():
        raise DrrError("give a reason: it is kept in the journal with the action")
    try:
        previous = load_settings(settings_file).approved_digest
    except DrrError:
        previous = None
    path = set_approved_digest(digest, settings_file)
    approved = SoftwareApproved(digest.strip().lower(), previous, user.name, reason.strip())
    store.journal.append_many([write(approved, table=table, user=user.name)])
    return path


def _append(store: Store, table: str, state: TableState, steps: list[Payload], user: User) -> None:
    events = [write(p, table=table, round_id=state.round_id, user=user.name) for p in steps]
    with store.begin() as conn:
        written = store.journal.append_in(conn, events)
        if written[0].seq != state.last_seq + 1:  # the table moved on meanwhile: decide again
            raise DrrError(f"table {table} wrote entries meanwhile: nothing cleared; run the command again")
    store.journal.witness(written)
