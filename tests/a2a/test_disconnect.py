"""A client that leaves a stream does not stop its task (unlike the OpenAI facade, where
nobody could resume it): another client follows it from its first event. Leaving needs a
real server."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import cast

import httpx
import pytest
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import GetTaskRequest, StreamResponse, SubscribeToTaskRequest, TaskState
from a2a.utils.errors import UnsupportedOperationError

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.a2a.conftest import collect, message
from tests.a2a.test_send import answer_of
from tests.factories import create_room
from tests.turns_api.conftest import Serve


async def _client(http: httpx.AsyncClient, url: str, room_id: str) -> Client:
    config = ClientConfig(httpx_client=http)
    return await ClientFactory(config).create_from_url(f"{url}/a2a/rooms/{room_id}")


async def test_resubscribe_after_a_disconnect(serve: Serve, scripted: ScriptedProvider) -> None:
    words = " ".join(f"w{i}" for i in range(40))
    scripted.script(words, agent="alpha", chunk_delay_s=0.05)
    async with serve() as live:
        room = await create_room(live.http, ["alpha"], mode="roundtable")
        async with httpx.AsyncClient(timeout=10) as http:
            first = await _client(http, live.url, room["id"])
            sent = cast(AsyncGenerator[StreamResponse, None], first.send_message(message("go")))
            async with contextlib.aclosing(sent) as stream:
                async for event in stream:
                    if event.HasField("artifact_update"):
                        task_id = event.artifact_update.task_id
                        break  # the client leaves mid-answer
        http = httpx.AsyncClient(timeout=10)
        again = await _client(http, live.url, room["id"])
        events = await collect(again.subscribe(SubscribeToTaskRequest(id=task_id)))
        assert events[0].task.id == task_id
        answer = answer_of(events)  # the whole answer, from the first event
        assert answer.endswith(words)
        assert answer.count("w0 ") == 1
        assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
        task = await again.get_task(GetTaskRequest(id=task_id))
        assert task.artifacts[0].parts[0].text == answer
        with pytest.raises(UnsupportedOperationError):  # over: nothing more to follow
            await collect(again.subscribe(SubscribeToTaskRequest(id=task_id)))
        await http.aclose()
