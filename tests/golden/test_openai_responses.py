"""``/openai/v1/responses``, byte for byte: one turn of each mode (an agent model for
standalone, a room model for each room mode), as JSON and as a stream of Responses
events, against tests/golden/data/openai_responses.json."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.golden.golden import ALL_MODES, captured, check
from tests.golden.scenario import prepare
from tests.golden.test_openai_chat import model_of

VARIANTS: dict[str, dict[str, Any]] = {"json": {}, "stream": {"stream": True}}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", ALL_MODES)
async def test_response_is_unchanged(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, mode: str, variant: str
) -> None:
    target = await prepare(app, client, scripted, mode)
    body = {"model": model_of(target), "input": target.message, **VARIANTS[variant]}
    response = await client.post("/openai/v1/responses", json=body)
    assert response.status_code == 200, response.text
    check("openai_responses", f"{mode}/{variant}", captured(response))
