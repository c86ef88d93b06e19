"""Rooms and agents as OpenAI models: their ids, the list, and resolving an id back.

Ids: ``room-<room id>`` and ``agent-<key>`` (keys match case-insensitively). Agent keys
are unique per owner, but nothing in the database forbids two live agents sharing one
(rows written outside the API, a race between two creates). Then ``agent-<key>`` is
ambiguous: the list shows each of those agents as ``agent-<agent id>`` instead, and
asking for ``agent-<key>`` is a 400 naming those ids. ``agent-<agent id>`` always works.
"""

from __future__ import annotations

import uuid
from collections import Counter

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import Agent, Room
from pantheon.db.repository import as_uuid
from pantheon.protocols.openai.errors import InvalidRequest, ModelNotFound
from pantheon.protocols.openai.repository import FacadeRepository
from pantheon.protocols.openai.schemas import ModelCard
from pantheon.rooms.access import room_access
from pantheon.users.repository import UserRepository

ROOM_PREFIX = "room-"
AGENT_PREFIX = "agent-"


def _room_card(room: Room, owner: str) -> ModelCard:
    return ModelCard(
        id=f"{ROOM_PREFIX}{room.id}",
        created=int(room.created_at.timestamp()),
        owned_by=owner,
        name=f"{room.name} (room, {room.mode})",
        kind="room",
        mode=room.mode,
    )


def _agent_card(agent: Agent, owner: str, ambiguous: bool) -> ModelCard:
    suffix = str(agent.id) if ambiguous else agent.key
    return ModelCard(
        id=f"{AGENT_PREFIX}{suffix}",
        created=int(agent.created_at.timestamp()),
        owned_by=owner,
        name=f"{agent.name} (agent @{agent.key})",
        kind="agent",
        mode="standalone",
    )


async def _owner_name(db: AsyncSession, owner_id: uuid.UUID) -> str:
    user = await UserRepository(db).get(owner_id)
    return user.login if user is not None else "pantheon"


async def list_models(db: AsyncSession, owner_id: uuid.UUID) -> list[ModelCard]:
    """The caller's rooms (owned and shared with them), then their agents, oldest first."""
    owner = await _owner_name(db, owner_id)
    repo = FacadeRepository(db)
    agents = await repo.agents(owner_id)
    counts = Counter(agent.key.lower() for agent in agents)
    rooms = await repo.rooms(owner_id)
    owners = {owner_id: owner} | {
        ident: await _owner_name(db, ident) for ident in {r.owner_id for r in rooms} - {owner_id}
    }  # a shared room is its owner's
    cards = [_room_card(room, owners[room.owner_id]) for room in rooms]
    cards += [_agent_card(a, owner, counts[a.key.lower()] > 1) for a in agents]
    return cards


def _not_found(model: str) -> ModelNotFound:
    return ModelNotFound(
        f"model '{model}' does not exist or is not yours; GET /openai/v1/models lists "
        "yours (room-<room id>, agent-<agent key>)"
    )


async def _agent(db: AsyncSession, owner_id: uuid.UUID, model: str, ref: str) -> Agent:
    repo = FacadeRepository(db)
    matches = await repo.agents(owner_id, key=ref)
    if len(matches) > 1:
        ids = ", ".join(f"{AGENT_PREFIX}{a.id}" for a in matches)
        raise InvalidRequest(
            f"model '{model}' is ambiguous: {len(matches)} of your agents have the key "
            f"'{ref}'; use one of {ids}"
        )
    if not matches and (ident := as_uuid(ref)) is not None:
        matches = [a for a in await repo.agents(owner_id) if a.id == ident]
    if not matches:
        raise _not_found(model)
    return matches[0]


async def resolve(db: AsyncSession, owner_id: uuid.UUID, model: str) -> Room | Agent:
    """The room or agent ``model`` names, or 404 (400 when ambiguous)."""
    if model.startswith(ROOM_PREFIX):
        found = await room_access(db, owner_id, model.removeprefix(ROOM_PREFIX))
        if found is None:
            raise _not_found(model)
        return found.room
    if model.startswith(AGENT_PREFIX) and model != AGENT_PREFIX:
        return await _agent(db, owner_id, model, model.removeprefix(AGENT_PREFIX))
    raise _not_found(model)


async def card(db: AsyncSession, owner_id: uuid.UUID, model: str) -> ModelCard:
    """One model, under the id it was asked by; 404 (400 when ambiguous)."""
    found = await resolve(db, owner_id, model)
    owner = await _owner_name(db, found.owner_id)  # a shared room is its owner's
    if isinstance(found, Room):
        listed = _room_card(found, owner)
    else:
        listed = _agent_card(found, owner, ambiguous=False)
    return listed.model_copy(update={"id": model})
