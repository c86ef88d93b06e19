"""An upstream that refuses a request as invalid fails the agent at once, saying why;
a genuine outage is still retried (issue 21: 102 useless calls in one session)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import LLMSettings, Settings
from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.sse_client import stream_turn
from tests.turns_api.apps import running_client

ATTEMPTS = 3
# What llama-cpp-python's server answered to "content": null (a 500, not a 4xx).
LLAMA_VALIDATION = json.dumps(
    {
        "error": {
            "message": "7 validation errors:\n  {'type': 'string_type', 'loc': ('body', "
            "'messages', 2, 'ChatCompletionRequestAssistantMessage', 'content'), 'msg': "
            "'Input should be a valid string', 'input': None}" + " padding" * 200
        }
    }
)


async def _failed_agent(
    settings: Settings, scripted: ScriptedProvider, upstream: MockOpenAI, tmp_path: Path
) -> dict[str, Any]:
    """Run one turn on the mock upstream; the ``agent_failed`` event it ends with."""
    config = tmp_path / "pantheon.toml"
    config.write_text(f'[models.up]\nbase_url = "{upstream.base_url}"\nmodel = "m"\n')
    fast = LLMSettings(backoff_base_s=0.001, backoff_max_s=0.005, max_attempts=ATTEMPTS)
    chosen = settings.model_copy(update={"config_file": config, "default_model": "up", "llm": fast})
    async with running_client(chosen, scripted) as client:
        room = await create_room(client, ["alpha"])
        session = (await create_session(client, room["id"]))["id"]
        events = await stream_turn(client, session, {"message": "hi"})
    assert events[-1][1]["status"] == "failed"
    return next(data for _, data in events if data["type"] == "agent_failed")


@pytest.mark.parametrize(
    ("status", "body", "reason"),
    [
        (500, LLAMA_VALIDATION, "Input should be a valid string"),
        (400, '{"error": {"message": "max_tokens is too large: 99999"}}', "max_tokens is too"),
        (422, '{"detail": [{"msg": "field required"}]}', '"field required"'),
    ],
)
async def test_a_refused_request_fails_at_once_and_says_why(
    settings: Settings,
    scripted: ScriptedProvider,
    upstream: MockOpenAI,
    tmp_path: Path,
    status: int,
    body: str,
    reason: str,
) -> None:
    upstream.queue(*[Reply(status=status, body=body)] * ATTEMPTS)
    failed = await _failed_agent(settings, scripted, upstream, tmp_path)
    assert len(upstream.received) == 1  # no retry can make an invalid request valid
    assert failed["code"] == "bad_request"
    assert failed["error"].startswith("The model provider refused the request as invalid: ")
    assert reason in failed["error"]
    assert len(failed["error"]) < 300  # the upstream's text, bounded


async def test_an_authentication_refusal_keeps_its_text_out_of_the_event(
    settings: Settings, scripted: ScriptedProvider, upstream: MockOpenAI, tmp_path: Path
) -> None:
    body = '{"error": {"message": "Incorrect API key provided: sk-abc***xyz"}}'
    upstream.queue(Reply(status=401, body=body))
    failed = await _failed_agent(settings, scripted, upstream, tmp_path)
    assert len(upstream.received) == 1
    assert failed["code"] == "bad_request"
    assert failed["error"] == "The model provider rejected the request."


async def test_an_outage_is_still_retried(
    settings: Settings, scripted: ScriptedProvider, upstream: MockOpenAI, tmp_path: Path
) -> None:
    upstream.queue(*[Reply(status=500, body='{"error": {"message": "CUDA out of memory"}}')] * 3)
    failed = await _failed_agent(settings, scripted, upstream, tmp_path)
    assert len(upstream.received) == ATTEMPTS
    assert failed["code"] == "upstream_error"  # it answered 500: a server error, not unreachable
    assert "CUDA" not in failed["error"]
