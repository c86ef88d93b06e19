"""A replay's calls served from the record cost nothing (docs/replay.md): an exact replay
runs when the budget is spent and charges nothing; a replay with changes that would pay
is refused like any priced turn (402)."""

from __future__ import annotations

import httpx
import pytest

from tests.budgets.conftest import metered_room, my_user_id, new_session, set_budget, turn


async def test_an_exact_replay_is_free_and_runs_on_a_spent_budget(
    client: httpx.AsyncClient,
) -> None:
    user_id = await my_user_id(client)
    room_id = await metered_room(client, ["solo"])
    session_id = await new_session(client, room_id)
    original = await turn(client, session_id)
    cost = original["usage"]["cost_usd"]
    assert cost > 0
    await set_budget(client, user_id, daily_usd=cost)  # what was spent: nothing is left
    refused = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "hi"})
    assert refused.status_code == 402, refused.text

    replay = await client.post(f"/v1/turns/{original['id']}/replay", json={})
    assert replay.status_code == 201, replay.text
    assert replay.json()["usage"] == original["usage"]  # what the answer cost when made
    listed = (await client.get(f"/v1/admin/users/{user_id}/budgets")).json()["items"]
    day = {s["period"]: s for s in listed[0]["spend"]}["day"]
    assert day["spent_usd"] == pytest.approx(cost)  # the replay charged nothing
    assert day["reserved_usd"] == 0
    usage = (await client.get(f"/v1/sessions/{replay.json()['session_id']}/usage")).json()
    assert usage["total"]["cost_usd"] == 0
    assert usage["total"]["calls"] == len(original["llm_calls"])

    changed = await client.post(
        f"/v1/turns/{original['id']}/replay",
        json={"agents": {"solo": {"role_prompt": "Be brief."}}},
    )
    assert changed.status_code == 402, changed.text
