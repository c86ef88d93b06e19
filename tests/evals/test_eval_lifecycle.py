"""A run belongs to its server process: stopping the server interrupts it (its turn is
cancelled), a run a crash left ``running`` is marked interrupted at the next start, and
with several processes one that stopped marking its runs alive has them interrupted."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import httpx
import pytest
from pydantic import ValidationError
from sqlalchemy import update

from pantheon.db.base import utcnow
from pantheon.db.eval_models import EvalRun
from pantheon.db.uow import unit_of_work
from pantheon.deps import services_of
from pantheon.evals.liveness import stale_reason
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import EvalSettings, Settings
from tests.app_factory import running_app
from tests.evals.conftest import demo_room, example_dataset, finished, start_run


@asynccontextmanager
async def _server(
    settings: Settings, scripted: ScriptedProvider
) -> AsyncIterator[httpx.AsyncClient]:
    async with running_app(settings, scripted) as started:
        started.http.app = started.app  # type: ignore[attr-defined]  # the test reads its services
        yield started.http


async def _started(client: httpx.AsyncClient, run_id: str) -> str:
    for _ in range(3000):
        items = (await client.get(f"/v1/evals/{run_id}/results")).json()["items"]
        if items and items[0]["turn_id"]:
            turn_id: str = items[0]["turn_id"]
            return turn_id
        await asyncio.sleep(0.01)
    raise AssertionError("no case started")


async def _standalone_run_started(client: httpx.AsyncClient) -> dict[str, Any]:
    """The example dataset on the demo room, standalone, one case at a time, once started."""
    room_id = await demo_room(client)
    dataset_id = await example_dataset(client)
    target = {"room_id": room_id, "mode": "standalone"}
    run = await start_run(client, dataset_id=dataset_id, targets=[target], concurrency=1)
    await _started(client, run["id"])
    return run


async def test_a_stopped_server_interrupts_its_runs_and_a_restart_marks_orphans(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    scripted.script("slow", delay_s=120)
    async with _server(settings, scripted) as client:
        room_id = await demo_room(client)
        dataset_id = await example_dataset(client)
        run = await start_run(client, dataset_id=dataset_id, targets=[{"room_id": room_id}])
        turn_id = await _started(client, run["id"])

    async with _server(settings, ScriptedProvider()) as client:
        stopped = (await client.get(f"/v1/evals/{run['id']}")).json()
        assert (stopped["status"], stopped["error"]) == (
            "interrupted", "the server stopped before the run finished"
        )  # fmt: skip
        assert (await client.get(f"/v1/turns/{turn_id}")).json()["status"] == "cancelled"
        services = services_of(client.app)  # type: ignore[attr-defined]
        assert services is not None
        async with unit_of_work(services.db, write=True) as session:  # as if it had crashed
            await session.execute(update(EvalRun).values(status="running", error=None))

    async with _server(settings, ScriptedProvider()) as client:
        found = (await client.get(f"/v1/evals/{run['id']}")).json()
        assert (found["status"], found["error"]) == (
            "interrupted", "the server running it stopped; found at the next start"
        )  # fmt: skip


async def test_a_cancel_through_another_process_stops_the_run_at_its_next_case(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    scripted.script("slow answer", delay_s=2)
    async with _server(settings, scripted) as owner, _server(settings, ScriptedProvider()) as other:
        run = await _standalone_run_started(owner)

        cancelled = await other.post(f"/v1/evals/{run['id']}/cancel")

        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["status"] == "cancelled"
        runner = services_of(owner.app).evals  # type: ignore[attr-defined,union-attr]
        for _ in range(3000):  # the owner ends the run once its case in flight is done
            if not runner.running_here(uuid.UUID(run["id"])):
                break
            await asyncio.sleep(0.01)
        assert not runner.running_here(uuid.UUID(run["id"]))
        done = (await owner.get(f"/v1/evals/{run['id']}")).json()
        assert (done["status"], done["error"]) == ("cancelled", "cancelled by request")
        assert done["done"] < done["total"]
        assert (await other.post(f"/v1/evals/{run['id']}/cancel")).status_code == 409


async def test_a_run_nobody_marks_alive_is_interrupted_and_a_live_one_is_not(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    """Several processes share the database: the run of a process that died (a row left
    ``running``, last marked alive long ago) is interrupted by the others, while a live
    process's run, older than the stale time, stays running because it keeps beating."""
    beats = EvalSettings(heartbeat_s=0.2, stale_s=2.0)
    fast = settings.model_copy(update={"evals": beats})
    scripted.script("slow answer", delay_s=120)  # the live run's turn holds
    async with _server(fast, scripted) as owner, _server(fast, ScriptedProvider()) as other:
        live = await _standalone_run_started(owner)
        services = services_of(owner.app)  # type: ignore[attr-defined]
        assert services is not None
        long_ago = utcnow() - timedelta(minutes=10)
        async with unit_of_work(services.db, write=True) as session:  # a crashed process's run
            row = await session.get(EvalRun, uuid.UUID(live["id"]))
            assert row is not None
            dead = EvalRun(
                owner_id=row.owner_id, dataset_id=row.dataset_id, name="dead", status="running",
                targets=row.targets, total=row.total, concurrency=1, deadline_s=3600, seed=0,
                created_at=long_ago, heartbeat_at=long_ago,
            )  # fmt: skip
            session.add(dead)
            await session.flush()
            dead_id = str(dead.id)

        swept = await finished(other, dead_id)
        assert (swept["status"], swept["error"]) == ("interrupted", stale_reason(beats.stale_s))
        await asyncio.sleep(beats.stale_s + 1)  # the live run is past the stale time now
        assert (await other.get(f"/v1/evals/{live['id']}")).json()["status"] == "running"
        assert (await other.post(f"/v1/evals/{live['id']}/cancel")).status_code == 200


def test_a_stale_time_under_three_beats_is_refused_naming_both_settings() -> None:
    with pytest.raises(ValidationError, match=r"evals.stale_s \(20.0\) must be at least 3 x"):
        EvalSettings(heartbeat_s=10, stale_s=20)
    assert EvalSettings(heartbeat_s=10, stale_s=30).stale_s == 30
