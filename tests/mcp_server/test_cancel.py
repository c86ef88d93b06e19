"""A host that cancels a call (or drops the connection) stops its turn, which is recorded
``cancelled`` with what it produced: on a real server, as a host reaches it."""

from __future__ import annotations

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room
from tests.turns_api.conftest import Serve


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_cancelled_call_cancels_its_turn(
    serve: Serve,
    scripted: ScriptedProvider,
    mode: str,
) -> None:
    scripted.script("one two three four five six", agent="alpha", chunk_delay_s=0.2)
    async with serve() as live:
        room = await create_room(live.http, ["alpha"], name="Team")
        started = anyio.Event()

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            started.set()

        async with httpx2.AsyncClient(timeout=10) as http:
            transport = streamable_http_client(f"{live.url}/mcp", http_client=http)
            async with Client(transport, mode=mode) as mcp, anyio.create_task_group() as tg:

                async def call() -> None:
                    await mcp.call_tool("room_team", {"message": "hi"}, progress_callback=progress)

                tg.start_soon(call)
                with anyio.fail_after(10):
                    await started.wait()
                tg.cancel_scope.cancel()

        sessions = (await live.http.get(f"/v1/rooms/{room['id']}/sessions")).json()["items"]
        url = f"/v1/sessions/{sessions[0]['id']}/turns"
        statuses: list[str] = []

        async def finished() -> bool:
            statuses[:] = [t["status"] for t in (await live.http.get(url)).json()["items"]]
            return statuses == ["cancelled"]

        for _ in range(500):
            if await finished():
                break
            await anyio.sleep(0.01)
        assert statuses == ["cancelled"]
