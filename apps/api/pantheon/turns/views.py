"""ORM rows to read schemas for turns (usage is stored flat, read nested)."""

from __future__ import annotations

from pantheon.db.models import LLMCall, Message, ToolCallRow, Turn
from pantheon.sessions.schemas import MessageRead
from pantheon.turns.schemas import (
    LLMCallRead,
    ToolCallRead,
    TurnDetail,
    TurnRead,
    TurnUsageRead,
)


def _fields(turn: Turn) -> dict[str, object]:
    return {
        "id": turn.id,
        "session_id": turn.session_id,
        "mode": turn.mode,
        "status": turn.status,
        "message": turn.message,
        "output": turn.output,
        "rounds": turn.rounds,
        "usage": TurnUsageRead(
            input_tokens=turn.input_tokens,
            output_tokens=turn.output_tokens,
            cost_usd=turn.cost_usd,
        ),
        "error_code": turn.error_code,
        "context_dropped": turn.context_dropped,
        "created_at": turn.created_at,
        "finished_at": turn.finished_at,
        "continues": turn.continues_id,
    }


def turn_read(turn: Turn) -> TurnRead:
    return TurnRead.model_validate(_fields(turn))


def turn_detail(
    turn: Turn, messages: list[Message], calls: list[LLMCall], tool_calls: list[ToolCallRow]
) -> TurnDetail:
    return TurnDetail.model_validate(
        {
            **_fields(turn),
            "messages": [MessageRead.model_validate(m) for m in messages],
            "llm_calls": [LLMCallRead.model_validate(c) for c in calls],
            "tool_calls": [ToolCallRead.model_validate(c) for c in tool_calls],
        }
    )
