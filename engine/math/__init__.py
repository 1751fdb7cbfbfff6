"""Game math of a Rules Submission: exact return to player and Monte Carlo verification.

`bonus_value` values the bonus game per player strategy by dynamic programming,
`wager_math` gives the exact statistics of every wager kind, `report` renders them
(JSON, Markdown for docs/math.md) and `simulate` plays whole spins with numpy to check them
(bench/math_figures.py measures the simulator, from a checkout).
Everything exact is a Fraction computed from the rules alone, never from the RNG code.
"""
