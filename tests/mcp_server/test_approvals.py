"""Approval rounds driven by hand (``allow_input_required``): a declined request rejects
the call, a replayed answer is refused (the native route decides once), and a forged or
foreign ``requestState`` is an error result, never a continuation of someone's turn.
Hosts on a handshake revision get the paused turn's result instead."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from mcp import Client
from mcp_types import CallToolResult, ElicitResult, InputRequiredResult, InputResponses

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.auth.conftest import MakeClients
from tests.factories import create_agent
from tests.mcp_server.conftest import mcp_client
from tests.mcp_server.test_calls import Approver, structured, text
from tests.turns_api.approvals_helpers import gated_agent

ASK = {"message": "17*23?"}


async def ask(mcp: Client, **retry: Any) -> CallToolResult | InputRequiredResult:
    result: CallToolResult | InputRequiredResult = await mcp.session.call_tool(
        "agent_calc", ASK, allow_input_required=True, **retry
    )
    return result


@pytest.fixture
async def gated(client: httpx.AsyncClient, scripted: ScriptedProvider) -> None:
    await create_agent(client, "calc", tools=["calculator!"])
    scripted.script(gated_agent, agent="calc")


@pytest.mark.usefixtures("gated")
async def test_a_declined_request_rejects_the_call_and_a_replay_is_refused(app: FastAPI) -> None:
    async with mcp_client(app, elicitation=Approver(True)) as mcp:
        asked = await ask(mcp)
        assert isinstance(asked, InputRequiredResult)
        assert asked.input_requests is not None
        answers = {k: ElicitResult(action="decline") for k in asked.input_requests}
        state = asked.request_state
        declined = await ask(mcp, input_responses=answers, request_state=state)
        replayed = await ask(mcp, input_responses=answers, request_state=state)

    assert isinstance(declined, CallToolResult)
    assert "declined by the user in the MCP host" in text(declined)
    assert structured(declined)["status"] == "completed"
    assert isinstance(replayed, CallToolResult)
    assert replayed.is_error
    assert "(409 " in text(replayed)


@pytest.mark.parametrize(
    ("state", "named"),
    [
        ("garbage", "requestState is not one this server issued"),
        ('{"turn_id": "nope"}', "turn nope"),
        ('{"turn_id": "00000000-0000-0000-0000-000000000000"}', "not found (404"),
    ],
)
@pytest.mark.usefixtures("gated")
async def test_a_forged_request_state_is_an_error_result(
    app: FastAPI, state: str, named: str
) -> None:
    answers = {"c-calc": ElicitResult(action="accept", content={"approve": True})}
    async with mcp_client(app, elicitation=Approver(True)) as mcp:
        result = await ask(mcp, input_responses=answers, request_state=state)

    assert isinstance(result, CallToolResult)
    assert result.is_error
    assert named in text(result)


@pytest.mark.usefixtures("gated")
async def test_a_state_without_answers_is_an_error_result(app: FastAPI) -> None:
    async with mcp_client(app, elicitation=Approver(True)) as mcp:
        asked = await ask(mcp)
        assert isinstance(asked, InputRequiredResult)
        result = await ask(mcp, request_state=asked.request_state)

    assert isinstance(result, CallToolResult)
    assert result.is_error
    assert "no answers to the approval requests" in text(result)


async def test_another_users_paused_turn_cannot_be_decided(
    make_clients: MakeClients, scripted: ScriptedProvider
) -> None:
    users = await make_clients()
    await create_agent(users.alice, "calc", tools=["calculator!"])
    await create_agent(users.bob, "calc")
    scripted.script(gated_agent, agent="calc")
    async with mcp_client(users.app, users.keys["alice"], elicitation=Approver(True)) as alice:
        asked = await ask(alice)
    assert isinstance(asked, InputRequiredResult)
    assert asked.input_requests is not None
    answers = {
        k: ElicitResult(action="accept", content={"approve": True}) for k in asked.input_requests
    }
    async with mcp_client(users.app, users.keys["bob"], elicitation=Approver(True)) as bob:
        stolen = await ask(bob, input_responses=answers, request_state=asked.request_state)

    assert isinstance(stolen, CallToolResult)
    assert stolen.is_error
    assert "not found (404" in text(stolen)


@pytest.mark.usefixtures("gated")
async def test_a_state_of_another_tools_turn_is_an_error_result(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await create_agent(client, "other")
    async with mcp_client(app, elicitation=Approver(True)) as mcp:
        asked = await ask(mcp)
        assert isinstance(asked, InputRequiredResult)
        assert asked.input_requests is not None
        answers: InputResponses = {k: ElicitResult(action="accept") for k in asked.input_requests}
        result = await mcp.session.call_tool(
            "agent_other",
            ASK,
            input_responses=answers,
            request_state=asked.request_state,
            allow_input_required=True,
        )

    assert isinstance(result, CallToolResult)
    assert result.is_error
    assert "not to agent_other (422 " in text(result)


@pytest.mark.usefixtures("gated")
async def test_a_handshake_host_gets_the_paused_result(app: FastAPI) -> None:
    async with mcp_client(app, mode="legacy", elicitation=Approver(True)) as mcp:
        result = await mcp.call_tool("agent_calc", ASK)

    assert structured(result)["status"] == "awaiting_approval"
