"""While a turn runs in one chat of the tab, another chat can run its own turn and links
to the running one (issue 24: one running turn used to disable Send everywhere)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.scripts import answer
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser


def test_another_chat_links_to_the_running_turn_and_can_send(
    page: Page, server: LiveServer
) -> None:
    slow = server.agent("slowest")
    other = server.agent("idle")
    server.scripted.script(answer("slowest", 40), agent="slowest", chunk_delay_s=0.2)
    page.goto(f"/#/agents/{slow['id']}/new")
    box = page.get_by_label("Message")
    box.fill("Take your time")
    box.press("Enter")
    expect(page.locator(".turn").last).to_have_attribute("data-status", "running")
    running_at = page.url
    assert "/sessions/" in running_at

    page.goto(f"/#/agents/{other['id']}/new")
    hint = page.locator(".composer-hint")
    expect(hint).to_contain_text("A turn is running in another chat of this tab")
    screenshot(page, "desktop-running-elsewhere")
    box.fill("Meanwhile, here")
    expect(page.get_by_role("button", name="Send")).to_be_enabled()
    box.press("Enter")
    mine = page.locator(".turn").last
    expect(mine).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    expect(mine).to_contain_text("idle: Meanwhile, here")
    hint.get_by_role("link", name="Open the running one").click()
    expect(page).to_have_url(running_at)
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    expect(page.locator(".composer-hint-link")).to_have_count(0)
