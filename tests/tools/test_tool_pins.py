"""Pinned MCP tools (ADR 0045) through the HTTP API, against a real stdio MCP server whose
tool list the tests rewrite: first sight pins, a changed description or schema and a
rename are quarantined (not offered, calls refused with why), an admin accepts."""

from __future__ import annotations

from pathlib import Path

from pantheon.engine.tooling import ToolScope
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.tools.toolbox import ToolBox
from tests.app_factory import AppWith
from tests.auth.conftest import client_for, make_user
from tests.tools.pin_helpers import (
    LOOKUP,
    POISONED,
    REFUND,
    pin_app,
    pinned_hash,
    pins,
    shop_turn,
    shopper,
    tools_by_name,
)

SCOPE = ToolScope(owner_id="u", turn_id="t", agent_id="a", agent_key="k", room_id=None)


async def test_first_sight_pins_every_tool(app_with: AppWith, tmp_path: Path) -> None:
    async with pin_app(app_with, tmp_path) as (running, _server):
        tools = await tools_by_name(running.http)
        for name in ("shop.lookup", "shop.refund"):
            assert (tools[name]["available"], tools[name]["definition_changed"]) == (True, False)
        first = await pins(running.http)
        assert [(p["name"], p["status"], p["change"]) for p in first] == [
            ("shop.lookup", "pinned", None),
            ("shop.refund", "pinned", None),
        ]
        lookup = first[0]
        assert lookup["definition"] == {
            "name": "lookup",
            "description": LOOKUP["description"],
            "input_schema": LOOKUP["inputSchema"],
        }
        assert lookup["definition_hash"] == pinned_hash(LOOKUP)
        assert (lookup["diff"], lookup["pending_hash"]) == (None, None)
        await tools_by_name(running.http)
        assert await pins(running.http) == first  # listing again changes nothing
        assert await pins(running.http, "quarantined") == []


async def test_a_changed_description_is_quarantined_until_an_admin_accepts_it(
    app_with: AppWith, tmp_path: Path, scripted: ScriptedProvider
) -> None:
    scripted.script(shopper, agent="shopper")
    async with pin_app(app_with, tmp_path) as (running, server):
        http = running.http
        ran = await shop_turn(http)
        assert [(c["name"], c["ok"], c["result"]) for c in ran["tool_calls"]] == [
            ("shop__lookup", True, "lookup ran")
        ]
        server.set([{**LOOKUP, "description": POISONED}, REFUND])
        tools = await tools_by_name(http)
        assert (tools["shop.lookup"]["available"], tools["shop.lookup"]["definition_changed"]) == (
            False,
            True,
        )
        assert tools["shop.refund"]["available"] is True
        (held,) = await pins(http, "quarantined")
        assert (held["name"], held["change"], held["renamed_from"]) == (
            "shop.lookup",
            "changed",
            None,
        )
        assert held["diff"]["changed"] == ["description"]
        assert held["diff"]["old"]["description"] == LOOKUP["description"]
        assert held["diff"]["new"]["description"] == POISONED
        assert held["definition"]["description"] == LOOKUP["description"]  # still the pin

        refused = await shop_turn(http)
        offered = {t.name for t in scripted.requests[-1].request.tools}
        assert "shop__lookup" not in offered
        assert "shop__refund" in offered
        (call,) = refused["tool_calls"]
        assert call["ok"] is False
        assert "shop.lookup is quarantined" in call["result"]
        assert "definition changed since it was pinned" in call["result"]
        assert "until an admin accepts it" in call["result"]
        assert "lookup ran" not in str(refused)
        # A call that reaches the runner anyway (the listing changed between offering and
        # calling) is refused with the reason too, never run.
        toolbox: ToolBox = running.app.state.services.tools
        direct = await toolbox.call("shop__lookup", {"order_id": "7"}, SCOPE)
        assert direct.ok is False
        assert "shop.lookup is quarantined" in direct.content
        assert "definition changed since it was pinned" in direct.content
        assert held["id"] in direct.content

        url = f"/v1/admin/tools/pins/{held['id']}/accept"
        accepted = await http.post(url, json={"pending_hash": held["pending_hash"]})
        assert accepted.status_code == 200, accepted.text
        body = accepted.json()
        assert (body["status"], body["diff"], body["change"]) == ("pinned", None, None)
        assert body["definition"]["description"] == POISONED
        assert body["definition_hash"] == held["pending_hash"]
        assert body["accepted_by"] is not None
        assert body["accepted_at"] is not None
        assert (await tools_by_name(http))["shop.lookup"]["available"] is True
        again = await shop_turn(http)
        assert [c["result"] for c in again["tool_calls"]] == ["lookup ran"]
        twice = await http.post(url)
        assert twice.status_code == 409
        assert twice.json()["code"] == "conflict"
        assert "shop.lookup is not quarantined" in twice.json()["detail"]


async def test_a_changed_schema_is_quarantined_and_released_when_it_goes_back(
    app_with: AppWith, tmp_path: Path
) -> None:
    async with pin_app(app_with, tmp_path) as (running, server):
        await tools_by_name(running.http)
        wider = {"type": "object", "properties": {"order_id": {}, "amount": {"type": "number"}}}
        server.set([LOOKUP, {**REFUND, "inputSchema": wider}])
        tools = await tools_by_name(running.http)
        assert (tools["shop.refund"]["available"], tools["shop.refund"]["definition_changed"]) == (
            False,
            True,
        )
        assert tools["shop.refund"]["parameters"] == wider  # what the server lists now
        (held,) = await pins(running.http, "quarantined")
        assert held["diff"]["changed"] == ["input_schema"]
        assert (held["diff"]["old"]["input_schema"], held["diff"]["new"]["input_schema"]) == (
            REFUND["inputSchema"],
            wider,
        )
        server.set([LOOKUP, REFUND])  # the server goes back to what was pinned
        assert (await tools_by_name(running.http))["shop.refund"]["available"] is True
        assert await pins(running.http, "quarantined") == []


async def test_a_rename_with_the_same_content_is_caught(app_with: AppWith, tmp_path: Path) -> None:
    async with pin_app(app_with, tmp_path) as (running, server):
        await tools_by_name(running.http)
        other = {
            "name": "track",
            "description": "Track a parcel.",
            "inputSchema": {"type": "object"},
        }
        server.set([{**LOOKUP, "name": "find_order"}, REFUND, other])
        tools = await tools_by_name(running.http)
        assert "shop.lookup" not in tools
        assert tools["shop.find_order"]["available"] is False
        assert tools["shop.find_order"]["definition_changed"] is True
        assert tools["shop.track"]["available"] is True  # new content: pinned on first sight
        (held,) = await pins(running.http, "quarantined")
        assert (held["name"], held["change"], held["renamed_from"]) == (
            "shop.find_order",
            "renamed",
            "lookup",
        )
        assert held["definition"] is None  # nothing accepted under this name yet
        assert held["diff"]["changed"] == ["name"]
        assert held["diff"]["old"]["name"] == "lookup"
        assert held["pending_hash"] == pinned_hash({**LOOKUP, "name": "find_order"})


async def test_a_copy_beside_the_original_is_caught_too(app_with: AppWith, tmp_path: Path) -> None:
    async with pin_app(app_with, tmp_path) as (running, server):
        await tools_by_name(running.http)
        server.set([LOOKUP, REFUND, {**REFUND, "name": "refund_all"}])
        tools = await tools_by_name(running.http)
        assert tools["shop.refund"]["available"] is True
        assert tools["shop.refund_all"]["definition_changed"] is True
        (held,) = await pins(running.http, "quarantined")
        assert (held["tool"], held["renamed_from"]) == ("refund_all", "refund")
        accepted = await running.http.post(f"/v1/admin/tools/pins/{held['id']}/accept")
        assert accepted.status_code == 200
        assert accepted.json()["definition"]["name"] == "refund_all"
        assert (await tools_by_name(running.http))["shop.refund_all"]["available"] is True


async def test_accept_refuses_unknown_pins_and_stale_reviews(
    app_with: AppWith, tmp_path: Path
) -> None:
    async with pin_app(app_with, tmp_path) as (running, server):
        http = running.http
        await tools_by_name(http)
        for bad in ("00000000-0000-0000-0000-000000000000", "not-an-id"):
            missing = await http.post(f"/v1/admin/tools/pins/{bad}/accept")
            assert missing.status_code == 404
            assert missing.json() == {"detail": f"tool pin {bad} not found", "code": "not_found"}
        server.set([{**LOOKUP, "description": POISONED}, REFUND])
        await tools_by_name(http)
        (held,) = await pins(http, "quarantined")
        server.set([{**LOOKUP, "description": POISONED + " Now."}, REFUND])
        await tools_by_name(http)
        url = f"/v1/admin/tools/pins/{held['id']}/accept"
        stale = await http.post(url, json={"pending_hash": held["pending_hash"]})
        assert stale.status_code == 409
        assert "changed again since that definition was reviewed" in stale.json()["detail"]
        (now,) = await pins(http, "quarantined")
        assert now["diff"]["old"]["description"] == LOOKUP["description"]  # still vs the pin
        bad_status = await http.get("/v1/admin/tools/pins", params={"status": "maybe"})
        assert bad_status.status_code == 422


async def test_only_admins_see_and_accept_pins(app_with: AppWith, tmp_path: Path) -> None:
    async with pin_app(app_with, tmp_path, auth_mode="keys") as (running, server):
        db = running.app.state.services.db
        member = client_for(running.app, await make_user(db, "member"))
        admin = client_for(running.app, await make_user(db, "boss", admin=True))
        async with member, admin:
            await tools_by_name(member)  # any caller's listing pins
            server.set([{**LOOKUP, "description": POISONED}, REFUND])
            assert (await tools_by_name(member))["shop.lookup"]["definition_changed"] is True
            (held,) = await pins(admin, "quarantined")
            url = f"/v1/admin/tools/pins/{held['id']}/accept"
            for response in (
                await member.get("/v1/admin/tools/pins"),
                await member.post(url),
            ):
                assert response.status_code == 403
                assert "admin" in response.json()["detail"]
            assert (await running.http.get("/v1/admin/tools/pins")).status_code == 401
            assert (await admin.post(url)).status_code == 200
