"""Twenty turns at once against a budget that affords five: the ledger never overspends.

Each call reserves its maximum cost before it starts, with a conditional UPDATE that is
atomic on SQLite and PostgreSQL. ``metered`` calls cost exactly what they reserve, so the
budget holds five calls and no more; slow replies keep them in flight together, and the
refused turns fail with ``budget_exceeded`` without reaching the model.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.budgets.conftest import metered_room, my_user_id, new_session, set_budget, turn

TURNS = 20
AFFORDABLE = 5


async def test_twenty_concurrent_turns_spend_at_most_the_budget(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    user_id = await my_user_id(client)
    room_id = await metered_room(client, ["solo"])
    cost = (await turn(client, await new_session(client, room_id)))["usage"]["cost_usd"]
    budget = cost * (1 + AFFORDABLE)  # the warm-up turn counts against today's budget
    await set_budget(client, user_id, daily_usd=budget)
    sessions = [await new_session(client, room_id) for _ in range(TURNS)]
    scripted.script("slow and steady", agent="solo", delay_s=0.3)  # calls overlap
    calls_before = len(scripted.calls())

    finished = await asyncio.gather(*(turn(client, s) for s in sessions))

    statuses = sorted(t["status"] for t in finished)
    assert statuses == ["completed"] * AFFORDABLE + ["failed"] * (TURNS - AFFORDABLE)
    for refused in (t for t in finished if t["status"] == "failed"):
        assert refused["error_code"] == "budget_exceeded"
        assert refused["llm_calls"] == []
    assert len(scripted.calls()) - calls_before == AFFORDABLE
    spent = cost + sum(t["usage"]["cost_usd"] for t in finished)
    assert spent <= budget + 1e-9
    listed = (await client.get(f"/v1/admin/users/{user_id}/budgets")).json()["items"]
    day = listed[0]["spend"][0]
    assert day["spent_usd"] == pytest.approx(spent)
    assert day["reserved_usd"] == 0  # every hold was settled
