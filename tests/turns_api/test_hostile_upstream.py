"""A chaos upstream through the whole service: a turn that meets a hanging, dripping or
hour-long-wait upstream ends within the configured deadlines, and upstream text that
cannot be stored (lone surrogates, NUL) is replaced, never losing the turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import LLMSettings, Settings, TurnSettings
from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply, sse
from tests.sse_client import stream_turn, types
from tests.turns_api.apps import running_client


def _chaos_settings(
    settings: Settings, upstream: MockOpenAI, tmp_path: Path, **llm: Any
) -> Settings:
    config = tmp_path / "pantheon.toml"
    config.write_text(f'[models.chaos]\nbase_url = "{upstream.base_url}"\nmodel = "m"\n')
    fast = LLMSettings(backoff_base_s=0.001, backoff_max_s=0.005, max_attempts=3, **llm)
    return settings.model_copy(
        update={"config_file": config, "default_model": "chaos", "llm": fast}
    )


async def _turn(client: httpx.AsyncClient, **body: Any) -> tuple[list[Any], float]:
    room = await create_room(client, ["alpha"], **body)
    session = (await create_session(client, room["id"]))["id"]
    loop = asyncio.get_running_loop()
    start = loop.time()
    events = await asyncio.wait_for(stream_turn(client, session, {"message": "hi"}), 20)
    return events, loop.time() - start


async def test_a_hanging_upstream_fails_the_agent_within_the_stall_budget(
    settings: Settings, scripted: ScriptedProvider, upstream: MockOpenAI, tmp_path: Path
) -> None:
    upstream.queue(*[Reply(delay_s=30)] * 3)  # never sends its headers
    chosen = _chaos_settings(settings, upstream, tmp_path, stall_timeout_s=0.2)
    async with running_client(chosen, scripted) as client:
        events, elapsed = await _turn(client)
    assert elapsed < 3  # 3 attempts x 0.2 s, not 6 x 120 s
    failed = next(data for _, data in events if data["type"] == "agent_failed")
    assert failed["code"] == "timeout"
    assert events[-1][1]["status"] == "failed"


async def test_a_dripping_upstream_is_cut_at_the_turn_deadline_keeping_its_text(
    settings: Settings, scripted: ScriptedProvider, upstream: MockOpenAI, tmp_path: Path
) -> None:
    upstream.queue(Reply(chunks=["drip "] * 10_000, chunk_delay_s=0.05))
    chosen = _chaos_settings(settings, upstream, tmp_path, stall_timeout_s=1.0)
    # Long enough for the first chunks to arrive on a loaded machine, far below 500 s.
    chosen = chosen.model_copy(update={"turns": TurnSettings(timeout_s=1.5)})
    async with running_client(chosen, scripted) as client:
        events, elapsed = await _turn(client)
        turn_id = events[-1][1]["turn_id"]
        turn = (await client.get(f"/v1/turns/{turn_id}")).json()
    assert elapsed < 6
    assert types(events)[-1] == "turn_completed"
    assert events[-1][1]["error_code"] == "deadline_exceeded"
    failed = next(data for _, data in events if data["type"] == "agent_failed")
    assert failed["code"] == "deadline_exceeded"
    assert turn["error_code"] == "deadline_exceeded"
    assert turn["status"] == "failed"
    streamed = "".join(d["text"] for _, d in events if d["type"] == "delta")
    assert "drip" in streamed
    assert turn["messages"][1]["content"] == streamed  # what streamed before the cut is kept


async def test_an_hour_long_retry_after_fails_the_call_at_once(
    settings: Settings, scripted: ScriptedProvider, upstream: MockOpenAI, tmp_path: Path
) -> None:
    upstream.queue(Reply(status=429, headers={"Retry-After": "3600"}))
    chosen = _chaos_settings(settings, upstream, tmp_path)
    async with running_client(chosen, scripted) as client:
        events, elapsed = await _turn(client)
    assert elapsed < 3
    assert len(upstream.received) == 1
    failed = next(data for _, data in events if data["type"] == "agent_failed")
    assert failed["code"] == "rate_limited"


async def test_unstorable_upstream_text_is_replaced_and_the_turn_kept(
    client: httpx.AsyncClient, settings: Settings, scripted: ScriptedProvider,
    upstream: MockOpenAI, tmp_path: Path,
) -> None:  # fmt: skip
    lone = sse('{"choices": [{"index": 0, "delta": {"content": "lone \\ud800 x "}}]}')
    nul = sse('{"choices": [{"index": 0, "delta": {"content": "nul \\u0000 y"}}]}')
    upstream.queue(Reply(raw=[lone, nul], chunks=["!"]))
    chosen = _chaos_settings(settings, upstream, tmp_path)
    async with running_client(chosen, scripted) as chaos:
        events, _ = await _turn(chaos)
        turn_id = events[-1][1]["turn_id"]
        turn = (await chaos.get(f"/v1/turns/{turn_id}")).json()
        replay = (await chaos.get(f"/v1/turns/{turn_id}/events")).text
    assert events[-1][1]["status"] == "completed"
    answer = turn["messages"][1]["content"]
    assert answer == "lone \ufffd x nul \ufffd y!"
    assert "\\ufffd" in replay or "\ufffd" in replay
