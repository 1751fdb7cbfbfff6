"""Shared test set-up: Qt runs offscreen, and the repository root is importable."""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# No byte-code caches in the program's folders, whoever runs pytest (make test sets the variable too):
# a cache is a file of the program (engine.software_id), and the `drr` subprocesses inherit the setting.
sys.dont_write_bytecode = True
os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
# Except while tests are collected (`pytest_make_collect_report` below): then each worker rewrites the
# asserts of ~330 test modules and compiles them and the program's modules they import, about half of a
# worker's 13 CPU-seconds of collection, in every worker of every run. Those caches go to a folder of the
# checkout outside the program's folders (ignored by git, gone with the clone: a cache keyed by absolute
# paths in the user's home would grow with every fresh clone), and only the pytest process writes or reads
# them: the prefix is set on `sys` and only during collection, never in the environment, since a `drr`
# child's byte-code guard compiles every source that has a cache to compare the two
# (gui/bytecode_guard.py).
_COLLECTION_CACHE = Path(__file__).resolve().parents[1] / ".pytest-pycache"


import contextlib  # noqa: E402 - after the byte-code setting
import signal  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Callable, Generator, Iterator  # noqa: E402
from typing import TYPE_CHECKING, TypeVar  # noqa: E402

import pytest  # noqa: E402

T = TypeVar("T")

if TYPE_CHECKING:  # (imported by the fixture: the store modules read the PostgreSQL URL set below)
    from tests.floor.played import PlayedFloors


def _own_postgresql() -> contextlib.ExitStack | None:
    """With no PostgreSQL named (DRR_TEST_PG_URL unset: no server on this machine, see `make test`), the
    session starts one of its own, so no PostgreSQL test is skipped. Done when this file is imported, the
    first of the conftests, since tests/store's and tests/table's read the URL when they are imported; a
    pytest-xdist worker inherits the controller's URL through its environment instead."""
    if os.environ.get("DRR_TEST_PG_URL") or os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    from tests.pg_embedded import embedded_server

    stack = contextlib.ExitStack()
    # A short path: a Unix socket's path is limited to about 100 bytes.
    data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="drr-pg-"))) / "data"
    try:
        os.environ["DRR_TEST_PG_URL"] = stack.enter_context(embedded_server(data_dir))
    except Exception as exc:
        stack.close()
        raise pytest.UsageError(
            "no PostgreSQL for the tests: DRR_TEST_PG_URL names none and the embedded one (pgserver) "
            f"did not start: {exc}"
        ) from None
    return stack


_OWN_POSTGRESQL = _own_postgresql()

# A session started in the background of a script (`cmd &`, nohup: every pytest-xdist worker of such a
# session too) inherits SIGINT ignored, and a station keeps an ignored signal ignored (gui/stopping.py,
# as nohup wants for SIGHUP); the tests that stop a station with SIGINT (Ctrl+C) start it as a terminal
# would, with SIGINT at its default: a Python handler here is the default again in every child.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def spread_long_first(items: list[T], workers: int, long: Callable[[T], bool]) -> list[T]:
    """`items` reordered so that each of `workers` contiguous equal shares starts with its round-robin part
    of the long items, followed by its part of the rest in their order."""
    slow = [item for item in items if long(item)]
    if not slow:
        return list(items)
    rest = [item for item in items if not long(item)]
    shares = [slow[k::workers] for k in range(workers)]
    size = -(-len(items) // workers)  # a worker's share of the whole, as the scheduler splits it
    start = 0
    for share in shares:
        take = max(0, size - len(share))
        share.extend(rest[start : start + take])
        start += take
    shares[-1].extend(rest[start:])
    return [item for share in shares for item in share]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long tests (marked `slow`) start first, spread over the workers: pytest-xdist's worksteal hands
    each worker a contiguous share of the collection and other workers steal only from a share's tail, so
    a long test collected late held the run up alone at its end (two 2-minute real-screen shifts in one
    worker's share ran one after the other). A module's other tests stay together, and every worker
    computes the same order, as xdist requires."""
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    items[:] = spread_long_first(items, workers, lambda item: item.get_closest_marker("slow") is not None)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Byte-code caches for what collecting imports, kept apart from the program (see `_COLLECTION_CACHE`);
    set again for each collector since importing gui.cli turns writing off for good."""
    saved = sys.pycache_prefix, sys.dont_write_bytecode
    sys.pycache_prefix, sys.dont_write_bytecode = str(_COLLECTION_CACHE), False
    try:
        return (yield)
    finally:
        sys.pycache_prefix, sys.dont_write_bytecode = saved


def pytest_unconfigure(config: pytest.Config) -> None:
    if _OWN_POSTGRESQL is not None:
        _OWN_POSTGRESQL.close()


@pytest.fixture(autouse=True)
def _table_keys(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's table keys (engine.store.keys) in a key directory of its own, never the user's; and
    no floor database of the shell's (engine.store.floor_witness): a test that wants one sets it."""
    monkeypatch.setenv("DRR_KEY_DIR", str(tmp_path_factory.mktemp("keys")))
    monkeypatch.delenv("DRR_FLOOR_URL", raising=False)


@pytest.fixture(autouse=True)
def _quick_pin_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """PINs hashed with the weakest scrypt a stored hash may have (n=2**14, r=8: a third of the
    work), not today's ~0.1 s one, so the suite's hundreds of sign-ins stay quick; the parameters
    themselves, the re-hash of a weaker hash and the time one takes are tested in
    tests/store/test_pin_insider.py (which puts today's back)."""
    from engine.floor_events import SCRYPT_MIN_N, SCRYPT_MIN_P, SCRYPT_MIN_R
    from engine.store import users

    monkeypatch.setattr(users, "SCRYPT_N", SCRYPT_MIN_N)
    monkeypatch.setattr(users, "SCRYPT_R", SCRYPT_MIN_R)
    monkeypatch.setattr(users, "SCRYPT_P", SCRYPT_MIN_P)


def _top_level_widgets() -> dict[int, object]:
    """The QApplication's top-level widgets by C++ address ({} when no Qt application is running)."""
    qt = sys.modules.get("PySide6.QtWidgets")
    app = qt.QApplication.instance() if qt is not None else None
    if app is None:
        return {}
    import shiboken6

    return {shiboken6.getCppPointer(w)[0]: w for w in app.topLevelWidgets()}


@pytest.fixture(autouse=True)
def _windows_deleted_after_the_test() -> Iterator[None]:
    """The windows and dialogs a test made are deleted after it, not only closed: a closed window stays
        alive in the session's one QApplication, and every later test's style sheet (gui.theme.apply) and
        event pass walks all of them (a worker had 1,400 widgets after a few dozen GUI tests, and each setup
        took seconds; their timers kept reading the store). Only the program's windows made during the test
    go (and their children with them); the ones before it are left."""
    before = _top_level_widgets()
    yield
    made = [
        w
        for key, w in _top_level_widgets().items()
        # the program's own windows and dialogs (pyqtgraph's menus are its Python objects' to delete)
        if key not in before and type(w).__module__.startswith(("gui.", "tests."))
    ]
    if not made:
        return
    from PySide6.QtCore import QCoreApplication, QEvent

    for widget in made:
        widget.close()  # type: ignore[attr-defined]
        widget.deleteLater()  # type: ignore[attr-defined]
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(scope="session")
def played_floors(tmp_path_factory: pytest.TempPathFactory) -> Iterator["PlayedFloors"]:
    """Demo floors played once per test process and copied into each test's store (tests/floor/played.py)."""
    from tests.floor.played import PlayedFloors

    floors = PlayedFloors(tmp_path_factory.mktemp("played"))
    yield floors
    floors.close()
