"""Structured output on the wire: each alias kind sends the body its upstream expects."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from pantheon.llm.providers.openai_compat import OpenAICompatProvider
from pantheon.llm.types import ResponseFormat, StructuredOutput
from tests.llm.mock_openai import REQUEST, MockOpenAI
from tests.llm.streams import collect

ROUTE_SCHEMA = {
    "type": "object",
    "properties": {
        "agents": {"type": "array", "items": {"type": "string"}},
        "instructions": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "required": ["agents"],
}
ROUTED = replace(REQUEST, response_format=ResponseFormat("route", ROUTE_SCHEMA))


async def sent_format(
    provider: OpenAICompatProvider, mock: MockOpenAI, kind: StructuredOutput
) -> object:
    await collect(provider.stream(mock.alias(structured_output=kind), ROUTED))
    return mock.received[-1].body.get("response_format")


async def test_json_schema_is_openais_format_not_strict(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    assert await sent_format(openai_provider, mock_openai, "json_schema") == {
        "type": "json_schema",
        "json_schema": {"name": "route", "schema": ROUTE_SCHEMA, "strict": False},
    }


async def test_json_object_is_llama_cpps_format(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    assert await sent_format(openai_provider, mock_openai, "json_object") == {
        "type": "json_object",
        "schema": ROUTE_SCHEMA,
    }


async def test_none_sends_nothing(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    assert await sent_format(openai_provider, mock_openai, "none") is None


@pytest.mark.parametrize("kind", ["json_schema", "json_object"])
async def test_no_response_format_on_the_request_sends_nothing(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI, kind: StructuredOutput
) -> None:
    await collect(openai_provider.stream(mock_openai.alias(structured_output=kind), REQUEST))
    assert "response_format" not in mock_openai.received[0].body


async def test_schema_name_is_made_valid_and_mappings_become_json(
    openai_provider: OpenAICompatProvider, mock_openai: MockOpenAI
) -> None:
    schema = MappingProxyType({"type": "object", "required": ("a",)})
    request = replace(REQUEST, response_format=ResponseFormat("route decision/v1" * 9, schema))
    alias = mock_openai.alias(structured_output="json_schema")
    await collect(openai_provider.stream(alias, request))
    sent = mock_openai.received[0].body["response_format"]["json_schema"]
    assert sent["name"] == ("route_decision_v1" * 9)[:64]
    assert sent["schema"] == {"type": "object", "required": ["a"]}
