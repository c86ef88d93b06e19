"""The user's own words are shown as typed: no Markdown, line breaks kept, live and after a
reload (issue 24)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

TYPED = "What is 2*3 and 4*5? Use `code` please.\n  - not a list\n# not a heading"


def test_user_text_is_shown_exactly_as_typed(page: Page, server: LiveServer) -> None:
    agent = server.agent("literal")
    server.scripted.script("Six and twenty.", agent="literal")
    page.goto(f"/#/agents/{agent['id']}/new")
    box = page.get_by_label("Message")
    box.fill(TYPED)
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed", timeout=WAIT_MS)
    for _ in range(2):  # live, then rebuilt from history
        bubble = page.locator(".msg-user").last
        assert bubble.evaluate("(el) => el.innerText") == TYPED
        expect(bubble.locator("em, strong, code, ul, li, h1, h3, p")).to_have_count(0)
        screenshot(page, "desktop-user-text")
        page.reload()
        expect(page.locator(".turn").last).to_have_attribute("data-status", "completed")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "phone-user-text")
