"""The runner used when no toolbox is configured, and a runner that misbehaves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pantheon.engine.no_tools import NoTools
from pantheon.engine.tooling import ToolScope
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.types import ToolDefinition
from tests.engine.conftest import ALICE, collect, snapshot
from tests.engine.toolbox import TestTools, calculating_agent

SCOPE = ToolScope(owner_id="o", turn_id="t", agent_id="a", agent_key="alice", room_id=None)


async def test_no_tools_offers_nothing_and_refuses_calls() -> None:
    runner = NoTools()
    assert await runner.definitions(["calculator", "orders.*"]) == []
    result = await runner.call("calculator", {}, SCOPE)
    assert (result.ok, result.content) == (False, "no such tool: calculator")


async def test_an_agent_with_tools_but_no_toolbox_just_answers(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(calculating_agent)
    agent = replace(ALICE, tools=("calculator",))
    _, record = await collect(snapshot("standalone", roster=[agent]), gateway, NoTools())
    assert provider.requests[0].request.tools == ()
    assert record.messages[0].content == "No calculator."


class BrokenDefinitions(TestTools):
    async def definitions(
        self, allowed: Sequence[str], scope: ToolScope | None = None
    ) -> list[ToolDefinition]:
        raise RuntimeError("registry exploded")


async def test_a_runner_whose_definitions_fail_leaves_the_agent_without_tools(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(calculating_agent)
    agent = replace(ALICE, tools=("calculator",))
    _, record = await collect(snapshot("standalone", roster=[agent]), gateway, BrokenDefinitions())
    assert record.status == "completed"
    assert record.messages[0].content == "No calculator."
