"""``/agui/rooms/{room_id}``, byte for byte: the SSE stream of one run of each room mode
(a new thread), against tests/golden/data/agui.json."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.agui.conftest import post_run, run_input
from tests.golden.golden import ROOM_MODES, captured, check
from tests.golden.scenario import prepare


@pytest.mark.parametrize("mode", ROOM_MODES)
async def test_run_stream_is_unchanged(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider, mode: str
) -> None:
    target = await prepare(app, client, scripted, mode)
    assert target.room_id is not None
    response = await post_run(client, target.room_id, run_input(target.message))
    assert response.status_code == 200, response.text
    check("agui", mode, captured(response))
