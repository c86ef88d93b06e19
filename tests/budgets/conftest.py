"""A server whose agents use ``metered``: a scripted alias with a price, so turns cost.

``metered`` charges $0.001 per prompt token and nothing for output: a scripted call's
cost is then exactly its reservation (the same prompt estimate, no reply reserve), which
lets a test say "this budget affords exactly N calls". ``wordy`` prices its answers and
has a large window, so one call's maximum cost is far above its floor. Runs on SQLite and
PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from pantheon.settings import Settings
from tests.factories import create_agent, create_session

METERED_TOML = """
[models.metered]
provider = "scripted"
input_price_per_mtok = 1000.0
output_price_per_mtok = 0.0
context_window = 4096

[models.wordy]
provider = "scripted"
input_price_per_mtok = 1.0
output_price_per_mtok = 10.0
context_window = 128000
"""


@pytest.fixture
def settings(settings: Settings, tmp_path: Path) -> Settings:
    models_file = tmp_path / "models.toml"
    models_file.write_text(METERED_TOML)
    return settings.model_copy(update={"models_file": models_file})


async def metered_room(client: httpx.AsyncClient, keys: list[str], **room: Any) -> str:
    """A room of metered agents; its id."""
    response = await client.post("/v1/rooms", json={"name": "Metered", **room})
    assert response.status_code == 201, response.text
    room_id: str = response.json()["id"]
    for key in keys:
        agent = await create_agent(client, key, model="metered")
        added = await client.post(f"/v1/rooms/{room_id}/agents", json={"agent_id": agent["id"]})
        assert added.status_code == 201, added.text
    return room_id


async def new_session(client: httpx.AsyncClient, room_id: str) -> str:
    return str((await create_session(client, room_id))["id"])


async def my_user_id(client: httpx.AsyncClient) -> str:
    """The local user's id (local mode: the one user, an admin)."""
    users = (await client.get("/v1/admin/users")).json()["items"]
    assert len(users) == 1
    user_id: str = users[0]["id"]
    return user_id


async def set_budget(client: httpx.AsyncClient, user_id: str, **body: Any) -> dict[str, Any]:
    response = await client.put(f"/v1/admin/users/{user_id}/budgets", json=body)
    assert response.status_code == 200, response.text
    budget: dict[str, Any] = response.json()
    return budget


async def turn(client: httpx.AsyncClient, session_id: str, message: str = "hi") -> dict[str, Any]:
    """Run a turn to its end (plain JSON request); the finished turn."""
    response = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": message})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body
