"""The one gate (engine.table.gate): a failed RNG tilts the table (issue 23 finding 4) and a changed
program plays nothing without an alarm (finding 3). Each test names the finding's sentence."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.auth import PermissionDenied, User
from engine.entry_types import EntryType as E
from engine.errors import DrrError
from engine.floor.alerts import AlertScanner, acknowledge_alert, list_alerts
from engine.journal_types import read
from engine.rng import HealthFailure, SeededRng
from engine.round import Phase
from engine.software_id import running_digest
from engine.store import Store
from engine.table.gate import TableTilted
from engine.table_events import RngFault, StartupTested, TiltCleared, Tilted
from tests.rng.test_health import Stuck
from tests.table.helpers import CROUPIER, PITBOSS, WATCHER, make_service, some_wagers, spin, wheel


class Failing:
    """A source whose OS call fails (e.g. getrandom returning EIO)."""

    name = "failing"
    production_safe = False

    def randbelow(self, n: int) -> int:
        raise OSError(5, "Input/output error")


def types(store: Store) -> list[str]:
    return [e.type for e in store.journal.entries("T1")]


def payloads(store: Store, kind: E) -> list[Any]:
    return [read(e) for e in store.journal.entries("T1") if e.type == kind]


async def faulted_round(store: Store) -> Any:
    """A started table whose source dies with bets open: the draw is refused and the fault journaled."""
    svc = make_service(store)
    await svc.start()
    await wheel(svc, {"type": "started", "game": 1})
    await svc.open_bets(CROUPIER)
    await some_wagers(svc)
    svc.rng.inner = Stuck()
    for _ in range(8):  # 40 bits of repeats seen: the draw's first value fails the repetition count test
        svc.rng.randbelow(37)
    with pytest.raises(HealthFailure):
        await svc.no_more_bets(CROUPIER)
    return svc


def test_a_wager_after_an_rng_fault_is_refused(store: Store) -> None:
    """'After an rng.fault the table still takes wagers': the wager path passes the gate."""

    async def go() -> None:
        svc = await faulted_round(store)
        before = types(store).count(E.ROUND_WAGER_PLACED)
        with pytest.raises(TableTilted, match=r"tilted.*RNG fault"):
            await some_wagers(svc)
        assert types(store).count(E.ROUND_WAGER_PLACED) == before
        assert svc.view.stopped and "pit boss clears" in svc.view.step.todo
        await svc.close()

    asyncio.run(go())


def test_a_void_is_allowed_but_no_new_round_after_it(store: Store) -> None:
    """'... voids, opens new rounds and takes wagers in them': a void returns the wagers, nothing more."""

    async def go() -> None:
        svc = await faulted_round(store)
        await svc.void(PITBOSS, "RNG fault: wagers returned")
        with pytest.raises(TableTilted, match="go to the next round"):
            await svc.next_round(CROUPIER)
        assert svc.phase is Phase.VOID
        await svc.close()

    asyncio.run(go())
    assert E.ROUND_VOIDED in types(store)
    assert E.TABLE_NEXT_ROUND not in types(store) and types(store).count(E.ROUND_OPENED) == 1


def test_a_dead_source_is_caught_by_the_startup_test_before_any_draw(store: Store) -> None:
    """'A dead source (every value 0) draws and settles a whole round before the health test trips':
    the start-up test (NIST SP 800-90B § 4.3) runs before the first draw of every start."""

    async def go() -> None:
        svc = make_service(store)
        svc.rng.inner = Stuck()
        await svc.start()
        with pytest.raises(TableTilted, match="open bets"):
            await svc.open_bets(CROUPIER)
        await svc.close()

    asyncio.run(go())
    (test,) = payloads(store, E.RNG_STARTUP_TEST)
    assert isinstance(test, StartupTested) and not test.result.passed
    assert test.result.samples < 20  # stopped within a few values, none of them used
    (fault,) = payloads(store, E.RNG_FAULT)
    assert isinstance(fault, RngFault) and fault.test == "repetition count test"
    assert E.ROUND_OPENED not in types(store) and E.ROUND_BETS_CLOSED not in types(store)


def test_the_startup_test_passes_and_is_journaled_at_every_start(store: Store) -> None:
    async def go() -> None:
        for _ in range(2):
            svc = make_service(store)
            await svc.start()
            await svc.close()

    asyncio.run(go())
    tests = payloads(store, E.RNG_STARTUP_TEST)
    assert len(tests) == 2 and all(t.result.passed and t.result.samples == 1024 for t in tests)
    kinds = types(store)
    assert kinds.index(E.RNG_STARTUP_TEST) == kinds.index(E.TABLE_STARTED) + 1


def test_an_oserror_from_the_generator_is_an_rng_fault_and_the_wheel_message_is_kept(store: Store) -> None:
    """'An OSError from the OS generator crashes the table with a traceback and journals nothing (the
    wheel.no_more_bets entry is lost too)'."""

    async def go() -> None:
        svc = make_service(store)
        await svc.start()
        await wheel(svc, {"type": "started", "game": 1})
        await svc.open_bets(CROUPIER)
        await some_wagers(svc)
        svc.rng.inner = Failing()
        await wheel(svc, *spin(1)[1:])  # the wheel's state 4: the draw fails
        with pytest.raises(DrrError) as refused:  # a one-line refusal, never the OSError itself
            await svc.no_more_bets(CROUPIER)
        assert not isinstance(refused.value, OSError)
        with pytest.raises(TableTilted):
            await some_wagers(svc)
        await svc.close()

    asyncio.run(go())
    kinds = types(store)
    assert E.WHEEL_NO_MORE_BETS in kinds and E.ROUND_BETS_CLOSED not in kinds
    (fault,) = payloads(store, E.RNG_FAULT)
    assert fault.test == "generator error" and "OSError" in fault.message and "Input/output" in fault.message
    assert kinds.index(E.RNG_FAULT) > kinds.index(E.WHEEL_NO_MORE_BETS)


def test_the_tilt_outlasts_a_restart_until_a_pit_boss_clears_it_after_the_test_passes(store: Store) -> None:
    async def go() -> None:
        svc = await faulted_round(store)
        await svc.void(PITBOSS, "RNG fault")
        await svc.close()
        again = make_service(store)  # a healthy generator: the start-up test passes, the tilt stays
        await again.start()
        assert again.view.stopped
        with pytest.raises(TableTilted):
            await again.next_round(CROUPIER)
        with pytest.raises(PermissionDenied):
            await again.clear_tilt(CROUPIER, "looked at it")
        again.rng.inner = Stuck()
        with pytest.raises(DrrError, match="stays tilted"):  # the test fails again: still tilted
            await again.clear_tilt(PITBOSS, "technician replaced the entropy source")
        assert again.view.stopped
        again.rng.inner = SeededRng(11)  # the source replaced
        await again.clear_tilt(PITBOSS, "technician replaced the entropy source")
        assert not again.view.stopped and again.view.step.label == "Next round"
        await again.next_round(CROUPIER)
        await wheel(again, {"type": "started", "game": 2})
        await again.open_bets(CROUPIER)
        await some_wagers(again)
        await again.no_more_bets(CROUPIER)
        await again.close()

    asyncio.run(go())
    (cleared,) = payloads(store, E.TABLE_TILT_CLEARED)
    assert isinstance(cleared, TiltCleared) and cleared.by == PITBOSS.name and cleared.cause == "rng"
    assert cleared.health_test is not None and cleared.health_test.passed
    assert len(payloads(store, E.RNG_FAULT)) == 2  # the first fault and the failed re-test
    assert types(store).count(E.ROUND_BETS_CLOSED) == 1


# --- finding 3: the approved digest --------------------------------------------------------------


def test_a_table_running_another_digest_than_the_approved_one_refuses_and_alerts(store: Store) -> None:
    """'After one line was appended to engine/settlement.py the table started and settled rounds ...
    nothing else noticed': the running digest differs from the approved one (as a changed file makes
    it), so bets do not open and surveillance gets a critical alert."""
    approved = "0" * 64
    assert running_digest() != approved

    async def go() -> None:
        svc = make_service(store, approved_digest=approved)
        await svc.start()
        assert svc.view.stopped and "software not approved" in (svc.view.hold or "")
        with pytest.raises(TableTilted, match="software not approved"):
            await svc.open_bets(CROUPIER)
        await svc.close()

    asyncio.run(go())
    (tilt,) = payloads(store, E.TABLE_TILTED)
    assert isinstance(tilt, Tilted) and tilt.running == running_digest() and tilt.approved == approved
    assert E.ROUND_OPENED not in types(store)
    found = AlertScanner().scan(store, ["T1"])
    assert [(a.severity, a.kind) for a in found] == [("critical", "software not approved")]


def test_the_approved_digest_plays_and_a_changed_file_does_not(store: Store, monkeypatch: Any) -> None:
    approved = running_digest()

    async def start_and_open() -> None:
        svc = make_service(store, approved_digest=approved)
        await svc.start()
        try:
            await wheel(svc, {"type": "started", "game": 1})
            await svc.open_bets(CROUPIER)
        finally:
            await svc.close()

    asyncio.run(start_and_open())
    assert types(store).count(E.ROUND_OPENED) == 1
    # The program changes under the table (a line appended to a product file changes its digest).
    import engine.table.service_core as service

    monkeypatch.setattr(service, "running_digest", lambda: "f" * 64)

    async def restart() -> None:
        svc = make_service(store, approved_digest=approved)
        await svc.start()
        with pytest.raises(TableTilted):
            await svc.void(PITBOSS, "program changed")  # a void is allowed ...
            await svc.next_round(CROUPIER)  # ... the next round is not
        await svc.close()

    asyncio.run(restart())
    assert E.TABLE_TILTED in types(store) and E.TABLE_NEXT_ROUND not in types(store)


def test_without_an_approved_digest_a_new_digest_raises_an_alert_to_acknowledge(store: Store) -> None:
    async def start_twice() -> None:
        for _ in range(2):
            svc = make_service(store)
            await svc.start()
            await svc.close()

    asyncio.run(start_twice())
    (new,) = payloads(store, E.TABLE_NEW_SOFTWARE)  # the second start of the same digest says nothing
    assert new.running == running_digest() and new.previous is None
    (alert,) = AlertScanner().scan(store, ["T1"])
    assert (alert.severity, alert.kind) == ("warning", "new software")
    acknowledge_alert(store, alert.alert_id, WATCHER, "digest checked against the lab's letter")
    assert [a.acknowledged for a in list_alerts(store)] == [True]


def test_a_surveillance_officer_may_not_clear_a_tilt(store: Store) -> None:
    async def go() -> None:
        svc = await faulted_round(store)
        with pytest.raises(PermissionDenied):
            await svc.clear_tilt(User("sam", "surveillance"), "x")
        await svc.close()

    asyncio.run(go())
