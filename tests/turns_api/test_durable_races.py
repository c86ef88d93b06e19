"""Narrow races of durable turns, each pinned at the exact interleaving that broke it."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

import pantheon.turns.service as turn_service
from pantheon.live.registry import LiveTurn, LiveTurnRegistry
from pantheon.live.runner import _shielded
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room, create_session


async def test_a_turn_cancelled_before_its_first_step_still_finishes_and_frees_the_session() -> (
    None
):
    registry = LiveTurnRegistry()
    seen: list[str] = []

    async def body(live: LiveTurn) -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append("cancelled")  # the body runs, so the turn records itself
            raise

    live = LiveTurn(turn_id="t", session_id="s", owner_id=uuid.uuid4())
    turn, started = registry.join_or_start(live, body)
    turn.cancel()  # before the task's first step: a plain Task.cancel would skip the body
    await asyncio.wait_for(turn.finished.wait(), timeout=2)
    assert started
    assert seen == ["cancelled"]
    assert registry.running() == []


async def test_a_cancel_landing_as_the_final_write_completes_is_absorbed() -> None:
    writer: asyncio.Task[None]

    async def write() -> None:
        outer.cancel()  # the cancel arrives in the same step the write finishes

    async def record() -> str:
        nonlocal writer
        writer = asyncio.create_task(write())
        await _shielded(writer)
        return "published"

    outer = asyncio.create_task(record())
    assert await outer == "published"  # the committed turn's final event still goes out
    assert outer.cancelling() == 0


async def test_a_keyed_retry_racing_the_commit_joins_instead_of_running_again(
    app: FastAPI,
    client: httpx.AsyncClient,
    scripted: ScriptedProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scripted.script("a b c d", agent="alpha", purpose="specialist", chunk_delay_s=0.03)
    room = await create_room(client, ["alpha"], mode="roundtable")
    session = (await create_session(client, room["id"]))["id"]
    url, body, key = f"/v1/sessions/{session}/turns", {"message": "hi"}, {"Idempotency-Key": "k"}
    first = asyncio.create_task(client.post(url, json=body, headers=key))
    for _ in range(500):
        if scripted.requests:
            break
        await asyncio.sleep(0.01)
    registry: LiveTurnRegistry = app.state.services.live_turns
    (running,) = registry.running()

    real_prepare = turn_service.prepare_turn  # type: ignore[attr-defined]

    async def prepare_while_it_commits(*args: Any, **kwargs: Any) -> Any:
        # The retry's preflight reads "no such key" and only then does the turn commit
        # and leave the registry: the worst moment for the retry.
        result = await real_prepare(*args, **kwargs)
        await running.finished.wait()
        return result

    monkeypatch.setattr(turn_service, "prepare_turn", prepare_while_it_commits)
    retry = await client.post(url, json=body, headers=key)
    original = await first
    assert retry.status_code == original.status_code == 201, retry.text
    assert retry.json()["id"] == original.json()["id"] == running.turn_id
    assert len(scripted.calls(purpose="specialist")) == 1
