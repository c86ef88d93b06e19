"""The demo room ``make run`` seeds: its roster, its tool-using agent, seeded once."""

from __future__ import annotations

import httpx
import pytest

from pantheon.seed import DEMO_AGENTS
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
    assert {a["model"] for a in agents.values()} == {"scripted"}
