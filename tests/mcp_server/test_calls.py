"""``tools/call`` through the official SDK client: each call is one turn, its answer the
mode's, its progress the turn's rounds, agents and tool calls; ``session_id`` continues."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from mcp.client.session import ClientRequestContext
from mcp_types import CallToolResult, ElicitRequestParams, ElicitResult, ErrorData

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_agent, create_room
from tests.mcp_server.conftest import mcp_client
from tests.scripted_turns import FALLBACK_ANSWER, script_unreachable_manager
from tests.turns_api.approvals_helpers import gated_agent


class Progress:
    """A progress callback that keeps what it was told."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, message))

    @property
    def messages(self) -> list[str | None]:
        return [message for _, message in self.seen]


def structured(result: CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def text(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_roundtable_turn_with_progress(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, mode: str
) -> None:
    await create_room(client, ["alpha", "beta"], name="Team", mode="roundtable")
    scripted.script("first answer", agent="alpha")
    scripted.script("second answer", agent="beta")
    progress = Progress()
    async with mcp_client(app, mode=mode) as mcp:
        result = await mcp.call_tool("room_team", {"message": "hi"}, progress_callback=progress)

    assert not result.is_error
    assert text(result) == "**Alpha**\n\nfirst answer\n\n**Beta**\n\nsecond answer"
    outcome = structured(result)
    assert (outcome["mode"], outcome["status"]) == ("roundtable", "completed")
    assert [(o["agent_key"], o["text"]) for o in outcome["outputs"]] == [
        ("alpha", "first answer"),
        ("beta", "second answer"),
    ]
    assert outcome["usage"]["output_tokens"] > 0
    assert progress.messages == [
        "Alpha answers.",
        "Alpha answered.",
        "Beta answers.",
        "Beta answered.",
    ]
    assert [p for p, _ in progress.seen] == [1, 2, 3, 4]
    turn = (await client.get(f"/v1/turns/{outcome['turn_id']}")).json()
    assert (turn["session_id"], turn["status"]) == (outcome["session_id"], "completed")


async def test_orchestrator_progress_has_rounds_and_routing(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    await create_room(client, ["alpha", "beta"], name="Team", mode="orchestrator")
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    scripted.script("a", agent="alpha")
    scripted.script("b", agent="beta")
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script("the final answer", purpose="synthesis")
    progress = Progress()
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool("room_team", {"message": "hi"}, progress_callback=progress)

    assert text(result) == "the final answer"
    said = progress.messages
    assert said[0] == "Round 1"
    assert "The manager asks @alpha, @beta." in said
    assert said.index("Alpha answers.") < said.index("**Alpha** (@alpha):\na")
    assert "Round 1 evaluated: the specialists' work is enough." in said
    assert said[-1] == "The manager writes the answer."


async def test_an_unreachable_manager_still_gives_the_tool_an_answer(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    await create_room(client, ["alpha", "beta"], name="Team", mode="orchestrator")
    script_unreachable_manager(scripted)
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool("room_team", {"message": "hi"})
    assert not result.is_error
    assert text(result) == FALLBACK_ANSWER


async def test_tool_calls_are_progress_too(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    await create_agent(client, "calc", tools=["calculator"])
    scripted.script(gated_agent, agent="calc")
    progress = Progress()
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool(
            "agent_calc", {"message": "17*23?"}, progress_callback=progress
        )

    assert text(result) == "Checking. Result: 391"
    assert 'Calc calls calculator({"expression": "17*23"})' in progress.messages
    assert "calculator -> ok: 391" in progress.messages


async def test_session_id_continues_the_conversation(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    await create_agent(client, "alpha")
    async with mcp_client(app) as mcp:
        first = structured(await mcp.call_tool("agent_alpha", {"message": "remember 7"}))
        args = {"message": "what number?", "session_id": first["session_id"]}
        second = structured(await mcp.call_tool("agent_alpha", args))
        fresh = structured(await mcp.call_tool("agent_alpha", {"message": "new"}))

    assert second["session_id"] == first["session_id"] != fresh["session_id"]
    history = [m.content for m in scripted.requests[1].request.messages]
    assert "remember 7" in history
    turns = await client.get(f"/v1/sessions/{first['session_id']}/turns")
    assert [t["message"] for t in turns.json()["items"]] == ["remember 7", "what number?"]


async def test_mode_runs_one_turn_in_another_mode(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    await create_room(client, ["alpha", "beta"], name="Team", mode="roundtable")
    scripted.script("draft", agent="alpha")
    scripted.script("polished", agent="beta")
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool("room_team", {"message": "hi", "mode": "pipeline"})

    assert text(result) == "polished"
    assert structured(result)["mode"] == "pipeline"


async def test_an_approval_pause_is_said_and_left_to_the_native_api(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    await create_agent(client, "calc", tools=["calculator!"])
    scripted.script(gated_agent, agent="calc")
    async with mcp_client(app) as mcp:
        result = await mcp.call_tool("agent_calc", {"message": "17*23?"})

    outcome = structured(result)
    assert outcome["status"] == "awaiting_approval"
    assert f"POST /v1/turns/{outcome['turn_id']}/approvals" in text(result)


class Approver:
    """An elicitation callback answering every approval request the same way."""

    def __init__(self, approve: bool, reason: str = "") -> None:
        self.answer = {"approve": approve, "reason": reason}
        self.asked: list[str] = []

    async def __call__(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        self.asked.append(params.message)
        return ElicitResult(action="accept", content=dict(self.answer))


@pytest.mark.parametrize(
    ("approve", "answer"),
    [(True, "Result: 391"), (False, "Result: not run: a person rejected this call: not now")],
)
async def test_an_approval_is_asked_of_the_host_and_resumes_the_turn(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, approve: bool, answer: str
) -> None:
    await create_agent(client, "calc", tools=["calculator!"])
    scripted.script(gated_agent, agent="calc")
    approver = Approver(approve, "not now")
    async with mcp_client(app, elicitation=approver) as mcp:
        result = await mcp.call_tool("agent_calc", {"message": "17*23?"})

    assert len(approver.asked) == 1
    assert 'asks to call calculator({"expression": "17*23"})' in approver.asked[0]
    outcome = structured(result)
    assert outcome["status"] == "completed"
    assert answer in text(result)
    turn = (await client.get(f"/v1/turns/{outcome['turn_id']}")).json()
    assert turn["continues"] is not None
    paused = (await client.get(f"/v1/turns/{turn['continues']}")).json()
    assert paused["status"] == "awaiting_approval"
    decided = [c["approval"] for c in turn["tool_calls"]]
    assert decided == ["approved" if approve else "rejected"]
