"""A turn that completed while the server was going away still gets its figures (calls,
latency) once the server answers again (issue 24): the page tries the read again."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Route, expect

from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer

pytestmark = pytest.mark.browser

TURN_DETAIL = re.compile(r"/v1/turns/[0-9a-f-]+$")


def test_figures_come_once_the_server_answers_again(page: Page, server: LiveServer) -> None:
    agent = server.agent("counted")
    server.scripted.script("Done.", agent="counted")
    refused: list[str] = []

    def down_twice(route: Route) -> None:
        if route.request.method == "GET" and len(refused) < 2:
            refused.append(route.request.url)
            route.abort("connectionrefused")  # as while the server is stopping
        else:
            route.continue_()

    page.route(TURN_DETAIL, down_twice)
    page.goto(f"/#/agents/{agent['id']}/new")
    box = page.get_by_label("Message")
    box.fill("Count me")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "completed")
    expect(turn.locator(".usage-calls")).to_contain_text("1 LLM call", timeout=WAIT_MS)
    expect(turn.locator(".turn-usage")).to_contain_text("latency")
    assert len(refused) == 2
    screenshot(page, "desktop-figures-after-restart")
