"""Budgets through the facade: a spent budget, before the turn or in the middle of it, is
402 ``insufficient_quota`` in OpenAI's shape (the SDKs retry 408, 409, 429 and 5xx, so a
5xx here would run the turn again); a $0 budget does not stop a model without prices."""

from __future__ import annotations

from pathlib import Path

import httpx
import openai
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.budgets.conftest import METERED_TOML, metered_room, my_user_id, set_budget
from tests.facade.conftest import collect, room_model, user


@pytest.fixture
def settings(settings: Settings, tmp_path: Path) -> Settings:
    models_file = tmp_path / "models.toml"
    models_file.write_text(METERED_TOML)
    return settings.model_copy(update={"models_file": models_file})


async def test_a_spent_budget_is_402_insufficient_quota(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = f"room-{await metered_room(client, ['alpha'], mode='roundtable')}"
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


async def test_a_budget_that_runs_out_mid_turn_is_402_and_not_retried(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    """One micro-dollar left passes the check before the turn, then no call fits."""
    room_id = await metered_room(client, ["alpha"], mode="roundtable")
    await set_budget(client, await my_user_id(client), daily_usd=0.000001)
    retrying = oai.with_options(max_retries=2)  # the SDK's default

    with pytest.raises(openai.APIStatusError) as raised:
        await retrying.chat.completions.create(model=f"room-{room_id}", messages=[user("hi")])

    assert raised.value.status_code == 402
    error = raised.value.body
    assert isinstance(error, dict)
    assert (error["type"], error["code"]) == ("insufficient_quota", "insufficient_quota")
    assert "spend limit" in error["message"]
    assert scripted.requests == []
    sessions = (await client.get(f"/v1/rooms/{room_id}/sessions")).json()
    assert sessions["total"] == 1  # one turn: the SDK did not retry


async def test_a_budget_that_runs_out_mid_stream_ends_with_an_insufficient_quota_error(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = f"room-{await metered_room(client, ['alpha'], mode='roundtable')}"
    await set_budget(client, await my_user_id(client), daily_usd=0.000001)
    stream = await oai.chat.completions.create(model=model, messages=[user("hi")], stream=True)
    with pytest.raises(openai.APIError) as raised:
        await collect(stream)
    assert raised.value.code == "insufficient_quota"
    assert "spend limit" in raised.value.message
    assert scripted.requests == []


async def test_a_zero_budget_does_not_stop_a_model_without_prices(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")  # the unpriced default alias
    await set_budget(client, await my_user_id(client), daily_usd=0, monthly_usd=0)
    answer = await oai.chat.completions.create(model=model, messages=[user("hi")])
    assert answer.choices[0].message.content
    assert len(scripted.requests) == 1
