"""The Responses API request the facade reads (``POST /openai/v1/responses``).

Unknown fields are kept (``extra="allow"``) so that ``request.py`` can refuse each one by
name instead of FastAPI dropping it silently.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pantheon.schemas import RequestBody


class InputPart(BaseModel):
    """One content part of an input message; text parts only."""

    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class InputItem(BaseModel):
    """One ``input`` item: a message (``type`` absent or ``message``) or another kind."""

    model_config = ConfigDict(extra="allow")
    type: str | None = None
    role: str | None = None
    content: str | list[InputPart] | None = None


class ResponseCreate(RequestBody):
    """``POST /openai/v1/responses``."""

    model_config = ConfigDict(extra="allow")
    model: str = Field(min_length=1, max_length=200, description="room-<id> or agent-<key>")
    input: str | list[InputItem] = Field(description="the user's message, or message items")
    instructions: str | None = None
    previous_response_id: str | None = Field(default=None, max_length=200)
    stream: bool | None = False
    background: bool | None = False
    store: bool | None = True
    metadata: dict[str, str] | None = Field(default=None, max_length=16)
    # Accepted for compatibility, not applied: a turn is several calls, each with its
    # agent's own model settings (docs/openai.md).
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, ge=0, le=1)
    max_output_tokens: int | None = Field(default=None, ge=1)
    user: str | None = Field(default=None, max_length=256)
    safety_identifier: str | None = Field(default=None, max_length=256)
    service_tier: str | None = Field(default=None, max_length=32)
    parallel_tool_calls: bool | None = None
    truncation: str | None = Field(default=None, max_length=32)

    def extra_fields(self) -> dict[str, Any]:
        return dict(self.model_extra or {})
