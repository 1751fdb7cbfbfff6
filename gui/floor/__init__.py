"""Widgets shared by the surveillance and pit-boss stations (store watch, alerts panel)."""
