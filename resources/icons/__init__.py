"""SVG icons of the stations (loaded by gui.theme.icon)."""
