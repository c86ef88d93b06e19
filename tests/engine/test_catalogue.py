"""One catalogue (engine/events.py), and every reader of the events covers it: the
narration (engine/narration.py), the AG-UI fold, docs/sse.md's table and the page's
renderers (the record fold is a ``TurnReader``: its base's dispatch is exhaustive, checked
by mypy and tests/engine/test_reader.py). A new event type fails here until each of them
handles it or ignores it on purpose."""

from __future__ import annotations

import re
from pathlib import Path

from pantheon.engine.events import (
    EVENT_MODELS,
    EVENT_TYPES,
    INTERNAL_TYPES,
    PUBLIC_TYPES,
    type_name,
)
from pantheon.engine.narration import Narration
from pantheon.protocols.agui.fold import RunFold

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "apps" / "web" / "js" / "chat"


def test_internal_types_are_what_the_record_holds_beyond_the_public_events() -> None:
    assert {
        "llm_call", "tool_call_record", "message_record", "summary_record", "resume_state",
    } == INTERNAL_TYPES  # fmt: skip
    assert PUBLIC_TYPES | INTERNAL_TYPES == EVENT_TYPES
    assert len(EVENT_TYPES) == len(EVENT_MODELS)  # no type defined twice


def test_the_narration_reads_or_ignores_every_type() -> None:
    """The reader base has a hook for every type (tests/engine/test_reader.py), which
    shows nothing by default: the narration overrides it or names the type as ignored."""
    hooked = {name[3:] for name in vars(Narration) if name.startswith("on_")}
    assert not hooked & Narration.IGNORED
    assert hooked | Narration.IGNORED == EVENT_TYPES
    assert INTERNAL_TYPES <= Narration.IGNORED  # never sent to clients


def _doc_fields(cell: str) -> set[str]:
    """The field names a catalogue cell lists (backticked), without the notes in
    parentheses and the sub-fields in braces."""
    cell = re.sub(r"\([^()]*\)", "", re.sub(r"\{[^{}]*\}", "", cell))
    names = {n.strip() for chunk in re.findall(r"`([^`]*)`", cell) for n in chunk.split(",")}
    return names - {""}


def _doc_catalogue() -> dict[str, set[str]]:
    text = (ROOT / "docs" / "sse.md").read_text()
    table = text.split("## Event catalogue", 1)[1].split("\n\n", 2)[1]
    rows: dict[str, set[str]] = {}
    for line in table.splitlines()[2:]:
        types_cell, fields_cell = line.split(" | ")[:2]
        for name in re.findall(r"`([a-z_]+)`", types_cell):
            rows[name] = _doc_fields(fields_cell)
    return rows


def test_docs_list_exactly_the_public_types_with_their_fields() -> None:
    documented = _doc_catalogue()
    assert set(documented) == PUBLIC_TYPES
    for model in EVENT_MODELS:
        if model.internal:
            continue
        fields = {f.serialization_alias or n for n, f in model.model_fields.items()}
        assert documented[type_name(model)] == fields - {"type", "turn_id"}, type_name(model)


def _js_renderers() -> set[str]:
    names: set[str] = set()
    for path in (WEB / "turn-events.js", WEB / "workflow-events.js"):
        text = path.read_text()
        body = re.search(r"RENDERERS = \{\n(.*?)\n\};", text, re.S)
        assert body is not None, path
        names |= set(re.findall(r"^  ([a-z_]+)\(view", body.group(1), re.M))
    return names


def test_the_page_renders_or_lists_every_public_type() -> None:
    ignored_list = re.search(r"IGNORED_EVENTS = \[(.*?)\]", (WEB / "turn-events.js").read_text())
    assert ignored_list is not None
    ignored = set(re.findall(r'"([a-z_]+)"', ignored_list.group(1)))
    rendered = _js_renderers()
    assert rendered.isdisjoint(ignored)
    assert rendered | ignored == PUBLIC_TYPES


def test_the_agui_fold_reads_every_public_type() -> None:
    hooks = {name.removeprefix("on_") for name in vars(RunFold) if name.startswith("on_")}
    assert hooks == EVENT_TYPES - INTERNAL_TYPES  # the internal ones are never sent
