"""The suite's own scheduling: long tests first, spread over the workers (tests/conftest.py)."""

from tests.conftest import spread_long_first


def test_each_workers_share_starts_with_its_part_of_the_long_tests() -> None:
    items = [f"t{i}" for i in range(10)] + ["L1", "L2"] + [f"u{i}" for i in range(7)] + ["L3"]
    order = spread_long_first(items, 2, lambda name: name.startswith("L"))
    assert sorted(order) == sorted(items)  # nothing lost, nothing twice
    half = len(order) // 2  # worksteal's first share: the first half, to the first worker
    first, second = order[:half], order[half:]
    assert first[:2] == ["L1", "L3"] and second[:1] == ["L2"]
    # the rest keeps its order (a module's tests stay together)
    assert [n for n in order if not n.startswith("L")] == [n for n in items if not n.startswith("L")]


def test_one_worker_or_no_long_tests() -> None:
    items = ["a", "L", "b"]
    assert spread_long_first(items, 1, lambda n: n == "L") == ["L", "a", "b"]
    assert spread_long_first(items, 2, lambda n: False) == items
