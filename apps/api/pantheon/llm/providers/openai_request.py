"""The JSON body of an OpenAI-compatible ``POST /chat/completions``.

- Messages: an assistant message with calls carries ``tool_calls`` and a string
  ``content`` (``""`` when it said nothing: OpenAI takes ``""`` as well as ``null``, but
  llama-cpp-python's server answers ``null`` with a 500, "Input should be a valid
  string"); a ``tool`` message carries ``tool_call_id``.
- Tools: OpenAI function tools, with ``tool_choice: "auto"`` (OpenAI's default, but
  llama-cpp-python's function-calling format ignores the tools without it).
- Structured output, by the alias's ``structured_output``: ``json_schema`` -> OpenAI's
  ``{"type": "json_schema", "json_schema": {name, schema, strict: false}}`` (not strict:
  OpenAI's strict mode rejects open objects such as the orchestrator's
  ``instructions``); ``json_object`` -> the llama.cpp servers'
  ``{"type": "json_object", "schema": ...}``; ``none`` -> nothing.
- Streaming with usage, except when the request carries tools and the alias says its
  upstream cannot stream them (``stream_tools = false``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pantheon.llm.types import (
    ChatMessage,
    LLMRequest,
    ModelAlias,
    ResponseFormat,
    StructuredOutput,
    ToolDefinition,
)

_SCHEMA_NAME = re.compile(r"[^A-Za-z0-9_-]")


def request_body(alias: ModelAlias, request: LLMRequest) -> dict[str, Any]:
    """The body for ``request`` on ``alias``'s upstream."""
    stream = streams(alias, request)
    body: dict[str, Any] = {
        "model": alias.model,
        "messages": [_message(m) for m in request.messages],
        "stream": stream,
    }
    if stream:
        body["stream_options"] = {"include_usage": True}
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.tools:
        body["tools"] = [_tool(t) for t in request.tools]
        body["tool_choice"] = "auto"
    if request.response_format is not None:
        response_format = _response_format(alias.structured_output, request.response_format)
        if response_format is not None:
            body["response_format"] = response_format
    return body


def streams(alias: ModelAlias, request: LLMRequest) -> bool:
    """Whether to ask for an event stream: always, unless tools go to a non-streaming alias."""
    return alias.stream_tools or not request.tools


def _message(message: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ]
    if message.role == "tool" and message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    return out


def _tool(tool: ToolDefinition) -> dict[str, Any]:
    function = {
        "name": tool.name,
        "description": tool.description,
        "parameters": plain_json(tool.parameters),
    }
    return {"type": "function", "function": function}


def _response_format(kind: StructuredOutput, fmt: ResponseFormat) -> dict[str, Any] | None:
    schema = plain_json(fmt.schema)
    if kind == "json_schema":
        name = _SCHEMA_NAME.sub("_", fmt.name)[:64] or "response"
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": False},
        }
    if kind == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


def plain_json(value: Any) -> Any:
    """``value`` with every mapping a ``dict`` and every tuple a ``list``, for ``json=``."""
    if isinstance(value, Mapping):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(v) for v in value]
    return value
