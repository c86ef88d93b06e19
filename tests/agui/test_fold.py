"""``RunFold`` on hand-made event sequences the HTTP tests do not reach easily: an
orchestrator continuation that starts inside a paused round, a turn whose events stop
mid-agent, a run's endings by turn status."""

from __future__ import annotations

from typing import Any

from ag_ui.core import BaseEvent

from pantheon.engine.events import (
    AgentCompletedEvent,
    AgentStartedEvent,
    DeltaEvent,
    ErrorEvent,
    EvaluationEvent,
    RoundEndEvent,
    SynthesisCompletedEvent,
    SynthesisStartedEvent,
    TokenUsage,
    ToolCallEvent,
    ToolResultEvent,
    TurnCompletedEvent,
    TurnEvent,
    TurnStartedEvent,
    TurnUsage,
)
from pantheon.engine.values import TURN_STATUSES
from pantheon.protocols.agui.fold import RunFold
from pantheon.protocols.agui.outcome import ENDINGS
from tests.agui.conftest import AGUI_EVENT, assert_well_formed, of

TURN = "t-1"


def wire(fold: RunFold, events: list[TurnEvent]) -> list[dict[str, Any]]:
    """The run's events as a client reads them (wire names), each a valid AG-UI event."""
    out: list[BaseEvent] = [fold.started()]
    for event in events:
        out += fold.feed(event)
    dumped = [e.model_dump(mode="json", by_alias=True) for e in out]
    for data in dumped:
        AGUI_EVENT.validate_python(data)
    return dumped


def completed(status: str) -> TurnCompletedEvent:
    usage = TurnUsage(input_tokens=3, output_tokens=2, cost_usd=0.01)
    return TurnCompletedEvent(turn_id=TURN, status=status, usage=usage, message_ids=[])


def test_every_turn_status_has_an_ending() -> None:
    assert set(ENDINGS) == set(TURN_STATUSES)


def test_a_continuation_inside_a_round_opens_its_step_and_skips_announced_calls() -> None:
    events: list[TurnEvent] = [
        TurnStartedEvent(turn_id=TURN, session_id="s", mode="orchestrator", agents=["calc"]),
        AgentStartedEvent(turn_id=TURN, agent_key="calc", agent_name="Calc", round=2),
        ToolCallEvent(
            turn_id=TURN, agent_key="calc", round=1, call_id="c-1", name="calc", arguments={}
        ),
        ToolResultEvent(
            turn_id=TURN,
            agent_key="calc",
            round=1,
            call_id="c-1",
            name="calc",
            ok=True,
            content="391",
            duration_ms=3,
        ),
        DeltaEvent(turn_id=TURN, agent_key="calc", text="391."),
        AgentCompletedEvent(
            turn_id=TURN, agent_key="calc", text="391.", usage=TokenUsage(), round=2
        ),
        RoundEndEvent(turn_id=TURN, round=2),
        EvaluationEvent(turn_id=TURN, round=2, continue_=False),
        SynthesisStartedEvent(turn_id=TURN),
        DeltaEvent(turn_id=TURN, agent_key="manager", text="It is 391."),
        SynthesisCompletedEvent(turn_id=TURN, text="It is 391."),
        completed("completed"),
    ]
    run = wire(RunFold("th", "r", resumed_calls=frozenset({"c-1"})), events)
    assert_well_formed(run)
    assert of(run, "TOOL_CALL_START") == []
    assert [e["toolCallId"] for e in of(run, "TOOL_CALL_RESULT")] == ["c-1"]
    assert [e["stepName"] for e in of(run, "STEP_STARTED")] == [
        "round 2", "evaluation 2", "synthesis",
    ]  # fmt: skip


def test_events_that_stop_mid_agent_close_it_before_the_error() -> None:
    events: list[TurnEvent] = [
        TurnStartedEvent(turn_id=TURN, session_id="s", mode="roundtable", agents=["a"]),
        AgentStartedEvent(turn_id=TURN, agent_key="a", agent_name="A"),
        DeltaEvent(turn_id=TURN, agent_key="a", text="half"),
        ErrorEvent(turn_id=TURN, code="interrupted", message="the server stopped"),
        DeltaEvent(turn_id=TURN, agent_key="a", text="never shown"),
    ]
    run = wire(RunFold("th", "r"), events)
    assert_well_formed(run)
    assert [e["type"] for e in run[-3:]] == ["TEXT_MESSAGE_END", "SUBAGENT_ERROR", "RUN_ERROR"]
    assert (run[-1]["code"], run[-1]["message"]) == ("interrupted", "the server stopped")
    assert run[-2]["code"] == "interrupted"


def test_endings_by_status() -> None:
    def last(status: str) -> dict[str, Any]:
        started = TurnStartedEvent(turn_id=TURN, session_id="s", mode="roundtable", agents=[])
        return wire(RunFold("th", "r"), [started, completed(status)])[-1]

    assert last("partial")["outcome"] == {"type": "success"}
    assert last("cancelled")["outcome"] == {"type": "cancelled"}
    assert last("failed")["type"] == "RUN_ERROR"
    assert last("interrupted")["type"] == "RUN_ERROR"
    assert last("a-status-from-a-newer-replica")["type"] == "RUN_ERROR"
    # Awaiting approval with no interrupt seen is never reported as a success.
    waiting = last("awaiting_approval")
    assert waiting["type"] == "RUN_ERROR"
    assert "approvals" in waiting["message"]
    assert last("completed")["usage"] == [{"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}]
