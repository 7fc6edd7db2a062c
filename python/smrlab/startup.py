"""Ctrl-C while the command line starts: one line and exit code 130 at once.

Loading the command line and its command modules (numpy, pyarrow, rich, the Rust core) takes a
few tenths of a second. A ``KeyboardInterrupt`` raised inside that loading would print a
traceback, can be swallowed by a library's catch-all (the command then runs on), and, raised
inside a compiled module's initialisation, makes Python end by killing itself with SIGINT after
``main`` has returned 130. Nothing has been written before a command starts, so until then
Ctrl-C simply ends the process. Not here: Ctrl-C during a command, which ``smrlab.cli.main``
turns into one line after removing partial outputs.
"""

# The C module ``signal`` wraps, loaded by Python's own start-up: ``signal`` itself would first
# import ``enum`` (a few milliseconds in which Ctrl-C would still print a traceback).
import _signal as signal
import os

# Exit code of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 128 + signal.SIGINT


def _exit_at_once(signum, frame):
    os.write(2, b"\nsmrlab: interrupted\n")
    os._exit(INTERRUPTED)


def exit_at_once_on_ctrl_c() -> None:
    """From now until ``raise_on_ctrl_c``, Ctrl-C prints one line and exits with 130."""
    signal.signal(signal.SIGINT, _exit_at_once)


def raise_on_ctrl_c() -> None:
    """Ctrl-C raises ``KeyboardInterrupt`` again, if ``exit_at_once_on_ctrl_c`` changed it."""
    if signal.getsignal(signal.SIGINT) is _exit_at_once:
        signal.signal(signal.SIGINT, signal.default_int_handler)
