"""Room and roster queries: the rooms a user may see (owned or shared with them), hiding
soft-deleted rooms and agents. Which of those rooms a user may change is ``rooms.access``."""

from __future__ import annotations

import uuid

from sqlalchemy import ColumnElement, Select, func, or_, select, update

from pantheon.db.models import Agent, Room, RoomAgent
from pantheon.db.repository import Repository, as_uuid
from pantheon.db.sharing_models import RoomMember

# A visible room with the caller's member role (``None``: the caller owns it).
RoomWithRole = tuple[Room, str | None]


def visible_to(user_id: uuid.UUID | ColumnElement[uuid.UUID]) -> ColumnElement[bool]:
    """The rooms ``user_id`` may see: owned or shared with them (soft delete is separate).
    Every query that reaches a room for a caller, on any door, goes through this."""
    shared = select(RoomMember.room_id).where(RoomMember.user_id == user_id)
    return or_(Room.owner_id == user_id, Room.id.in_(shared))


class RoomRepository(Repository):
    def _visible(self, user_id: uuid.UUID) -> Select[Room, str | None]:
        joined = (RoomMember.room_id == Room.id) & (RoomMember.user_id == user_id)
        return (
            select(Room, RoomMember.role)
            .outerjoin(RoomMember, joined)
            .where(Room.deleted_at.is_(None), visible_to(user_id))
        )

    async def find(self, user_id: uuid.UUID, room_id: str | uuid.UUID) -> RoomWithRole | None:
        """The live room ``room_id`` if ``user_id`` may see it, with their member role."""
        ident = as_uuid(room_id)
        if ident is None:
            return None
        found = (await self.session.execute(self._visible(user_id).where(Room.id == ident))).first()
        return None if found is None else (found[0], found[1])

    async def list_page(
        self, user_id: uuid.UUID, *, limit: int, offset: int
    ) -> tuple[list[RoomWithRole], int]:
        """Owned and shared rooms, oldest first, each with the caller's member role."""
        query = self._visible(user_id).order_by(Room.created_at, Room.id)
        total_query = select(func.count()).select_from(query.order_by(None).subquery())
        total = (await self.session.execute(total_query)).scalar_one()
        rows = await self.session.execute(query.limit(limit).offset(offset))
        return [(room, role) for room, role in rows], int(total)

    async def roster(
        self, room_ids: list[uuid.UUID]
    ) -> dict[uuid.UUID, list[tuple[RoomAgent, Agent]]]:
        """Live members of each room, by position."""
        query = (
            select(RoomAgent, Agent)
            .join(Agent, Agent.id == RoomAgent.agent_id)
            .where(RoomAgent.room_id.in_(room_ids), Agent.deleted_at.is_(None))
            .order_by(RoomAgent.room_id, RoomAgent.position)
        )
        rosters: dict[uuid.UUID, list[tuple[RoomAgent, Agent]]] = {rid: [] for rid in room_ids}
        for member, agent in await self.session.execute(query):
            rosters[member.room_id].append((member, agent))
        return rosters

    async def member(self, room_id: uuid.UUID, agent_id: uuid.UUID) -> RoomAgent | None:
        return await self.session.get(RoomAgent, (room_id, agent_id))

    async def next_position(self, room_id: uuid.UUID) -> int:
        query = select(func.max(RoomAgent.position)).where(RoomAgent.room_id == room_id)
        highest = await self.session.scalar(query)
        return 0 if highest is None else highest + 1

    async def shift_from(self, room_id: uuid.UUID, position: int) -> None:
        """Make room at ``position`` by moving it and every later member one place down."""
        await self.session.execute(
            update(RoomAgent)
            .where(RoomAgent.room_id == room_id, RoomAgent.position >= position)
            .values(position=RoomAgent.position + 1)
        )

    def add(self, row: Room | RoomAgent) -> None:
        self.session.add(row)
