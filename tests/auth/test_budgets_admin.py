"""Admins set, read and lift budgets; others get 403, unknown ids 404, bad limits 422."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from pantheon.settings import Settings
from tests.auth.conftest import Clients
from tests.auth.test_keys import main_with
from tests.factories import create_room


async def _user_id(clients: Clients, name: str) -> str:
    users = (await clients.root.get("/v1/admin/users")).json()["items"]
    return str(next(u["id"] for u in users if u["name"] == name))


async def test_an_admin_sets_reads_replaces_and_lifts_a_budget(users: Clients) -> None:
    alice = await _user_id(users, "alice")
    url = f"/v1/admin/users/{alice}/budgets"
    created = await users.root.put(url, json={"daily_usd": 2.5, "monthly_usd": 40})
    assert created.status_code == 200, created.text
    body = created.json()
    assert (body["daily_usd"], body["monthly_usd"], body["room_id"]) == (2.5, 40.0, None)
    assert [s["period"] for s in body["spend"]] == ["day", "month"]
    assert body["spend"][0]["spent_usd"] == 0
    assert body["spend"][1]["resets_at"].startswith(_next_month())

    replaced = (await users.root.put(url, json={"monthly_usd": 10})).json()
    assert (replaced["id"], replaced["daily_usd"], replaced["monthly_usd"]) == (
        body["id"], None, 10.0,
    )  # fmt: skip
    assert [s["period"] for s in replaced["spend"]] == ["month"]
    listed = (await users.root.get(url)).json()
    assert [b["id"] for b in listed["items"]] == [body["id"]]

    assert (await users.root.delete(url)).status_code == 204
    assert (await users.root.get(url)).json()["items"] == []
    again = await users.root.delete(url)
    assert again.status_code == 404
    assert "has no budget" in again.json()["detail"]


async def test_a_room_budget_needs_a_room_of_that_user(users: Clients) -> None:
    alice, bob = await _user_id(users, "alice"), await _user_id(users, "bob")
    room_id = (await create_room(users.alice))["id"]
    mine = await users.root.put(
        f"/v1/admin/users/{alice}/budgets", json={"room_id": room_id, "daily_usd": 1}
    )
    assert mine.status_code == 200, mine.text
    assert mine.json()["room_id"] == room_id
    theirs = await users.root.put(
        f"/v1/admin/users/{bob}/budgets", json={"room_id": room_id, "daily_usd": 1}
    )
    assert theirs.status_code == 404
    assert room_id in theirs.json()["detail"]
    lifted = await users.root.delete(f"/v1/admin/users/{alice}/budgets?room_id={room_id}")
    assert lifted.status_code == 204


async def test_budget_routes_refuse_bad_input(users: Clients) -> None:
    alice = await _user_id(users, "alice")
    url = f"/v1/admin/users/{alice}/budgets"
    empty = await users.root.put(url, json={})
    assert empty.status_code == 422
    assert "daily_usd or monthly_usd" in empty.text
    negative = await users.root.put(url, json={"daily_usd": -1})
    assert negative.status_code == 422
    assert "daily_usd" in negative.text
    unknown = await users.root.put(
        "/v1/admin/users/00000000-0000-0000-0000-000000000000/budgets", json={"daily_usd": 1}
    )
    assert unknown.status_code == 404
    assert "user" in unknown.json()["detail"]


async def test_only_admins_manage_budgets(users: Clients) -> None:
    alice = await _user_id(users, "alice")
    url = f"/v1/admin/users/{alice}/budgets"
    client: httpx.AsyncClient
    for client in (users.alice, users.bob):
        assert (await client.put(url, json={"daily_usd": 100})).status_code == 403
        assert (await client.get(url)).status_code == 403
        assert (await client.delete(url)).status_code == 403
    assert (await users.anon.get(url)).status_code == 401


def _next_month() -> str:
    now = datetime.now(UTC)
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return f"{year:04d}-{month:02d}-01"


async def test_the_cli_sets_shows_and_clears_budgets(
    users: Clients, keys_settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    set_ = ["budgets", "set", "alice", "--daily", "3", "--monthly", "50"]
    assert await main_with(keys_settings, set_) == 0
    assert "all rooms: day $0.00 of $3.00" in capsys.readouterr().out
    alice = await _user_id(users, "alice")
    listed = (await users.root.get(f"/v1/admin/users/{alice}/budgets")).json()["items"]
    assert (listed[0]["daily_usd"], listed[0]["monthly_usd"]) == (3.0, 50.0)
    assert await main_with(keys_settings, ["budgets", "show", "alice"]) == 0
    assert "month $0.00 of $50.00" in capsys.readouterr().out
    assert await main_with(keys_settings, ["budgets", "clear", "alice"]) == 0
    assert await main_with(keys_settings, ["budgets", "show", "alice"]) == 0
    assert "'alice' has no budget" in capsys.readouterr().out
    assert await main_with(keys_settings, ["budgets", "set", "alice"]) == 1
    assert "daily_usd or monthly_usd" in capsys.readouterr().err
    assert await main_with(keys_settings, ["budgets", "set", "nobody", "--daily", "1"]) == 1
    assert "no user named 'nobody'" in capsys.readouterr().err
