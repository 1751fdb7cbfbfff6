"""Engine-layer subcommands of `drr` (each module exposes `register(subparsers)`).

Modules here keep their top-level imports light (argparse only): the heavy work is
imported inside the handler, so `drr --version` and the GUI start fast.
"""
