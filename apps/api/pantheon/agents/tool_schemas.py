"""``GET /v1/tools`` rows (field names are part of the public contract, SPEC "tools")."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ToolRead(BaseModel):
    name: str = Field(description="As agents list it: 'calculator', 'server.tool', 'server.*'")
    description: str
    parameters: dict[str, Any] = Field(description="JSON schema of the arguments")
    source: str = Field(description="'builtin' or 'mcp:<server>'")
    available: bool = Field(
        description="False while its MCP server cannot be reached, or while it is quarantined"
    )
    definition_changed: bool = Field(
        default=False,
        description="True while quarantined: its definition changed since it was pinned, or it "
        "is a pinned tool's content under a new name (an admin accepts it: /v1/admin/tools/pins)",
    )
