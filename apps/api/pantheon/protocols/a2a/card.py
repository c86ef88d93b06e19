"""A room's agent card: its name and description, one skill per agent of its roster,
streaming on, both HTTP bindings, and in ``keys`` mode the API key as a Bearer scheme."""

from __future__ import annotations

from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from a2a.utils.constants import PROTOCOL_VERSION_CURRENT, TransportProtocol

from pantheon.db.models import Agent, Room
from pantheon.engine.modes.specs import MODES, mode_spec

A2A_PREFIX = "/a2a"
SCHEME = "pantheonApiKey"
TEXT = "text/plain"
# How long a client may keep a card before revalidating it (its ETag makes that cheap).
CARD_MAX_AGE_S = 300


def room_path(room_id: str) -> str:
    """Where a room's agent answers (JSON-RPC) and the base of its HTTP+JSON binding."""
    return f"{A2A_PREFIX}/rooms/{room_id}"


def _skill(agent: Agent) -> AgentSkill:
    role = " ".join(agent.role_prompt.split())
    return AgentSkill(
        id=agent.key,
        name=agent.name,
        description=role or f"{agent.name} (@{agent.key})",
        tags=[agent.key, agent.model],
        examples=[f"@{agent.key} ..."],
    )


def _description(room: Room) -> str:
    about = room.description.strip() or f"Pantheon room {room.name}"
    if room.mode in MODES:
        spec = mode_spec(room.mode)
        about += f" (mode {spec.label}: {spec.description})"
    return about


def room_card(
    room: Room, roster: list[Agent], base_url: str, keys: bool, version: str
) -> AgentCard:
    """The card of ``room`` as served at ``base_url`` (scheme and host, no trailing slash)."""
    url = base_url + room_path(str(room.id))
    interfaces = [
        AgentInterface(
            url=url, protocol_binding=binding.value, protocol_version=PROTOCOL_VERSION_CURRENT
        )
        for binding in (TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON)
    ]
    card = AgentCard(
        name=room.name,
        description=_description(room),
        supported_interfaces=interfaces,
        provider=AgentProvider(organization="Pantheon", url=base_url),
        version=version,
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=[TEXT],
        default_output_modes=[TEXT],
        skills=[_skill(agent) for agent in roster],
    )
    if keys:
        bearer = HTTPAuthSecurityScheme(
            scheme="Bearer", bearer_format="pk_xxxxxxxx_...", description="a Pantheon API key"
        )
        card.security_schemes[SCHEME].CopyFrom(SecurityScheme(http_auth_security_scheme=bearer))
        card.security_requirements.append(SecurityRequirement(schemes={SCHEME: StringList()}))
    return card
