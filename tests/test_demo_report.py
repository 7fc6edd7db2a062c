"""The demo's own report: ``smrlab demo`` ends with the report of its four full-size line-ups, and
a second demo on the same folder reuses every stored cell. Kept apart from tests/test_report.py,
whose report is the quick scorecard's: the demo and the quick scorecard are the two session-long
runs (tests/conftest.py ``SHARED_RUNS``), and a test file that used both would make one pytest
worker run both."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


def test_the_demo_ends_with_its_report(demo):
    stdout, folder = demo
    page = Path(stdout.strip().splitlines()[-1])
    assert page == (folder / "report.html").resolve() and page.is_file()
    text = page.read_text()
    # One section per full-size trace's line-up, each with its figures (PORE Fig. 13's write
    # times and, asked for by the file's [figure] also, its (c) R_wa) and the paper's factors.
    assert text.count("<figure>") == 4 * 2 and text.count("Beside the paper") == 4
    assert "Larger, Cheaper, but Faster" in text


def test_a_second_demo_reuses_the_first_and_its_report_has_each_section_once(demo):
    """``make demo`` twice on a built clone: the second run finds every line-up's cells stored
    and goes on in the same folders (no ``-2`` folder), and its report shows each trace once."""
    _, folder = demo
    before = sorted(p.name for p in folder.iterdir() if p.is_dir())
    proc = subprocess.run(
        [sys.executable, "-m", "smrlab", "demo", "--out", folder.name],
        cwd=folder.parent,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == before
    assert not any(name.endswith("-2") for name in before)
    assert proc.stderr.count("7 of 7 cells already stored, not run again") == 4
    sections = re.findall(r"<h2>([^<]*)</h2>", (folder / "report.html").read_text())
    assert len(sections) == len(set(sections)) == 5, sections  # four traces and the references
