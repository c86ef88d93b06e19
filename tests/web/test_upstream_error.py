"""An upstream that answers 500 is worded as a server error, not as "could not be
reached" (issue 24): the page shows the sentence the server serves for its code."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from pantheon.llm.errors import Unavailable, UpstreamError
from pantheon.settings import LLMSettings
from tests.web.conftest import WAIT_MS, screenshot
from tests.web.server import LiveServer, running_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Quick retries, so a failing upstream fails in well under a second."""
    quick = LLMSettings(max_attempts=2, backoff_base_s=0.01, backoff_max_s=0.02)
    with running_server(tmp_path_factory.mktemp("web"), llm=quick) as live:
        yield live


def test_an_upstream_500_reads_as_a_server_error(page: Page, server: LiveServer) -> None:
    made = server.room_with("Fivehundred", ["broken", "gone"], mode="roundtable")
    server.scripted.script(error=UpstreamError("upstream returned 500: boom"), agent="broken")
    server.scripted.script(error=Unavailable("cannot connect"), agent="gone")
    page.goto(f"/#/rooms/{made['room']['id']}/sessions/{made['session']['id']}")
    box = page.get_by_label("Message")
    box.fill("Hello?")
    box.press("Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_attribute("data-status", "failed", timeout=WAIT_MS)
    broken = turn.locator(".panel[data-agent='broken'] .panel-foot")
    expect(broken).to_contain_text("answered with a server error")
    expect(broken).not_to_contain_text("could not be reached")
    expect(turn.locator(".panel[data-agent='gone'] .panel-foot")).to_contain_text(
        "could not be reached"
    )
    screenshot(page, "desktop-upstream-500")
