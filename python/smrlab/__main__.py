"""``python -m smrlab`` runs the command line."""

import sys

from smrlab.cli import main

# Guarded: worker processes started by ``smrlab run`` import this module again under another name.
if __name__ == "__main__":
    sys.exit(main())
