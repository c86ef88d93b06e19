"""A first message the server refuses leaves no empty session behind, goes back to the
composer, and its turn offers nothing to edit or regenerate; a too-long one is not even
sent (issue 24)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

TOO_LONG = "x" * 32_001  # the server's default limit is 32,000 characters
UNMENTIONED = "Anyone there?"  # a manual room needs an @mention: the server refuses it


def test_a_too_long_first_message_is_not_sent(page: Page, server: LiveServer) -> None:
    agent = server.agent("longer")
    page.goto(f"/#/agents/{agent['id']}/new")
    box = page.get_by_label("Message")
    box.fill(TOO_LONG)
    box.press("Enter")
    expect(page.locator(".composer-too-long")).to_be_visible()
    expect(page.locator(".turn")).to_have_count(0)
    expect(box).to_have_value(TOO_LONG)
    assert server.api("GET", f"/v1/agents/{agent['id']}/sessions")["items"] == []


def test_refused_first_message_leaves_no_session(page: Page, server: LiveServer) -> None:
    made = server.room_with("Refusing", ["refuser"], mode="manual")
    room_id = made["room"]["id"]
    server.api("DELETE", f"/v1/sessions/{made['session']['id']}")
    page.goto(f"/#/rooms/{room_id}/new")
    box = page.get_by_label("Message")
    box.fill(UNMENTIONED)
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "error")
    expect(turn.locator(".turn-notice")).to_contain_text("Could not start the turn")
    expect(turn.get_by_role("button", name="Regenerate")).to_have_count(0)
    expect(turn.get_by_role("button", name="Edit")).to_have_count(0)
    expect(box).to_have_value(UNMENTIONED)  # back in the composer
    expect(page).to_have_url(f"{server.url}/#/rooms/{room_id}/new")
    screenshot(page, "desktop-refused-first-message")
    assert server.api("GET", f"/v1/rooms/{room_id}/sessions")["items"] == []

    page.goto("/#/")  # away and back: still nothing to open
    page.goto(f"/#/rooms/{room_id}")
    expect(page.get_by_label("Message")).to_be_visible()
    expect(page.locator(".turn")).to_have_count(0)
    assert server.api("GET", f"/v1/rooms/{room_id}/sessions")["items"] == []
