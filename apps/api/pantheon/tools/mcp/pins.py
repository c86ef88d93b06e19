"""Pinning an MCP server's tools (docs/adr/0045): what is compared, and the rules.

A tool's definition is its name, the server's description and its input schema, as
canonical JSON (sorted keys, no spaces); its SHA-256 is what is compared. Its *content*
(description and schema, without the name) is what catches a rename.

``reconcile`` applies one listing to a server's pins:
- a pinned name listed with the same definition stays available;
- a pinned name listed with another definition is quarantined (``changed``); listed again
  as it was accepted, it is released (the server went back);
- a new name whose content equals a pinned tool's is quarantined (``renamed``), whether
  the pinned tool is gone or still listed (a copy would shadow it);
- any other new name is pinned as first seen: the operator configured the server, not a
  list of its tools. A rename that also changes the content looks like a removal plus a new
  tool; agents naming the old tool then find it gone, never something else under its name.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pantheon.db.tool_pin_models import McpToolPin
from pantheon.tools.mcp.convert import McpTool


@dataclass(frozen=True, slots=True)
class Definition:
    """What is pinned of one listed tool."""

    name: str
    description: str
    input_schema: dict[str, Any]

    @property
    def canonical(self) -> str:
        return canonical_json(
            {"name": self.name, "description": self.description, "input_schema": self.input_schema}
        )

    @property
    def hash(self) -> str:
        return sha256(self.canonical)

    @property
    def content_hash(self) -> str:
        return sha256(canonical_json([self.description, self.input_schema]))


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def definition_of(tool: McpTool) -> Definition:
    return Definition(tool.name, tool.listed_description, tool.parameters)


@dataclass(frozen=True, slots=True)
class Quarantine:
    """Why a listed tool is held back."""

    pin_id: str
    change: str
    renamed_from: str | None

    @property
    def reason(self) -> str:
        if self.change == "renamed":
            return (
                f"it has the description and input schema of the pinned tool "
                f"{self.renamed_from!r} under a new name (a rename)"
            )
        return "its definition changed since it was pinned"


@dataclass(slots=True)
class Reconciled:
    """A listing applied to a server's pins: ``added`` and ``dirty`` rows to write."""

    added: list[McpToolPin] = field(default_factory=list)
    dirty: bool = False
    quarantined: dict[str, McpToolPin] = field(default_factory=dict)


def reconcile(
    server: str, pins: Sequence[McpToolPin], listed: Sequence[McpTool], now: datetime
) -> Reconciled:
    """Apply ``listed`` to ``pins`` (rows are changed in place; new ones are in ``added``)."""
    by_name = {pin.tool: pin for pin in pins}
    listed_names = {tool.name for tool in listed}
    out = Reconciled()
    for tool in listed:
        seen = definition_of(tool)
        pin = by_name.get(tool.name)
        if pin is None:
            pin = _first_sight(server, seen, pins, listed_names, now)
            out.added.append(pin)
            by_name[tool.name] = pin
        elif _apply(pin, seen, now):
            out.dirty = True
        if pin.quarantined:
            out.quarantined[tool.name] = pin
    return out


def _first_sight(
    server: str,
    seen: Definition,
    pins: Sequence[McpToolPin],
    listed_names: set[str],
    now: datetime,
) -> McpToolPin:
    same = [p for p in pins if p.content_hash == seen.content_hash and p.definition is not None]
    same.sort(key=lambda p: (p.tool in listed_names, p.tool))  # a vanished one first
    if not same:
        return McpToolPin(
            id=uuid.uuid4(),
            server=server,
            tool=seen.name,
            definition=seen.canonical,
            definition_hash=seen.hash,
            content_hash=seen.content_hash,
            first_seen_at=now,
        )
    original = same[0]
    return McpToolPin(
        id=uuid.uuid4(),
        server=server,
        tool=seen.name,
        pending_definition=seen.canonical,
        pending_hash=seen.hash,
        previous_definition=original.definition,
        change="renamed",
        renamed_from=original.tool,
        first_seen_at=now,
        changed_at=now,
    )


def _apply(pin: McpToolPin, seen: Definition, now: datetime) -> bool:
    """Compare one listed definition with its pin; whether the row changed."""
    if seen.hash == pin.definition_hash:
        if not pin.quarantined:
            return False
        release(pin)  # listed again exactly as accepted
        return True
    if seen.hash == pin.pending_hash:
        return False
    if not pin.quarantined:
        pin.previous_definition = pin.definition
        pin.change = "changed"
    pin.pending_definition = seen.canonical
    pin.pending_hash = seen.hash
    pin.changed_at = now
    return True


def release(pin: McpToolPin) -> None:
    pin.pending_definition = pin.pending_hash = pin.previous_definition = None
    pin.change = pin.renamed_from = None


def accept(pin: McpToolPin, by: uuid.UUID, now: datetime) -> None:
    """The pending definition becomes the pinned one."""
    assert pin.pending_definition is not None
    pending = json.loads(pin.pending_definition)
    pin.definition = pin.pending_definition
    pin.definition_hash = pin.pending_hash
    pin.content_hash = Definition(**pending).content_hash
    pin.accepted_at, pin.accepted_by = now, by
    release(pin)


def quarantine_of(pin: McpToolPin) -> Quarantine:
    assert pin.change is not None
    return Quarantine(str(pin.id), pin.change, pin.renamed_from)
