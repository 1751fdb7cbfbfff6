"""The live table: the table service (commands, wheel events, journal, subscribers) and its recovery."""
