"""``/openai/v1/chat/completions``, byte for byte: one turn of each mode (an agent model
for standalone, a room model for each room mode), as JSON and as SSE (with and without
``stream_options.include_usage``), against tests/golden/data/openai_chat.json."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.golden.golden import ALL_MODES, captured, check
from tests.golden.scenario import Target, prepare

VARIANTS: dict[str, dict[str, Any]] = {
    "json": {},
    "stream": {"stream": True},
    "stream_usage": {"stream": True, "stream_options": {"include_usage": True}},
}


def model_of(target: Target) -> str:
    return "agent-calc" if target.room_id is None else f"room-{target.room_id}"


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", ALL_MODES)
async def test_chat_completion_is_unchanged(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, mode: str, variant: str
) -> None:
    target = await prepare(app, client, scripted, mode)
    body = {
        "model": model_of(target),
        "messages": [{"role": "user", "content": target.message}],
        **VARIANTS[variant],
    }
    response = await client.post("/openai/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    check("openai_chat", f"{mode}/{variant}", captured(response))
