"""OpenAI wire shapes the facade reads and writes (a subset of OpenAI's, same names).

Request models accept unknown fields (``extra="allow"``) so that ``request.py`` can reject
each one by name instead of FastAPI dropping it silently.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pantheon.engine.events import TokenUsage
from pantheon.schemas import RequestBody

MessageRole = Literal["system", "developer", "user", "assistant", "tool", "function"]


class ContentPart(BaseModel):
    """One part of a multi-part message; only ``text`` parts are supported."""

    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: MessageRole
    content: str | list[ContentPart] | None = None
    name: str | None = Field(default=None, max_length=256)


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class ChatCompletionCreate(RequestBody):
    """``POST /openai/v1/chat/completions``."""

    model_config = ConfigDict(extra="allow")
    model: str = Field(min_length=1, max_length=200, description="room-<id> or agent-<key>")
    messages: list[ChatMessageIn] = Field(min_length=1)
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    n: int | None = Field(default=None, ge=1, description="only 1 is supported")
    # Accepted for compatibility, not applied: a turn is several calls, each with the
    # agent's own model settings (docs/openai.md).
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, ge=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    stop: str | list[str] | None = Field(default=None)
    user: str | None = Field(default=None, max_length=256)
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    seed: int | None = None


class ModelCard(BaseModel):
    """A room or agent, as an OpenAI model."""

    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str
    name: str = Field(description="A readable name (Open WebUI shows it)")
    kind: Literal["room", "agent"]
    mode: str = Field(description="The mode a completion runs: the room's, or standalone")


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int

    @classmethod
    def of(cls, tokens: TokenUsage) -> Usage:
        """A turn's token usage under OpenAI's names."""
        prompt, completion = tokens.input_tokens, tokens.output_tokens
        return cls(
            prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
        )


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str
    reasoning_content: str | None = Field(
        default=None, description="routing, rounds and tool activity (Pantheon extension)"
    )


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class ChatCompletion(BaseModel):
    """The non-streamed answer; ``id`` is ``chatcmpl-<turn id>``."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage


def chunk(
    completion_id: str,
    created: int,
    model: str,
    delta: dict[str, Any] | None,
    *,
    finish_reason: str | None = None,
    usage: Usage | None = None,
    with_usage_field: bool = False,
) -> dict[str, Any]:
    """One ``chat.completion.chunk``; ``delta=None`` gives the usage chunk (no choices)."""
    body: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": []
        if delta is None
        else [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}],
    }
    if with_usage_field or usage is not None:
        body["usage"] = usage.model_dump() if usage is not None else None
    return body
