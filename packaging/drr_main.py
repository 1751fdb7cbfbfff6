"""Entry script of the PyInstaller bundle: the same `drr` command as the console script."""

import multiprocessing
import sys

if __name__ == "__main__":
    # `drr simulate` spreads work over processes; a frozen program must let a child run its task.
    multiprocessing.freeze_support()
    from gui.cli import main

    sys.exit(main())
