"""Two Pantheon servers: a room of the second seats a room of the first as a remote A2A
agent (``[a2a_agents.NAME]``) in an orchestrator round; stopping the second's turn
cancels the first's task."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    ListTasksRequest,
    SendMessageConfiguration,
    TaskState,
)
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.a2a.conftest import a2a_for, collect, http_for, message
from tests.app_factory import running_app
from tests.factories import add_to_room, create_agent, create_room
from tests.observability.otlp import OtlpReceiver, one, otel_env, roots
from tests.turns_api.conftest import LiveServer, Serve


def _config_file(directory: Path, url: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "second.toml"
    config.write_text(f'[a2a_agents.remote]\nurl = "{url}"\ntimeout_s = 30\n')
    return config


async def _second(
    settings: Settings, scripted: ScriptedProvider, tmp_path: Path, url: str
) -> AsyncIterator[FastAPI]:
    """The second server, in process, with its own database and the first as ``remote``."""
    config = _config_file(tmp_path, url)
    second = {
        "data_dir": tmp_path, "config_file": config,
        "database_url": f"sqlite+aiosqlite:///{tmp_path}/second.db",
    }  # fmt: skip
    async with running_app(settings, scripted, **second) as started:
        yield started.app


@pytest.fixture
async def two(
    serve: Serve, settings: Settings, scripted: ScriptedProvider, tmp_path: Path
) -> AsyncIterator[tuple[LiveServer, FastAPI, httpx.AsyncClient, str, str]]:
    async with serve() as live:
        first = await create_room(live.http, ["alpha"], mode="roundtable")
        url = f"{live.url}/a2a/rooms/{first['id']}"
        async for app in _second(settings, scripted, tmp_path / "second", url):
            async with http_for(app) as client:
                second = await create_room(client, ["local"], mode="orchestrator")
                remote = await create_agent(client, "remote1", model="remote")
                await add_to_room(client, second["id"], remote["id"])
                yield live, app, client, first["id"], second["id"]


async def test_a_remote_room_answers_in_an_orchestrator_round(
    two: tuple[LiveServer, FastAPI, httpx.AsyncClient, str, str], scripted: ScriptedProvider
) -> None:
    live, app, client, first_id, second_id = two
    scripted.script('{"agents": ["local", "remote1"]}', purpose="route")
    scripted.script("local view", agent="local")
    scripted.script("remote view", agent="alpha")
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script("the final answer", purpose="synthesis")
    sdk = await a2a_for(app, second_id, streaming=False)
    [done] = await collect(sdk.send_message(message("plan it")))
    assert done.task.status.state == TaskState.TASK_STATE_COMPLETED
    turn = (await client.get(f"/v1/turns/{done.task.id}")).json()
    outputs = {m["agent_key"]: m["content"] for m in turn["messages"] if m["role"] != "user"}
    assert "remote view" in outputs["remote1"]  # the first server's room answered
    [call] = [c for c in turn["llm_calls"] if c["agent_key"] == "remote1"]
    assert call["model"] == "remote"
    assert call["output_tokens"] > 0  # the usage the first server stated
    # The first server ran it as an ordinary turn of its room.
    first = (await live.http.get(f"/v1/rooms/{first_id}/sessions")).json()
    assert first["total"] == 1


async def test_stopping_the_turn_cancels_the_remote_task(
    two: tuple[LiveServer, FastAPI, httpx.AsyncClient, str, str], scripted: ScriptedProvider
) -> None:
    live, app, _client, first_id, second_id = two
    scripted.script('{"agents": ["remote1"]}', purpose="route")
    scripted.script("too late", agent="alpha", delay_s=30.0)
    sdk = await a2a_for(app, second_id, streaming=False)
    request = message("plan it")
    request.configuration.CopyFrom(SendMessageConfiguration(return_immediately=True))
    [started] = await collect(sdk.send_message(request))
    for _ in range(500):  # until the first server's alpha is asked (its turn runs)
        if scripted.calls(agent="alpha"):
            break
        await asyncio.sleep(0.02)
    await sdk.cancel_task(CancelTaskRequest(id=started.task.id))
    config = ClientConfig(httpx_client=live.http)
    first = await ClientFactory(config).create_from_url(f"{live.url}/a2a/rooms/{first_id}")
    canceled = ListTasksRequest(status=TaskState.TASK_STATE_CANCELED)
    for _ in range(500):  # the remote CancelTask is sent as the call stops
        if (found := await first.list_tasks(canceled)).tasks:
            break
        await asyncio.sleep(0.02)
    assert len(found.tasks) == 1


@pytest.fixture
async def traced(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[OtlpReceiver]:
    """Both servers trace to one in-process collector (set before they start)."""
    receiver = OtlpReceiver()
    await receiver.start()
    for name, value in otel_env(receiver).items():
        monkeypatch.setenv(name, value)
    try:
        yield receiver
    finally:
        await receiver.stop()


async def test_a_remote_rooms_turn_joins_the_callers_trace(
    traced: OtlpReceiver,
    two: tuple[LiveServer, FastAPI, httpx.AsyncClient, str, str],
    scripted: ScriptedProvider,
) -> None:
    _live, app, _client, _first_id, second_id = two
    scripted.script('{"agents": ["remote1"]}', purpose="route")
    scripted.script('{"continue": false}', purpose="evaluate")
    sdk = await a2a_for(app, second_id, streaming=False)
    [done] = await collect(sdk.send_message(message("plan it")))
    assert done.task.status.state == TaskState.TASK_STATE_COMPLETED
    spans = await traced.wait_for(lambda got: len(roots(got)) >= 2)
    caller = one(spans, "turn orchestrator")
    remote = one(spans, "turn roundtable")  # the first server's room, called over A2A
    assert caller.attributes["pantheon.turn.id"] == done.task.id
    assert remote.trace_id == caller.trace_id
    assert remote.parent_id == caller.span_id
