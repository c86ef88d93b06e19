"""A dataset's patterns cannot freeze the server: a catastrophic one, run by a whole eval
through the API, gets its verdict (its patterns run on RE2; see test_checks for the engine)."""

from __future__ import annotations

import asyncio
import json

import httpx

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.evals.conftest import demo_room, finished, start_run

EVIL = "^(a+)+$"  # on Python's re, 27 a's and a "!" held every request for 51 s
NOT_QUITE = "a" * 40 + "!"  # on Python's re: days


async def test_a_catastrophic_pattern_in_an_eval_gets_its_verdict(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script(json.dumps({"name": NOT_QUITE}))
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": EVIL}}}
    case = {"id": "evil", "message": "Your name?", "checks": [
        {"type": "json_schema", "schema": schema}, {"type": "regex", "pattern": EVIL}]}  # fmt: skip
    created = await client.post("/v1/evals/datasets", json={"name": "evil", "cases": [case]})
    assert created.status_code == 201, created.text
    room_id = await demo_room(client)
    target = {"room_id": room_id, "mode": "standalone"}
    run = await start_run(client, dataset_id=created.json()["id"], targets=[target])
    # A guard against a hang, not a timing: on re this would not end for days.
    done = await asyncio.wait_for(finished(client, run["id"]), timeout=300)
    assert (done["status"], done["passed"]) == ("completed", 0)
    results = (await client.get(f"/v1/evals/{run['id']}/results")).json()["items"]
    assert [(c["type"], c["passed"], c["detail"]) for c in results[0]["checks"]][1:] == [
        ("json_schema", False, f"name: {NOT_QUITE!r} does not match {EVIL!r}"),
        ("regex", False, f"/{EVIL}/ absent"),
    ]
