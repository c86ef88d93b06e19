"""The ledger under the guard: holds all-or-nothing, expiry after a crash, late settles."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.budgets.guard import LedgerGuard
from pantheon.budgets.ledger import Limit
from pantheon.budgets.periods import to_micros
from tests.budgets.conftest import my_user_id, set_budget


async def _spend(client: httpx.AsyncClient, user_id: str) -> dict[str, Any]:
    listed = (await client.get(f"/v1/admin/users/{user_id}/budgets")).json()["items"]
    day: dict[str, Any] = listed[0]["spend"][0]
    return day


async def _guard(
    app: FastAPI, client: httpx.AsyncClient, daily_usd: float, ttl_s: float
) -> tuple[LedgerGuard, str]:
    user_id = await my_user_id(client)
    budget = await set_budget(client, user_id, daily_usd=daily_usd)
    limit = Limit(uuid.UUID(budget["id"]), uuid.UUID(user_id), None, "day", to_micros(daily_usd))
    return LedgerGuard(app.state.services.db, [limit], ttl_s), user_id


async def test_holds_count_until_settled(app: FastAPI, client: httpx.AsyncClient) -> None:
    guard, user_id = await _guard(app, client, daily_usd=1.0, ttl_s=600)
    first = await guard.reserve(0.6)
    assert first is not None
    assert await guard.reserve(0.6) is None  # 0.6 held + 0.6 > 1.0
    held = await _spend(client, user_id)
    assert (held["spent_usd"], held["reserved_usd"]) == (0, pytest.approx(0.6))
    await first.settle(0.25)
    settled = await _spend(client, user_id)
    assert (settled["spent_usd"], settled["reserved_usd"]) == (pytest.approx(0.25), 0)
    assert await guard.reserve(0.75) is not None  # 0.25 + 0.75 fits exactly
    assert await guard.reserve(0.000001) is None


async def test_an_expired_hold_is_released_and_a_late_settle_still_charges(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    crashed, user_id = await _guard(app, client, daily_usd=1.0, ttl_s=0)
    lost = await crashed.reserve(0.8)  # its process "died": never settled in time
    assert lost is not None
    assert (await _spend(client, user_id))["reserved_usd"] == pytest.approx(0.8)

    retry = await crashed.reserve(0.8)  # refused at first; expiry releases the lost hold

    assert retry is not None
    assert (await _spend(client, user_id))["reserved_usd"] == pytest.approx(0.8)
    await retry.settle(0.5)
    await lost.settle(0.3)  # the lost call finished after all: charged, not released twice
    final = await _spend(client, user_id)
    assert (final["spent_usd"], final["reserved_usd"]) == (pytest.approx(0.8), 0)


async def test_a_hold_takes_what_is_left_when_that_covers_the_floor(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    """Less left than a call's maximum is not a refusal while the floor fits: the hold is
    what is left (the engine cuts the call's answer to it)."""
    guard, user_id = await _guard(app, client, daily_usd=1.0, ttl_s=600)
    partial = await guard.reserve(5.0, 0.2)  # the call could cost $5; $1 is left
    assert partial is not None
    assert partial.granted_usd == pytest.approx(1.0)
    assert (await _spend(client, user_id))["reserved_usd"] == pytest.approx(1.0)
    await partial.settle(0.9)
    assert await guard.reserve(5.0, 0.2) is None  # $0.10 left, below the floor
    last = await guard.reserve(5.0, 0.05)
    assert last is not None
    assert last.granted_usd == pytest.approx(0.1)
    await last.settle(0.1)
    assert (await _spend(client, user_id))["spent_usd"] == pytest.approx(1.0)


async def test_a_call_that_costs_nothing_is_never_refused(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    guard, _user_id = await _guard(app, client, daily_usd=0.0, ttl_s=600)
    free = await guard.reserve(0.0)
    assert free is not None
    assert free.granted_usd == 0
    await free.settle(0.0)
    assert await guard.reserve(0.000001) is None
