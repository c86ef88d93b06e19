from __future__ import annotations

import json

from pydantic import TypeAdapter

from pantheon.engine.events import (
    AgentCompletedEvent,
    EvaluationEvent,
    RoutingEvent,
    TokenUsage,
    TurnCompletedEvent,
    TurnEvent,
    TurnUsage,
    event_to_json,
)

_EVENTS: TypeAdapter[TurnEvent] = TypeAdapter(TurnEvent)


def test_evaluation_serialises_continue_by_its_wire_name() -> None:
    event = EvaluationEvent(turn_id="t", round=2, continue_=True, fallback=False)
    data = json.loads(event_to_json(event))
    assert data == {
        "turn_id": "t",
        "type": "evaluation",
        "round": 2,
        "continue": True,
        "fallback": False,
    }
    assert _EVENTS.validate_json(event_to_json(event)) == event


def test_json_is_compact_and_round_trips_through_the_union() -> None:
    event = AgentCompletedEvent(
        turn_id="t", agent_key="a", text="hi", usage=TokenUsage(input_tokens=1, output_tokens=2)
    )
    text = event_to_json(event)
    assert ": " not in text
    assert ", " not in text
    assert json.loads(text)["usage"] == {"input_tokens": 1, "output_tokens": 2}
    assert _EVENTS.validate_json(text) == event


def test_turn_completed_shape() -> None:
    event = TurnCompletedEvent(
        turn_id="t", status="completed", usage=TurnUsage(input_tokens=3), message_ids=["m1"]
    )
    data = json.loads(event_to_json(event))
    assert data["usage"] == {"input_tokens": 3, "output_tokens": 0, "cost_usd": 0.0}
    assert data["message_ids"] == ["m1"]


def test_a_fallback_names_its_reason_and_model_on_the_wire() -> None:
    fell = RoutingEvent(
        turn_id="t", round=1, agents=["a"], fallback=True, reason="unavailable", model="m"
    )
    data = json.loads(event_to_json(fell))
    assert (data["fallback"], data["reason"], data["model"]) == (True, "unavailable", "m")
    assert _EVENTS.validate_json(event_to_json(fell)) == fell
    decided = json.loads(event_to_json(RoutingEvent(turn_id="t", round=1, agents=["a"])))
    assert set(decided) == {"turn_id", "type", "round", "agents", "fallback"}
