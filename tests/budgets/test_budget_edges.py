"""Budgets at their edges: a limit with less left than one call's maximum, a $0 budget
and models without prices (issue 21, item 19)."""

from __future__ import annotations

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.budgets.conftest import metered_room, my_user_id, new_session, set_budget, turn
from tests.factories import add_to_room, create_agent, create_room


async def test_less_left_than_one_calls_maximum_still_runs_the_call_with_a_shorter_answer(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    """``wordy``'s maximum is about $1.28 (its whole window of answer); $0.10 used to
    refuse every call of every turn while the budget showed $0.00 spent."""
    room = await create_room(client)
    await add_to_room(client, room["id"], (await create_agent(client, "solo", model="wordy"))["id"])
    user_id = await my_user_id(client)
    await set_budget(client, user_id, daily_usd=0.10)

    done = await turn(client, await new_session(client, room["id"]))

    assert (done["status"], done["error_code"]) == ("completed", None)
    sent = scripted.calls(agent="solo")[0].request
    assert sent.max_tokens is not None
    assert 256 <= sent.max_tokens < 10_000  # what $0.10 buys at $10 per million tokens
    day = (await client.get(f"/v1/admin/users/{user_id}/budgets")).json()["items"][0]["spend"][0]
    assert day["spent_usd"] == pytest.approx(done["usage"]["cost_usd"])
    assert 0 < day["spent_usd"] <= 0.10
    assert day["reserved_usd"] == 0


async def test_a_zero_budget_never_stops_a_model_without_prices(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    """docs/budgets.md: an alias without prices costs nothing and no budget stops it."""
    room = await create_room(client, ["free"])  # the scripted default alias: no prices
    await set_budget(client, await my_user_id(client), daily_usd=0, monthly_usd=0)

    done = await turn(client, await new_session(client, room["id"]))

    assert done["status"] == "completed"
    assert done["usage"]["cost_usd"] == 0
    assert len(scripted.calls(agent="free")) == 1


async def test_a_zero_budget_refuses_a_priced_model_before_the_turn(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room_id = await metered_room(client, ["paid"])
    await set_budget(client, await my_user_id(client), daily_usd=0)
    response = await client.post(
        f"/v1/sessions/{await new_session(client, room_id)}/turns", json={"message": "hi"}
    )
    assert response.status_code == 402, response.text
    assert "daily budget of $0.00 is spent" in response.json()["detail"]
    assert scripted.calls() == []
