"""SIGKILL of the replica running an eval run: the other replica interrupts the run once
nobody has marked it alive for ``evals.stale_s`` (it used to show ``running`` until
someone cancelled it), while a live replica's run of the same age keeps running."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest

from pantheon.evals.liveness import stale_reason
from tests.factories import create_agent
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
STALE_S = 2.0
BEATS = {"PANTHEON_EVALS__HEARTBEAT_S": "0.5", "PANTHEON_EVALS__STALE_S": f"{STALE_S}"}
CASE = {"id": "held", "message": "take your time", "facts": ["never"]}


async def _run(client: httpx.AsyncClient, agent_id: str) -> str:
    """A one-case run on ``agent_id``, once its case's turn has started."""
    jsonl = json.dumps(CASE)
    dataset = await client.post("/v1/evals/datasets", json={"name": "d", "jsonl": jsonl})
    assert dataset.status_code == 201, dataset.text
    body = {"dataset_id": dataset.json()["id"], "targets": [{"agent_id": agent_id}]}
    started = await client.post("/v1/evals", json=body)
    assert started.status_code == 202, started.text
    run_id: str = started.json()["id"]
    for _ in range(600):
        items = (await client.get(f"/v1/evals/{run_id}/results")).json()["items"]
        if items and items[0]["turn_id"]:
            return run_id
        await asyncio.sleep(0.05)
    raise AssertionError("the run's case did not start")


async def _ended(client: httpx.AsyncClient, run_id: str, within_s: float) -> dict[str, Any]:
    for _ in range(int(within_s / 0.1)):
        run: dict[str, Any] = (await client.get(f"/v1/evals/{run_id}")).json()
        if run["status"] != "running":
            return run
        await asyncio.sleep(0.1)
    raise AssertionError(f"run {run_id} still running after {within_s} s")


async def test_a_killed_replicas_eval_run_is_interrupted_by_the_other(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    for _ in range(2):  # each run's turn streams a word, then holds
        upstream.queue(Reply(chunks=["w ", "x "], hang_after=1, hang_s=120))
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream, **BEATS))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream, **BEATS))
    try:
        async with a.client() as on_a, b.client() as on_b:
            agent = await create_agent(on_a, "slowpoke")
            doomed = await _run(on_a, agent["id"])
            alive = await _run(on_b, agent["id"])
            a.kill()
            assert await asyncio.wait_for(a.process.wait(), 20) == -signal.SIGKILL
            swept = await _ended(on_b, doomed, within_s=STALE_S + 30)
            await asyncio.sleep(STALE_S + 1)  # B's own run is past the stale time too
            still = (await on_b.get(f"/v1/evals/{alive}")).json()
            cancelled = await on_b.post(f"/v1/evals/{alive}/cancel")
    finally:
        await a.stop()
        await b.stop()

    assert (swept["status"], swept["error"]) == ("interrupted", stale_reason(STALE_S))
    assert swept["finished_at"] is not None
    assert still["status"] == "running"
    assert cancelled.status_code == 200, cancelled.text
