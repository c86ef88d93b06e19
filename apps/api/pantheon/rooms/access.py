"""Who may do what with a room: the one rule every door asks (docs/adr/0044-shared-rooms.md).

A room's owner may do everything. A member (``room_members``) is a ``viewer`` or an
``editor``: a viewer sees the room, its roster and its documents and runs turns in sessions
of their own; an editor also changes the roster, the description and the documents; only
the owner deletes the room or changes its members. Anyone else learns nothing: every
question about the room answers 404, exactly as for a room that does not exist. A member
who asks for more than their role allows gets 403 naming what they lack.

``room_for`` answers one room; ``RoomRepository.visible_to`` is the same "may see" rule
as a SQL condition, for the queries that list rooms or reach a room through a session.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal, get_args

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import Room
from pantheon.errors import Forbidden, not_found
from pantheon.rooms.repository import RoomRepository

Access = Literal["owner", "editor", "viewer"]
ACCESS_LEVELS: tuple[Access, ...] = get_args(Access)
Need = Literal["view", "edit", "own"]
# What each access level may do; a need outside its set is a 403 for a member.
_ALLOWS: dict[Access, frozenset[Need]] = {
    "owner": frozenset({"view", "edit", "own"}),
    "editor": frozenset({"view", "edit"}),
    "viewer": frozenset({"view"}),
}
_REFUSALS: dict[Need, str] = {
    "edit": "you are a viewer of room {room}: you may read it and run turns in it; changing "
    "it needs the editor role (ask its owner)",
    "own": "only the owner of room {room} may delete it or change who it is shared with",
}


@dataclass(frozen=True, slots=True)
class RoomAccess:
    """A room the caller may see and what they are to it."""

    room: Room
    access: Access


def access_of(user_id: uuid.UUID, room: Room, role: str | None) -> RoomAccess:
    """``user_id``'s access to a visible ``room`` given their member row's role."""
    if room.owner_id == user_id:
        return RoomAccess(room, "owner")
    return RoomAccess(room, "editor" if role == "editor" else "viewer")


async def room_access(
    session: AsyncSession, user_id: uuid.UUID, room_id: str | uuid.UUID
) -> RoomAccess | None:
    """The live room and the caller's access to it, or ``None`` if they may not see it."""
    found = await RoomRepository(session).find(user_id, room_id)
    return None if found is None else access_of(user_id, *found)


def require(found: RoomAccess, need: Need) -> RoomAccess:
    """``found`` if its access allows ``need``, else 403 naming what is missing."""
    if need not in _ALLOWS[found.access]:
        raise Forbidden(_REFUSALS[need].format(room=found.room.id), access=found.access)
    return found


async def room_for(
    session: AsyncSession, user_id: uuid.UUID, room_id: str | uuid.UUID, need: Need = "view"
) -> RoomAccess:
    """The room if the caller may ``need`` it: 404 for anyone who may not see it, 403 for a
    member whose role does not allow ``need``."""
    found = await room_access(session, user_id, room_id)
    if found is None:
        raise not_found("room", room_id)
    return require(found, need)
