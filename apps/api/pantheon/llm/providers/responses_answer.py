"""Read a Responses API answer, streamed or not, into ``StreamItem`` values.

Streamed: ``response.output_text.delta`` gives a ``TextDelta`` at once; function calls
are taken whole from ``response.output_item.done`` (or assembled from
``response.output_item.added`` and the ``response.function_call_arguments.delta``s when
the upstream never sends the done item) and come out when the response ends, with the
usage of ``response.completed`` / ``response.incomplete``. ``response.failed`` and
``error`` are upstream failures; a stream that ends without a terminal event is cut.
Not streamed: the response object's ``output`` gives the same items in the same order.
Everything read is untrusted: wrong types are skipped, text is cleaned, sizes bounded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pantheon.llm.errors import BadRequest, RateLimited, Unavailable
from pantheon.llm.providers.tool_stream import (
    MAX_ARGUMENT_CHARS,
    MAX_ID_CHARS,
    MAX_NAME_CHARS,
    MAX_TOOL_CALLS,
    new_call_id,
)
from pantheon.llm.types import StreamItem, TextDelta, ToolCall, Usage
from pantheon.text import clean_text

NOT_A_RESPONSE = "upstream did not answer with an event stream or a Responses API response"
TERMINAL = frozenset({"response.completed", "response.incomplete"})
_ERROR_CHARS = 300


@dataclass
class _Call:
    call_id: str
    name: str
    parts: list[str] = field(default_factory=list)
    arguments: str | None = None  # the done item's, whole

    def tool_call(self) -> ToolCall:
        text = self.arguments if self.arguments is not None else "".join(self.parts)
        return ToolCall(self.call_id, self.name, clean_text(text[:MAX_ARGUMENT_CHARS]))


@dataclass
class ResponsesStreamReader:
    """The state of one streamed response: its function calls and whether it ended."""

    new_id: Callable[[], str] = new_call_id
    finished: bool = False
    _calls: dict[str, _Call] = field(default_factory=dict)  # by output item id

    def event(self, event: Mapping[str, Any]) -> list[StreamItem]:
        """The items one streamed event gives (calls and usage only at the end)."""
        kind = event.get("type")
        if kind == "response.output_text.delta":
            delta = event.get("delta")
            return [TextDelta(clean_text(delta))] if isinstance(delta, str) and delta else []
        if kind in ("response.output_item.added", "response.output_item.done"):
            self._item(event.get("item"), done=kind.endswith(".done"))
        elif kind == "response.function_call_arguments.delta":
            call = self._calls.get(str(event.get("item_id")))
            delta = event.get("delta")
            if call is not None and isinstance(delta, str):
                call.parts.append(delta)
        elif kind in TERMINAL:
            self.finished = True
            response = event.get("response")
            calls: list[StreamItem] = [c.tool_call() for c in self._calls.values() if c.name]
            return calls + usage_of(response if isinstance(response, Mapping) else {})
        elif kind in ("response.failed", "error"):
            raise failure(event)
        return []

    def _item(self, item: object, *, done: bool) -> None:
        if not isinstance(item, Mapping) or item.get("type") != "function_call":
            return
        key = str(item.get("id") or item.get("call_id") or len(self._calls))
        call = self._calls.get(key)
        if call is None:
            if len(self._calls) >= MAX_TOOL_CALLS:
                return
            call_id = _text(item.get("call_id"), MAX_ID_CHARS) or self.new_id()
            call = self._calls[key] = _Call(call_id, _text(item.get("name"), MAX_NAME_CHARS))
        arguments = item.get("arguments")
        if done and isinstance(arguments, str):
            call.arguments = arguments
        if done and not call.name:
            call.name = _text(item.get("name"), MAX_NAME_CHARS)


def failure(event: Mapping[str, Any]) -> Exception:
    """The ``LLMError`` for a ``response.failed`` or ``error`` event."""
    response = event.get("response")
    error = response.get("error") if isinstance(response, Mapping) else event
    error = error if isinstance(error, Mapping) else {}
    code = str(error.get("code") or "")
    message = clean_text(" ".join(str(error.get("message") or "failed").split()))
    text = f"upstream response failed ({code or 'no code'}): {message[:_ERROR_CHARS]}"
    if "rate_limit" in code:
        return RateLimited(text)
    if code in ("invalid_prompt", "invalid_request_error", "context_length_exceeded"):
        return BadRequest(text, refusal=message[:_ERROR_CHARS])
    return Unavailable(text)


def parse_event(data: str) -> dict[str, Any]:
    """One SSE ``data`` payload as a JSON object; ``Unavailable`` when it is not one."""
    try:
        event = json.loads(data)
    except (ValueError, RecursionError):
        raise Unavailable("malformed upstream stream event") from None
    if not isinstance(event, dict):
        raise Unavailable("malformed upstream stream event")
    return event


def response_items(body: bytes, new_id: Callable[[], str] = new_call_id) -> list[StreamItem]:
    """The items of a non-streamed response object; ``BadRequest`` if it is none."""
    try:
        response = json.loads(body)
    except (ValueError, RecursionError):
        raise BadRequest(NOT_A_RESPONSE) from None
    output = response.get("output") if isinstance(response, dict) else None
    if not isinstance(output, list):
        raise BadRequest(NOT_A_RESPONSE)
    if response.get("status") == "failed":
        raise failure({"response": response})
    reader = ResponsesStreamReader(new_id)
    texts: list[StreamItem] = []
    for item in output:
        if isinstance(item, Mapping) and item.get("type") == "message":
            texts.extend(_message_text(item))
        reader.event({"type": "response.output_item.done", "item": item})
    return texts + reader.event({"type": "response.completed", "response": response})


def _message_text(item: Mapping[str, Any]) -> list[StreamItem]:
    content = item.get("content")
    parts = content if isinstance(content, list) else []
    return [
        TextDelta(clean_text(p["text"]))
        for p in parts
        if isinstance(p, Mapping) and p.get("type") == "output_text"
        and isinstance(p.get("text"), str) and p["text"]
    ]  # fmt: skip


def usage_of(response: Mapping[str, Any]) -> list[StreamItem]:
    """The response's usage as a ``Usage``, when it reports one."""
    usage = response.get("usage")
    if not isinstance(usage, Mapping):
        return []
    return [Usage(_count(usage.get("input_tokens")), _count(usage.get("output_tokens")))]


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    try:
        return max(0, int(value))
    except (OverflowError, ValueError):
        return 0


def _text(value: object, limit: int) -> str:
    return clean_text(value[:limit]) if isinstance(value, str) else ""
