"""Shipped data files: the default Rules Submission, the QSS theme and SVG icons."""

from importlib.resources import files
from pathlib import Path


def resource_path(*parts: str) -> Path:
    """Path of a shipped resource file (works installed, editable and in a PyInstaller bundle)."""
    return Path(str(files("resources").joinpath(*parts)))
