"""Managing rooms, rosters, agents and standalone sessions through the page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def test_room_rename_mode_roster_order_and_delete(page: Page, server: LiveServer) -> None:
    made = server.room_with("Draft", ["m1", "m2", "m3"], mode="roundtable")
    room_id = made["room"]["id"]
    page.goto(f"/#/rooms/{room_id}")
    expect(page.locator(".view-title")).to_have_text("Draft")

    page.get_by_role("button", name="Room actions").click()
    page.get_by_role("menuitem", name="Edit room…").click()
    dialog = page.locator("dialog[open]")
    dialog.get_by_label("Name").fill("Final")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".view-title")).to_have_text("Final")
    expect(page.locator("#sidebar")).to_contain_text("Final")

    page.get_by_label("Room default mode").select_option("manual")
    expect(page.locator("#sidebar")).to_contain_text("manual · 3 agents")
    assert server.api("GET", f"/v1/rooms/{room_id}")["mode"] == "manual"

    page.get_by_role("button", name="Roster (3)").click()
    roster = page.locator("dialog.roster-dialog")
    roster.get_by_role("button", name="Move M3 up").click()
    expect(roster.locator(".roster-item").nth(1)).to_have_attribute("data-key", "m3")
    roster.get_by_role("button", name="Remove M1").click()
    expect(roster.locator(".roster-item")).to_have_count(2)
    roster.get_by_label("Position").select_option(label="at position 1 (before M3)")
    roster.get_by_role("button", name="Add", exact=True).click()
    expect(roster.locator(".roster-item")).to_have_count(3)
    roster.get_by_role("button", name="Done").click()
    expect(page.locator(".roster-inline")).to_have_text("@m1 → @m3 → @m2")
    keys = [a["key"] for a in server.api("GET", f"/v1/rooms/{room_id}")["agents"]]
    assert keys == ["m1", "m3", "m2"]

    page.get_by_role("button", name="+ New session").click()
    expect(page.locator(".empty")).to_contain_text("mention agents by key")
    expect(page.get_by_label("Message")).to_be_focused()
    expect(page.locator(".session-button")).to_have_text("Sessions (1)")  # no title yet

    page.get_by_role("button", name="Room actions").click()
    page.get_by_role("menuitem", name="Delete room…").click()
    page.locator("dialog[open]").get_by_role("button", name="Delete").click()
    expect(page.get_by_role("heading", name="Welcome to Pantheon")).to_be_visible()
    expect(page.locator("#sidebar")).not_to_contain_text("Final")


def test_agent_edit_and_standalone_session(page: Page, server: LiveServer) -> None:
    agent = server.agent("solo", "Solo")
    page.goto(f"/#/agents/{agent['id']}")
    page.get_by_role("button", name="Agent actions").click()
    page.get_by_role("menuitem", name="Edit agent…").click()
    dialog = page.locator("dialog[open]")
    expect(dialog.get_by_label("Model")).to_have_value("scripted")
    dialog.get_by_label("Name", exact=True).fill("Soloist")
    dialog.get_by_role("button", name="Save").click()
    expect(page.locator(".view-title")).to_contain_text("Soloist")

    box = page.get_by_label("Message")
    box.fill("hello there")
    box.press("Enter")  # no session yet: the first message opens a standalone one
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed")
    expect(turn.locator(".badge.mode")).to_have_text("standalone")
    expect(turn.locator(".panel[data-agent='solo'] .panel-body")).to_contain_text("hello there")
    assert "/sessions/" in page.url

    expect(page.locator(".session-current")).to_have_text("hello there")  # automatic title
    page.reload()
    expect(page.locator(".session-current")).to_have_text("hello there")
    expect(page.locator(".turn")).to_have_count(1)
