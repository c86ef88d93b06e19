"""Prompt and answer text in spans only on opt-in
(``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``), and log lines written on a
traced turn's behalf carry its ``trace_id``."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import httpx
import pytest

from pantheon.llm.errors import BadRequest
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.observability.logs import JsonFormatter, Redactor
from pantheon.settings import Settings
from tests.factories import create_room, create_session
from tests.observability.otlp import OtlpReceiver, one, otel_env, roots


class _Lines(logging.Handler):
    """JSON lines formatted as they are emitted (in the writer's context)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter(Redactor({})))
        self.lines: list[dict[str, object]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


@pytest.fixture
def settings(
    settings: Settings, receiver: OtlpReceiver, monkeypatch: pytest.MonkeyPatch
) -> Settings:
    for name, value in otel_env(receiver).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    return settings


@pytest.fixture
def lines() -> Iterator[_Lines]:
    handler = _Lines()
    logger = logging.getLogger("pantheon")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


async def test_content_is_captured_on_opt_in_and_logs_carry_the_trace_id(
    client: httpx.AsyncClient, scripted: ScriptedProvider, receiver: OtlpReceiver, lines: _Lines
) -> None:
    scripted.script("the answer is 391", agent="alpha")
    scripted.script(error=BadRequest("refused"), agent="beta")
    room = await create_room(client, ["alpha", "beta"], mode="roundtable")
    session = str((await create_session(client, room["id"]))["id"])
    response = await client.post(f"/v1/sessions/{session}/turns", json={"message": "17*23?"})
    turn_id = response.json()["id"]
    spans = await receiver.wait_for(
        lambda got: any(r.attributes.get("pantheon.turn.id") == turn_id for r in roots(got))
    )
    root = next(r for r in roots(spans) if r.attributes["pantheon.turn.id"] == turn_id)
    asked = json.loads(str(root.attributes["gen_ai.input.messages"]))
    assert asked == [{"role": "user", "parts": [{"type": "text", "content": "17*23?"}]}]
    alpha = one(receiver.trace(root.trace_id), "invoke_agent Alpha")
    answered = json.loads(str(alpha.attributes["gen_ai.output.messages"]))
    assert answered[0]["parts"][0]["content"] == "the answer is 391"
    beta = one(receiver.trace(root.trace_id), "invoke_agent Beta")
    assert beta.attributes["error.type"] == "bad_request"
    failed = [line for line in lines.lines if "call of beta failed" in str(line["message"])]
    assert failed
    assert {(line["turn_id"], line["trace_id"]) for line in failed} == {(turn_id, root.trace_id)}
    outside = [line for line in lines.lines if line["turn_id"] is None]
    assert all(line["trace_id"] is None for line in outside)
