"""While a turn runs in one chat of the tab, another chat says so and links to it
(issue 24)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.scripts import answer
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def test_another_chat_links_to_the_running_turn(page: Page, server: LiveServer) -> None:
    slow = server.agent("slowest")
    other = server.agent("idle")
    server.scripted.script(answer("slowest", 40), agent="slowest", chunk_delay_s=0.1)
    page.goto(f"/#/agents/{slow['id']}/new")
    box = page.get_by_label("Message")
    box.fill("Take your time")
    box.press("Enter")
    expect(page.locator(".turn").last).to_have_attribute("data-status", "running")
    running_at = page.url
    assert "/sessions/" in running_at

    page.goto(f"/#/agents/{other['id']}/new")
    hint = page.locator(".composer-hint")
    expect(hint).to_contain_text("A turn is running in another chat of this tab.")
    expect(page.get_by_role("button", name="Send")).to_be_disabled()
    screenshot(page, "desktop-running-elsewhere")
    hint.get_by_role("link", name="Open it").click()
    expect(page).to_have_url(running_at)
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    expect(page.locator(".composer-hint-link")).to_have_count(0)
