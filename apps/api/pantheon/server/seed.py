"""The demo room ``make run`` shows on first start: five agents with distinct roles; the
Researcher searches the room's documents (``search_knowledge``: an agent reads documents
only through that tool, so only agents that list it can), the Analyst calls the built-in
``calculator`` and ``current_time`` tools."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.models import Agent, Room, RoomAgent
from pantheon.db.uow import unit_of_work
from pantheon.settings import Settings

# key, name, role prompt, tools
DEMO_AGENTS: tuple[tuple[str, str, str, list[str]], ...] = (
    ("planner", "Planner", "You break the user's problem into clear, ordered steps.", []),
    (
        "researcher",
        "Researcher",
        "You answer from the room's documents: search them first and name the file you used.",
        ["search_knowledge"],
    ),
    (
        "analyst",
        "Analyst",
        "You work out numbers and dates exactly: use the calculator and the clock.",
        ["calculator", "current_time"],
    ),
    ("critic", "Critic", "You look for risks, mistakes and missing cases, briefly.", []),
    ("writer", "Writer", "You write the final answer plainly and concisely for the user.", []),
)


async def seed_demo_room(db: Database, owner_id: uuid.UUID, settings: Settings) -> bool:
    """Create the demo room unless the owner already has a room; True when created."""
    async with unit_of_work(db, write=True) as session:
        if await session.scalar(select(Room.id).where(Room.owner_id == owner_id).limit(1)):
            return False
        now = utcnow()
        room = Room(
            owner_id=owner_id,
            name="Demo room",
            description=(
                "Five agents on a local model (the researcher searches the room's "
                "documents, the analyst calculates); try each mode."
            ),
            mode="orchestrator",
            created_at=now,
        )
        session.add(room)
        for position, (key, name, role, tools) in enumerate(DEMO_AGENTS):
            existing = await session.scalar(
                select(Agent).where(Agent.owner_id == owner_id, Agent.key == key)
            )
            agent = existing or Agent(
                owner_id=owner_id,
                key=key,
                name=name,
                role_prompt=role,
                model=settings.default_model,
                tools=list(tools),
                created_at=now,
            )
            session.add(agent)
            await session.flush()
            session.add(RoomAgent(room_id=room.id, agent_id=agent.id, position=position))
        return True
