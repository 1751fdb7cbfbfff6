"""Diamond Rush Roulette game engine: rules, RNG, rounds, settlement, bonus game, math, store.

This package is the source of truth for the game. It imports no Qt and no serial code
(enforced by import-linter in CI), so it runs headless on any machine.
"""

__version__ = "0.1.0"
