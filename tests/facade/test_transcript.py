"""The event -> answer mapping for what the HTTP tests cannot easily provoke: tool
activity, unknown event types, a turn that could not run or could not be saved."""

from __future__ import annotations

from typing import Any

from pantheon.protocols.openai.service import outcome_error
from pantheon.protocols.openai.transcript import Transcript


def _feed(events: list[dict[str, Any]]) -> tuple[Transcript, str, str]:
    transcript = Transcript()
    parts: dict[str, str] = {"content": "", "reasoning_content": ""}
    for event in events:
        for field, text in transcript.feed(event):
            parts[field] += text
    return transcript, parts["content"], parts["reasoning_content"]


STARTED = {"type": "turn_started", "mode": "standalone", "agents": ["solo"]}


def test_tool_activity_is_reasoning_and_unknown_events_are_skipped() -> None:
    transcript, content, reasoning = _feed(
        [
            STARTED,
            {"type": "agent_started", "agent_key": "solo", "agent_name": "Solo"},
            {"type": "tool_call", "agent_key": "solo", "name": "calculator",
             "arguments": {"expression": "6*7"}},
            {"type": "tool_result", "agent_key": "solo", "name": "calculator", "ok": True,
             "content": "42"},
            {"type": "some_future_event", "stage": 1},
            {"type": "delta", "agent_key": "solo", "text": "It is 42."},
            {"type": "turn_completed", "status": "completed",
             "usage": {"input_tokens": 3, "output_tokens": 4}},
        ]
    )  # fmt: skip
    assert content == "It is 42."
    assert reasoning == 'Solo calls calculator({"expression": "6*7"})\ncalculator -> ok: 42\n'
    assert transcript.usage.total_tokens == 7
    assert outcome_error(transcript, "t1") is None


def test_an_error_event_is_a_server_error() -> None:
    broken, _, _ = _feed([STARTED, {"type": "error", "code": "internal_error", "message": "x"}])
    error = outcome_error(broken, "t1")
    assert error is not None
    assert (error.status_code, error.code, error.message) == (500, "internal_error", "turn t1: x")
    unsaved, _, _ = _feed(
        [STARTED, {"type": "error", "code": "persistence_failed", "message": "not saved"}]
    )
    error = outcome_error(unsaved, "t1")
    assert error is not None
    assert error.status_code == 503
    cut_short, _, _ = _feed([STARTED])
    error = outcome_error(cut_short, "t1")
    assert error is not None
    assert "ended without an outcome" in error.message


def test_a_cancelled_turn_keeps_its_text_and_says_so() -> None:
    transcript, content, reasoning = _feed(
        [
            STARTED,
            {"type": "delta", "agent_key": "solo", "text": "partial"},
            {"type": "turn_completed", "status": "cancelled", "usage": {}},
        ]
    )
    assert content == "partial"
    assert reasoning == "The turn was cancelled.\n"
    assert outcome_error(transcript, "t1") is None


def test_a_pipeline_stopped_early_answers_with_the_last_good_stage() -> None:
    _, content, reasoning = _feed(
        [
            {"type": "turn_started", "mode": "pipeline", "agents": ["a", "b", "c"]},
            {"type": "stage_started", "stage": 1, "agent_key": "a", "reused": True},
            {"type": "stage_completed", "stage": 1, "agent_key": "a", "reused": True,
             "ok": True, "text": "notes"},
            {"type": "stage_started", "stage": 2, "agent_key": "b", "reused": False},
            {"type": "agent_started", "agent_key": "b", "agent_name": "Bee"},
            {"type": "agent_failed", "agent_key": "b", "error": "The model is down."},
            {"type": "stage_completed", "stage": 2, "agent_key": "b", "reused": False,
             "ok": False, "text": ""},
        ]
    )  # fmt: skip
    assert content == "notes"
    assert reasoning == (
        "Stage 1: @a\n(reused from the last run)\nnotes\n\nStage 2: @b\n"
        "Bee failed: The model is down.\n"
    )
