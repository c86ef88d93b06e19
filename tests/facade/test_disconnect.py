"""Unlike the native API, a client that leaves a streamed completion cancels its turn
(nobody could resume it); the turn still records what it produced. Leaving needs a real
server; a turn cancelled through the native API answers with what it had."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import openai
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.facade.conftest import room_model, user
from tests.turns_api.conftest import LiveServer, Serve


async def _recorded(live: LiveServer, turn_id: str) -> dict[str, Any]:
    for _ in range(500):
        response = await live.http.get(f"/v1/turns/{turn_id}")
        if response.status_code == 200:
            turn: dict[str, Any] = response.json()
            return turn
        await asyncio.sleep(0.02)
    raise AssertionError(f"turn {turn_id} was not recorded")


async def test_leaving_a_stream_cancels_the_turn(serve: Serve, scripted: ScriptedProvider) -> None:
    words = " ".join(f"w{i}" for i in range(100))
    scripted.script(words, agent="alpha", chunk_delay_s=0.05)
    async with serve() as live:
        model = await room_model(live.http, ["alpha"], "roundtable")
        sdk = openai.AsyncOpenAI(base_url=f"{live.url}/openai/v1", api_key="k", max_retries=0)
        stream = await sdk.chat.completions.create(model=model, messages=[user("go")], stream=True)
        seen = ""
        async for chunk in stream:
            seen += (chunk.choices[0].delta.content or "") if chunk.choices else ""
            if "w2 " in seen:
                break
        await stream.close()
        turn = await _recorded(live, chunk.id.removeprefix("chatcmpl-"))
        await sdk.close()
    assert turn["status"] == "cancelled"
    assert turn["messages"][1]["content"].startswith("w0 w1 w2 ")
    assert len(turn["messages"][1]["content"]) < len(words)
    assert scripted.requests[-1].cancelled


async def test_a_finished_stream_is_not_cancelled(serve: Serve, scripted: ScriptedProvider) -> None:
    async with serve() as live:
        model = await room_model(live.http, ["alpha"], "roundtable")
        sdk = openai.AsyncOpenAI(base_url=f"{live.url}/openai/v1", api_key="k", max_retries=0)
        stream = await sdk.chat.completions.create(model=model, messages=[user("go")], stream=True)
        chunks = [chunk async for chunk in stream]
        turn = await _recorded(live, chunks[0].id.removeprefix("chatcmpl-"))
        await sdk.close()
    assert turn["status"] == "completed"


async def test_a_turn_cancelled_through_the_native_api_answers_what_it_had(
    app: FastAPI, client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    scripted.script("one two three four five six", agent="alpha", chunk_delay_s=0.2)
    model = await room_model(client, ["alpha"], "roundtable")
    call = asyncio.create_task(oai.chat.completions.create(model=model, messages=[user("go")]))
    for _ in range(500):  # wait for the first words of the turn
        running = app.state.services.live_turns.running()
        if running and any(e.event.type == "delta" for e in running[0].events):
            break
        await asyncio.sleep(0.01)
    cancelled = await client.post(f"/v1/turns/{running[0].turn_id}/cancel")
    assert cancelled.json()["status"] == "cancelled"
    message = (await call).choices[0].message
    assert (message.content or "").startswith("**Alpha**\n\none ")
    assert "six" not in (message.content or "")
    assert (message.model_extra or {})["reasoning_content"] == "The turn was cancelled.\n"
