"""Approval gates in the engine alone: what pauses, what the saved state holds, and that a
gated call the usual checks refuse is an error result, not something to approve."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pantheon.engine.approvals import Decision, Resume, ResumeState, decisions_note
from pantheon.engine.events import ApprovalRequiredEvent
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest
from tests.engine.conftest import ALICE, BOB, collect, compact, snapshot
from tests.engine.toolbox import TestTools

GATED_ALICE = replace(ALICE, tools=("calculator!",))


def asks(arguments: str) -> Callable[[LLMRequest], ScriptedReply]:
    def model(request: LLMRequest) -> ScriptedReply:
        if request.messages[-1].role == "tool":
            return ScriptedReply(f"read: {request.messages[-1].content}")
        return ScriptedReply("Let me see. ", (tool_call("calculator", arguments, "g1"),))

    return model


async def test_a_gated_call_pauses_and_the_state_round_trips(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(asks('{"expression": "2*3"}'), agent="alice")
    snap = snapshot("roundtable", "go", roster=[GATED_ALICE, BOB])
    events, record = await collect(snap, gateway, TestTools())
    assert compact(events) == [
        "turn_started", "agent_started", "delta", "tool_call", "approval_required",
    ]  # fmt: skip
    [required] = [e for e in events if isinstance(e, ApprovalRequiredEvent)]
    assert (required.call_id, required.arguments) == ("g1", {"expression": "2*3"})
    assert record.status == "awaiting_approval"
    assert [m.status for m in record.messages] == ["awaiting_approval"]
    state = record.resume_state
    assert state is not None
    assert state.sequence is not None
    assert state.sequence.index == 0
    [paused] = state.paused
    assert (paused.agent_key, paused.pending, paused.text) == ("alice", ("g1",), "Let me see. ")
    assert paused.messages[-1].tool_calls[0].id == "g1"
    assert ResumeState.model_validate_json(state.model_dump_json()) == state
    assert record.output == "Alice: Let me see. [awaiting approval]"

    decisions = {"g1": Decision(True)}
    note = decisions_note(state, decisions)
    assert note == "Approved calculator (g1)"
    resumed = replace(snap, turn_id="t-2", resume=Resume(snap.turn_id, state, decisions, note))
    events, record = await collect(resumed, gateway, TestTools())
    assert record.status == "completed"
    assert [(m.agent_key, m.content) for m in record.messages] == [
        ("alice", "read: 6"), ("bob", record.messages[1].content),
    ]  # fmt: skip
    bob_task = provider.calls(agent="bob")[-1].request.messages[-1].content
    assert "Let me see. read: 6" in bob_task


async def test_a_gated_call_with_unusable_arguments_is_an_error_not_a_pause(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(asks("{broken"), agent="alice")
    events, record = await collect(
        snapshot("standalone", "go", roster=[GATED_ALICE]), gateway, TestTools()
    )
    assert "approval_required" not in compact(events)
    assert record.status == "completed"
    [call] = record.tool_calls
    assert (call.ok, call.approval) == (False, None)
    assert record.messages[0].content.endswith("read: " + call.result)
