"""The example dataset over three modes of the demo room, through /v1/evals."""

from __future__ import annotations

from typing import Any

import httpx

from pantheon.llm.errors import BadRequest
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.evals.conftest import demo_room, example_dataset, finished, start_run

MODES = ("standalone", "roundtable", "orchestrator")


async def _results(client: httpx.AsyncClient, run_id: str) -> list[dict[str, Any]]:
    body = (await client.get(f"/v1/evals/{run_id}/results?limit=200")).json()
    items: list[dict[str, Any]] = body["items"]
    return items


async def test_the_example_dataset_over_three_modes_reports_each_target(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room_id = await demo_room(client)
    dataset_id = await example_dataset(client)
    targets = [{"room_id": room_id, "mode": mode} for mode in MODES]
    run = await start_run(client, dataset_id=dataset_id, targets=targets, concurrency=3)
    assert (run["status"], run["total"]) == ("running", 36)

    done = await finished(client, run["id"])
    assert (done["status"], done["done"], done["passed"]) == ("completed", 36, 34)
    report = (await client.get(f"/v1/evals/{run['id']}/report")).json()
    rows = {t["label"]: t for t in report["targets"]}
    assert list(rows) == [
        "Demo room · standalone (planner)",
        "Demo room · roundtable",
        "Demo room · orchestrator",
    ]
    # The planner alone has no calculator; a roundtable's answer is five JSON objects.
    assert [rows[label]["passed"] for label in rows] == [11, 11, 12]
    standalone = rows["Demo room · standalone (planner)"]
    assert standalone["cases"] == 12
    assert standalone["ci_low"] < standalone["pass_rate"] <= standalone["ci_high"] <= 1.0
    assert standalone["mean_judge_score"] == 9.0
    assert standalone["calls_per_case"] == 1.0
    assert rows["Demo room · roundtable"]["calls_per_case"] > 5  # five agents, a tool round
    failed = {(r["case_id"], r["target_index"]) for r in await _results(client, run["id"])
              if not r["passed"]}  # fmt: skip
    assert failed == {("multiply", 0), ("json-landmark", 1)}


async def test_each_case_is_a_session_of_the_room_with_its_turn(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room_id = await demo_room(client)
    dataset_id = await example_dataset(client)
    run = await start_run(
        client, dataset_id=dataset_id, targets=[{"room_id": room_id, "mode": "roundtable"}],
        name="nightly",
    )  # fmt: skip
    await finished(client, run["id"])
    results = await _results(client, run["id"])
    multiply = next(r for r in results if r["case_id"] == "multiply")
    assert [c["type"] for c in multiply["checks"]] == ["turn", "fact", "tool_called"]
    assert all(c["passed"] for c in multiply["checks"])
    turn = (await client.get(f"/v1/turns/{multiply['turn_id']}")).json()
    assert turn["session_id"] == multiply["session_id"]
    assert any(call["name"] == "calculator" for call in turn["tool_calls"])
    mine = (await client.post(f"/v1/rooms/{room_id}/sessions", json={"title": "Mine"})).json()
    # The room's list hides the run's sessions (the eval page has them); asked, it shows them.
    listed = (await client.get(f"/v1/rooms/{room_id}/sessions?limit=50")).json()
    assert ([s["id"] for s in listed["items"]], listed["total"]) == ([mine["id"]], 1)
    url = f"/v1/rooms/{room_id}/sessions?limit=50&include_evals=true"
    sessions = (await client.get(url)).json()
    titles = {s["title"] for s in sessions["items"]}
    assert "eval nightly: multiply" in titles
    assert sessions["total"] == 13
    searched = await client.get(f"/v1/rooms/{room_id}/sessions", params={"q": "multiply"})
    assert searched.json()["total"] == 0


async def test_a_conversation_case_gives_the_turn_its_history(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room_id = await demo_room(client)
    dataset_id = await example_dataset(client)
    run = await start_run(
        client, dataset_id=dataset_id, targets=[{"room_id": room_id, "mode": "standalone",
                                                  "agent_key": "writer"}],
    )  # fmt: skip
    await finished(client, run["id"])
    results = await _results(client, run["id"])
    name = next(r for r in results if r["case_id"] == "remember-name")
    assert name["passed"] is True
    assert name["answer"] == "Your name is Ada."
    report = (await client.get(f"/v1/evals/{run['id']}/report")).json()
    assert report["targets"][0]["label"] == "Demo room · standalone (writer)"
    target = (await client.get(f"/v1/evals/{run['id']}")).json()["targets"][0]
    agent_url = f"/v1/agents/{target['agent_id']}/sessions"
    assert (await client.get(agent_url)).json()["total"] == 0  # hidden from the agent's list
    shown = await client.get(agent_url, params={"include_evals": "true", "q": "remember"})
    assert [s["id"] for s in shown.json()["items"]] == [name["session_id"]]


async def test_a_judge_that_fails_or_gives_no_score_fails_its_check(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room_id = await demo_room(client)
    judged = {"type": "judge", "rubric": "names Paris"}
    cases = [{"id": f"j{n}", "message": "capital of France?", "checks": [judged]} for n in (1, 2)]
    dataset = (await client.post("/v1/evals/datasets", json={"name": "j", "cases": cases})).json()
    scripted.script("a fine answer, no JSON", agent="judge", times=1)
    scripted.script(agent="judge", error=BadRequest("judge down"), times=1)
    target = {"room_id": room_id, "mode": "standalone"}
    run = await start_run(client, dataset_id=dataset["id"], targets=[target], concurrency=1)
    await finished(client, run["id"])
    details = sorted(
        next(c["detail"] for c in r["checks"] if c["type"] == "judge")
        for r in await _results(client, run["id"])
    )
    assert details[0].startswith("judge failed: judge down")
    assert details[1] == "the judge gave no readable 0-10 score"
    report = (await client.get(f"/v1/evals/{run['id']}/report")).json()
    assert report["targets"][0]["mean_judge_score"] is None
    assert report["targets"][0]["passed"] == 0
