"""Top-level windows of the stations: croupier, player display, bonus screen."""
