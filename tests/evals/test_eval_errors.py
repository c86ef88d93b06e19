"""Bad datasets and runs are refused with the line, case or field named; unknown ids 404;
cancelling a run that ended 409."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.evals.conftest import demo_room, example_dataset, finished, start_run

GOOD = {"id": "a", "message": "hi", "facts": ["hello"]}


def _jsonl(*cases: object) -> str:
    return "\n".join(c if isinstance(c, str) else json.dumps(c) for c in cases)


@pytest.mark.parametrize(
    ("jsonl", "named"),
    [
        (_jsonl(GOOD, "{not json"), "line 2: not JSON"),
        (_jsonl(GOOD, "[1, 2]"), "line 2: a case is a JSON object"),
        (
            _jsonl(GOOD, {"id": "b", "facts": ["x"]}),
            "line 2: (case): Value error, give exactly one",
        ),
        (_jsonl({"id": "b", "message": "m"}), "line 1: (case): Value error, a case needs at least"),
        (
            _jsonl({"id": "b", "message": "m", "checks": [{"type": "regex", "pattern": "("}]}),
            "line 1: checks.0.regex.pattern: Value error, not a valid regular expression",
        ),
        (
            _jsonl(
                {
                    "id": "b",
                    "message": "m",
                    "checks": [{"type": "json_schema", "schema": {"type": 5}}],
                }
            ),
            "line 1: checks.0.json_schema.schema: Value error, not a valid JSON schema",
        ),
        (  # patterns run on RE2, which has no lookaround and no backreference
            _jsonl({"id": "b", "message": "m", "checks": [{"type": "regex", "pattern": "a(?=b)"}]}),
            "checks.0.regex.pattern: Value error, not a valid regular expression: /a(?=b)/ is not"
            " an RE2 regular expression (invalid perl operator: (?=)",
        ),
        (
            _jsonl(
                {
                    "id": "b",
                    "message": "m",
                    "checks": [
                        {
                            "type": "json_schema",
                            "schema": {"properties": {"a": {"pattern": r"(x)\1"}}},
                        }
                    ],
                }
            ),
            "checks.0.json_schema.schema: Value error, not a valid JSON schema: /(x)\\1/ is not"
            " an RE2 regular expression (invalid escape sequence: \\1)",
        ),
        (
            _jsonl({"id": "b", "message": "m", "checks": [{"type": "smell"}]}),
            "line 1: checks.0: Input tag 'smell' found using 'type' does not match",
        ),
        (_jsonl({**GOOD, "colour": "red"}), "line 1: colour: Extra inputs are not permitted"),
        (_jsonl(GOOD, "", GOOD), "case 1 ('a'): id 'a' is used twice"),
        (
            _jsonl(
                {"id": "b", "conversation": [{"role": "assistant", "content": "x"}], "facts": ["x"]}
            ),
            "line 1: (case): Value error, a conversation must end with a 'user' message",
        ),
        ("\n\n", "the dataset has no cases"),
    ],
)
async def test_a_bad_jsonl_dataset_is_a_422_naming_the_line_and_field(
    client: httpx.AsyncClient, jsonl: str, named: str
) -> None:
    response = await client.post("/v1/evals/datasets", json={"name": "bad", "jsonl": jsonl})
    assert response.status_code == 422, response.text
    assert named in response.json()["detail"]
    assert (await client.get("/v1/evals/datasets")).json()["total"] == 0  # nothing stored


async def test_cases_as_json_are_validated_with_their_path(client: httpx.AsyncClient) -> None:
    body = {"name": "x", "cases": [GOOD, {"id": "b", "message": "m", "checks": [
        {"type": "max_latency", "ms": 0}]}]}  # fmt: skip
    response = await client.post("/v1/evals/datasets", json=body)
    assert response.status_code == 422
    error = response.json()["detail"][0]
    assert error["loc"] == ["body", "cases", 1, "checks", 0, "max_latency", "ms"]
    both = await client.post(
        "/v1/evals/datasets", json={"name": "x", "cases": [GOOD], "jsonl": json.dumps(GOOD)}
    )
    assert both.status_code == 422
    assert "exactly one of 'cases' and 'jsonl'" in both.text


async def test_a_run_of_unknown_things_is_refused(client: httpx.AsyncClient) -> None:
    room_id = await demo_room(client)
    dataset_id = await example_dataset(client)
    ghost = str(uuid.uuid4())
    for body, named in [
        ({"dataset_id": ghost, "targets": [{"room_id": room_id}]}, f"dataset_id: dataset {ghost}"),
        ({"dataset_id": dataset_id, "targets": [{"room_id": ghost}]},
         f"targets[0].room_id: room {ghost} not found"),
        ({"dataset_id": dataset_id, "targets": [{"agent_id": ghost}]},
         f"targets[0].agent_id: agent {ghost} not found"),
    ]:  # fmt: skip
        response = await client.post("/v1/evals", json=body)
        assert response.status_code == 404, (body, response.text)
        assert named in response.json()["detail"]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"dataset_id": dataset_id, "targets": [{"room_id": room_id, "mode": "manual"}]},
         "targets[0]: mode 'manual' needs @mentions"),
        ({"dataset_id": dataset_id, "targets": [{"room_id": room_id, "mode": "standalone",
                                                 "agent_key": "ghost"}]},
         "targets[0].agent_key: 'ghost' is not in room 'Demo room'"),
        ({"dataset_id": dataset_id, "targets": [{"room_id": room_id}, {"room_id": room_id}]},
         "the same target is given twice"),
        ({"dataset_id": dataset_id, "targets": []}, "at least 1 item"),
        ({"dataset_id": dataset_id, "targets": [{"room_id": room_id}], "concurrency": 9},
         "less than or equal to 8"),
    ]  # fmt: skip
    for body, named in cases:
        response = await client.post("/v1/evals", json=body)
        assert response.status_code == 422, (body, response.text)
        assert named in response.text, (body, response.text)
    assert (await client.get("/v1/evals")).json()["total"] == 0


async def test_a_judge_naming_an_unknown_model_is_refused(client: httpx.AsyncClient) -> None:
    room_id = await demo_room(client)
    case = {"id": "j", "message": "m", "checks": [{"type": "judge", "model": "oracle",
                                                    "rubric": "r"}]}  # fmt: skip
    dataset = (await client.post("/v1/evals/datasets", json={"name": "j", "cases": [case]})).json()
    response = await client.post(
        "/v1/evals", json={"dataset_id": dataset["id"], "targets": [{"room_id": room_id}]}
    )
    assert response.status_code == 422
    assert "case 'j': judge model 'oracle' is not configured (configured: scripted" in response.text


async def test_unknown_ids_are_404(client: httpx.AsyncClient) -> None:
    ghost = str(uuid.uuid4())
    for path in (f"/v1/evals/{ghost}", f"/v1/evals/{ghost}/report", f"/v1/evals/{ghost}/results",
                 "/v1/evals/not-an-id", f"/v1/evals/datasets/{ghost}"):  # fmt: skip
        response = await client.get(path)
        assert response.status_code == 404, path
    assert (await client.post(f"/v1/evals/{ghost}/cancel")).status_code == 404


async def test_cancelling_a_finished_run_is_409_and_lists_are_paginated(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room_id = await demo_room(client)
    dataset_id = await example_dataset(client)
    runs = [
        await start_run(client, dataset_id=dataset_id, targets=[{"room_id": room_id}])
        for _ in range(2)
    ]
    for run in runs:
        await finished(client, run["id"])
    response = await client.post(f"/v1/evals/{runs[0]['id']}/cancel")
    assert response.status_code == 409
    assert "already ended with status 'completed'" in response.json()["detail"]
    page = (await client.get("/v1/evals?limit=1&offset=1")).json()
    assert (page["total"], page["limit"], page["offset"]) == (2, 1, 1)
    assert [item["id"] for item in page["items"]] == [runs[0]["id"]]  # newest first
    results = (await client.get(f"/v1/evals/{runs[0]['id']}/results?limit=5&offset=10")).json()
    assert (results["total"], len(results["items"])) == (12, 2)
    datasets = (await client.get("/v1/evals/datasets")).json()
    assert datasets["items"][0]["case_count"] == 12
