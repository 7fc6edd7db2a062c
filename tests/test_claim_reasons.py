"""Every claim the committed scorecard page does not hold says why (issue 50 item 9).

Reads docs/reproduction.md as committed, the page a reader opens, not the claims files: a claim
whose verdict is fails, direction only, tie or not comparable must show a mechanism in its "why"
cell, naming a section of a docs page (``NAME.md#anchor``, the page writes the claims' ``docs/``
links relative to docs/) whose heading exists, and must not be only a pointer ("see ...") or blame
the shared machine. No run: the page and the docs are read as text.
"""

import re
from pathlib import Path

from smrlab.docs_pages import slug

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXPLAINED = ("fails", "direction only", "tie", "not comparable")
CLAIM_ROW = re.compile(r"^\| `(?P<id>[^`]+)`.*\| \*\*(?P<verdict>[^*]+)\*\* \| (?P<why>.*) \|$")
ANCHOR = re.compile(r"(?:docs/)?([\w.-]+\.md)#([\w-]+)")


def _rows(page: str) -> list[tuple[str, str, str, str]]:
    """(paper section, claim id, verdict, why) of each claim row of the page's per-paper tables."""
    rows, paper = [], ""
    for line in page.splitlines():
        if line.startswith("## "):
            paper = line[3:].strip()
        match = CLAIM_ROW.match(line)
        if match:
            rows.append((paper, match["id"], match["verdict"], match["why"].strip()))
    return rows


def _anchors(doc: Path) -> set[str]:
    """The anchors of a docs page's headings, as GitHub makes them (a repeated one numbered)."""
    seen: dict[str, int] = {}
    for line in doc.read_text().splitlines():
        heading = re.match(r"^#{1,6}\s+(.*)$", line)
        if heading:
            name = slug(heading.group(1))
            count = seen.get(name, 0)
            seen[name] = count + 1
    return {name if n == 0 else f"{name}-{n}" for name, count in seen.items() for n in range(count)}


def _problem(why: str) -> str:
    """What is wrong with a claim's "why" cell, or "" when it gives a mechanism and a live anchor."""
    if not why:
        return "no reason"
    if "shared machine" in why.lower():
        return "blames the shared machine"
    anchors = ANCHOR.findall(why)
    if not anchors:
        return "no docs anchor"
    for doc, anchor in anchors:
        if not (DOCS / doc).is_file():
            return f"names {doc}, not a docs page"
        if anchor not in _anchors(DOCS / doc):
            return f"names {doc}#{anchor}, a heading that does not exist"
    if why.lower().startswith("see "):
        return "only a pointer"
    words = re.findall(r"[a-z]+", ANCHOR.sub("", why).lower())
    if len(words) < 6:
        return "only a pointer"
    return ""


def test_every_claim_that_does_not_hold_has_a_mechanism_with_a_live_anchor():
    rows = _rows((DOCS / "reproduction.md").read_text())
    assert rows, "no claim rows found on docs/reproduction.md"
    wrong = [
        f"{paper}: {claim} ({verdict}): {problem}"
        for paper, claim, verdict, why in rows
        if verdict in EXPLAINED and (problem := _problem(why))
    ]
    assert not wrong, "claims without a measured mechanism on docs/reproduction.md:\n" + "\n".join(wrong)


def test_the_check_catches_a_bare_pointer_a_dead_anchor_and_the_shared_machine():
    """The rule itself, on made-up cells: each kind of hollow reason is caught, a real one passes."""
    assert _problem("") == "no reason"
    assert _problem("see the micro-benchmarks (smrdb.md#micro-benchmarks-figs-310-315)") == "only a pointer"
    assert _problem("the paced disk runs in real time on a shared machine (workloads.md#x)") == (
        "blames the shared machine"
    )
    assert "does not exist" in _problem("LRU hits 0.95 of writes and PORE-BL 0.75: pore.md#no-such-heading")
    assert _problem("LRU hits 0.95 of writes and PORE-BL 0.75, so LRU is faster") == "no docs anchor"
    heading = next(line for line in (DOCS / "pore.md").read_text().splitlines() if line.startswith("## "))
    assert _problem(f"LRU hits 0.95 of writes and PORE-BL 0.75: pore.md#{slug(heading[3:])}") == ""
