"""The single-zero wheel and its layout: pockets, wheel order, colours, rows and columns."""

from __future__ import annotations

from typing import Final, Literal

NUMBERS: Final = tuple(range(37))

# European single-zero wheel, clockwise from zero.
WHEEL_ORDER: Final = (
    0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10,
    5, 24, 16, 33, 1, 20, 14, 31, 9, 22, 18, 29, 7, 28, 12, 35, 3, 26,
)  # fmt: skip

RED: Final = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})
BLACK: Final = frozenset(range(1, 37)) - RED

# Index of each number on the wheel, for sector and distance computations.
WHEEL_POSITION: Final = {n: i for i, n in enumerate(WHEEL_ORDER)}

Colour = Literal["red", "black", "green"]


def colour(number: int) -> Colour:
    if number == 0:
        return "green"
    return "red" if number in RED else "black"


def column_of(number: int) -> int:
    """Column 1..3 of a number 1..36 (column 1 holds 1, 4, …, 34)."""
    return (number - 1) % 3 + 1


def dozen_of(number: int) -> int:
    """Dozen 1..3 of a number 1..36."""
    return (number - 1) // 12 + 1


def wheel_distance(a: int, b: int) -> int:
    """Pockets from a to b going clockwise on the wheel (0..36)."""
    return (WHEEL_POSITION[b] - WHEEL_POSITION[a]) % 37
