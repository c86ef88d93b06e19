"""The public SSE stream of a turn of each mode, byte for byte, against a golden file.

The golden file was written from the code before internal events (``llm_call``,
``tool_call_record``) existed: whatever the engine records internally, clients must see
exactly the same bytes, live and on replay. Ids (uuids, scripted tool call ids) and
timings are normalised; everything else, key order and spacing included, must match.
Regenerate with ``PANTHEON_WRITE_GOLDEN=1`` only for a deliberate protocol change.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from pantheon.engine.modes.specs import MODE_SPECS
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.toolbox import TestTools, calculating_agent, use_tools
from tests.factories import add_to_room, create_agent, create_room

GOLDEN = Path(__file__).parent / "golden" / "public_streams.json"
MODES = [spec.name for spec in MODE_SPECS]  # a new mode needs its golden (see below)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_CALL_ID = re.compile(r"call_\d+")
_DURATION = re.compile(r'"duration_ms":\d+')


def normalise(raw: str) -> list[str]:
    """The stream's ``id:`` / ``data:`` lines (keep-alive comments dropped), with ids
    numbered in order of appearance and tool durations zeroed."""
    names: dict[str, str] = {}

    def name(prefix: str, match: re.Match[str]) -> str:
        return names.setdefault(match.group(0), f"<{prefix}{len(names) + 1}>")

    lines = [line for line in raw.replace("\r\n", "\n").split("\n") if line and line[0] != ":"]
    text = "\n".join(lines)
    text = _UUID.sub(lambda m: name("id", m), text)
    text = _CALL_ID.sub(lambda m: name("call", m), text)
    return _DURATION.sub('"duration_ms":0', text).split("\n")


async def _session(client: httpx.AsyncClient, mode: str) -> str:
    calc = await create_agent(client, "calc", tools=["calculator"])
    if mode == "standalone":
        response = await client.post(f"/v1/agents/{calc['id']}/sessions", json={"title": "t"})
    else:
        room = await create_room(client, ["plain"], mode=mode)
        await add_to_room(client, room["id"], calc["id"])
        response = await client.post(f"/v1/rooms/{room['id']}/sessions", json={"title": "t"})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def _streams(client: httpx.AsyncClient, mode: str) -> dict[str, list[str]]:
    session_id = await _session(client, mode)
    message = "@calc and @plain: what is 17*23?" if mode == "manual" else "what is 17*23?"
    response = await client.post(
        f"/v1/sessions/{session_id}/turns",
        json={"message": message},
        headers={"Accept": "text/event-stream"},
    )
    assert response.status_code == 200, response.text
    live = normalise(response.text)
    turn_id = _UUID.findall(response.text)[0]
    replay = await client.get(f"/v1/turns/{turn_id}/events")
    return {"live": live, "replay": normalise(replay.text)}


@pytest.mark.parametrize("mode", MODES)
async def test_public_stream_is_unchanged(
    client: httpx.AsyncClient, scripted: ScriptedProvider, app: FastAPI, mode: str
) -> None:
    use_tools(app, TestTools())
    scripted.script(calculating_agent, agent="calc")
    scripted.script('{"agents": ["calc", "plain"]}', purpose="route")
    scripted.script("the synthesis", purpose="synthesis")
    streams = await _streams(client, mode)
    assert streams["live"] == streams["replay"]
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if os.environ.get("PANTHEON_WRITE_GOLDEN") == "1":
        golden[mode] = streams["live"]
        GOLDEN.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
    assert mode in golden, f"no golden for {mode!r}: write it with PANTHEON_WRITE_GOLDEN=1"
    assert streams["live"] == golden[mode]
