"""``python -m smrlab`` and the ``smrlab`` command: the command line, taking Ctrl-C from its
first line (see ``smrlab.startup``; only Python's own start-up, before this module runs, is
left to Python).
"""

import sys

from smrlab import startup

# Not when a worker process of ``smrlab run`` imports this module again as ``__mp_main__``.
if __name__ in ("__main__", "smrlab.__main__"):
    startup.exit_at_once_on_ctrl_c()

from smrlab.cli import main

if __name__ == "__main__":
    sys.exit(main())
