"""Budgets hold before the money is spent: 402 before a turn, skipped calls within one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from pantheon.budgets.periods import to_micros
from pantheon.db.engine import Database
from pantheon.db.models import SpendCounter
from pantheon.db.uow import unit_of_work
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.budgets.conftest import metered_room, my_user_id, new_session, set_budget, turn
from tests.sse_client import stream_turn


async def test_a_spent_budget_answers_402_before_any_llm_call(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room_id = await metered_room(client, ["solo"])
    first = await turn(client, await new_session(client, room_id))
    cost = first["usage"]["cost_usd"]
    assert cost > 0
    user_id = await my_user_id(client)
    await set_budget(client, user_id, daily_usd=cost)  # what the first turn spent already
    calls_before = len(scripted.calls())

    response = await client.post(
        f"/v1/sessions/{await new_session(client, room_id)}/turns", json={"message": "more"}
    )

    assert response.status_code == 402, response.text
    body = response.json()
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%d")
    assert body["code"] == "budget_exceeded"
    assert body["period"] == "day"
    assert body["limit_usd"] == pytest.approx(cost)
    assert body["spent_usd"] == pytest.approx(cost)
    assert body["resets_at"].startswith(tomorrow)
    assert f"daily budget of ${cost:.2f}" in body["detail"]
    assert f"resets at {tomorrow} 00:00 UTC" in body["detail"]
    assert len(scripted.calls()) == calls_before  # no LLM call was made


async def test_a_monthly_limit_counts_too(client: httpx.AsyncClient) -> None:
    room_id = await metered_room(client, ["solo"])
    cost = (await turn(client, await new_session(client, room_id)))["usage"]["cost_usd"]
    await set_budget(client, await my_user_id(client), daily_usd=100.0, monthly_usd=cost)
    response = await client.post(
        f"/v1/sessions/{await new_session(client, room_id)}/turns", json={"message": "more"}
    )
    assert response.status_code == 402
    assert response.json()["period"] == "month"
    assert "monthly budget" in response.json()["detail"]


async def test_running_out_mid_turn_skips_the_remaining_calls(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room_id = await metered_room(client, ["alpha", "beta"], mode="roundtable")
    warmup = await turn(client, await new_session(client, room_id))
    first_call = warmup["llm_calls"][0]["cost_usd"]
    spent = warmup["usage"]["cost_usd"]
    # Room for alpha's call again, not for beta's (whose prompt also holds alpha's answer).
    await set_budget(client, await my_user_id(client), daily_usd=spent + first_call)
    session_id = await new_session(client, room_id)
    calls_before = len(scripted.calls())

    events = await stream_turn(client, session_id, {"message": "hi"})

    by_type = {data["type"]: data for _, data in events}
    assert by_type["agent_completed"]["agent_key"] == "alpha"
    failed = by_type["agent_failed"]
    assert (failed["agent_key"], failed["code"]) == ("beta", "budget_exceeded")
    assert "spending limit" in failed["error"]
    done = by_type["turn_completed"]
    assert (done["status"], done["error_code"]) == ("partial", "budget_exceeded")
    assert len(scripted.calls()) == calls_before + 1  # beta's call never went out
    detail = (await client.get(f"/v1/turns/{done['turn_id']}")).json()
    assert [c["agent_key"] for c in detail["llm_calls"]] == ["alpha"]
    statuses = {m["agent_key"]: (m["status"], m["error_code"]) for m in detail["messages"]}
    assert statuses["beta"] == ("failed", "budget_exceeded")


async def test_the_ledger_settles_to_the_recorded_cost(client: httpx.AsyncClient) -> None:
    user_id = await my_user_id(client)
    room_id = await metered_room(client, ["solo"])
    await set_budget(client, user_id, daily_usd=50.0, monthly_usd=500.0)
    costs = [(await turn(client, await new_session(client, room_id)))["usage"]["cost_usd"]]
    costs.append((await turn(client, await new_session(client, room_id)))["usage"]["cost_usd"])
    listed = (await client.get(f"/v1/admin/users/{user_id}/budgets")).json()["items"]
    spend = {s["period"]: s for s in listed[0]["spend"]}
    for period in ("day", "month"):
        assert spend[period]["spent_usd"] == pytest.approx(sum(costs))
        assert spend[period]["reserved_usd"] == 0


async def test_a_room_budget_limits_only_that_room(client: httpx.AsyncClient) -> None:
    user_id = await my_user_id(client)
    limited = await metered_room(client, ["solo"])
    other = await metered_room(client, ["other"])
    cost = (await turn(client, await new_session(client, limited)))["usage"]["cost_usd"]
    await set_budget(client, user_id, room_id=limited, daily_usd=cost)
    refused = await client.post(
        f"/v1/sessions/{await new_session(client, limited)}/turns", json={"message": "x"}
    )
    assert refused.status_code == 402
    assert refused.json()["room_id"] == limited
    assert f"in room {limited}" in refused.json()["detail"]
    assert (await turn(client, await new_session(client, other)))["status"] == "completed"


async def test_a_turn_is_refused_on_its_counters_figure(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Once a window has a counter, a new turn checks the counter, not the recorded calls:
    settled calls of turns not recorded yet (running, or on another replica) count too."""
    user_id = await my_user_id(client)
    room_id = await metered_room(client, ["solo"])
    cost = (await turn(client, await new_session(client, room_id)))["usage"]["cost_usd"]
    await set_budget(client, user_id, daily_usd=10 * cost, monthly_usd=100.0)
    await turn(client, await new_session(client, room_id))  # opens the counters
    db: Database = app.state.services.db
    async with unit_of_work(db, write=True) as session:  # settled calls not recorded yet
        day = SpendCounter.period == "day"
        await session.execute(
            update(SpendCounter).where(day).values(spent_micros=to_micros(10 * cost))
        )

    refused = await client.post(
        f"/v1/sessions/{await new_session(client, room_id)}/turns", json={"message": "hi"}
    )

    assert refused.status_code == 402, refused.text
    body = refused.json()
    assert (body["period"], body["spent_usd"]) == ("day", pytest.approx(10 * cost, rel=1e-3))
