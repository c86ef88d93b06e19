"""Session and room usage: SQL sums over llm_calls by agent, model and turn."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.budgets.conftest import metered_room, new_session, turn


def _sums(turns: list[dict[str, Any]], key: str) -> dict[str, tuple[int, float]]:
    """(calls, cost) per agent key ('manager' for manager calls) or per model."""
    sums: dict[str, tuple[int, float]] = {}
    for finished in turns:
        for call in finished["llm_calls"]:
            name = call[key] or "manager"
            calls, cost = sums.get(name, (0, 0.0))
            sums[name] = (calls + 1, cost + call["cost_usd"])
    return sums


async def test_session_usage_breaks_the_cost_down(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    room_id = await metered_room(
        client, ["alpha", "beta"], mode="orchestrator", manager_model="metered"
    )
    session_id = await new_session(client, room_id)
    first = await turn(client, session_id, "short")
    second = await turn(client, session_id, "a much longer question " * 20)
    finished = [first, second]

    response = await client.get(f"/v1/sessions/{session_id}/usage")

    assert response.status_code == 200, response.text
    usage = response.json()
    total = usage["total"]
    assert total["calls"] == len(first["llm_calls"]) + len(second["llm_calls"])
    assert total["cost_usd"] == pytest.approx(sum(t["usage"]["cost_usd"] for t in finished))
    assert total["input_tokens"] == sum(t["usage"]["input_tokens"] for t in finished)
    assert total["latency_ms_max"] >= total["latency_ms_avg"] >= 0
    expected = _sums(finished, "agent_key")
    assert {a["agent_key"] for a in usage["by_agent"]} == {"alpha", "beta", "manager"}
    for row in usage["by_agent"]:
        calls, cost = expected[row["agent_key"]]
        assert (row["calls"], row["cost_usd"]) == (calls, pytest.approx(cost))
    assert [m["model"] for m in usage["by_model"]] == ["metered"]
    assert [t["turn_id"] for t in usage["by_turn"]] == [second["id"], first["id"]]
    assert usage["by_turn"][0]["cost_usd"] == pytest.approx(second["usage"]["cost_usd"])
    assert usage["turns"] == 2
    assert usage["costliest_turn"]["turn_id"] == second["id"]
    assert second["usage"]["cost_usd"] > first["usage"]["cost_usd"]


async def test_room_usage_spans_its_sessions(client: httpx.AsyncClient) -> None:
    room_id = await metered_room(client, ["solo"])
    turns = [await turn(client, await new_session(client, room_id)) for _ in range(2)]
    elsewhere = await turn(client, await new_session(client, await metered_room(client, ["x"])))

    usage = (await client.get(f"/v1/rooms/{room_id}/usage", params={"turns": 1})).json()

    assert usage["total"]["calls"] == 2
    assert usage["total"]["cost_usd"] == pytest.approx(sum(t["usage"]["cost_usd"] for t in turns))
    assert usage["turns"] == 2
    assert usage["turn_limit"] == 1
    assert [t["turn_id"] for t in usage["by_turn"]] == [turns[1]["id"]]
    assert elsewhere["id"] not in {t["turn_id"] for t in usage["by_turn"]}


async def test_usage_of_an_empty_session_is_zero(client: httpx.AsyncClient) -> None:
    session_id = await new_session(client, await metered_room(client, ["solo"]))
    usage = (await client.get(f"/v1/sessions/{session_id}/usage")).json()
    assert usage["total"]["calls"] == 0
    assert usage["total"]["cost_usd"] == 0
    assert usage["total"]["ttft_ms_avg"] is None
    assert (usage["by_agent"], usage["by_turn"], usage["costliest_turn"]) == ([], [], None)


async def test_usage_of_unknown_ids_is_404_and_bad_limits_422(client: httpx.AsyncClient) -> None:
    missing = "00000000-0000-0000-0000-000000000000"
    for path in (f"/v1/sessions/{missing}/usage", f"/v1/rooms/{missing}/usage"):
        response = await client.get(path)
        assert response.status_code == 404
        assert missing in response.json()["detail"]
    room_id = await metered_room(client, [])
    bad = await client.get(f"/v1/rooms/{room_id}/usage", params={"turns": 0})
    assert bad.status_code == 422
    assert "turns" in bad.text
