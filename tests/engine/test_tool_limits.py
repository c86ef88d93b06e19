"""The tool loop's bounds: round and call caps, concurrency, timeouts, cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextlib import aclosing
from dataclasses import replace
from typing import Any

from pantheon.engine.events import ToolCallEvent, ToolResultEvent, TurnEvent
from pantheon.engine.record import TurnRecord
from pantheon.engine.run import run_turn
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from pantheon.settings import ToolSettings
from tests.engine.conftest import ALICE, BOB, collect, snapshot
from tests.engine.toolbox import TestTools, calculator, hang


def always_calling(per_round: int) -> Any:
    """A model that asks for ``per_round`` calculations whenever it is offered tools."""

    def reply(request: LLMRequest) -> ScriptedReply:
        if not request.tools:
            return ScriptedReply("final answer")
        calls = tuple(tool_call("calculator", {"expression": "1 + 1"}) for _ in range(per_round))
        return ScriptedReply("", calls)

    return reply


async def test_max_rounds_ends_with_one_last_call_without_tools(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(always_calling(1))
    agent = replace(ALICE, tools=("calculator",))
    snap = snapshot("standalone", roster=[agent], tool_limits=ToolSettings(max_rounds=2))
    events, record = await collect(snap, gateway, TestTools())
    assert [len(r.request.tools) for r in provider.requests] == [1, 1, 0]
    assert [c.round for c in record.tool_calls] == [1, 2]
    assert [e.round for e in events if isinstance(e, ToolResultEvent)] == [1, 2]
    assert len(record.llm_calls) == 3
    assert record.messages[0].content == "final answer"
    assert record.status == "completed"


async def test_max_calls_per_turn_is_shared_by_the_turns_agents(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(always_calling(2))
    roster = [replace(ALICE, tools=("calculator",)), replace(BOB, tools=("calculator",))]
    limits = ToolSettings(max_calls_per_turn=3)
    events, record = await collect(
        snapshot("roundtable", roster=roster, tool_limits=limits), gateway, TestTools()
    )
    alice = [c for c in record.tool_calls if c.agent_key == "alice"]
    assert [(c.round, c.ok) for c in alice] == [(1, True), (1, True), (2, True), (2, False)]
    assert alice[-1].result == "not run: the turn's tool call limit was reached"
    assert [c for c in record.tool_calls if c.agent_key == "bob"] == []
    offered = [(r.request.agent_key, len(r.request.tools)) for r in provider.requests]
    assert offered == [("alice", 1), ("alice", 1), ("alice", 0), ("bob", 0)]
    assert [m.content for m in record.messages] == ["final answer", "final answer"]
    assert sum(isinstance(e, ToolCallEvent) for e in events) == 4


async def test_calls_run_concurrently_and_report_in_call_order(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    log: list[str] = []
    second_ran = asyncio.Event()

    async def first(args: Mapping[str, Any]) -> str:
        log.append("first started")
        await second_ran.wait()  # only returns if "second" runs while this one waits
        log.append("first finished")
        return "one"

    async def second(args: Mapping[str, Any]) -> str:
        log.append("second started")
        second_ran.set()
        log.append("second finished")
        return "two"

    provider.script(
        lambda r: (
            ScriptedReply("done")
            if r.messages[-1].role == "tool"
            else ScriptedReply("", (tool_call("first", id="a"), tool_call("second", id="b")))
        ),
    )
    agent = replace(ALICE, tools=("first", "second"))
    snap = snapshot("standalone", roster=[agent], tool_limits=ToolSettings(timeout_s=5))
    events, record = await collect(snap, gateway, TestTools({"first": first, "second": second}))
    assert log == ["first started", "second started", "second finished", "first finished"]
    results = [(e.call_id, e.content) for e in events if isinstance(e, ToolResultEvent)]
    assert results == [("a", "one"), ("b", "two")]
    assert [c.call_id for c in record.tool_calls] == ["a", "b"]


async def test_at_most_max_parallel_calls_run_at_once(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    running = 0
    peak = 0

    async def busy(args: Mapping[str, Any]) -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        for _ in range(5):
            await asyncio.sleep(0)
        running -= 1
        return "ok"

    calls = tuple(tool_call("busy") for _ in range(6))
    provider.script(
        lambda r: (
            ScriptedReply("done") if r.messages[-1].role == "tool" else ScriptedReply("", calls)
        )
    )
    agent = replace(ALICE, tools=("busy",))
    snap = snapshot("standalone", roster=[agent], tool_limits=ToolSettings(max_parallel=2))
    _, record = await collect(snap, gateway, TestTools({"busy": busy}))
    assert peak == 2
    assert [c.ok for c in record.tool_calls] == [True] * 6


async def test_a_hanging_tool_times_out_into_an_error_result(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(
        lambda r: (
            ScriptedReply("went on")
            if r.messages[-1].role == "tool"
            else ScriptedReply(
                "",
                (tool_call("hang", id="h"), tool_call("calculator", {"expression": "2 * 3"}, "c")),
            )
        ),
    )
    agent = replace(ALICE, tools=("hang", "calculator"))
    snap = snapshot("standalone", roster=[agent], tool_limits=ToolSettings(timeout_s=0.05))
    tools = TestTools({"hang": hang, "calculator": calculator})
    events, record = await collect(snap, gateway, tools)
    results = {e.call_id: (e.ok, e.content) for e in events if isinstance(e, ToolResultEvent)}
    assert results == {"h": (False, "timed out after 0.05s"), "c": (True, "6")}
    assert record.status == "completed"
    assert record.messages[0].content == "went on"


async def test_cancel_mid_tool_call_records_what_was_done(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    async def quick(args: Mapping[str, Any]) -> str:
        return "done quickly"

    provider.script(
        ScriptedReply("Working.", (tool_call("quick", id="q"), tool_call("hang", id="h")))
    )
    agent = replace(ALICE, tools=("quick", "hang"))
    record = TurnRecord()
    seen: list[TurnEvent] = []
    tools = TestTools({"quick": quick, "hang": hang})
    async with aclosing(
        run_turn(snapshot("standalone", roster=[agent]), gateway, tools, record)
    ) as events:
        async for event in events:
            seen.append(event)
            if isinstance(event, ToolResultEvent):
                break  # "quick" reported; "hang" is still running
    calls = {c.call_id: (c.ok, c.result) for c in record.tool_calls}
    assert calls == {"q": (True, "done quickly"), "h": (False, "cancelled")}
    [message] = record.messages
    assert (message.status, message.content) == ("cancelled", "Working.")
    assert [c.status for c in record.llm_calls] == ["ok"]
    assert [e.type for e in seen].count("tool_call") == 2
