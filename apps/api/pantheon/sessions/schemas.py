"""Session and message schemas (field names are part of the public contract)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import Field

from pantheon.schemas import ReadSchema, RequestBody


class SessionCreate(RequestBody):
    title: str = Field(default="", max_length=200)


class SessionRead(ReadSchema):
    id: uuid.UUID
    room_id: uuid.UUID | None
    agent_id: uuid.UUID | None
    title: str
    created_at: datetime


class MessageRead(ReadSchema):
    id: uuid.UUID
    turn_id: uuid.UUID
    seq: int
    role: Literal["user", "assistant", "manager"]
    agent_key: str | None
    agent_name: str | None
    round: int | None
    content: str
    status: str
    error_code: str | None
    created_at: datetime
