"""The decision records in docs/adr share one layout, and their index lists each of them."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

ADR_DIR = Path(__file__).resolve().parents[1] / "docs" / "adr"
SECTIONS = ("Status", "Date", "Context", "Decision", "Alternatives", "Consequences")
ADR_FILE = re.compile(r"^(\d{4})-[a-z0-9-]+\.md$")
STATUS = re.compile(r"^(Accepted|Proposed|Superseded|Deprecated|Amended)\b")


def _adr_files() -> list[Path]:
    return sorted(p for p in ADR_DIR.glob("*.md") if p.name != "README.md")


def _problems(number: str, text: str) -> list[str]:
    """What keeps ``text`` (ADR ``number``) from the layout in docs/adr/README.md."""
    lines = text.splitlines()
    problems = []
    if not lines or not re.fullmatch(rf"# ADR {number}: \S.*", lines[0]):
        problems.append(f"the first line is not '# ADR {number}: <title>'")
    bodies: dict[str, list[str]] = {}
    order: list[str] = []
    current: list[str] | None = None
    for line in lines[1:]:
        if line.startswith("## "):
            order.append(line[3:].strip())
            current = bodies.setdefault(order[-1], [])
        elif line.startswith("# "):
            problems.append(f"a second title: {line!r}")
        elif current is not None:
            current.append(line)
        elif line.strip():
            problems.append(f"text before the first section: {line!r}")
    if tuple(order) != SECTIONS:
        problems.append(f"sections {order}, expected {list(SECTIONS)}")
    for name, body in bodies.items():
        if not "\n".join(body).strip():
            problems.append(f"## {name} is empty")
    status = "\n".join(bodies.get("Status", [])).strip()
    if status and not STATUS.match(status):
        problems.append(f"## Status does not start with a status: {status[:40]!r}")
    date = "\n".join(bodies.get("Date", [])).strip()
    if date:
        try:
            datetime.date.fromisoformat(date)
        except ValueError:
            problems.append(f"## Date is not one YYYY-MM-DD date: {date!r}")
    return problems


def test_every_adr_has_the_sections_in_order() -> None:
    files = _adr_files()
    assert len(files) >= 15
    problems = {}
    for path in files:
        match = ADR_FILE.match(path.name)
        assert match, f"{path.name}: name it NNNN-short-name.md"
        found = _problems(match.group(1), path.read_text(encoding="utf-8"))
        if found:
            problems[path.name] = found
    assert problems == {}


def test_adr_numbers_run_without_gaps() -> None:
    numbers = [int(p.name[:4]) for p in _adr_files()]
    assert numbers == list(range(1, len(numbers) + 1))


def test_the_index_lists_every_adr() -> None:
    index = (ADR_DIR / "README.md").read_text(encoding="utf-8")
    linked = re.findall(r"\]\((\d{4}-[a-z0-9-]+\.md)\)", index)
    assert linked == [p.name for p in _adr_files()]
    for heading in SECTIONS:
        assert f"## {heading}" in index  # the layout it describes


def test_the_layout_check_catches_what_it_should() -> None:
    good = "\n".join(
        ["# ADR 0042: a title"]
        + [
            f"## {name}\n{'2026-01-02' if name == 'Date' else 'Accepted. Text.'}\n"
            for name in SECTIONS
        ]
    )
    assert _problems("0042", good) == []
    assert _problems("0043", good) == ["the first line is not '# ADR 0043: <title>'"]
    swapped = good.replace("## Context", "## Tmp").replace("## Decision", "## Context")
    assert any("sections" in p for p in _problems("0042", swapped.replace("## Tmp", "## Decision")))
    assert any(
        "sections" in p for p in _problems("0042", good.replace("## Alternatives", "## Why"))
    )
    assert any(
        "empty" in p
        for p in _problems("0042", good.replace("Accepted. Text.\n\n## Decision", "\n## Decision"))
    )
    assert any("Date" in p for p in _problems("0042", good.replace("2026-01-02", "last week")))
    assert any(
        "Status" in p
        for p in _problems("0042", good.replace("## Status\nAccepted", "## Status\nMaybe"))
    )
    assert any(
        "before" in p
        for p in _problems("0042", good.replace("## Status", "Amends ADR 1.\n\n## Status"))
    )
