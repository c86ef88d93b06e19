"""What one LLM call answered, as the internal ``llm_call`` event keeps it for a replay.

Kept apart from the catalogue (``engine/events.py``) only for size; ``LLMCallEvent.output``
is one of these.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RecordedToolCall(BaseModel):
    """A tool call as the model asked for it (``arguments``: its text as written)."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: str


class CallOutput(BaseModel):
    """What one LLM call answered, enough to serve it again (docs/replay.md): the text
    as streamed (``parts``, one per delta), the tool calls, and how it ended
    (``finish_reason``: ``stop`` | ``tool_calls`` | ``error`` | ``cancelled``; an error's
    code is the call's ``error_code``, ``refusal`` the upstream's reason when it refused
    the request as invalid). Usage is the call's own token fields."""

    model_config = ConfigDict(frozen=True)

    parts: tuple[str, ...] = ()
    tool_calls: tuple[RecordedToolCall, ...] = ()
    finish_reason: str = "stop"
    refusal: str | None = None
