"""A spend limit's refusals are counted: a turn refused with 402 (``stage="turn"``)."""

from __future__ import annotations

import httpx

from tests.budgets.conftest import metered_room, my_user_id, new_session, set_budget, turn
from tests.observability.scrape import grown, scrape


async def test_a_402_refusal_is_counted_once_and_starts_no_turn(client: httpx.AsyncClient) -> None:
    room_id = await metered_room(client, ["solo"])
    cost = (await turn(client, await new_session(client, room_id)))["usage"]["cost_usd"]
    await set_budget(client, await my_user_id(client), daily_usd=cost)
    before = await scrape(client)
    session = await new_session(client, room_id)
    response = await client.post(f"/v1/sessions/{session}/turns", json={"message": "more"})
    assert response.status_code == 402
    after = await scrape(client)
    assert grown(before, after, "pantheon_budget_refusals_total", stage="turn") == 1
    assert grown(before, after, "pantheon_turns_total") == 0
    route = "/v1/sessions/{session_id}/turns"
    assert grown(before, after, "pantheon_http_requests_total", route=route, status="402") == 1
