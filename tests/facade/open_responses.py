"""What the Open Responses specification requires of a response object and of each stream
event Pantheon sends, as JSON Schema, for tests to validate against.

Written by hand from the specification's OpenAPI document (openresponses/openresponses,
``public/openapi/openapi.json``, version 2026-04-24, and its ``ResponseResource.json``,
which also requires ``user``): every field it lists as required, with its type. Its
compliance suite validates responses and events with schemas generated from that
document; it is not published on a package registry, so CI cannot run it (docs/openai.md).
Only the item, content and event kinds Pantheon emits are spelled out; an unknown event
type fails validation.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

_INT: dict[str, Any] = {"type": "integer"}
_STR: dict[str, Any] = {"type": "string"}
_NUM: dict[str, Any] = {"type": "number"}


def _obj(required: dict[str, Any], **optional: Any) -> dict[str, Any]:
    """An object that must have every field of ``required`` (other fields are allowed)."""
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **optional},
    }


def _const(value: str) -> dict[str, Any]:
    return {"type": "string", "const": value}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


_STATUS = {"enum": ["in_progress", "completed", "incomplete"]}
_OUTPUT_TEXT = _obj(
    {"type": _const("output_text"), "text": _STR, "annotations": {"type": "array"}},
    logprobs={"type": "array"},
)
_SUMMARY_TEXT = _obj({"type": _const("summary_text"), "text": _STR})
_PART = {"oneOf": [_OUTPUT_TEXT, _SUMMARY_TEXT]}
_MESSAGE = _obj(
    {
        "type": _const("message"),
        "id": _STR,
        "status": _STATUS,
        "role": {"enum": ["user", "assistant", "system", "developer"]},
        "content": {"type": "array", "items": _PART},
    }
)
_FUNCTION_CALL = _obj(
    {
        "type": _const("function_call"),
        "id": _STR,
        "call_id": _STR,
        "name": _STR,
        "arguments": _STR,
        "status": _STATUS,
    }
)
_REASONING = _obj(
    {"type": _const("reasoning"), "id": _STR, "summary": {"type": "array", "items": _PART}}
)
ITEM = {"oneOf": [_MESSAGE, _FUNCTION_CALL, _REASONING]}
_TOKENS = {
    "input_tokens": _INT,
    "output_tokens": _INT,
    "total_tokens": _INT,
    "input_tokens_details": _obj({"cached_tokens": _INT}),
    "output_tokens_details": _obj({"reasoning_tokens": _INT}),
}
_TOOL_CHOICE = {
    "oneOf": [
        {"enum": ["none", "auto", "required"]},
        _obj({"type": _const("function")}, name=_STR),
        _obj({"type": _const("allowed_tools"), "tools": {"type": "array"}, "mode": _STR}),
    ]
}
_REASONING_CONFIG = _obj({"effort": _nullable(_STR), "summary": _nullable(_STR)})

RESPONSE = _obj(
    {
        "id": _STR,
        "object": _const("response"),
        "created_at": _INT,
        "completed_at": _nullable(_INT),
        "status": _STR,
        "incomplete_details": _nullable(_obj({"reason": _STR})),
        "model": _STR,
        "previous_response_id": _nullable(_STR),
        "instructions": _nullable(_STR),
        "output": {"type": "array", "items": ITEM},
        "error": _nullable(_obj({"code": _STR, "message": _STR})),
        "tools": {"type": "array"},
        "tool_choice": _TOOL_CHOICE,
        "truncation": {"enum": ["auto", "disabled"]},
        "parallel_tool_calls": {"type": "boolean"},
        "text": _obj({"format": _obj({"type": {"enum": ["text", "json_object", "json_schema"]}})}),
        "top_p": _NUM,
        "presence_penalty": _NUM,
        "frequency_penalty": _NUM,
        "top_logprobs": _INT,
        "temperature": _NUM,
        "reasoning": _nullable(_REASONING_CONFIG),
        "user": _nullable(_STR),
        "usage": _nullable(_obj(_TOKENS)),
        "max_output_tokens": _nullable(_INT),
        "max_tool_calls": _nullable(_INT),
        "store": {"type": "boolean"},
        "background": {"type": "boolean"},
        "service_tier": _STR,
        "metadata": {},
        "safety_identifier": _nullable(_STR),
        "prompt_cache_key": _nullable(_STR),
    }
)

_SEQ = {"type": _STR, "sequence_number": _INT}
_AT_ITEM = {**_SEQ, "item_id": _STR, "output_index": _INT}
EVENTS: dict[str, dict[str, Any]] = {
    **{
        kind: _obj({**_SEQ, "response": RESPONSE})
        for kind in (
            "response.created",
            "response.queued",
            "response.in_progress",
            "response.completed",
            "response.failed",
            "response.incomplete",
        )
    },
    "response.output_item.added": _obj({**_SEQ, "output_index": _INT, "item": ITEM}),
    "response.output_item.done": _obj({**_SEQ, "output_index": _INT, "item": ITEM}),
    "response.content_part.added": _obj({**_AT_ITEM, "content_index": _INT, "part": _PART}),
    "response.content_part.done": _obj({**_AT_ITEM, "content_index": _INT, "part": _PART}),
    "response.output_text.delta": _obj(
        {**_AT_ITEM, "content_index": _INT, "delta": _STR}, logprobs={"type": "array"}
    ),
    "response.output_text.done": _obj(
        {**_AT_ITEM, "content_index": _INT, "text": _STR}, logprobs={"type": "array"}
    ),
    "response.reasoning_summary_part.added": _obj(
        {**_AT_ITEM, "summary_index": _INT, "part": _PART}
    ),
    "response.reasoning_summary_part.done": _obj(
        {**_AT_ITEM, "summary_index": _INT, "part": _PART}
    ),
    "response.reasoning_summary_text.delta": _obj(
        {**_AT_ITEM, "summary_index": _INT, "delta": _STR}
    ),
    "response.reasoning_summary_text.done": _obj({**_AT_ITEM, "summary_index": _INT, "text": _STR}),
    "response.function_call_arguments.delta": _obj({**_AT_ITEM, "delta": _STR}),
    "response.function_call_arguments.done": _obj({**_AT_ITEM, "arguments": _STR}),
}


def problems(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Every way ``instance`` breaks ``schema``, as "path: message" (empty: it conforms)."""
    found = Draft202012Validator(schema).iter_errors(instance)
    return sorted(f"{'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in found)


def response_problems(response: Any) -> list[str]:
    return problems(response, RESPONSE)


def event_problems(event: dict[str, Any]) -> list[str]:
    """What is wrong with one stream event; an event type the specification lacks is."""
    schema = EVENTS.get(str(event.get("type")))
    if schema is None:
        return [f"<root>: unknown event type {event.get('type')!r}"]
    return [f"{event['type']}: {p}" for p in problems(event, schema)]
