"""The caller's rooms and agents as MCP tools: their names, descriptions and schemas.

Names: ``room_<slug>`` (the room's name, lower-case ASCII, runs of other characters as
``_``) and ``agent_<key>``. Rooms whose slugs collide (or whose name has no ASCII letter
or digit) each add the first 8 hex digits of their id, so every name is unique and
depends only on the rooms themselves; agents sharing a key (possible outside the API,
see docs/openai.md) are ``agent_<agent id>`` instead. Listing and resolving read the
same rows, so a name resolves to exactly what ``tools/list`` showed.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import Agent, Room
from pantheon.engine.modes.specs import ROOM_MODES, RoomMode, mode_spec
from pantheon.protocols.openai.repository import FacadeRepository
from pantheon.rooms.repository import RoomRepository
from pantheon.schemas import RequestBody
from pantheon.turns.schemas import TurnUsageRead

ROOM_PREFIX = "room_"
AGENT_PREFIX = "agent_"
MAX_NAME = 128  # the MCP tool-name limit (SEP-986)
_SLUG_CHARS = MAX_NAME - len(ROOM_PREFIX) - 9  # room for a "_<8 hex>" suffix
_ROSTER_SHOWN = 12
_DESCRIPTION_CHARS = 600

Kind = Literal["room", "agent"]


@dataclass(frozen=True, slots=True)
class Target:
    """What one tool runs: a room (in its mode, or the one asked) or one agent."""

    name: str
    kind: Kind
    id: uuid.UUID
    title: str
    description: str


class AgentArguments(RequestBody):
    """An agent tool's arguments (an agent's turns have one mode); text that cannot be
    stored is cleaned as in every request body."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    message: str = Field(min_length=1, description="What to ask")
    session_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="Continue this session (a previous result's session_id); absent: a new one",
    )

    @field_validator("message")
    @classmethod
    def _has_text(cls, message: str) -> str:
        if not message.strip():
            raise ValueError("message has no text (only whitespace)")
        return message


class RoomArguments(AgentArguments):
    """A room tool's arguments: an agent tool's, and the mode of this one turn."""

    mode: RoomMode | None = Field(
        default=None, description="Run this turn in another mode than the room's own"
    )


class AgentOutput(BaseModel):
    """One speaker's text in the turn, as recorded."""

    agent_key: str | None
    agent_name: str | None
    role: str
    round: int | None
    status: str
    text: str


class ToolOutcome(BaseModel):
    """A tool call's structured result: the turn it ran and what each agent said."""

    turn_id: str
    session_id: str
    mode: str
    status: str
    usage: TurnUsageRead
    outputs: list[AgentOutput]


def slug(name: str) -> str:
    """``name`` as lower-case ASCII letters, digits and single ``_``s (may be empty)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_name.lower()).strip("_")[:_SLUG_CHARS].strip("_")


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def arguments_model(kind: Kind) -> type[AgentArguments]:
    """The model a tool's arguments are validated with."""
    return RoomArguments if kind == "room" else AgentArguments


def _room_description(room: Room, roster: list[Agent]) -> str:
    modes = ", ".join(ROOM_MODES)
    shown = ", ".join(f"{a.name} (@{a.key})" for a in roster[:_ROSTER_SHOWN])
    more = f" and {len(roster) - _ROSTER_SHOWN} more" if len(roster) > _ROSTER_SHOWN else ""
    about = _short(room.description, _DESCRIPTION_CHARS) or f"The room '{room.name}'."
    return (
        f"{about}\nPantheon room '{room.name}' in {room.mode} mode "
        f"({mode_spec(room.mode).description}). Agents: {shown or 'none yet'}{more}. "
        f"Other modes for one turn: {modes}. Returns the answer and a session_id; pass "
        "it back to continue the conversation."
    )


def _agent_description(agent: Agent) -> str:
    about = _short(agent.role_prompt, _DESCRIPTION_CHARS)
    return (
        f"Pantheon agent {agent.name} (@{agent.key}): {about}\nReturns its answer and a "
        "session_id; pass it back to continue the conversation."
    )


def _room_names(rooms: list[Room]) -> list[str]:
    slugs = [slug(room.name) for room in rooms]
    counts = Counter(slugs)
    names = []
    for room, base in zip(rooms, slugs, strict=True):
        unique = bool(base) and counts[base] == 1
        suffix = base if unique else "_".join(filter(None, [base, room.id.hex[:8]]))
        names.append(f"{ROOM_PREFIX}{suffix}")
    return names


async def targets(db: AsyncSession, owner_id: uuid.UUID) -> list[Target]:
    """Every live room, then every live agent of ``owner_id``, oldest first."""
    repo = FacadeRepository(db)
    rooms = await repo.rooms(owner_id)
    rosters = await RoomRepository(db).roster([room.id for room in rooms])
    found = [
        Target(
            name,
            "room",
            room.id,
            room.name,
            _room_description(room, [a for _m, a in rosters[room.id]]),
        )
        for room, name in zip(rooms, _room_names(rooms), strict=True)
    ]
    agents = await repo.agents(owner_id)
    counts = Counter(agent.key.lower() for agent in agents)
    for agent in agents:
        ref = str(agent.id) if counts[agent.key.lower()] > 1 else agent.key
        found.append(
            Target(f"{AGENT_PREFIX}{ref}", "agent", agent.id, agent.name, _agent_description(agent))
        )
    return found


def tool_schema(kind: Kind) -> tuple[dict[str, Any], dict[str, Any]]:
    """The input and output JSON schemas of a room or agent tool."""
    return arguments_model(kind).model_json_schema(), ToolOutcome.model_json_schema()
