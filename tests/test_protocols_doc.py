"""docs/protocols.md maps every event type of the catalogue (engine/events.py) for every
protocol: a new event type fails here until its row says what each protocol does with
it, and an internal one must say it is never sent."""

from __future__ import annotations

import re
from pathlib import Path

from pantheon.engine.events import EVENT_TYPES, INTERNAL_TYPES

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocols.md"
PROTOCOLS = ("SSE", "OpenAI chat", "MCP", "A2A", "OpenAI Responses", "AG-UI")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _table() -> tuple[list[str], dict[str, list[str]]]:
    """The mapping table's header and its rows by event type."""
    text = DOC.read_text()
    lines = text.split("## Event mapping", 1)[1].strip().split("\n\n", 1)[0].splitlines()
    header, rows = _cells(lines[0]), {}
    for line in lines[2:]:
        cells = _cells(line)
        names = re.findall(r"^`([a-z_]+)`$", cells[0])
        assert names, f"a row without one event type: {line[:60]}"
        assert names[0] not in rows, f"{names[0]} has two rows"
        rows[names[0]] = cells
    return header, rows


def test_every_event_type_has_one_row_and_nothing_else() -> None:
    _header, rows = _table()
    assert set(rows) == EVENT_TYPES


def test_every_protocol_has_a_column_and_every_cell_is_filled() -> None:
    header, rows = _table()
    assert header[0] == "event"
    for name in PROTOCOLS:
        assert any(column.startswith(name) for column in header[1:]), name
    for kind, cells in rows.items():
        assert len(cells) == len(header), kind
        assert all(cells), kind


def test_internal_events_are_never_sent() -> None:
    _header, rows = _table()
    for kind, cells in rows.items():
        never = [cell.startswith("internal: never sent") for cell in cells[1:]]
        assert all(never) if kind in INTERNAL_TYPES else not any(never), kind
