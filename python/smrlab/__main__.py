"""``python -m smrlab`` runs the command line."""

import sys

from smrlab.cli import main

sys.exit(main())
