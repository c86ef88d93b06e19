"""Two Pantheon servers, each a real ``pantheon serve`` process with its own database and
its own model upstream: a room of the second seats a room of the first as a remote A2A
agent (``[a2a_agents.first]``) in a parallel orchestrator round, next to a local agent."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import ListTasksRequest, TaskState

from pantheon.db.migrations import upgrade
from tests.a2a.conftest import collect, message
from tests.factories import add_to_room, create_agent, create_room
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.replicas.cluster import Replica, start_replica


@pytest.fixture
async def second_upstream() -> AsyncIterator[MockOpenAI]:
    server = MockOpenAI()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def _env(directory: Path, upstream: MockOpenAI, extra_config: str) -> dict[str, str]:
    """SQLite, in-process live turns, the model ``drip`` at ``upstream``."""
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "pantheon.toml"
    config.write_text(
        f'[models.drip]\nbase_url = "{upstream.base_url}"\nmodel = "m"\n{extra_config}'
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith("PANTHEON_")}
    return env | {
        "PANTHEON_DATA_DIR": str(directory), "PANTHEON_CONFIG_FILE": str(config),
        "PANTHEON_DEFAULT_MODEL": "drip", "PANTHEON_LOG_LEVEL": "WARNING",
        "PANTHEON_DATABASE_URL": f"sqlite+aiosqlite:///{directory}/pantheon.db",
        "PANTHEON_KNOWLEDGE__EMBEDDER": "hashing",
    }  # fmt: skip


async def _server(directory: Path, upstream: MockOpenAI, extra_config: str = "") -> Replica:
    """A migrated ``pantheon serve`` of its own."""
    env = _env(directory, upstream, extra_config)
    await upgrade(env["PANTHEON_DATABASE_URL"])
    return await start_replica(env)


def _says(text: str) -> Reply:
    return Reply(chunks=[text])


async def test_a_room_of_one_real_server_answers_in_the_others_orchestrator_round(
    tmp_path: Path, upstream: MockOpenAI, second_upstream: MockOpenAI
) -> None:
    upstream.queue(_says("remote view"))  # the first server's room: its agent alpha
    second_upstream.queue(
        _says('{"agents": ["local", "remote1"]}'),  # route
        _says("local view"),  # local, while remote1 asks the first server
        _says('{"continue": false}'),  # evaluate
        _says("the final answer"),  # synthesis
    )
    first = await _server(tmp_path / "first", upstream)
    second: Replica | None = None
    try:
        async with first.client() as http_first:
            room = await create_room(http_first, ["alpha"], mode="roundtable")
            url = f"{first.url}/a2a/rooms/{room['id']}"
            second = await _server(
                tmp_path / "second", second_upstream, f'[a2a_agents.first]\nurl = "{url}"\n'
            )
            async with second.client() as http_second:
                seats = await create_room(http_second, ["local"], mode="orchestrator")
                remote = await create_agent(http_second, "remote1", model="first")
                await add_to_room(http_second, seats["id"], remote["id"])
                config = ClientConfig(httpx_client=http_second, streaming=True)
                agent = await ClientFactory(config).create_from_url(
                    f"{second.url}/a2a/rooms/{seats['id']}"
                )
                events = await collect(agent.send_message(message("plan it")))
                task = events[0].task
                turn = (await http_second.get(f"/v1/turns/{task.id}")).json()
            first_sdk = await ClientFactory(ClientConfig(httpx_client=http_first)).create_from_url(
                url
            )
            served = await first_sdk.list_tasks(ListTasksRequest())
    finally:
        if second is not None:
            await second.stop()
        await first.stop()
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED, turn
    assert turn["status"] == "completed"
    outputs = {m["agent_key"]: m["content"] for m in turn["messages"] if m["role"] != "user"}
    assert "remote view" in outputs["remote1"]  # the first server's room answered
    assert "local view" in outputs["local"]
    [call] = [c for c in turn["llm_calls"] if c["agent_key"] == "remote1"]
    assert call["model"] == "first"
    assert call["output_tokens"] > 0  # the usage the first server stated
    assert [t.status.state for t in served.tasks] == [TaskState.TASK_STATE_COMPLETED]
