"""The demo room ``make run`` seeds: its roster, its tool-using agent, seeded once."""

from __future__ import annotations

import httpx
import pytest

from pantheon.server.seed import DEMO_AGENTS
from pantheon.settings import Settings


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"seed_demo": True})


async def test_demo_room_has_the_agents_in_order_and_an_agent_with_tools(
    client: httpx.AsyncClient,
) -> None:
    rooms = (await client.get("/v1/rooms")).json()["items"]
    assert [r["name"] for r in rooms] == ["Demo room"]
    assert [a["key"] for a in rooms[0]["agents"]] == [key for key, *_ in DEMO_AGENTS]
    agents = {a["key"]: a for a in (await client.get("/v1/agents")).json()["items"]}
    assert agents["analyst"]["tools"] == ["calculator", "current_time"]
    assert agents["planner"]["tools"] == []
    # Documents are read only through search_knowledge: the demo has an agent that can.
    assert agents["researcher"]["tools"] == ["search_knowledge"]
    assert {a["model"] for a in agents.values()} == {"scripted"}


async def test_every_tool_of_the_demo_agents_exists(client: httpx.AsyncClient) -> None:
    # Seeding bypasses the API's validation of `tools`: check the names against the list.
    tools = {t["name"]: t for t in (await client.get("/v1/tools")).json()["items"]}
    for key, _name, _role, entries in DEMO_AGENTS:
        for entry in entries:
            assert entry in tools, f"{key}: {entry} is not a tool"
            assert tools[entry]["available"], tools[entry]
