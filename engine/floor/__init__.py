"""The floor's view of the store: what the surveillance and pit-boss stations show and do.

Everything here reads (and, for journaled alerts and pit-boss actions, appends to) the store; it
never talks to a table's memory. Qt-free, so `drr stats`, the tests and the stations share it.
"""
