"""The JSON body of a Responses API ``POST /responses`` for an alias with ``api = "responses"``.

The same ``LLMRequest`` as chat completions, in the Responses API's items:
- messages in order as ``input`` items: system, user and assistant text as role messages;
  an assistant's tool calls as ``function_call`` items, a tool message as the
  ``function_call_output`` of its call;
- tools as flat ``function`` tools (not strict, like chat's), ``tool_choice: "auto"``;
- structured output in ``text.format`` by the alias's ``structured_output``;
- ``store: false``: the upstream keeps nothing, each call sends the whole conversation;
- always streamed, unless tools go to an alias that cannot stream them.
"""

from __future__ import annotations

import re
from typing import Any

from pantheon.llm.providers.openai_request import plain_json, streams
from pantheon.llm.types import ChatMessage, LLMRequest, ModelAlias, ResponseFormat, ToolDefinition

_SCHEMA_NAME = re.compile(r"[^A-Za-z0-9_-]")


def responses_body(alias: ModelAlias, request: LLMRequest) -> dict[str, Any]:
    """The body for ``request`` on ``alias``'s Responses upstream."""
    body: dict[str, Any] = {
        "model": alias.model,
        "input": [item for m in request.messages for item in _items(m)],
        "stream": streams(alias, request),
        "store": False,
    }
    if request.max_tokens is not None:
        body["max_output_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.tools:
        body["tools"] = [_tool(t) for t in request.tools]
        body["tool_choice"] = "auto"
    if request.response_format is not None:
        text_format = _text_format(alias, request.response_format)
        if text_format is not None:
            body["text"] = {"format": text_format}
    return body


def _items(message: ChatMessage) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {
                "type": "function_call_output",
                "call_id": message.tool_call_id or "",
                "output": message.content,
            }
        ]
    items: list[dict[str, Any]] = []
    if message.content or not message.tool_calls:
        items.append({"role": message.role, "content": message.content})
    items.extend(
        {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}
        for c in message.tool_calls
    )
    return items


def _tool(tool: ToolDefinition) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": plain_json(tool.parameters),
        "strict": False,
    }


def _text_format(alias: ModelAlias, fmt: ResponseFormat) -> dict[str, Any] | None:
    if alias.structured_output == "json_schema":
        name = _SCHEMA_NAME.sub("_", fmt.name)[:64] or "response"
        return {
            "type": "json_schema",
            "name": name,
            "schema": plain_json(fmt.schema),
            "strict": False,
        }
    if alias.structured_output == "json_object":
        return {"type": "json_object"}
    return None
