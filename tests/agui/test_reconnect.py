"""A client that posts a run again (same threadId and runId) reconnects to it: it gets
``RUN_STARTED``, the thread's ``MESSAGES_SNAPSHOT`` (the messages before the run, then the
run's user message), then the run's events from the first, whether the turn is still
running or finished; no second turn is started. Going away does not stop the turn."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import httpx
from httpx_sse import aconnect_sse

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.agui.conftest import AGUI_EVENT, assert_well_formed, of, run_events, run_input, texts
from tests.engine.toolbox import TestTools, calculating_agent, calculator, use_tools
from tests.factories import add_to_room, create_agent, create_room
from tests.turns_api.conftest import Serve


async def test_posting_a_finished_run_again_replays_it_after_the_snapshot(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("from alpha", agent="alpha")
    room = await create_room(client, ["alpha"], mode="roundtable")
    first = run_input("hello")
    first_events = await run_events(client, room["id"], first)
    earlier_turn = first_events[0]["metadata"]["pantheon"]["turn_id"]
    second = run_input("and again", thread=first["threadId"])
    events = await run_events(client, room["id"], second)
    again = await run_events(client, room["id"], second)
    assert_well_formed(again)
    assert again[0] == events[0]  # the same run: the same turn
    snapshot = again[1]
    assert snapshot["type"] == "MESSAGES_SNAPSHOT"
    turn_id = events[0]["metadata"]["pantheon"]["turn_id"]
    assert [(m["id"], m["role"], m["content"], m.get("name")) for m in snapshot["messages"]] == [
        (f"{earlier_turn}:0", "user", "hello", None),
        (f"{earlier_turn}:1", "assistant", "from alpha", "Alpha"),
        (f"{turn_id}:0", "user", "and again", None),
    ]
    # The snapshot names the earlier answer as its run streamed it (id and subagent).
    [(earlier_id, (_name, earlier_run, _text))] = texts(first_events).items()
    assert (snapshot["messages"][1]["id"], snapshot["messages"][1]["subagentRunId"]) == (
        earlier_id, earlier_run,
    )  # fmt: skip
    assert again[2:] == events[1:]
    turns = (await client.get(f"/v1/sessions/{first['threadId']}/turns")).json()
    assert turns["total"] == 2


async def _events(http: httpx.AsyncClient, url: str, body: dict[str, Any]) -> Any:
    async with aconnect_sse(http, "POST", url, json=body) as source:
        assert source.response.status_code == 200
        async for sse in source.aiter_sse():
            event: dict[str, Any] = json.loads(sse.data)
            AGUI_EVENT.validate_python(event)
            yield event


async def _until(stream: Any, kind: str) -> list[dict[str, Any]]:
    seen = []
    async for event in stream:
        seen.append(event)
        if event["type"] == kind:
            return seen
    raise AssertionError(f"no {kind}: {[e['type'] for e in seen]}")


async def test_posting_a_running_run_again_picks_it_up(
    serve: Serve, scripted: ScriptedProvider
) -> None:
    release = asyncio.Event()

    async def held_calculator(args: Mapping[str, Any]) -> str:
        await release.wait()
        return await calculator(args)

    scripted.script(calculating_agent, agent="calc")
    async with serve() as live:
        use_tools(live.app, TestTools({"calculator": held_calculator}))
        room = await create_room(live.http, [], mode="roundtable")
        calc = await create_agent(live.http, "calc", tools=["calculator"])
        await add_to_room(live.http, room["id"], calc["id"])
        url, body = f"/agui/rooms/{room['id']}", run_input("17*23?")
        first = _events(live.http, url, body)
        seen = await _until(first, "TOOL_CALL_END")
        await first.aclose()  # the client goes away mid-run: the turn goes on
        second = _events(live.http, url, body)
        head = await _until(second, "TOOL_CALL_END")
        release.set()
        rest = [event async for event in second]
    again = head + rest
    assert_well_formed(again)
    assert [e["type"] for e in again[:2]] == ["RUN_STARTED", "MESSAGES_SNAPSHOT"]
    assert again[0] == seen[0]
    turn_id = seen[0]["metadata"]["pantheon"]["turn_id"]
    assert [m["id"] for m in again[1]["messages"]] == [f"{turn_id}:0"]
    assert head[2:] == seen[1:]  # the run's events from its first, as first streamed
    assert [e["content"] for e in of(rest, "TOOL_CALL_RESULT")] == ["391"]
    assert rest[-1]["type"] == "RUN_FINISHED"
    assert rest[-1]["result"]["status"] == "completed"


async def test_a_cancelled_turn_ends_the_run_with_the_cancelled_outcome(
    serve: Serve, scripted: ScriptedProvider
) -> None:
    async def hung_calculator(args: Mapping[str, Any]) -> str:
        await asyncio.Event().wait()  # never answers: the turn is cancelled meanwhile
        return ""

    scripted.script(calculating_agent, agent="calc")
    async with serve() as live:
        use_tools(live.app, TestTools({"calculator": hung_calculator}))
        room = await create_room(live.http, [], mode="roundtable")
        calc = await create_agent(live.http, "calc", tools=["calculator"])
        await add_to_room(live.http, room["id"], calc["id"])
        stream = _events(live.http, f"/agui/rooms/{room['id']}", run_input("17*23?"))
        head = await _until(stream, "TOOL_CALL_END")
        turn_id = head[0]["metadata"]["pantheon"]["turn_id"]
        cancelled = await live.http.post(f"/v1/turns/{turn_id}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        rest = [event async for event in stream]
    assert_well_formed(head + rest)
    [stopped] = of(rest, "SUBAGENT_ERROR")
    assert stopped["code"] == "cancelled"
    assert rest[-1]["outcome"] == {"type": "cancelled"}
    assert rest[-1]["result"]["status"] == "cancelled"
