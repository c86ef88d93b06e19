"""The event -> answer mapping (engine/narration.py) for what the HTTP tests cannot easily
provoke: tool activity, unknown event types, a turn that could not run or could not be
saved; and the same narration whether the events come typed or from their stored text."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable

from pantheon.engine.events import (
    AgentFailedEvent,
    AgentStartedEvent,
    ApprovalRequiredEvent,
    DeltaEvent,
    ErrorEvent,
    StageCompletedEvent,
    StageStartedEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnCompletedEvent,
    TurnEvent,
    TurnStartedEvent,
    TurnUsage,
    event_to_json,
)
from pantheon.engine.modes.specs import Mode
from pantheon.engine.narration import Narration
from pantheon.live.streamed import StoredEvent, typed
from pantheon.protocols.openai.responses.fold import ResponseFold, ResponseMeta
from pantheon.protocols.openai.service import outcome_error

T = "t1"


def _feed(events: Iterable[TurnEvent]) -> tuple[Narration, str, str]:
    transcript = Narration()
    parts: dict[str, str] = {"content": "", "reasoning_content": ""}
    for event in events:
        for field, text in transcript.feed(event):
            parts[field] += text
    return transcript, parts["content"], parts["reasoning_content"]


async def _stored(texts: list[str]) -> AsyncIterator[StoredEvent]:
    for seq, text in enumerate(texts, start=1):
        yield StoredEvent(seq, text)


async def _read_back(texts: list[str]) -> list[TurnEvent]:
    return [event async for event in typed(_stored(texts))]


def _started(mode: Mode = "standalone", agents: tuple[str, ...] = ("solo",)) -> TurnStartedEvent:
    return TurnStartedEvent(turn_id=T, session_id="s", mode=mode, agents=list(agents))


def _completed(status: str, input_tokens: int = 0, output_tokens: int = 0) -> TurnCompletedEvent:
    usage = TurnUsage(input_tokens=input_tokens, output_tokens=output_tokens)
    return TurnCompletedEvent(turn_id=T, status=status, usage=usage, message_ids=[])


async def test_tool_activity_is_reasoning_and_unknown_events_are_skipped() -> None:
    events: list[TurnEvent] = [
        _started(),
        AgentStartedEvent(turn_id=T, agent_key="solo", agent_name="Solo"),
        ToolCallEvent(turn_id=T, agent_key="solo", round=1, call_id="c1", name="calculator",
                      arguments={"expression": "6*7"}),
        ToolResultEvent(turn_id=T, agent_key="solo", round=1, call_id="c1", name="calculator",
                        ok=True, content="42", duration_ms=1),
        DeltaEvent(turn_id=T, agent_key="solo", text="It is 42."),
        _completed("completed", 3, 4),
    ]  # fmt: skip
    texts = [event_to_json(event) for event in events]
    texts.insert(4, json.dumps({"type": "some_future_event", "turn_id": T, "stage": 1}))
    transcript, content, reasoning = _feed(await _read_back(texts))
    assert content == "It is 42."
    assert reasoning == 'Solo calls calculator({"expression": "6*7"})\ncalculator -> ok: 42\n'
    assert transcript.usage.input_tokens + transcript.usage.output_tokens == 7
    assert outcome_error(transcript, "t1") is None


async def test_typed_events_narrate_as_their_stored_text_does() -> None:
    """In-process readers get the engine's objects, a replay gets them back from text:
    both say the same, even of arguments JSON text cannot carry as they are (NaN)."""
    arguments = json.loads('{"x": NaN, "y": [1e400, 2.5], "s": "caf\\u00e9"}')
    events: list[TurnEvent] = [
        _started("roundtable", ("a", "b")),
        AgentStartedEvent(turn_id=T, agent_key="a", agent_name="Ay"),
        ToolCallEvent(turn_id=T, agent_key="a", round=1, call_id="c1", name="calc",
                      arguments=arguments),
        ApprovalRequiredEvent(turn_id=T, agent_key="a", round=2, call_id="c2", name="pay!",
                              arguments=arguments),
        AgentStartedEvent(turn_id=T, agent_key="b", agent_name="Bee"),
        AgentFailedEvent(turn_id=T, agent_key="b", error="The model is down.", code="unavailable"),
        _completed("awaiting_approval", 5, 6),
    ]  # fmt: skip
    live = _feed(events)
    replayed = _feed(await _read_back([event_to_json(event) for event in events]))
    assert live[1:] == replayed[1:]
    assert 'calc({"x": null, "y": [null, 2.5], "s": "caf\\u00e9"})' in live[2]
    assert (live[0].usage, live[0].status, live[0].failures) == (
        replayed[0].usage,
        replayed[0].status,
        replayed[0].failures,
    )


def test_an_error_event_is_a_server_error() -> None:
    broken, _, _ = _feed([_started(), ErrorEvent(turn_id=T, code="internal_error", message="x")])
    error = outcome_error(broken, "t1")
    assert error is not None
    assert (error.status_code, error.code, error.message) == (500, "internal_error", "turn t1: x")
    unsaved, _, _ = _feed(
        [_started(), ErrorEvent(turn_id=T, code="persistence_failed", message="not saved")]
    )
    error = outcome_error(unsaved, "t1")
    assert error is not None
    assert error.status_code == 503
    cut_short, _, _ = _feed([_started()])
    error = outcome_error(cut_short, "t1")
    assert error is not None
    assert "ended without an outcome" in error.message


def test_a_cancelled_turn_keeps_its_text_and_says_so() -> None:
    transcript, content, reasoning = _feed(
        [
            _started(),
            DeltaEvent(turn_id=T, agent_key="solo", text="partial"),
            _completed("cancelled"),
        ]
    )
    assert content == "partial"
    assert reasoning == "The turn was cancelled.\n"
    assert outcome_error(transcript, "t1") is None


def test_a_pipeline_stopped_early_answers_with_the_last_good_stage() -> None:
    _, content, reasoning = _feed(
        [
            _started("pipeline", ("a", "b", "c")),
            StageStartedEvent(turn_id=T, stage=1, agent_key="a", agent_name="A", reused=True),
            StageCompletedEvent(turn_id=T, stage=1, agent_key="a", agent_name="A", reused=True,
                                ok=True, text="notes"),
            StageStartedEvent(turn_id=T, stage=2, agent_key="b", agent_name="Bee"),
            AgentStartedEvent(turn_id=T, agent_key="b", agent_name="Bee"),
            AgentFailedEvent(turn_id=T, agent_key="b", error="The model is down.",
                             code="unavailable"),
            StageCompletedEvent(turn_id=T, stage=2, agent_key="b", agent_name="Bee", ok=False),
        ]
    )  # fmt: skip
    assert content == "notes"
    assert reasoning == (
        "Stage 1: @a\n(reused from the last run)\nnotes\n\nStage 2: @b\n"
        "Bee failed: The model is down.\n"
    )


async def test_a_response_says_of_a_typed_tool_call_what_its_stored_text_says() -> None:
    arguments = json.loads('{"x": NaN, "note": "caf\\u00e9"}')
    events: list[TurnEvent] = [
        _started(),
        AgentStartedEvent(turn_id=T, agent_key="solo", agent_name="Solo"),
        ToolCallEvent(turn_id=T, agent_key="solo", round=1, call_id="c1", name="calc",
                      arguments=arguments),
        _completed("completed"),
    ]  # fmt: skip

    def folded(turn_events: list[TurnEvent]) -> list[dict[str, object]]:
        fold = ResponseFold(
            ResponseMeta(id="resp_1", model="agent-solo", created_at=1, finished_at=2)
        )
        return [out for event in turn_events for out in fold.feed(event)]

    live = folded(events)
    assert live == folded(await _read_back([event_to_json(event) for event in events]))
    done = [event for event in live if event["type"] == "response.function_call_arguments.done"]
    assert [event["arguments"] for event in done] == ['{"x": null, "note": "café"}']
