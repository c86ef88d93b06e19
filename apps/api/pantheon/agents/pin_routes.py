"""Admin routes for pinned MCP tools (docs/adr/0045): list the pins with each quarantined
tool's diff, and accept a quarantined definition. Non-admin callers get 403."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from pantheon.db.base import utcnow
from pantheon.db.repository import as_uuid
from pantheon.db.tool_pin_models import McpToolPin
from pantheon.deps import AdminDep, UoWDep
from pantheon.errors import Conflict, not_found
from pantheon.schemas import Page, PageDep
from pantheon.tools.mcp import pins
from pantheon.tools.mcp.pin_store import get_pin, list_pins

router = APIRouter(prefix="/v1/admin/tools/pins", tags=["admin"])

PinStatus = Literal["pinned", "quarantined"]


class PinDiff(BaseModel):
    old: dict[str, Any] | None = Field(
        description="The pinned definition it is compared with (for a rename: the original's)"
    )
    new: dict[str, Any] = Field(description="The definition the server lists now")
    changed: list[str] = Field(description="Which of name, description, input_schema differ")


class PinRead(BaseModel):
    id: uuid.UUID
    server: str
    tool: str = Field(description="The tool's name on its server")
    name: str = Field(description="As agents list it: 'server.tool'")
    status: PinStatus
    change: Literal["changed", "renamed"] | None = Field(description="Why it is quarantined")
    renamed_from: str | None = Field(description="The pinned tool whose content it carries")
    definition: dict[str, Any] | None = Field(
        description="The pinned definition: name, description, input_schema (none for an "
        "unaccepted rename)"
    )
    definition_hash: str | None = Field(description="SHA-256 of the canonical JSON")
    pending_hash: str | None = Field(description="SHA-256 of the quarantined definition")
    diff: PinDiff | None
    first_seen_at: datetime
    changed_at: datetime | None
    accepted_at: datetime | None
    accepted_by: uuid.UUID | None


class PinAccept(BaseModel):
    pending_hash: str | None = Field(
        default=None,
        description="Accept only this definition (the pending_hash that was reviewed): "
        "409 if the server has changed it again since",
    )


def _loaded(text: str | None) -> dict[str, Any] | None:
    return None if text is None else dict(json.loads(text))


def _diff(pin: McpToolPin) -> PinDiff | None:
    new = _loaded(pin.pending_definition)
    if new is None:
        return None
    old = _loaded(pin.previous_definition)
    changed = [k for k in ("name", "description", "input_schema") if (old or {}).get(k) != new[k]]
    return PinDiff(old=old, new=new, changed=changed)


def pin_read(pin: McpToolPin) -> PinRead:
    return PinRead(
        id=pin.id,
        server=pin.server,
        tool=pin.tool,
        name=f"{pin.server}.{pin.tool}",
        status="quarantined" if pin.quarantined else "pinned",
        change="renamed" if pin.change == "renamed" else "changed" if pin.change else None,
        renamed_from=pin.renamed_from,
        definition=_loaded(pin.definition),
        definition_hash=pin.definition_hash,
        pending_hash=pin.pending_hash,
        diff=_diff(pin),
        first_seen_at=pin.first_seen_at,
        changed_at=pin.changed_at,
        accepted_at=pin.accepted_at,
        accepted_by=pin.accepted_by,
    )


@router.get("")
async def list_tool_pins(
    uow: UoWDep,
    _admin: AdminDep,
    page: PageDep,
    status: Annotated[PinStatus | None, Query(description="Only pins with this status")] = None,
) -> Page[PinRead]:
    """Every MCP tool pinned so far, by server and name; quarantined ones with their diff
    (admins only). Pins appear when a server's tools are first listed."""
    rows = await list_pins(uow, quarantined=None if status is None else status == "quarantined")
    items = [pin_read(pin) for pin in rows[page.offset : page.offset + page.limit]]
    return Page[PinRead](items=items, total=len(rows), limit=page.limit, offset=page.offset)


@router.post("/{pin_id}/accept")
async def accept_tool_pin(
    pin_id: str, uow: UoWDep, admin: AdminDep, body: PinAccept | None = None
) -> PinRead:
    """Pin a quarantined tool's new definition: models are offered it again (admins only).
    404 for an unknown pin, 409 when it is not quarantined or changed since it was read."""
    parsed = as_uuid(pin_id)
    pin = await get_pin(uow, parsed) if parsed is not None else None
    if pin is None:
        raise not_found("tool pin", pin_id)
    if not pin.quarantined:
        raise Conflict(f"MCP tool {pin.server}.{pin.tool} is not quarantined: nothing to accept")
    expected = body.pending_hash if body is not None else None
    if expected is not None and expected != pin.pending_hash:
        raise Conflict(
            f"MCP tool {pin.server}.{pin.tool} changed again since that definition was "
            f"reviewed: pending_hash is now {pin.pending_hash}"
        )
    pins.accept(pin, admin.user_id, utcnow())
    await uow.flush()
    return pin_read(pin)
