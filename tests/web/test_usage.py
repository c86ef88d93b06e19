"""The usage dialogs: what a session and a room cost, by agent, model and turn."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def test_session_and_room_usage_dialogs(page: Page, server: LiveServer) -> None:
    made = server.room_with("Ledger", ["ann", "ben"], mode="roundtable")
    room_id, session_id = made["room"]["id"], made["session"]["id"]
    for message in ("first question", "second question"):
        server.api("POST", f"/v1/sessions/{session_id}/turns", {"message": message})
    page.goto(f"/#/rooms/{room_id}/sessions/{session_id}")
    expect(page.locator(".turn")).to_have_count(2)

    page.get_by_role("button", name="Session actions").click()
    page.get_by_role("menuitem", name="Usage…").click()
    dialog = page.locator("dialog.usage-dialog")
    expect(dialog.locator(".usage-total")).to_contain_text("4 LLM calls in 2 turns")
    by_agent = dialog.get_by_role("table", name="By agent")
    expect(by_agent.locator("tbody tr")).to_have_count(2)
    expect(by_agent.locator("tbody th")).to_have_text(["ann", "ben"])
    expect(dialog.get_by_role("table", name="By model").locator("tbody th")).to_have_text(
        ["scripted"]
    )
    by_turn = dialog.get_by_role("table", name="By turn")
    expect(by_turn.locator("tbody th").first).to_contain_text("second question")
    expect(dialog.locator(".usage-costliest")).to_contain_text("Costliest turn")
    screenshot(page, "desktop-session-usage")
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_have_count(0)

    other = server.api("POST", f"/v1/rooms/{room_id}/sessions", {"title": "Other"})
    server.api("POST", f"/v1/sessions/{other['id']}/turns", {"message": "third"})
    page.get_by_role("button", name="Room actions").click()
    page.get_by_role("menuitem", name="Room usage…").click()
    expect(page.locator("dialog.usage-dialog .usage-total")).to_contain_text(
        "6 LLM calls in 3 turns"
    )


def test_a_spent_budget_is_explained_when_sending(page: Page, server: LiveServer) -> None:
    made = server.room_with("Capped", ["cap"], mode="roundtable")
    # A $0 budget refuses only turns that may spend: the agent runs on a priced model.
    (cap,) = [a for a in server.api("GET", "/v1/agents")["items"] if a["key"] == "cap"]
    server.api("PATCH", f"/v1/agents/{cap['id']}", {"model": "metered"})
    user_id = server.api("GET", "/v1/admin/users")["items"][0]["id"]
    budgets = f"/v1/admin/users/{user_id}/budgets"
    server.api("PUT", budgets, {"daily_usd": 0})  # nothing may be spent today
    try:
        page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
        page.get_by_label("Message").fill("anything")
        page.get_by_label("Message").press("Enter")
        notice = page.locator(".turn").last
        expect(notice).to_contain_text("Could not start the turn: Spending limit reached.")
        expect(notice).to_contain_text("The daily budget of $0.00 is spent")
        expect(notice).to_contain_text("00:00 UTC")
    finally:
        server.api("DELETE", budgets)
    assert server.scripted.calls() == []
