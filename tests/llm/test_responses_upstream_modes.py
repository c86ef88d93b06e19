"""A model served only over the Responses API takes part in every mode through the whole
service: agents on an ``api = "responses"`` alias call the calculator, get its result
back as a ``function_call_output`` item and answer with it; the manager stays scripted."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pantheon.engine.modes.specs import MODE_SPECS, ModeSpec
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.factories import add_to_room, create_agent
from tests.llm.mock_responses import MockResponses
from tests.sse_client import stream_turn
from tests.turns_api.apps import running_client

KEYS = ("alpha", "beta")
FENCED_391 = r"<<<DATA ([0-9A-F]{16})>>> \(tool result\)\n391\n<<<END DATA \1>>>"


@pytest.fixture
async def responses_upstream() -> AsyncIterator[MockResponses]:
    server = MockResponses()
    await server.start()
    yield server
    await server.stop()


async def _session(client: httpx.AsyncClient, spec: ModeSpec) -> str:
    agents = [await create_agent(client, key, model="resp", tools=["calculator"]) for key in KEYS]
    if spec.session == "agent":
        opened = await client.post(f"/v1/agents/{agents[0]['id']}/sessions", json={})
    else:
        room = await client.post(
            "/v1/rooms", json={"name": "R", "mode": spec.name, "manager_model": "scripted"}
        )
        for agent in agents:
            await add_to_room(client, room.json()["id"], agent["id"])
        opened = await client.post(f"/v1/rooms/{room.json()['id']}/sessions", json={})
    assert opened.status_code == 201, opened.text
    return str(opened.json()["id"])


@pytest.mark.parametrize("spec", MODE_SPECS, ids=lambda s: s.name)
async def test_a_responses_model_answers_with_its_tool_in_every_mode(
    spec: ModeSpec,
    settings: Settings,
    scripted: ScriptedProvider,
    responses_upstream: MockResponses,
    tmp_path: Path,
) -> None:
    config = tmp_path / "pantheon.toml"
    config.write_text(
        f'[models.resp]\nbase_url = "{responses_upstream.base_url}"\n'
        'model = "gpt-r"\napi = "responses"\n'
    )
    chosen = settings.model_copy(update={"config_file": config})
    async with running_client(chosen, scripted) as client:
        session = await _session(client, spec)
        message = "What is 17 * 23?" + (" @alpha @beta" if spec.needs_mentions else "")
        events = [data for _, data in await stream_turn(client, session, {"message": message})]
        turn = (await client.get(f"/v1/turns/{events[-1]['turn_id']}")).json()
    assert events[-1]["type"] == "turn_completed"
    assert events[-1]["status"] == "completed", events
    results = [e for e in events if e["type"] == "tool_result"]
    assert results
    assert all(r["ok"] and r["content"] == "391" for r in results)
    answers = [
        e["text"] for e in events if e["type"] == "agent_completed" and e["agent_key"] != "manager"
    ]
    assert any("391" in text for text in answers)
    # Every tool result went back upstream as its call's output, in the Responses shape,
    # fenced as data (llm/fence.py).
    outputs: list[dict[str, Any]] = [
        item
        for body in responses_upstream.received
        for item in body["input"]
        if item.get("type") == "function_call_output"
    ]
    assert outputs
    assert all(re.fullmatch(FENCED_391, o["output"]) for o in outputs), outputs
    calls = [c for c in turn["llm_calls"] if c["model"] == "resp"]
    assert calls
    assert all(c["input_tokens"] == 11 and c["output_tokens"] == 3 for c in calls)
