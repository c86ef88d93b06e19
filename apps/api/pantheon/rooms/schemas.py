"""Room and roster schemas (field names are part of the public contract)."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from pantheon.db.models import ROOM_ROLES, RoomRole
from pantheon.engine.values import RoomMode
from pantheon.rooms.access import ACCESS_LEVELS, Access
from pantheon.schemas import ReadSchema, RequestBody
from pantheon.users.people import Person


class RoomCreate(RequestBody):
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=5_000)
    mode: RoomMode = "roundtable"
    manager_model: str | None = Field(default=None, description="Alias; server default if null")


class RoomUpdate(RequestBody):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=5_000)
    mode: RoomMode | None = None
    manager_model: str | None = None


class RosterEntry(BaseModel):
    agent_id: uuid.UUID
    key: str
    name: str
    position: int


class RoomRead(ReadSchema):
    id: uuid.UUID
    access: Access = Field(description="What you are to this room: " + " | ".join(ACCESS_LEVELS))
    name: str
    description: str
    mode: RoomMode
    manager_model: str | None
    agents: list[RosterEntry]
    created_at: datetime


class RosterAdd(RequestBody):
    agent_id: uuid.UUID
    position: int | None = Field(default=None, ge=0, description="Insert here; end if omitted")


class MemberPut(RequestBody):
    role: RoomRole = Field(description="What the member may do: " + " | ".join(ROOM_ROLES))


class MemberRead(Person):
    role: RoomRole
    added_at: datetime


class MemberList(BaseModel):
    owner: Person
    items: list[MemberRead]
