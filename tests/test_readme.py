"""README.md's command lines, run as a new user would, top to bottom: every ``smrlab`` line of
its code blocks and its Python block as a script, in a scratch folder holding only links to the
checkout's ``data/`` and ``experiments/`` (as a user in the checkout sees them). The test fails
if a line errors, if anything is left in the checkout, or if a line runs a minute without a
line on stderr (a progress line: the README promises one every 5 s).

Lines ending in ``&`` run in the background until ``kill %1`` (the server and its client, on
a free port instead of 6379); ``make`` lines are what runs this test; the scorecard's lines
(``smrlab reproduce``, minutes to hours, and the report of its results) are left to its own
tests. Each line's stderr is read as it comes, with the time of each line.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from conftest import REPO

README = REPO / "README.md"
# The longest a line may run without printing a line on stderr.
SILENCE_MAX = 60.0


def blocks() -> list[tuple[str, str]]:
    """(language, text) of each fenced code block."""
    return re.findall(r"```(\w*)\n(.*?)```", README.read_text(), flags=re.S)


def steps() -> list[tuple[str, str]]:
    """("shell", command) and ("python", script) in the README's order."""
    found = []
    for language, text in blocks():
        if language == "python":
            found.append(("python", text))
            continue
        for line in text.splitlines():
            command = re.split(r"\s+#", line, maxsplit=1)[0].strip()
            if command.startswith(("smrlab ", "kill ")) and "reproduce" not in command:
                found.append(("shell", command))
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# What other steps of make test write while the README runs: Python's bytecode caches, and Cargo's
# build folder (the Rust tests build beside pytest; tests/test_install.py builds a wheel).
NOT_THE_READMES = ("__pycache__", " target/")


def checkout_files() -> set[str]:
    """Every file git sees in the checkout, ignored ones too, but those other steps write."""
    listed = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line for line in listed.splitlines() if not any(part in line for part in NOT_THE_READMES)}


class Watched:
    """A process whose stderr lines are timed as they come."""

    def __init__(self, argv: list[str], cwd: Path, env: dict):
        self.start = time.monotonic()
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.times, self.lines, self.out = [self.start], [], []
        self.readers = [
            threading.Thread(target=self._read_err, daemon=True),
            threading.Thread(target=self._read_out, daemon=True),
        ]
        for reader in self.readers:
            reader.start()

    def _read_err(self):
        for line in self.proc.stderr:
            self.times.append(time.monotonic())
            self.lines.append(line)

    def _read_out(self):
        for line in self.proc.stdout:
            self.out.append(line)

    def longest_silence(self) -> float:
        return max(b - a for a, b in zip(self.times, [*self.times[1:], time.monotonic()]))

    def wait(self) -> int:
        while self.proc.poll() is None:
            assert self.longest_silence() <= SILENCE_MAX, f"silent for over {SILENCE_MAX:.0f} s: {self.proc.args}"
            time.sleep(0.2)
        for reader in self.readers:
            reader.join()
        return self.proc.returncode


def test_the_readme_runs_as_written(tmp_path):
    before = checkout_files()
    (tmp_path / "data").symlink_to(REPO / "data")
    (tmp_path / "experiments").symlink_to(REPO / "experiments")
    env = {k: v for k, v in os.environ.items() if k != "SMRLAB_PROGRESS_SECONDS"}
    port = str(free_port())
    background, took = None, []
    for kind, text in steps():
        began = time.monotonic()
        if kind == "python":
            script = tmp_path / "readme.py"
            script.write_text(text)
            argv = [sys.executable, str(script)]
        elif text == "kill %1":
            assert background is not None, "kill %1 with nothing in the background"
            background.proc.send_signal(signal.SIGTERM)
            assert background.wait() == 0, "".join(background.lines)
            background = None
            continue
        else:
            argv = [sys.executable, "-m", *shlex.split(text.replace("6379", port).rstrip("&"))]
        watched = Watched(argv, tmp_path, env)
        if text.endswith("&"):
            background = watched
            deadline = time.monotonic() + 30
            while not (background.out or background.lines) and time.monotonic() < deadline:
                assert background.proc.poll() is None, "".join(background.lines)
                time.sleep(0.1)
            continue
        code = watched.wait()
        assert code == 0, f"{text}\n{''.join(watched.lines)[-3000:]}"
        took.append((time.monotonic() - began, text.splitlines()[0]))
    assert background is None, "a background command was never stopped"
    assert checkout_files() == before, sorted(checkout_files() ^ before)
    print("README lines by time:", sorted(took, reverse=True))
