"""Qt front ends (croupier, player display, bonus game, surveillance, pit boss) and the `drr` command.

The only layer that imports Qt; it is a view of the engine's table service, never a
second source of truth.
"""
