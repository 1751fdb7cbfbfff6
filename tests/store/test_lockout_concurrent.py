"""Issue 13 item 5: failure counting and lock-out are atomic; wrong PINs cannot probe names."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from engine.auth import AuthenticationFailed
from engine.store import Store
from engine.store.users import MAX_FAILURES, add_user, authenticate, disable_user

ATTEMPTS = 40


def _attempt(store: Store, pin: str, table: str) -> str:
    try:
        authenticate(store, "pat", pin, table=table)
    except AuthenticationFailed as e:
        return str(e)
    return "logged in"


def _verdicts(store: Store, table: str) -> list[str]:
    # Every sign-in is journaled on the store's own floor chain (the users' journal), naming the table.
    return [
        str(e.payload.get("why"))
        for e in store.journal.entries("floor")
        if e.type == "user.login_failed" and e.payload.get("name") == "pat"
    ]


@pytest.mark.parametrize("which", ["sqlite", "floor"])
def test_forty_simultaneous_wrong_pins_lock_the_account_after_five(
    which: str, store: Store, central: Store, table_id: str
) -> None:
    s = store if which == "sqlite" else central  # `central` is PostgreSQL when DRR_TEST_PG_URL is set
    table = "T1" if which == "sqlite" else table_id
    add_user(s, "ada", "admin", "111111", by=None)
    ada = authenticate(s, "ada", "111111")
    add_user(s, "pat", "pitboss", "222222", by=ada)
    with ThreadPoolExecutor(max_workers=ATTEMPTS) as pool:
        answers = list(pool.map(lambda _: _attempt(s, "0000", table), range(ATTEMPTS)))
    verdicts = _verdicts(s, table)
    assert len(verdicts) == ATTEMPTS
    assert verdicts.count("wrong PIN") == MAX_FAILURES
    assert verdicts.count("locked out") == ATTEMPTS - MAX_FAILURES
    assert "logged in" not in answers
    # The right PIN is refused now too, and only its holder learns why.
    assert "locked out" in _attempt(s, "222222", table)
    assert sum(e.type == "user.locked_out" for e in s.journal.entries("floor")) == 1
    failed = [e for e in s.journal.entries("floor") if e.type == "user.login_failed"]
    assert {e.payload.get("table") for e in failed} == {table}
    from engine.store.users_check import users_problem

    assert users_problem(s) is None  # the users table is the projection of those entries


def test_disabled_locked_and_unknown_users_answer_a_wrong_pin_alike(store: Store) -> None:
    add_user(store, "ada", "admin", "111111", by=None)
    ada = authenticate(store, "ada", "111111")
    add_user(store, "vic", "croupier", "3333", by=ada)
    add_user(store, "pat", "pitboss", "222222", by=ada)
    disable_user(store, "vic", by=ada)
    for _ in range(MAX_FAILURES):
        _attempt(store, "0000", "T1")  # pat is locked out now
    answers = {}
    for name in ("vic", "pat", "nobody"):
        with pytest.raises(AuthenticationFailed) as e:
            authenticate(store, name, "9999")
        answers[name] = str(e.value).replace(name, "NAME")
    assert len(set(answers.values())) == 1, answers
    assert "disabled" not in answers["vic"] and "locked" not in answers["pat"]
    # The real reason is journaled; the holder of the right PIN is told.
    whys = [e.payload.get("why") for e in store.journal.entries("floor") if e.type == "user.login_failed"]
    assert {"disabled", "locked out", "unknown user"} <= set(whys)
    with pytest.raises(AuthenticationFailed, match="vic is disabled"):
        authenticate(store, "vic", "3333")
