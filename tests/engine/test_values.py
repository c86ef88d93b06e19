"""One source for each value set: the API schemas and DB models say what engine/values.py
says (a hand copy that drifts fails here)."""

from __future__ import annotations

from typing import Any

from pantheon.db.models import LLMCall, Message, Room, Turn
from pantheon.engine.values import (
    CALL_STATUSES,
    MESSAGE_STATUSES,
    MODES,
    PURPOSES,
    ROOM_MODES,
    TURN_STATUSES,
    one_of,
)
from pantheon.rooms.schemas import RoomCreate
from pantheon.turns.schemas import LLMCallRead, TurnCreate, TurnRead


def _enum(schema: dict[str, Any], field: str) -> list[str]:
    prop = schema["properties"][field]
    options = prop.get("anyOf", [prop])
    return [value for option in options for value in option.get("enum", [])]


def test_api_schemas_list_the_engines_values() -> None:
    assert _enum(TurnRead.model_json_schema(), "status") == list(TURN_STATUSES)
    assert _enum(TurnRead.model_json_schema(), "mode") == list(MODES)
    assert _enum(TurnCreate.model_json_schema(), "mode") == list(MODES)
    assert _enum(LLMCallRead.model_json_schema(), "purpose") == list(PURPOSES)
    assert _enum(RoomCreate.model_json_schema(), "mode") == list(ROOM_MODES)


def test_db_columns_document_the_engines_values() -> None:
    assert Turn.status.doc == one_of(TURN_STATUSES)
    assert Turn.mode.doc == one_of(MODES)
    assert Room.mode.doc == one_of(ROOM_MODES)
    assert Message.status.doc == one_of(MESSAGE_STATUSES)
    assert LLMCall.status.doc == one_of(CALL_STATUSES)
    assert LLMCall.purpose.doc == (
        "one of: route | specialist | evaluate | synthesis | chat | stage | draft | review"
        " | revision | summary"
    )


def test_latency_is_integer_milliseconds_in_the_api() -> None:
    props = LLMCallRead.model_json_schema()["properties"]
    assert props["latency_ms"]["type"] == "integer"
    assert [o["type"] for o in props["ttft_ms"]["anyOf"]] == ["integer", "null"]
