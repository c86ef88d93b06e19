"""What ends a run early: a cancel stops its turns, a budget stops it with its own status,
the deadline times it out; and a second run's report names the cases that flipped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.evals.conftest import demo_room, example_dataset, finished, start_run

METERED = """
[models.metered]
provider = "scripted"
input_price_per_mtok = 1000.0
output_price_per_mtok = 0.0
context_window = 4096
"""


@pytest.fixture
def settings(settings: Settings, tmp_path: Path) -> Settings:
    models_file = tmp_path / "models.toml"
    models_file.write_text(METERED)
    return settings.model_copy(update={"models_file": models_file})


async def _first_turn(client: httpx.AsyncClient, run_id: str) -> dict[str, Any]:
    """The first case result that has a running turn (polled, bounded)."""
    for _ in range(3000):
        items = (await client.get(f"/v1/evals/{run_id}/results")).json()["items"]
        if items and items[0]["turn_id"]:
            item: dict[str, Any] = items[0]
            return item
        await asyncio.sleep(0.01)
    raise AssertionError("no case started")


async def test_cancelling_a_run_cancels_its_running_turn_and_starts_no_more(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("slow", delay_s=120)
    room_id = await demo_room(client)
    dataset_id = await example_dataset(client)
    run = await start_run(
        client, dataset_id=dataset_id, targets=[{"room_id": room_id, "mode": "standalone"}],
        concurrency=1,
    )  # fmt: skip
    first = await _first_turn(client, run["id"])

    response = await client.post(f"/v1/evals/{run['id']}/cancel")

    assert response.status_code == 200, response.text
    assert (response.json()["status"], response.json()["error"]) == (
        "cancelled", "cancelled by request"
    )  # fmt: skip
    turn = (await client.get(f"/v1/turns/{first['turn_id']}")).json()
    assert turn["status"] == "cancelled"
    items = (await client.get(f"/v1/evals/{run['id']}/results")).json()["items"]
    assert len(items) == 1
    assert items[0]["passed"] is None
    assert items[0]["error"] == "the run stopped before this case ended"
    assert len(scripted.calls()) == 1
    assert scripted.requests[-1].cancelled
    again = await client.post(f"/v1/evals/{run['id']}/cancel")
    assert again.status_code == 409


async def test_the_deadline_ends_a_run_as_timed_out(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script("slow", delay_s=120)
    room_id = await demo_room(client)
    dataset_id = await example_dataset(client)
    run = await start_run(
        client, dataset_id=dataset_id, targets=[{"room_id": room_id, "mode": "standalone"}],
        deadline_s=1,
    )  # fmt: skip
    done = await finished(client, run["id"])
    assert (done["status"], done["error"]) == ("timed_out", "the run's deadline of 1 s passed")
    first = (await client.get(f"/v1/evals/{run['id']}/results")).json()["items"][0]
    assert (await client.get(f"/v1/turns/{first['turn_id']}")).json()["status"] == "cancelled"


async def _metered_room(client: httpx.AsyncClient) -> str:
    room = (await client.post("/v1/rooms", json={"name": "Metered"})).json()
    agent = (
        await client.post(
            "/v1/agents",
            json={"key": "solo", "name": "Solo", "role_prompt": "Answer.", "model": "metered"},
        )
    ).json()
    await client.post(f"/v1/rooms/{room['id']}/agents", json={"agent_id": agent["id"]})
    room_id: str = room["id"]
    return room_id


async def _same_question(client: httpx.AsyncClient, count: int) -> str:
    cases = [{"id": f"c{n}", "message": "same question", "facts": ["x"]} for n in range(count)]
    body = {"name": "same", "cases": cases}
    dataset_id: str = (await client.post("/v1/evals/datasets", json=body)).json()["id"]
    return dataset_id


async def _budget(client: httpx.AsyncClient, daily_usd: float) -> None:
    user_id = (await client.get("/v1/admin/users")).json()["items"][0]["id"]
    response = await client.put(f"/v1/admin/users/{user_id}/budgets", json={"daily_usd": daily_usd})
    assert response.status_code == 200, response.text


async def test_a_spent_budget_stops_the_run_with_its_status(
    client: httpx.AsyncClient,
) -> None:
    room_id = await _metered_room(client)
    dataset_id = await _same_question(client, 5)
    await _budget(client, 0.0)
    run = await start_run(
        client, dataset_id=dataset_id, targets=[{"room_id": room_id}], concurrency=1
    )
    done = await finished(client, run["id"])
    assert done["status"] == "budget_exceeded"
    assert "the daily budget of $0.00 is spent" in done["error"]
    items = (await client.get(f"/v1/evals/{run['id']}/results")).json()["items"]
    assert len(items) == 1
    assert items[0]["passed"] is None


async def test_running_out_mid_run_stops_it_after_the_turn_the_budget_cut(
    client: httpx.AsyncClient,
) -> None:
    room_id = await _metered_room(client)
    dataset_id = await _same_question(client, 6)
    warmup = await start_run(client, dataset_id=dataset_id, targets=[{"room_id": room_id}])
    await finished(client, warmup["id"])
    per_case = (await client.get(f"/v1/evals/{warmup['id']}")).json()["cost_usd"] / 6
    await _budget(client, per_case * 7.5)  # the warm-up's six cases, then one and a half
    run = await start_run(
        client, dataset_id=dataset_id, targets=[{"room_id": room_id}], concurrency=1
    )
    done = await finished(client, run["id"])
    assert (done["status"], done["error"]) == ("budget_exceeded", "a spend limit cut a turn short")
    items = (await client.get(f"/v1/evals/{run['id']}/results")).json()["items"]
    assert [item["turn_status"] for item in items] == ["completed", "failed"]


async def test_the_report_names_the_cases_that_flipped_between_two_runs(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room_id = await demo_room(client)
    dataset_id = await example_dataset(client)
    targets = [{"room_id": room_id, "mode": "standalone"}]
    before = await start_run(client, dataset_id=dataset_id, targets=targets)
    await finished(client, before["id"])
    scripted.script(
        lambda r: "Jupiter." if "Red Planet" in r.messages[-1].content else "Paris, 366, Ada",
        purpose="specialist",
    )
    after = await start_run(client, dataset_id=dataset_id, targets=targets)
    await finished(client, after["id"])
    report = (await client.get(f"/v1/evals/{after['id']}/report?compare={before['id']}")).json()
    flips = {(f["case_id"], f["before"], f["after"]) for f in report["flips"]}
    assert ("red-planet", True, False) in flips
    assert ("multiply", False, False) not in flips
    assert report["compared_with"] == before["id"]
    again = (await client.get(f"/v1/evals/{after['id']}/report?compare={before['id']}")).json()
    assert again == report  # the bootstrap is seeded: the same report every time


async def test_a_judge_is_paid_within_the_budget_and_stops_the_run_when_it_cannot_be(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"score": 9, "reason": "fine"}', agent="judge")
    room_id = await demo_room(client)  # unpriced agents: only the judge costs money
    judged = {"type": "judge", "model": "metered", "rubric": "Is it right?"}
    cases = [{"id": f"c{n}", "message": "same question", "checks": [judged]} for n in range(3)]
    body = {"name": "judged", "cases": cases}
    dataset_id = (await client.post("/v1/evals/datasets", json=body)).json()["id"]
    await _budget(client, 0.0001)  # less than one judge call may cost
    run = await start_run(
        client, dataset_id=dataset_id, targets=[{"room_id": room_id, "mode": "standalone"}],
        concurrency=1,
    )  # fmt: skip
    done = await finished(client, run["id"])
    assert done["status"] == "budget_exceeded"
    assert "no room left for the judge's call" in done["error"]
    assert scripted.calls(agent="judge") == []  # refused before the call, never paid
    items = (await client.get(f"/v1/evals/{run['id']}/results")).json()["items"]
    assert len(items) == 1
    assert items[0]["passed"] is None
    assert "no room left for the judge's call" in items[0]["error"]
