"""``GET /metrics`` after real turns: turn, LLM-call, token, tool and HTTP counters say
exactly what the turns' records say."""

from __future__ import annotations

import httpx

from pantheon.llm.errors import BadRequest, Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room, create_session
from tests.observability.scrape import grown, scrape, total

K = 3


async def _turns(client: httpx.AsyncClient, mode: str, count: int) -> list[dict[str, object]]:
    room = await create_room(client, ["alpha", "beta"], mode=mode)
    session = (await create_session(client, room["id"]))["id"]
    turns = []
    for n in range(count):
        response = await client.post(f"/v1/sessions/{session}/turns", json={"message": f"m{n}"})
        assert response.status_code == 201, response.text
        turns.append(response.json())
    return turns


async def test_k_turns_are_counted_by_mode_and_status_with_their_calls_and_tokens(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    before = await scrape(client)
    turns = await _turns(client, "roundtable", K)
    after = await scrape(client)
    assert grown(before, after, "pantheon_turns_total", mode="roundtable", status="completed") == K
    assert grown(before, after, "pantheon_turns_total") == K
    calls = [call for turn in turns for call in turn["llm_calls"]]  # type: ignore[attr-defined]
    assert len(calls) == 2 * K
    model = calls[0]["model"]
    assert grown(before, after, "pantheon_llm_calls_total", model=model, outcome="ok") == len(calls)
    for direction, field in (("input", "input_tokens"), ("output", "output_tokens")):
        recorded = sum(call[field] for call in calls)
        assert recorded > 0
        counted = grown(before, after, "pantheon_llm_tokens_total", direction=direction)
        assert counted == recorded
    cost = grown(before, after, "pantheon_llm_cost_usd_total")
    assert abs(cost - sum(call["cost_usd"] for call in calls)) < 1e-9
    assert grown(before, after, "pantheon_llm_call_duration_seconds_count") == len(calls)
    assert grown(before, after, "pantheon_turn_duration_seconds_count", mode="roundtable") == K
    assert total(after, "pantheon_live_turns") == 0
    route = "/v1/sessions/{session_id}/turns"
    posted = grown(before, after, "pantheon_http_requests_total", route=route, status="201")
    assert posted == K


async def test_failed_calls_are_counted_by_their_code(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script(error=BadRequest("no such thing"), agent="alpha")
    scripted.script(error=Unavailable("down"), agent="beta", times=1)  # retried once, then ok
    before = await scrape(client)
    room = await create_room(client, ["alpha", "beta"], mode="roundtable")
    session = (await create_session(client, room["id"]))["id"]
    response = await client.post(f"/v1/sessions/{session}/turns", json={"message": "x"})
    turn = response.json()
    after = await scrape(client)
    status = turn["status"]
    assert status == "partial"
    assert grown(before, after, "pantheon_turns_total", mode="roundtable", status=status) == 1
    assert grown(before, after, "pantheon_llm_calls_total", outcome="bad_request") == 1
    assert grown(before, after, "pantheon_llm_calls_total", outcome="ok") == 1
    assert grown(before, after, "pantheon_llm_retries_total", code="unavailable") == 1


async def test_an_unknown_path_counts_as_unmatched_not_by_its_text(
    client: httpx.AsyncClient,
) -> None:
    before = await scrape(client)
    assert (await client.get("/no/such/path-12345")).status_code == 404
    after = await scrape(client)
    assert grown(before, after, "pantheon_http_requests_total", route="unmatched") == 1
    assert not any("path-12345" in str(labels) for _name, labels in after)
