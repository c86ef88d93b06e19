"""Tool routes: what agents may list in their ``tools``."""

from __future__ import annotations

from fastapi import APIRouter

from pantheon.agents.tool_schemas import ToolRead
from pantheon.deps import ToolBoxDep
from pantheon.schemas import Page, PageDep

router = APIRouter(prefix="/v1/tools", tags=["tools"])


@router.get("", response_model=Page[ToolRead])
async def list_tools(toolbox: ToolBoxDep, page: PageDep) -> object:
    """List built-in and MCP tools, with whether each can be called right now."""
    items = [
        ToolRead(
            name=info.name,
            description=info.description,
            parameters=dict(info.parameters),
            source=info.source,
            available=info.available,
            definition_changed=info.definition_changed,
        )
        for info in await toolbox.catalog()
    ]
    window = items[page.offset : page.offset + page.limit]
    return Page[ToolRead](items=window, total=len(items), limit=page.limit, offset=page.offset)
