"""Agent read/create/update schemas (field names are part of the public contract)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

from pydantic import Field

from pantheon.schemas import ReadSchema, RequestBody

KEY_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]{0,63}$"
# Checked against the configured tools by the service (422 naming the available ones).
ToolEntryStr = Annotated[str, Field(min_length=1, max_length=200)]


class AgentCreate(RequestBody):
    key: str = Field(pattern=KEY_PATTERN, description="Mention handle, unique per owner")
    name: str = Field(min_length=1, max_length=200)
    role_prompt: str = Field(min_length=1, max_length=20_000)
    model: str | None = Field(default=None, description="Model alias; server default if omitted")
    tools: list[ToolEntryStr] = Field(
        default_factory=list,
        max_length=32,
        description="'calculator', 'server.tool' or 'server.*'; a trailing '!' needs approval",
    )


class AgentUpdate(RequestBody):
    key: str | None = Field(default=None, pattern=KEY_PATTERN)
    name: str | None = Field(default=None, min_length=1, max_length=200)
    role_prompt: str | None = Field(default=None, min_length=1, max_length=20_000)
    model: str | None = None
    tools: list[ToolEntryStr] | None = Field(default=None, max_length=32)


class AgentRead(ReadSchema):
    id: uuid.UUID
    key: str
    name: str
    role_prompt: str
    model: str
    tools: list[str]
    created_at: datetime
