"""Room and roster queries, scoped to an owner and hiding soft-deleted rooms and agents."""

from __future__ import annotations

import uuid

from sqlalchemy import Select, func, select, update

from pantheon.db.models import Agent, Room, RoomAgent
from pantheon.db.repository import Repository, as_uuid


class RoomRepository(Repository):
    def _live(self, owner_id: uuid.UUID) -> Select[Room]:
        return select(Room).where(Room.owner_id == owner_id, Room.deleted_at.is_(None))

    async def get(self, owner_id: uuid.UUID, room_id: str | uuid.UUID) -> Room | None:
        ident = as_uuid(room_id)
        if ident is None:
            return None
        return await self.session.scalar(self._live(owner_id).where(Room.id == ident))

    async def list_page(
        self, owner_id: uuid.UUID, *, limit: int, offset: int
    ) -> tuple[list[Room], int]:
        query = self._live(owner_id).order_by(Room.created_at, Room.id)
        return await self.page(query, limit=limit, offset=offset)

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
