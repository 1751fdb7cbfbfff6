"""The benchmarks and synthetic journals: run from a checkout (`make bench`), never shipped or certified.

`python -m bench` prints the figures of every layer (bench/cli.py); `python -m bench --scale` the long
scale figures (bench/scale_cli.py). This package may import engine, hardware and gui; none of them
imports it (the import contract "the product never imports the benchmarks" in pyproject.toml), so
it is neither in the installed package, nor in the PyInstaller bundle, nor hashed into the
software identity a test lab approves (`drr audit software`).
"""
