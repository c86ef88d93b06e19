"""Read an OpenAI-style answer, streamed or not, into ``StreamItem`` values.

Streamed: each ``chat.completion.chunk`` gives its ``choices[0].delta.content`` as a
``TextDelta`` at once; ``delta.tool_calls`` fragments are assembled (``tool_stream``) and
come out as complete ``ToolCall`` items when the choice finishes (a ``finish_reason``) or
the stream ends with ``[DONE]``; ``usage`` becomes a ``Usage``. A chunk that carries a
whole ``message`` instead of a ``delta`` (some servers do) is read the same way.

Not streamed (``stream: false``, or an upstream that ignored ``stream: true``): the
``chat.completion``'s ``message`` gives the same items in the same order: text, calls,
usage. Everything read is untrusted: wrong types are skipped, text is cleaned
(``pantheon.text.clean_text``), and only a body that is not an answer at all is an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pantheon.llm.errors import BadRequest, Unavailable
from pantheon.llm.providers.openai_errors import error_text
from pantheon.llm.providers.tool_stream import ToolCallAssembler, calls_of, new_call_id
from pantheon.llm.types import StreamItem, TextDelta, Usage
from pantheon.text import clean_text

NOT_AN_ANSWER = "upstream did not answer with an event stream or a chat completion"


class StreamReader:
    """The state of one streamed answer: pending tool calls and whether it finished."""

    def __init__(self, new_id: Callable[[], str] = new_call_id) -> None:
        self.finished = False
        self._tools = ToolCallAssembler(new_id)

    def chunk(self, chunk: Mapping[str, Any]) -> list[StreamItem]:
        """The items of one chunk; calls are held back until the choice finishes."""
        items: list[StreamItem] = []
        choice = _first_choice(chunk)
        delta = choice.get("delta")
        if not isinstance(delta, Mapping):
            delta = choice.get("message")
        if isinstance(delta, Mapping):
            items.extend(_text(delta))
            fragments = delta.get("tool_calls")
            for fragment in fragments if isinstance(fragments, list) else ():
                self._tools.add(fragment)
        if choice.get("finish_reason"):
            self.finished = True
            items.extend(self._tools.finish())
        items.extend(_usage(chunk))
        return items

    def end(self) -> list[StreamItem]:
        """Calls still pending when the stream says ``[DONE]`` without a finish_reason."""
        self.finished = True
        return list(self._tools.finish())


def parse_chunk(data: str) -> dict[str, Any]:
    """One SSE ``data`` payload as a JSON object; ``Unavailable`` when it is not one."""
    try:
        chunk = json.loads(data)
    except (ValueError, RecursionError):
        raise Unavailable("malformed upstream stream chunk") from None
    if not isinstance(chunk, dict):
        raise Unavailable("malformed upstream stream chunk")
    if "error" in chunk:
        # Some gateways (OpenRouter, vLLM) report failures inside an open stream.
        raise Unavailable(f"upstream error mid-stream: {error_text(chunk)}")
    return chunk


def completion_items(body: bytes, new_id: Callable[[], str] = new_call_id) -> list[StreamItem]:
    """The items of a non-streamed ``chat.completion`` body; ``BadRequest`` if it is none."""
    try:
        answer = json.loads(body)
    except (ValueError, RecursionError):
        raise BadRequest(NOT_AN_ANSWER) from None
    choices = answer.get("choices") if isinstance(answer, dict) else None
    if not isinstance(choices, list) or not choices:
        raise BadRequest(NOT_AN_ANSWER)
    message = _first_choice(answer).get("message")
    items: list[StreamItem] = []
    if isinstance(message, Mapping):
        items.extend(_text(message))
        items.extend(calls_of(message.get("tool_calls"), new_id=new_id))
    items.extend(_usage(answer))
    return items


def _first_choice(answer: Mapping[str, Any]) -> Mapping[str, Any]:
    choices = answer.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    return choice if isinstance(choice, Mapping) else {}


def _text(message: Mapping[str, Any]) -> list[StreamItem]:
    content = message.get("content")
    return [TextDelta(clean_text(content))] if isinstance(content, str) and content else []


def _usage(answer: Mapping[str, Any]) -> list[StreamItem]:
    usage = answer.get("usage")
    if not isinstance(usage, Mapping):
        return []
    prompt = _count(usage.get("prompt_tokens"))
    return [Usage(input_tokens=prompt, output_tokens=_count(usage.get("completion_tokens")))]


def _count(value: object) -> int:
    """A token count from untrusted JSON: a non-negative int, anything else is 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    try:
        return max(0, int(value))
    except (OverflowError, ValueError):  # inf, nan
        return 0
