"""A share link's page (/share/<token>, docs/adr/0042) opened by someone signed out: the
conversation as it was when shared, rendered by the page's Markdown and KaTeX renderers,
at each width and theme; a revoked link's page says so."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.web.conftest import screenshot
from tests.web.server import LiveServer
from tests.web.views import VIEWS, Theme, viewed

pytestmark = pytest.mark.browser

ANSWER = "Go to **Lisbon** in May.\n\n- trams\n- tiles\n\nThe bill: $a^2 + b^2$."


def _shared_chat(server: LiveServer, key: str) -> tuple[str, str]:
    """A session with one answered turn, shared, then one more turn; (session id, url)."""
    agent = server.agent(key, "Alpha")
    session = server.api("POST", f"/v1/agents/{agent['id']}/sessions", {"title": "Trip plans"})
    server.scripted.script(ANSWER, agent=key, times=1)
    server.api("POST", f"/v1/sessions/{session['id']}/turns", {"message": "Where to in May?"})
    url: str = server.api("POST", f"/v1/sessions/{session['id']}/share")["url"]
    server.api("POST", f"/v1/sessions/{session['id']}/turns", {"message": "said after sharing"})
    return session["id"], url


@pytest.mark.parametrize(("size", "theme"), VIEWS)
def test_a_shared_conversation_reads_signed_out(
    browser: Browser, server: LiveServer, size: str, theme: Theme
) -> None:
    _session_id, url = _shared_chat(server, f"share{size}{theme}")
    with viewed(browser, server, size, theme) as page:
        failed: list[str] = []
        page.on("requestfailed", lambda r: failed.append(r.url))
        page.goto(url)
        expect(page.get_by_role("heading", level=1)).to_have_text("Trip plans")
        expect(page.locator(".share-note")).to_contain_text("1 turn · read-only")
        expect(page.locator(".turn")).to_have_count(1)  # the later turn is not shared
        expect(page.locator(".msg-user")).to_have_text("Where to in May?")
        panel = page.locator(".panel")
        expect(panel.locator(".panel-name")).to_have_text("Alpha")
        body = panel.locator(".panel-body")
        expect(body.locator("strong")).to_have_text("Lisbon")
        expect(body.locator("li")).to_have_count(2)
        expect(body.locator(".math .katex")).to_have_count(1)
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        assert page.title() == "Trip plans · Pantheon"
        # Nothing to do but read: no composer, no sidebar, no buttons but code copies.
        expect(page.locator("textarea, #sidebar, form")).to_have_count(0)
        # Nothing wider than the screen (a phone scrolls down, never sideways).
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert page.context.cookies() == []
        assert failed == []
        screenshot(page, f"{size}-{theme}-share")


def test_a_revoked_link_shows_link_not_found(browser: Browser, server: LiveServer) -> None:
    session_id, url = _shared_chat(server, "sharerevoked")
    server.api("DELETE", f"/v1/sessions/{session_id}/share")
    with viewed(browser, server, "desktop", "light") as page:
        response = page.goto(url)
        assert response is not None
        assert response.status == 404
        expect(page.get_by_role("heading", level=1)).to_have_text("Link not found")
        expect(page.locator(".turn")).to_have_count(0)
