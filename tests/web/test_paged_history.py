"""Opening a long session costs one request for its history (issue 24: a 28-turn session
used to open with 61, events and figures per turn); older turns come a page at a time when
the reader scrolls up to them, or on a click after a failed try."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Request, Route, expect

from tests.web.conftest import screenshot
from tests.web.server import LiveServer
from tests.web.views import VIEWS, Theme, viewed

pytestmark = pytest.mark.browser
TURNS = 28


def _history_request(request: Request) -> bool:
    path = request.url.split("?")[0]
    return path.endswith("/history") or "/v1/turns/" in path or path.endswith("/turns")


@pytest.fixture(scope="module")
def long_session(server: LiveServer) -> str:
    """An agent's session of ``TURNS`` turns (made once: turns are rate-limited)."""
    agent = server.agent("pager")
    session = server.api("POST", f"/v1/agents/{agent['id']}/sessions", {"title": "Long"})
    for n in range(TURNS):
        server.api("POST", f"/v1/sessions/{session['id']}/turns", {"message": f"m{n}"})
    return f"/#/agents/{agent['id']}/sessions/{session['id']}"


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_a_long_session_opens_in_one_request_and_pages_back(
    browser: Browser, server: LiveServer, long_session: str, size: str, theme: Theme
) -> None:
    with viewed(browser, server, size, theme) as page:
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url) if _history_request(r) else None)
        page.goto(long_session)
        turns = page.locator(".turn")
        expect(turns.last.locator(".msg-user")).to_have_text(f"m{TURNS - 1}")
        expect(turns.last.locator(".usage-calls")).to_be_visible()  # figures came along
        earlier = page.get_by_role("button", name="Load earlier turns")
        expect(turns).to_have_count(20)
        assert len(requests) == 1, requests
        screenshot(page, f"{size}-{theme}-history-paged")

        # Scrolling up to the button loads the older page; that first try fails here, the
        # button says so and a click tries again.
        tries: list[str] = []

        def fail_the_first_try(route: Route) -> None:
            tries.append(route.request.url)
            if len(tries) == 1:
                route.abort()
            else:
                route.continue_()

        page.route(re.compile(r"/history\?.*before="), fail_the_first_try)
        earlier.scroll_into_view_if_needed()
        expect(earlier).to_contain_text("the last try failed")
        expect(turns).to_have_count(20)
        earlier.click()
        expect(turns).to_have_count(TURNS)
        expect(turns.first.locator(".msg-user")).to_have_text("m0")
        expect(turns.nth(8).locator(".msg-user")).to_have_text("m8")
        expect(earlier).to_have_count(0)
        assert len(tries) == 2, tries
        assert len(requests) == 3, requests  # the first page, the failed try, the retry
        assert all("/history" in url for url in requests), requests
