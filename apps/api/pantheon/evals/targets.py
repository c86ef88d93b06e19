"""Resolving a run's targets: each room or agent must be the caller's and able to run the
mode; the label names it in reports. Reads the mode's spec, never its name."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.agents.repository import AgentRepository
from pantheon.db.models import Agent, Room
from pantheon.engine.modes.specs import MODE_SPECS, ModeSpec, mode_spec
from pantheon.errors import NotFound, Unprocessable
from pantheon.evals.schemas import TargetCreate, TargetRead
from pantheon.rooms.access import room_access
from pantheon.rooms.repository import RoomRepository

AGENT_MODE = next(spec.name for spec in MODE_SPECS if spec.session == "agent")


async def resolve_targets(
    session: AsyncSession, owner_id: uuid.UUID, targets: list[TargetCreate]
) -> list[TargetRead]:
    """Every target as stored on the run; 422 naming ``targets[i]`` when one cannot run,
    404 when its room or agent is not the caller's."""
    resolved = []
    for index, target in enumerate(targets):
        where = f"targets[{index}]"
        if target.room_id is not None:
            resolved.append(await _room_target(session, owner_id, index, target, where))
        else:
            resolved.append(await _agent_target(session, owner_id, index, target, where))
    labels = [t.label for t in resolved]
    if len(set(labels)) != len(labels):
        raise Unprocessable("targets: the same target is given twice")
    return resolved


def _usable(spec: ModeSpec, where: str) -> None:
    if spec.needs_mentions:
        raise Unprocessable(
            f"{where}: mode '{spec.name}' needs @mentions in every message; an eval case "
            "cannot choose them"
        )


async def _room_target(
    session: AsyncSession, owner_id: uuid.UUID, index: int, target: TargetCreate, where: str
) -> TargetRead:
    repo = RoomRepository(session)
    found = await room_access(session, owner_id, str(target.room_id))
    if found is None:
        raise NotFound(f"{where}.room_id: room {target.room_id} not found")
    room = found.room
    spec = mode_spec(target.mode or room.mode)
    _usable(spec, where)
    roster = [agent for _member, agent in (await repo.roster([room.id]))[room.id]]
    if spec.session == "agent":
        agent = _seat(roster, target.agent_key, room, where)
        label = f"{room.name} · {spec.name} ({agent.key})"
        return TargetRead(
            index=index, label=label, room_id=room.id, agent_id=agent.id, mode=spec.name
        )
    if len(roster) < spec.min_agents:
        raise Unprocessable(
            f"{where}: mode '{spec.name}' needs at least {spec.min_agents} agent(s) in room "
            f"'{room.name}', which has {len(roster)}"
        )
    label = f"{room.name} · {spec.name}"
    return TargetRead(index=index, label=label, room_id=room.id, agent_id=None, mode=spec.name)


def _seat(roster: list[Agent], key: str | None, room: Room, where: str) -> Agent:
    if not roster:
        raise Unprocessable(f"{where}: room '{room.name}' has no agents")
    if key is None:
        return roster[0]
    for agent in roster:
        if agent.key == key:
            return agent
    keys = ", ".join(agent.key for agent in roster)
    raise Unprocessable(f"{where}.agent_key: '{key}' is not in room '{room.name}' ({keys})")


async def _agent_target(
    session: AsyncSession, owner_id: uuid.UUID, index: int, target: TargetCreate, where: str
) -> TargetRead:
    agent = await AgentRepository(session).get(owner_id, str(target.agent_id))
    if agent is None:
        raise NotFound(f"{where}.agent_id: agent {target.agent_id} not found")
    spec = mode_spec(target.mode or AGENT_MODE)
    if spec.session != "agent":
        raise Unprocessable(f"{where}.mode: mode '{spec.name}' runs in a room, not on one agent")
    label = f"{agent.name} · {spec.name}"
    return TargetRead(index=index, label=label, room_id=None, agent_id=agent.id, mode=spec.name)
