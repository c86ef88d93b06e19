"""Room rules: allowed manager alias, roster positions and size, duplicates, soft delete.

Who may do each is ``rooms.access``: reads need "view", changes "edit", delete "own"."""

from __future__ import annotations

import uuid

from sqlalchemy import delete

from pantheon.agents.repository import AgentRepository
from pantheon.db.base import utcnow
from pantheon.db.models import Room, RoomAgent
from pantheon.db.repository import apply_patch, as_uuid
from pantheon.errors import Conflict, Unprocessable, not_found
from pantheon.llm.registry import ModelRegistry
from pantheon.rooms.access import Need, RoomAccess, access_of, room_for
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

    async def get(self, user_id: uuid.UUID, room_id: str | uuid.UUID, need: Need) -> Room:
        return (await room_for(self.repo.session, user_id, room_id, need)).room

    async def list_page(
        self, user_id: uuid.UUID, *, limit: int, offset: int
    ) -> tuple[list[RoomRead], int]:
        """Owned and shared rooms, oldest first."""
        rows, total = await self.repo.list_page(user_id, limit=limit, offset=offset)
        return await self.read([access_of(user_id, room, role) for room, role in rows]), total

    async def read(self, rooms: list[RoomAccess]) -> list[RoomRead]:
        """Rooms with their live rosters, in one roster query."""
        rosters = await self.repo.roster([found.room.id for found in rooms])
        return [
            RoomRead(
                id=room.id,
                access=found.access,
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
            for found in rooms
            for room in (found.room,)
        ]

    async def read_one(self, user_id: uuid.UUID, room_id: str | uuid.UUID) -> RoomRead:
        return (await self.read([await room_for(self.repo.session, user_id, room_id)]))[0]

    async def create(self, owner_id: uuid.UUID, data: RoomCreate) -> RoomRead:
        await self._check_manager(owner_id, data.manager_model)
        room = Room(owner_id=owner_id, created_at=utcnow(), **data.model_dump())
        self.repo.add(room)
        await self.repo.session.flush()
        return (await self.read([RoomAccess(room, "owner")]))[0]

    async def update(self, user_id: uuid.UUID, room_id: str, data: RoomUpdate) -> RoomRead:
        found = await room_for(self.repo.session, user_id, room_id, "edit")
        room = found.room
        changes = data.model_dump(exclude_unset=True)
        await self._check_manager(user_id, changes.get("manager_model"))
        apply_patch(room, changes, nullable=frozenset({"manager_model"}))  # null: server default
        room.updated_at = utcnow()
        await self.repo.session.flush()
        return (await self.read([found]))[0]

    async def delete(self, user_id: uuid.UUID, room_id: str) -> uuid.UUID:
        """Soft-delete the room (its owner only); its id, for its documents' ingest to stop."""
        room = await self.get(user_id, room_id, "own")
        room.deleted_at = utcnow()
        return room.id

    async def add_member(self, user_id: uuid.UUID, room_id: str, data: RosterAdd) -> RoomRead:
        """Put an agent in the roster: one of the caller's own, or one of the room owner's
        (an editor may bring either; nobody else's agents are reachable)."""
        found = await room_for(self.repo.session, user_id, room_id, "edit")
        room = found.room
        agents = AgentRepository(self.repo.session)
        agent = await agents.get(user_id, data.agent_id) or await agents.get(
            room.owner_id, data.agent_id
        )
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
        return (await self.read([found]))[0]

    async def _check_roster_room(self, room: Room) -> None:
        size = len((await self.repo.roster([room.id]))[room.id])
        if size >= self.max_roster:
            raise Unprocessable(
                f"room {room.id} already has {size} agents; the roster limit is "
                f"{self.max_roster} (PANTHEON_LIMITS__MAX_ROSTER)",
                limit=self.max_roster,
            )

    async def remove_member(self, user_id: uuid.UUID, room_id: str, agent_id: str) -> None:
        room = await self.get(user_id, room_id, "edit")
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
