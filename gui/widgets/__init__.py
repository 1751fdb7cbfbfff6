"""Reusable widgets of the stations: the felt, chips, the bonus panel, status strips."""
