"""Every door sees a shared room by the same rule as the native API (``rooms.access``): a
viewer of alice's room lists it and runs turns in it through the OpenAI facade (chat and
Responses), the MCP server, A2A and AG-UI; bob, no member, finds it through none of them.
Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from a2a.types import TaskState
from mcp import MCPError

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.a2a.conftest import a2a_for, collect, message
from tests.agui.conftest import kinds, post_run, run_events, run_input
from tests.auth.conftest import Clients
from tests.auth.sharing_helpers import Person, shared_with
from tests.factories import create_room
from tests.mcp_server.conftest import mcp_client
from tests.mcp_server.test_calls import structured


@pytest.fixture
async def shared(users: Clients, scripted: ScriptedProvider) -> tuple[str, Person]:
    """Alice's room "Secret plans" (agent alpha) and vera, its viewer."""
    scripted.script("alpha answers", agent="alpha")
    room = await create_room(users.alice, ["alpha"], name="Secret plans")
    vera = await shared_with(users, room["id"], "vera", "viewer")
    return room["id"], vera


async def _owned_turns(users: Clients, vera: Person, turn_id: str) -> None:
    """The turn is vera's: she reads it, its room's owner does not."""
    assert (await vera.http.get(f"/v1/turns/{turn_id}")).status_code == 200
    assert (await users.alice.get(f"/v1/turns/{turn_id}")).status_code == 404
    await vera.http.aclose()


async def test_openai_chat_and_models(users: Clients, shared: tuple[str, Person]) -> None:
    room_id, vera = shared
    model = f"room-{room_id}"
    listed = (await vera.http.get("/openai/v1/models")).json()["data"]
    assert [(m["id"], m["owned_by"]) for m in listed] == [(model, "alice")]
    assert (await vera.http.get(f"/openai/v1/models/{model}")).json()["owned_by"] == "alice"
    body = {"model": model, "messages": [{"role": "user", "content": "@alpha hi"}]}
    done = await vera.http.post("/openai/v1/chat/completions", json=body)
    assert done.status_code == 200, done.text
    assert "alpha answers" in done.json()["choices"][0]["message"]["content"]
    refused = await users.bob.post("/openai/v1/chat/completions", json=body)
    assert refused.status_code == 404
    assert refused.json()["error"]["code"] == "model_not_found"
    assert model not in (await users.bob.get("/openai/v1/models")).text
    turn_id = done.headers.get("X-Pantheon-Turn") or done.json()["id"].removeprefix("chatcmpl-")
    await _owned_turns(users, vera, turn_id)


async def test_openai_responses(users: Clients, shared: tuple[str, Person]) -> None:
    room_id, vera = shared
    body = {"model": f"room-{room_id}", "input": "@alpha hi"}
    done = await vera.http.post("/openai/v1/responses", json=body)
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "completed"
    assert "alpha answers" in done.text
    again = await vera.http.get(f"/openai/v1/responses/{done.json()['id']}")
    assert again.status_code == 200
    assert (await users.bob.post("/openai/v1/responses", json=body)).status_code == 404
    assert (await users.alice.get(f"/openai/v1/responses/{done.json()['id']}")).status_code == 404
    await vera.http.aclose()


async def test_mcp_server(users: Clients, shared: tuple[str, Person]) -> None:
    _room_id, vera = shared
    async with mcp_client(users.app, vera.key) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        outcome = structured(await client.call_tool("room_secret_plans", {"message": "hi"}))
    assert tools == ["room_secret_plans"]  # the shared room; alice's agents stay hers
    async with mcp_client(users.app, users.keys["bob"]) as bob:
        assert "room_secret_plans" not in [t.name for t in (await bob.list_tools()).tools]
        with pytest.raises(MCPError, match="Unknown tool"):
            await bob.call_tool("room_secret_plans", {"message": "hi"})
    await _owned_turns(users, vera, outcome["turn_id"])


async def test_a2a(users: Clients, shared: tuple[str, Person]) -> None:
    room_id, vera = shared
    path = f"/a2a/rooms/{room_id}/.well-known/agent-card.json"
    card = await vera.http.get(path)
    assert card.status_code == 200, card.text
    assert card.json()["name"] == "Secret plans"
    client = await a2a_for(users.app, room_id, vera.key, streaming=False)
    [done] = await collect(client.send_message(message("@alpha hi")))
    assert done.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert (await users.bob.get(path)).status_code == 404
    await vera.http.aclose()


async def test_agui(users: Clients, shared: tuple[str, Person]) -> None:
    room_id, vera = shared
    events = await run_events(vera.http, room_id, run_input("@alpha hi"))
    assert kinds(events)[-1] == "RUN_FINISHED"
    assert "alpha answers" in "".join(str(e.get("delta", "")) for e in events)
    refused = await post_run(users.bob, room_id, run_input("@alpha hi"))
    assert refused.status_code == 404
    await vera.http.aclose()
