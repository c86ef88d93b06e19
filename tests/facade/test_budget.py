"""A spent budget refuses a chat completion too: 402 in OpenAI's shape, no LLM call."""

from __future__ import annotations

import httpx
import openai
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.facade.conftest import room_model, user


async def test_a_spent_budget_is_402_insufficient_quota(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")
    me = (await client.get("/v1/admin/users")).json()["items"][0]["id"]
    budget = await client.put(f"/v1/admin/users/{me}/budgets", json={"monthly_usd": 0})
    assert budget.status_code == 200, budget.text

    with pytest.raises(openai.APIStatusError) as raised:
        await oai.chat.completions.create(model=model, messages=[user("hi")])

    assert raised.value.status_code == 402
    error = raised.value.body
    assert isinstance(error, dict)
    assert (error["type"], error["code"]) == ("insufficient_quota", "insufficient_quota")
    assert "monthly budget of $0.00 is spent" in error["message"]
    assert scripted.requests == []
