"""Room rules: allowed manager alias, roster positions and size, duplicates, soft delete."""

from __future__ import annotations

import uuid

from sqlalchemy import delete

from pantheon.agents.repository import AgentRepository
from pantheon.db.base import utcnow
from pantheon.db.models import Room, RoomAgent
from pantheon.db.repository import apply_patch, as_uuid
from pantheon.errors import Conflict, Unprocessable, not_found
from pantheon.llm.registry import ModelRegistry
from pantheon.rooms.repository import RoomRepository
from pantheon.rooms.schemas import RoomCreate, RoomRead, RoomUpdate, RosterAdd, RosterEntry
from pantheon.users.access import require_alias


class RoomService:
    def __init__(self, repo: RoomRepository, registry: ModelRegistry, max_roster: int = 12) -> None:
        self.repo = repo
        self.registry = registry
        self.max_roster = max_roster

    async def _check_manager(self, owner_id: uuid.UUID, alias: str | None) -> None:
        if alias is not None:
            await require_alias(
                self.repo.session, self.registry, owner_id, alias, what="manager_model"
            )

    async def get(self, owner_id: uuid.UUID, room_id: str | uuid.UUID) -> Room:
        room = await self.repo.get(owner_id, room_id)
        if room is None:
            raise not_found("room", room_id)
        return room

    async def read(self, rooms: list[Room]) -> list[RoomRead]:
        """Rooms with their live rosters, in one roster query."""
        rosters = await self.repo.roster([room.id for room in rooms])
        return [
            RoomRead(
                id=room.id,
                name=room.name,
                description=room.description,
                mode=room.mode,
                manager_model=room.manager_model,
                created_at=room.created_at,
                agents=[
                    RosterEntry(agent_id=a.id, key=a.key, name=a.name, position=m.position)
                    for m, a in rosters[room.id]
                ],
            )
            for room in rooms
        ]

    async def read_one(self, owner_id: uuid.UUID, room_id: str | uuid.UUID) -> RoomRead:
        return (await self.read([await self.get(owner_id, room_id)]))[0]

    async def create(self, owner_id: uuid.UUID, data: RoomCreate) -> RoomRead:
        await self._check_manager(owner_id, data.manager_model)
        room = Room(owner_id=owner_id, created_at=utcnow(), **data.model_dump())
        self.repo.add(room)
        await self.repo.session.flush()
        return (await self.read([room]))[0]

    async def update(self, owner_id: uuid.UUID, room_id: str, data: RoomUpdate) -> RoomRead:
        room = await self.get(owner_id, room_id)
        changes = data.model_dump(exclude_unset=True)
        await self._check_manager(owner_id, changes.get("manager_model"))
        apply_patch(room, changes, nullable=frozenset({"manager_model"}))  # null: server default
        room.updated_at = utcnow()
        await self.repo.session.flush()
        return (await self.read([room]))[0]

    async def delete(self, owner_id: uuid.UUID, room_id: str) -> uuid.UUID:
        """Soft-delete the room; its id, for its documents' ingest to stop."""
        room = await self.get(owner_id, room_id)
        room.deleted_at = utcnow()
        return room.id

    async def add_member(self, owner_id: uuid.UUID, room_id: str, data: RosterAdd) -> RoomRead:
        room = await self.get(owner_id, room_id)
        agent = await AgentRepository(self.repo.session).get(owner_id, data.agent_id)
        if agent is None:
            raise not_found("agent", data.agent_id)
        if await self.repo.member(room.id, agent.id) is not None:
            raise Conflict(f"agent '{agent.key}' is already in room {room.id}")
        await self._check_roster_room(room)
        position = await self.repo.next_position(room.id)
        if data.position is not None and data.position < position:
            await self.repo.shift_from(room.id, data.position)
            position = data.position
        self.repo.add(RoomAgent(room_id=room.id, agent_id=agent.id, position=position))
        await self.repo.session.flush()
        return (await self.read([room]))[0]

    async def _check_roster_room(self, room: Room) -> None:
        size = len((await self.repo.roster([room.id]))[room.id])
        if size >= self.max_roster:
            raise Unprocessable(
                f"room {room.id} already has {size} agents; the roster limit is "
                f"{self.max_roster} (PANTHEON_LIMITS__MAX_ROSTER)",
                limit=self.max_roster,
            )

    async def remove_member(self, owner_id: uuid.UUID, room_id: str, agent_id: str) -> None:
        room = await self.get(owner_id, room_id)
        member_id = await self._member_agent_id(room, agent_id)
        await self.repo.session.execute(
            delete(RoomAgent).where(RoomAgent.room_id == room.id, RoomAgent.agent_id == member_id)
        )

    async def _member_agent_id(self, room: Room, agent_id: str) -> uuid.UUID:
        ident = as_uuid(agent_id)
        member = None if ident is None else await self.repo.member(room.id, ident)
        if member is None:
            raise not_found("agent in room", agent_id)
        return member.agent_id
