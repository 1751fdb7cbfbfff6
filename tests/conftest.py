"""Shared test set-up: Qt runs offscreen, and the repository root is importable."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
