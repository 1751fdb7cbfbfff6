"""`python -m bench [--json] [--only GROUP] [--scale …]`: the benchmarks from a checkout (bench/cli.py)."""

from __future__ import annotations

import sys

from bench.cli import main

sys.exit(main())
