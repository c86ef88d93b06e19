"""Approvals belong to the turn's owner: bob cannot decide on alice's paused turn.

Runs with the real tool box: alice's agent lists the built-in ``calculator!``.
"""

from __future__ import annotations

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.auth.conftest import Clients
from tests.sse_client import stream_turn
from tests.turns_api.approvals_helpers import agent_session, decide, decisions, gated_agent


async def test_bob_cannot_decide_on_alices_paused_turn(
    users: Clients, scripted: ScriptedProvider
) -> None:
    scripted.script(gated_agent, agent="calc")
    session_id = await agent_session(users.alice, ["calculator!"])
    events = await stream_turn(users.alice, session_id, {"message": "17*23?"})
    assert events[-1][1]["status"] == "awaiting_approval"
    turn_id = events[0][1]["turn_id"]
    calls = len(scripted.requests)
    bob = await decide(users.bob, turn_id, decisions(("c-calc", True, "")))
    assert bob.status_code == 404
    assert len(scripted.requests) == calls
    alice = await decide(users.alice, turn_id, decisions(("c-calc", True, "")))
    assert alice.status_code == 201, alice.text
    assert alice.json()["messages"][-1]["content"] == "Result: 391"
